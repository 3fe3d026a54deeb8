// @ts-check
// mcp-sealed-state/svelte: view state and the freshest sealed token as
// Svelte stores, over mcp-sealed-state/app (Svelte and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
//
//   const ui = viewState(app, { tab: "board" });    // $ui reads, $ui = { … } saves
//   const token = sealedToken(app, { persist: true }); // $token.token, $token.status
//
// Stores, not runes: runes ($state, $effect) exist only inside files the
// Svelte compiler compiles (.svelte, .svelte.js), and this package ships
// plain JS; the store contract works in Svelte 5 components as in 4 ($store,
// bind:value={$store.tab}). A store follows `app` while it has subscribers:
// the last unsubscribe (the component's destroy) stops it and sends a
// pending save. Semantics: docs/views.md ("Frameworks").
import { readable } from "svelte/store";
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
/** @import { Readable, Writable } from "svelte/store" */

/**
 * What viewState returns: a writable store of the state, `status`, and `flush()` to send a pending save now.
 * @template {ViewStateValue} T
 * @typedef {Writable<T> & { status: Readable<ViewStateStatus>, flush(): Promise<boolean> }} ViewStateStore
 */

/** What sealedToken returns: a readable store of the token, and the keeper's actions. @typedef {Readable<SealedTokenSnapshot> & SealedTokenActions} SealedTokenStore */

/**
 * A writable store of the view state: `set`/`update` (and `$ui = …` in a
 * component) save it back debounced; `status` is a readable store of
 * { store, hostModel, …, saving, error, flush }; `flush()` sends a pending save now.
 * `app`: an App tracked by connectWithViewState / trackViewState, or a ViewState.
 * Followed while subscribed, a pending save sent at the last unsubscribe.
 * @template {ViewStateValue} T
 * @param {ViewStateSource} app
 * @param {T | (() => T)} initial
 * @param {ViewStateOptions} [options]
 * @returns {ViewStateStore<T>}
 */
export function viewState(app, initial = /** @type {T} */ (null), { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  const binding = viewStateBinding(initial, { debounceMs });
  // Both stores share one binding, bound while either has a subscriber.
  let holders = 0;
  /** @type {() => void} */
  let unbind = () => {};
  const hold = () => {
    if (holders++ === 0) unbind = binding.bind(app);
    return () => {
      if (--holders === 0) unbind();
    };
  };
  /** @type {<V>(pick: (snapshot: { state: T, status: ViewStateStatus }) => V) => Readable<V>} */
  const mirror = (pick) =>
    readable(pick(binding.snapshot), (set) => {
      const release = hold();
      const stop = binding.subscribe(() => set(pick(binding.snapshot)));
      set(pick(binding.snapshot));
      return () => {
        stop();
        release();
      };
    });
  const state = mirror((s) => s.state);
  return {
    subscribe: state.subscribe,
    set: (/** @type {T} */ value) => binding.set(() => value),
    update: (/** @type {(previous: T) => T} */ fn) => binding.set(fn),
    status: mirror((s) => s.status),
    flush: binding.flush,
  };
}

/**
 * A readable store of { token, source, expired, status } for the freshest
 * sealed token; `adopt`, `offer` and `reset` as the keeper's. Over an App,
 * the keeper is made at the first subscriber and disposed at the last
 * (`initial` and `persist` as for keepFreshestToken); over a keeper, it is
 * used as it is.
 * @param {TokenKeeperSource} appOrKeeper
 * @param {SealedTokenOptions} [options]
 * @returns {SealedTokenStore}
 */
export function sealedToken(appOrKeeper, { initial = null, persist = false } = {}) {
  let binding = tokenBinding(null);
  const store = readable(binding.snapshot, (set) => {
    binding = tokenBinding(appOrKeeper, { initial, persist });
    const stop = binding.subscribe(() => set(binding.snapshot));
    set(binding.snapshot);
    return () => {
      stop();
      binding.dispose();
    };
  });
  return {
    subscribe: store.subscribe,
    adopt: (/** @type {unknown} */ result) => binding.adopt(result),
    offer: (/** @type {unknown} */ token) => binding.offer(token),
    reset: () => binding.reset(),
  };
}
