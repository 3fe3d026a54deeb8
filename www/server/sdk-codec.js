// The demo server on @modelcontextprotocol/server's own createRequestStateCodec
// (STATE_CODEC=sdk), behind the seam app.js uses for StateCodec: `seal` and
// `openWithSecret`. Both codecs write the same v1 token, so an instance on
// either opens the other's: the view purpose is the SDK's raw payload
// `{"p":"v","d":game}`, and the bind tag is the SDK's `bind(ctx)` of the same
// principal.
//
// The SDK's codec has no secret part: a token sealed here carries none (the
// next instance of ours gives the game a new id), and the secret in one of
// ours is an opaque string here, left unread.
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { SealedStateError } from "mcp-sealed-state";

/** STATE_CODEC's value for this codec. */
export const SDK_CODEC = "sdk";

// The view purpose as StateCodec writes it (docs/format.md): a raw token of this shape opens as a view token.
const VIEW_PURPOSE = "v";
const SDK_REASONS = new Set(["malformed", "mac", "expired", "bind"]);

/**
 * `{ seal, openWithSecret }` on the SDK's codec for app.js's config (`key`: one
 * string; `ttlSeconds`). Refusals are SealedStateErrors with the SDK's reason,
 * as StateCodec's are.
 */
export function sdkViewCodec({ key, ttlSeconds }) {
  if (typeof key !== "string") throw new TypeError(`STATE_CODEC=${SDK_CODEC} takes one key string in STATE_KEY (the SDK's codec has no key list and no development key)`);
  const sdk = createRequestStateCodec({ key, ttlSeconds, bind: (ctx) => ctx.principal });
  return {
    seal: (payload, { bind }) => sdk.mint({ p: VIEW_PURPOSE, d: payload }, { principal: bind }),
    async openWithSecret(token, { bind }) {
      let inner;
      try {
        inner = await sdk.verify(token, { principal: bind });
      } catch (error) {
        throw new SealedStateError(SDK_REASONS.has(error?.message) ? error.message : "malformed");
      }
      if (inner === null || typeof inner !== "object" || inner.p !== VIEW_PURPOSE) throw new SealedStateError("purpose");
      return { payload: inner.d, secret: undefined };
    },
  };
}
