// @ts-check
// Deno: the wasm comes in as a source-phase import, an already-compiled
// WebAssembly.Module that Deno loads as part of the module graph, so the
// program needs no --allow-read (or any other permission flag).
import source wasm from "../wasm/edge_bg.wasm";
import { initSync } from "../wasm/edge.js";
initSync({ module: wasm });
export * from "./api.js";
