// Shared by both entries: the names SPEC.md fixes and the one error class.

/** The `_meta` key of a tool result that carries the sealed token. */
export const STATE_META_KEY = "ng-mcp-ui/state";

/** The one message of every token failure. It never says which check failed. */
export const SEALED_STATE_INVALID_MESSAGE = "mcp-sealed-state: sealed state is invalid or expired";

/** Reason codes by the number the wasm core reports. */
export const REASONS = [undefined, "malformed", "mac", "expired", "bind", "purpose"];

/**
 * A token failed to open (or, in the widget, to read). `message` is always
 * SEALED_STATE_INVALID_MESSAGE; `reason` (also in `cause`) is for server logs.
 */
export class SealedStateError extends Error {
  constructor(reason) {
    super(SEALED_STATE_INVALID_MESSAGE, { cause: reason });
    this.name = "SealedStateError";
    Object.defineProperty(this, "reason", { value: reason, enumerable: true });
  }
}

/** Longest string handed to wasm as a token; longer ones are refused in JS, uncopied. */
export const MAX_READ_CHARS = 1 << 20;
