// The names docs/format.md fixes and the package's error classes, in the one module
// every entry a program imports shares, so that each class is one class.
// The constants themselves come from the Rust core (constants.js).
import { SEALED_STATE_INVALID_MESSAGE } from "./constants.js";

export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, REASONS, MAX_READ_CHARS } from "./constants.js";

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

/** A refused view-state save, with its JSON-RPC `code`. */
export class ViewStateError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ViewStateError";
    this.code = code;
  }
}
