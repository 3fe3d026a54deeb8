// @ts-check
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

// The types of the options and results above, for programs that name them.
/** @typedef {import("../common.js").SealedStateReason} SealedStateReason */
/** @typedef {import("./codec-options.js").Key} Key */
/** @typedef {import("./codec-options.js").CodecOptions} CodecOptions */
/** @typedef {import("./codec-options.js").WorkerEnv} WorkerEnv */
/** @typedef {import("./call-arguments.js").BindOptions} BindOptions */
/** @typedef {import("./call-arguments.js").SecretOptions} SecretOptions */
/** @typedef {import("./call-arguments.js").SecretOption} SecretOption */
/** @typedef {import("./call-arguments.js").RequestOptions} RequestOptions */
/** @typedef {import("./call-arguments.js").RequestOption} RequestOption */
/**
 * @template [T=unknown]
 * @template [S=unknown]
 * @typedef {import("./state-codec.js").Opened<T, S>} Opened
 */
/** @typedef {import("./request-state-codec.js").RequestStateCodecError} RequestStateCodecError */
/** @typedef {import("./request-state-codec.js").SdkReason} SdkReason */
/**
 * @template [C=Record<string, any>]
 * @typedef {import("./request-state-codec.js").RequestStateCodecOptions<C>} RequestStateCodecOptions
 */
/**
 * @template [T=unknown]
 * @template [C=Record<string, any>]
 * @typedef {import("./request-state-codec.js").RequestStateCodec<T, C>} RequestStateCodec
 */
/** @typedef {import("./tmcp.js").TmcpRequestStateCodecOptions} TmcpRequestStateCodecOptions */
/** @typedef {import("./tmcp.js").TmcpCallbacks} TmcpCallbacks */
/** @typedef {import("./tmcp.js").TmcpRequestStateCodec} TmcpRequestStateCodec */
