// Deno: the wasm comes in as a source-phase import, an already-compiled
// WebAssembly.Module that Deno loads as part of the module graph, so the
// program needs no --allow-read (or any other permission flag).
import source wasm from "../wasm/widget_bg.wasm";
import { initSync, readTokenJson } from "../wasm/widget.js";
import { tokenApi } from "./token.js";

initSync({ module: wasm });
const core = { backend: "wasm", read: readTokenJson };
const settled = Promise.resolve(core.backend);

/** Resolves with the backend that serves: "wasm". Optional: it is ready at import. */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
