// Deno: the wasm comes in as a source-phase import, an already-compiled
// WebAssembly.Module that Deno loads as part of the module graph, so the
// program needs no --allow-read (or any other permission flag).
// js/build.mjs writes one per build (edge, widget), its name filled in.
import source wasm from "../wasm/{{BUILD}}_bg.wasm";
import { initSync } from "../wasm/{{BUILD}}.js";
initSync({ module: wasm });
export * from "./api.js";
