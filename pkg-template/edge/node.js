// @ts-check
// Node (ESM): read the .wasm beside this file and compile it synchronously.
// node:fs through process.getBuiltinModule: an ES import of node:fs builds its
// ESM facade, which loads fs's lazy streams (js/bench/RESULTS.md, Decisions).
import { initSync } from "../wasm/edge.js";
const { readFileSync } = process.getBuiltinModule("node:fs");
initSync({ module: readFileSync(new URL("../wasm/edge_bg.wasm", import.meta.url)) });
export * from "./api.js";
