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

const distinct = { equal: () => false }; // every snapshot is a new object; a state set again to the same object is still a change

/**
 * `{ value, set, status, flush }`: `value` a readonly signal of the view
 * state (restored from this render's store, else `initial`), `set(next |
 * (previous) => next)` saves it back debounced, `status` a signal of
 * { store, hostModel, …, saving, error, flush }. `app`: an App tracked by
 * connectWithViewState / trackViewState, or a ViewState.
 */
export function injectViewState(app, initial = null, { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
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
 * keepFreshestToken); a keeper made before connect is used as it is.
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
