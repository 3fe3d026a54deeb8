// @ts-check
// Browsers: fetch and compile once, behind top-level await.
import init from "../wasm/edge.js";
await init({ module_or_path: new URL("../wasm/edge_bg.wasm", import.meta.url) });
export * from "./api.js";
