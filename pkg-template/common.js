// Shared by both entries: the names SPEC.md fixes, the one SealedStateError
// class, and how each error class stays one across the entries.
// The constants themselves come from the Rust core (constants.js).
import { PACKAGE_VERSION, SEALED_STATE_INVALID_MESSAGE } from "./constants.js";

export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, REASONS, MAX_READ_CHARS } from "./constants.js";

/**
 * One class per name and version of this package in a program. Each bundled
 * entry carries its own copy of the files that define the package's error
 * classes: one ES module fewer for Node to load (0.4-0.9 ms of a cold import
 * of the edge entry, measured on Node 22 and 20). `instanceof` must still
 * hold across the entries a program imports, so the first copy to run
 * registers its class in the global symbol registry and the others take that
 * one. A realm whose global object is frozen keeps each copy's own class.
 */
export function oneClass(name, cls) {
  // Its name whatever a minifier makes of the binding (esbuild's drops a class expression's own).
  Object.defineProperty(cls, "name", { value: name });
  const key = Symbol.for(`mcp-sealed-state@${PACKAGE_VERSION} ${name}`);
  const registered = globalThis[key];
  if (typeof registered === "function" && registered.prototype instanceof Error) return registered;
  try {
    // Not writable, not configurable: no later code swaps the class the entries share.
    Object.defineProperty(globalThis, key, { value: cls });
  } catch {
    // Frozen globalThis (e.g. SES lockdown): this copy's own class.
  }
  return cls;
}

/**
 * A token failed to open (or, in the widget, to read). `message` is always
 * SEALED_STATE_INVALID_MESSAGE; `reason` (also in `cause`) is for server logs.
 */
export const SealedStateError = oneClass(
  "SealedStateError",
  class extends Error {
    constructor(reason) {
      super(SEALED_STATE_INVALID_MESSAGE, { cause: reason });
      this.name = "SealedStateError";
      Object.defineProperty(this, "reason", { value: reason, enumerable: true });
    }
  },
);
