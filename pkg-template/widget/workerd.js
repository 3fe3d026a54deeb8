// @ts-check
// workerd refuses to compile wasm from bytes at run time: the .wasm is
// imported as a module, which the Workers runtime allows.
import wasm from "../wasm/widget_bg.wasm";
import { initSync } from "../wasm/widget.js";

initSync({ module: wasm });
export * from "./wasm-ready.js";
