// @ts-check
// mcp-sealed-state/solid: view state and the freshest sealed token as Solid
// signals, over mcp-sealed-state/app (solid-js and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
//
//   const [ui, setUi, status] = createViewState(app, { tab: "board" }); // ui(), setUi({ … }) saves
//   const token = createSealedToken(app, { persist: true });          // token.token(), token.status()
//
// `app`: an App tracked by connectWithViewState / trackViewState, a
// ViewState, or an accessor of either (null until connected). Made under an
// owner (a component, createRoot), they stop with it, a pending save sent.
// Semantics: docs/views.md ("Frameworks").
import { createRenderEffect, createSignal, getOwner, onCleanup } from "solid-js";
import { DEFAULT_DEBOUNCE_MS, tokenBinding, viewStateBinding } from "../view-binding/index.js";

export { DEFAULT_DEBOUNCE_MS };

// The types of the arguments and results, as every framework entry names them.
/** @typedef {import("../view-binding/index.js").ViewStateSource} ViewStateSource */
/** @typedef {import("../view-binding/index.js").TokenKeeperSource} TokenKeeperSource */
/** @typedef {import("../view-binding/index.js").ViewStateOptions} ViewStateOptions */
/** @typedef {import("../view-binding/index.js").SealedTokenOptions} SealedTokenOptions */
/** @typedef {import("../view-binding/index.js").ViewStateStatus} ViewStateStatus */
/** @typedef {import("../view-binding/index.js").ViewStateStatusFields} ViewStateStatusFields */
/** @typedef {import("../view-binding/index.js").SealedTokenSnapshot} SealedTokenSnapshot */
/** @typedef {import("../view-binding/index.js").SealedTokenFields} SealedTokenFields */
/** @typedef {import("../view-binding/index.js").SealedTokenActions} SealedTokenActions */
/**
 * @template T
 * @typedef {import("../view-binding/index.js").StateUpdate<T>} StateUpdate
 */
/** @import { ViewStateValue } from "mcp-sealed-state/app" */
/** @import { Accessor } from "solid-js" */

/** What createSealedToken returns: the token as accessors, and the keeper's actions. @typedef {{ readonly [K in keyof SealedTokenSnapshot]: Accessor<SealedTokenSnapshot[K]> } & SealedTokenActions} SealedTokenAccessors */

// Follow `source` (a value, or an accessor tracked by a render effect), calling `use(value)` and its returned cleanup.
/**
 * @template S
 * @param {S | Accessor<S>} source
 * @param {(value: S) => () => void} use
 */
function follow(source, use) {
  /** @type {() => void} */
  let stop = () => {};
  createRenderEffect(() => {
    stop();
    stop = use(typeof source === "function" ? /** @type {Accessor<S>} */ (source)() : source);
  });
  if (getOwner()) onCleanup(() => stop());
}

const distinct = /** @type {{ equals: false }} */ ({ equals: false }); // every snapshot is a new object; a state set again to the same object is still a change

/**
 * Like createSignal, for state restored from this render's store and saved
 * back to it debounced: returns [state, setState, status], `status` an
 * accessor of { store, hostModel, …, saving, error, flush }. Stops with its
 * owner, a pending save sent.
 * @template {ViewStateValue} T
 * @param {ViewStateSource | Accessor<ViewStateSource>} app
 * @param {T | (() => T)} initial
 * @param {ViewStateOptions} [options]
 * @returns {[Accessor<T>, (next: StateUpdate<T>) => void, Accessor<ViewStateStatus>]}
 */
export function createViewState(app, initial = /** @type {T} */ (null), { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  const binding = viewStateBinding(initial, { debounceMs });
  const [snapshot, setSnapshot] = createSignal(binding.snapshot, distinct);
  const stop = binding.subscribe(() => setSnapshot(binding.snapshot));
  if (getOwner()) onCleanup(stop);
  follow(app, (value) => binding.bind(value));
  return [() => snapshot().state, binding.set, () => snapshot().status];
}

/**
 * The freshest sealed token as accessors: { token(), source(), expired(),
 * status(), adopt, offer, reset }. A new App (through an accessor) makes a
 * new keeper (`initial` and `persist` as for keepFreshestToken).
 * @param {TokenKeeperSource | Accessor<TokenKeeperSource>} appOrKeeper
 * @param {SealedTokenOptions} [options]
 * @returns {SealedTokenAccessors}
 */
export function createSealedToken(appOrKeeper, { initial = null, persist = false } = {}) {
  let binding = tokenBinding(null);
  const [snapshot, setSnapshot] = createSignal(binding.snapshot);
  follow(appOrKeeper, (source) => {
    binding = tokenBinding(source, { initial, persist });
    setSnapshot(binding.snapshot);
    const stop = binding.subscribe(() => setSnapshot(binding.snapshot));
    const made = binding;
    return () => {
      stop();
      made.dispose();
    };
  });
  return {
    token: () => snapshot().token,
    source: () => snapshot().source,
    expired: () => snapshot().expired,
    status: () => snapshot().status,
    adopt: (/** @type {unknown} */ result) => binding.adopt(result),
    offer: (/** @type {unknown} */ token) => binding.offer(token),
    reset: () => binding.reset(),
  };
}
