// @ts-check
// The StateCodec option that only createRequestStateCodec passes: a module of
// its own so that both state-codec.js and request-state-codec.js import it from below.

/** StateCodec's option for the drop-in alone: mint and verify by the SDK's reading (constants.js IO.SDK). */
export const SDK_READING = Symbol("mcp-sealed-state: the SDK codec's reading");
