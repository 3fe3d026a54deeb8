// tmcpRequestStateCodec: a codec for tmcp's `requestStateCodec` slot, whose
// default is plain JSON that the client can read and change. tmcp hands
// encode/decode the state alone, but calls both inside its per-request
// context, so the principal (and, to bind them, the call's name and
// arguments) come from callbacks that read that context: `server.ctx.auth`,
// `server.ctx.custom`.
import { StateCodec } from "./state-codec.js";

// The tool name the tokens are sealed for: tmcp's slot is told no tool, so a
// requestState of this codec opens only here, never as another codec's.
const TMCP_PURPOSE = "tmcp";

function callback(value, name) {
  if (value !== undefined && typeof value !== "function") throw new TypeError(`tmcpRequestStateCodec: ${name} must be a function (called in tmcp's request context) or left out`);
  return value;
}

/**
 * `{ encode, decode }` for `new McpServer(info, { requestStateCodec })` of tmcp:
 * sealed, expiring requestState tokens. Options: StateCodec's (key, ttlSeconds,
 * leewaySeconds, maxTokenBytes, production, now), plus `bind()` (the
 * principal, a string) and `request()` (what the state is for, e.g. the
 * call's name and arguments), each called at encode and at decode. A token
 * that fails to open throws SealedStateError, which tmcp answers with -32602.
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
