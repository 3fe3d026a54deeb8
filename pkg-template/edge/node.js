// Node (ESM): read the .wasm beside this file and compile it synchronously.
import { readFileSync } from "node:fs";
import { initSync } from "../wasm/edge.js";
initSync({ module: readFileSync(new URL("../wasm/edge_bg.wasm", import.meta.url)) });
export * from "./api.js";
