// @ts-check
// Node (ESM): read the .wasm beside this file and compile it synchronously.
// Without WebAssembly (node --jitless) the JS twin serves instead. node:fs
// through process.getBuiltinModule, as in edge/node.js (an ES import of it
// loads fs's streams).
import { initSync, readTokenJson } from "../wasm/widget.js";
import { readTokenJsonJs } from "./read-js.js";
import { tokenApi } from "./token.js";
const { readFileSync } = process.getBuiltinModule("node:fs");

/** @type {import("./token.js").Core} */
const core = { backend: "js", read: readTokenJsonJs };
if (typeof WebAssembly === "object") {
  initSync({ module: readFileSync(new URL("../wasm/widget_bg.wasm", import.meta.url)) });
  core.read = readTokenJson;
  core.backend = "wasm";
}
const settled = Promise.resolve(core.backend);

/**
 * Resolves with the backend that serves: "wasm" or "js". Optional: it is ready at import.
 * @type {() => Promise<import("./token.js").Backend>}
 */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
