// The widget API in the edge entry, read by this build's own wasm (its
// readTokenJson is the widget build's: src/bindings/widget.rs is in both).
import { readTokenJson } from "../wasm/edge.js";
import { tokenApi } from "../widget/token.js";

const core = { backend: "wasm", read: readTokenJson };
const settled = Promise.resolve(core.backend);

/** Resolves with the backend that serves the widget API: "wasm". Optional: it is ready at import. */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "../widget/view-state.js";
