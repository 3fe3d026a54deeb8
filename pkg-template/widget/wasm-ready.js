// @ts-check
// The widget API for entries whose wasm is instantiated synchronously at
// import (workerd, Deno): the wasm serves from the first call. The entry
// calls initSync before anything here is called.
import { readTokenJson } from "../wasm/widget.js";
import { tokenApi } from "./token.js";

/** @type {import("./token.js").Core} */
const core = { backend: "wasm", read: readTokenJson };
const settled = Promise.resolve(core.backend);

/**
 * Resolves with the backend that serves: "wasm". Optional: it is ready at import.
 * @type {() => Promise<import("./token.js").Backend>}
 */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
