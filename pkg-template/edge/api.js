// The server API every edge entry exports once its wasm is instantiated: what
// servers call. The reader and the view-state helpers are the widget's
// (mcp-sealed-state/widget), which has its own, smaller wasm.
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
export { StateCodec } from "./state-codec.js";
// The drop-in for @modelcontextprotocol/server's codec.
export { createRequestStateCodec } from "./request-state-codec.js";
// The codec for tmcp's requestStateCodec slot.
export { tmcpRequestStateCodec } from "./tmcp.js";
// The opt-in mirror of the token and the viewUUID into structuredContent.
export { mirrorToStructuredContent } from "./mirror.js";
