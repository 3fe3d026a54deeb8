// The bench's stand-in for mcp-sealed-state in the framework recipes (js/bench/frameworks.mjs):
// the same names, plain JSON instead of sealing, as a server without our codec
// (tmcp's default requestStateCodec) keeps its state. Not for anything else.
export const STATE_META_KEY = "ng-mcp-ui/state";
export const SEALED_STATE_INVALID_MESSAGE = "mcp-sealed-state: sealed state is invalid or expired";
export class SealedStateError extends Error {}

export class StateCodec {
  seal(payload, opts) {
    return JSON.stringify({ payload, secret: opts?.secret });
  }
  openWithSecret(token) {
    return JSON.parse(token);
  }
  sealRequestState(payload) {
    return JSON.stringify(payload);
  }
  openRequestState(token) {
    return JSON.parse(token);
  }
}

export const tmcpRequestStateCodec = () => ({ encode: (state) => JSON.stringify(state), decode: (encoded) => JSON.parse(encoded) });
