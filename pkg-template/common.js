// @ts-check
// The names docs/format.md fixes and the package's error classes, in the one module
// every entry a program imports shares, so that each class is one class.
// The constants themselves come from the Rust core (constants.js).
import { REASONS, SEALED_STATE_INVALID_MESSAGE } from "./constants.js";

export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, REASONS, MAX_READ_CHARS } from "./constants.js";

/**
 * Why a token failed to open (or to read): a name of the core's REASONS
 * (constants.js). For server logs only.
 * @typedef {Exclude<(typeof REASONS)[number], undefined>} SealedStateReason
 */

/**
 * A token failed to open (or, in the widget, to read). `message` is always
 * SEALED_STATE_INVALID_MESSAGE; `reason` (also in `cause`) is for server logs.
 */
export class SealedStateError extends Error {
  /** @param {SealedStateReason} reason */
  constructor(reason) {
    super(SEALED_STATE_INVALID_MESSAGE, { cause: reason });
    this.name = "SealedStateError";
    /**
     * For server logs only: never send it to the client. Also in `cause`.
     * @readonly
     * @type {SealedStateReason}
     */
    this.reason = reason;
    Object.defineProperty(this, "reason", { writable: false, configurable: false });
    /**
     * The same as `reason` (Error's own `cause`, set by super: this names its type).
     * @readonly
     * @type {SealedStateReason}
     */
    this.cause = reason;
  }
}

/** A refused view-state save, with its JSON-RPC `code`. */
export class ViewStateError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = "ViewStateError";
    /**
     * The JSON-RPC error code, of VIEW_STATE_ERRORS: INVALID_PARAMS (never as
     * given: over maxBytes, not an object) or INTERNAL_ERROR (not now: the
     * store could not keep it) from the checks and the save queue; from a Host
     * (mcp-sealed-state/app's "host" store), the code it answered, such as
     * METHOD_NOT_FOUND from an older Host.
     * @readonly
     * @type {number}
     */
    this.code = code;
  }
}
