/** The `_meta` key of a tool result that carries the sealed token. */
export declare const STATE_META_KEY: "ng-mcp-ui/state";
/** The one message of every token failure; it never says which check failed. */
export declare const SEALED_STATE_INVALID_MESSAGE: string;

export type SealedStateReason = "malformed" | "mac" | "expired" | "bind" | "purpose" | "request";

/** A token failed to open (or to read). `message` is always SEALED_STATE_INVALID_MESSAGE. */
export declare class SealedStateError extends Error {
  /** For server logs only: never send it to the client. Also in `cause`. */
  readonly reason: SealedStateReason;
  readonly cause: SealedStateReason;
  constructor(reason: SealedStateReason);
}
