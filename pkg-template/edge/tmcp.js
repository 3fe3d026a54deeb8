// @ts-check
// tmcpRequestStateCodec: a codec for tmcp's `requestStateCodec` slot, whose
// default is plain JSON that the client can read and change. tmcp hands
// encode/decode the state alone, but calls both inside its per-request
// context, so the principal (and, to bind them, the call's name and
// arguments) come from callbacks that read that context: `server.ctx.auth`,
// `server.ctx.custom`.
import { StateCodec } from "./state-codec.js";

/**
 * @typedef {object} TmcpCallbacks
 * @property {(() => string | undefined) | undefined} [bind] The principal the state is bound to (a string, or undefined for none), called at encode and at decode. tmcp's slot gets no context, but calls both inside its request: read `server.ctx.auth` or `server.ctx.custom` here.
 * @property {(() => unknown) | undefined} [request] What the state is for, e.g. `{ name, arguments }` of the tool call (pass it as tmcp's custom context): bound by a digest of its RFC 8785 JSON, called at encode and at decode; a retry with other arguments is refused.
 */

/** @typedef {import("./codec-options.js").CodecOptions & TmcpCallbacks} TmcpRequestStateCodecOptions */

/**
 * tmcp's `requestStateCodec` shape. `decode` throws SealedStateError (tmcp answers -32602).
 * @typedef {{ encode(state: unknown): string, decode(encoded: string): unknown }} TmcpRequestStateCodec
 */

// The tool name the tokens are sealed for: tmcp's slot is told no tool, so a
// requestState of this codec opens only here, never as another codec's.
const TMCP_PURPOSE = "tmcp";

/**
 * @param {unknown} value
 * @param {string} name
 */
function callback(value, name) {
  if (value !== undefined && typeof value !== "function") throw new TypeError(`tmcpRequestStateCodec: ${name} must be a function (called in tmcp's request context) or left out`);
  return value;
}

/**
 * A sealed, expiring codec for tmcp's `requestStateCodec` option, in place of
 * its default (plain JSON the client can read and change):
 * `new McpServer(info, { requestStateCodec: tmcpRequestStateCodec({ key }) })`.
 * Throws as `new StateCodec` does (no key in production: a RangeError).
 *
 * `{ encode, decode }` for `new McpServer(info, { requestStateCodec })` of tmcp:
 * sealed, expiring requestState tokens. Options: StateCodec's (key, ttlSeconds,
 * leewaySeconds, maxTokenBytes, production, now), plus `bind()` (the
 * principal, a string) and `request()` (what the state is for, e.g. the
 * call's name and arguments), each called at encode and at decode. A token
 * that fails to open throws SealedStateError, which tmcp answers with -32602.
 *
 * @param {TmcpRequestStateCodecOptions} [options]
 * @returns {TmcpRequestStateCodec}
 */
export function tmcpRequestStateCodec(options = {}) {
  const { bind, request, ...codecOptions } = options;
  callback(bind, "bind");
  callback(request, "request");
  // A missing key in production is refused here, at startup.
  const codec = new StateCodec(codecOptions);
  const context = () => ({ bind: bind?.(), request: request?.() });
  return {
    encode: (state) => codec.sealRequestState(state, TMCP_PURPOSE, context()),
    decode: (encoded) => codec.openRequestState(encoded, TMCP_PURPOSE, context()),
  };
}
