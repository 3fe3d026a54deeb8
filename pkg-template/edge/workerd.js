// @ts-check
// workerd refuses to compile wasm from bytes at run time: import it as a module.
import wasm from "../wasm/edge_bg.wasm";
import { initSync } from "../wasm/edge.js";
initSync({ module: wasm });
export * from "./api.js";
