// The two ways the conformance server seals and reads MRTR requestState, both
// behind the SDK's `requestState.verify` seam (which answers a failed verify
// with -32602 before a tool runs, and hands the tool the opened payload).
// Each is { serverOptions, mint(payload, tool, ctx), onerror(error), reasons }:
// the server's tools call only these, so every codec runs the same tools.

/** A codec with the SDK's shape (`createRequestStateCodec`, the SDK's or ours). */
export function viaVerifySeam(codec) {
  const reasons = [];
  return {
    reasons,
    serverOptions: { requestState: { verify: codec.verify } },
    mint: (payload, _tool, ctx) => codec.mint(payload, ctx),
    // The seam passes the codec's reason code (its message) to onerror only.
    onerror: (e) => reasons.push(e.message),
  };
}

/**
 * Our `StateCodec` with purpose-bound tokens: a token opens only for the tool
 * it was sealed for, which the seam reads from the request's `Mcp-Name`
 * header (the SDK's HTTP entry refuses a request whose header and body name
 * differ, before any of this runs).
 */
export function viaStateCodec(codec, SealedStateError) {
  const reasons = [];
  const verify = (state, ctx) => {
    try {
      return codec.openRequestState(state, toolName(ctx));
    } catch (e) {
      if (e instanceof SealedStateError) reasons.push(e.reason);
      throw e;
    }
  };
  return {
    reasons,
    serverOptions: { requestState: { verify } },
    mint: async (payload, tool) => codec.sealRequestState(payload, tool),
    onerror: () => {},
  };
}

// SEP-2243: a name that is not plain ASCII travels as =?base64?...?=.
function toolName(ctx) {
  const header = ctx.http?.req?.headers.get("mcp-name") ?? "";
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(header);
  return sentinel ? Buffer.from(sentinel[1], "base64").toString("utf8") : header;
}
