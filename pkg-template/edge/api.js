// The edge API every edge entry exports once its wasm is instantiated.
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
export { StateCodec } from "./state-codec.js";
// The drop-in for @modelcontextprotocol/server's codec.
export { createRequestStateCodec } from "./request-state-codec.js";
// The codec for tmcp's requestStateCodec slot.
export { tmcpRequestStateCodec } from "./tmcp.js";
// The reader and view-state helpers, read by this build's wasm.
export * from "./widget-api.js";
