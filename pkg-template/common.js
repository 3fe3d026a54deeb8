// Shared by both entries: the names SPEC.md fixes and the one error class.
// The constants themselves come from the Rust core (constants.js).
import { PACKAGE_VERSION, SEALED_STATE_INVALID_MESSAGE } from "./constants.js";

export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, REASONS, MAX_READ_CHARS } from "./constants.js";

/**
 * A token failed to open (or, in the widget, to read). `message` is always
 * SEALED_STATE_INVALID_MESSAGE; `reason` (also in `cause`) is for server logs.
 */
const SealedStateErrorClass = class SealedStateError extends Error {
  constructor(reason) {
    super(SEALED_STATE_INVALID_MESSAGE, { cause: reason });
    this.name = "SealedStateError";
    Object.defineProperty(this, "reason", { value: reason, enumerable: true });
  }
};
// Its name whatever a minifier makes of the binding (esbuild's drops a class expression's own).
Object.defineProperty(SealedStateErrorClass, "name", { value: "SealedStateError" });

// Each bundled entry carries its own copy of this file: one ES module fewer
// for Node to load (0.5-0.7 ms of a cold import of the edge entry, measured on
// Node 20 and 22). `instanceof SealedStateError` must still hold across the
// entries a program imports, so the first copy to run registers its class
// under a key of this version, and the others take that one. A realm whose
// global object is frozen keeps each copy's own class.
const REGISTRY_KEY = Symbol.for(`mcp-sealed-state@${PACKAGE_VERSION} SealedStateError`);

function sharedClass() {
  const registered = globalThis[REGISTRY_KEY];
  if (typeof registered === "function" && registered.prototype instanceof Error) return registered;
  try {
    // Not writable, not configurable: no later code swaps the class the entries share.
    Object.defineProperty(globalThis, REGISTRY_KEY, { value: SealedStateErrorClass });
  } catch {
    // Frozen globalThis (e.g. SES lockdown): this copy's own class.
  }
  return SealedStateErrorClass;
}

export const SealedStateError = sharedClass();
