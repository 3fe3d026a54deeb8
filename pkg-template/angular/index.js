// @ts-check
// mcp-sealed-state/angular: view state and the freshest sealed token as
// Angular signals, over mcp-sealed-state/app (@angular/core and
// @modelcontextprotocol/ext-apps are optional peer dependencies). Named and
// shaped as ng-mcp-ui's own inject* helpers: call them in an injection
// context (a standalone component's field initializer or constructor); they
// stop when its DestroyRef fires, a pending save sent.
//
//   readonly ui = injectViewState(app, { tab: "board" });          // ui.value(), ui.set({ … }) saves
//   readonly token = injectSealedToken(app, { persist: true });    // token.token(), token.status()
//
// Plain JS over inject, signal and DestroyRef: nothing here needs the Angular
// compiler. Semantics: docs/views.md ("Frameworks").
import { DestroyRef, assertInInjectionContext, computed, inject, signal } from "@angular/core";
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
/** @import { Signal } from "@angular/core" */

/**
 * What injectViewState returns: `value`, `set(next)` (set the state and save it back, debounced), `status`, and `flush()` to send a pending save now.
 * @template {ViewStateValue} T
 * @typedef {{ value: Signal<T>, set(next: StateUpdate<T>): void, status: Signal<ViewStateStatus>, flush(): Promise<boolean> }} InjectViewStateResult
 */

/** What injectSealedToken returns: the token as signals, and the keeper's actions. @typedef {{ readonly [K in keyof SealedTokenSnapshot]: Signal<SealedTokenSnapshot[K]> } & SealedTokenActions} InjectSealedTokenResult */

const distinct = { equal: () => false }; // every snapshot is a new object; a state set again to the same object is still a change

/**
 * `{ value, set, status, flush }`: `value` a readonly signal of the view
 * state (restored from this render's store, else `initial`), `set(next |
 * (previous) => next)` saves it back debounced, `status` a signal of
 * { store, hostModel, …, saving, error, flush }. `app`: an App tracked by
 * connectWithViewState / trackViewState, or a ViewState. In an injection
 * context; stops with its DestroyRef, a pending save sent.
 * @template {ViewStateValue} T
 * @param {ViewStateSource} app
 * @param {T | (() => T)} initial
 * @param {ViewStateOptions} [options]
 * @returns {InjectViewStateResult<T>}
 */
export function injectViewState(app, initial = /** @type {T} */ (null), { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  assertInInjectionContext(injectViewState);
  const binding = viewStateBinding(initial, { debounceMs });
  const snapshot = signal(binding.snapshot, distinct);
  const stop = binding.subscribe(() => snapshot.set(binding.snapshot));
  const unbind = binding.bind(app);
  inject(DestroyRef).onDestroy(() => {
    stop();
    unbind();
  });
  return {
    value: computed(() => snapshot().state, distinct),
    set: binding.set,
    status: computed(() => snapshot().status),
    flush: binding.flush,
  };
}

/**
 * The freshest sealed token as signals: `{ token, source, expired, status,
 * adopt, offer, reset }`. Over an App a keeper is made here and disposed
 * with the injection context (`initial` and `persist` as for
 * keepFreshestToken); a keeper made before connect is used as it is. In an
 * injection context.
 * @param {TokenKeeperSource} appOrKeeper
 * @param {SealedTokenOptions} [options]
 * @returns {InjectSealedTokenResult}
 */
export function injectSealedToken(appOrKeeper, { initial = null, persist = false } = {}) {
  assertInInjectionContext(injectSealedToken);
  const binding = tokenBinding(appOrKeeper, { initial, persist });
  const snapshot = signal(binding.snapshot);
  const stop = binding.subscribe(() => snapshot.set(binding.snapshot));
  inject(DestroyRef).onDestroy(() => {
    stop();
    binding.dispose();
  });
  return {
    token: computed(() => snapshot().token),
    source: computed(() => snapshot().source),
    expired: computed(() => snapshot().expired),
    status: computed(() => snapshot().status),
    adopt: binding.adopt,
    offer: binding.offer,
    reset: binding.reset,
  };
}
