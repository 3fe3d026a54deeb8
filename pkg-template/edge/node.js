// Node (ESM): read the .wasm beside this file and compile it synchronously.
// node:fs through process.getBuiltinModule, not `import ... from "node:fs"`:
// an ES import of node:fs builds its ESM facade, which reads every export
// and so loads fs's lazy streams (measured 3.4 ms of a 19 ms cold start).
import { initSync } from "../wasm/edge.js";
const { readFileSync } = process.getBuiltinModule("node:fs");
initSync({ module: readFileSync(new URL("../wasm/edge_bg.wasm", import.meta.url)) });
export * from "./api.js";
