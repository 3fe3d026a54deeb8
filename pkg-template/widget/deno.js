// @ts-check
// Deno: the wasm comes in as a source-phase import, an already-compiled
// WebAssembly.Module that Deno loads as part of the module graph, so the
// program needs no --allow-read (or any other permission flag).
import source wasm from "../wasm/widget_bg.wasm";
import { initSync } from "../wasm/widget.js";

initSync({ module: wasm });
export * from "./wasm-ready.js";
