// @ts-check
// mcp-sealed-state/vue: view state and the freshest sealed token as Vue 3
// composables, over mcp-sealed-state/app (Vue and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
//
//   const { state, status } = useViewState(app, { tab: "board" }); // state: a ref, its changes saved
//   const { token, status } = useSealedToken(app, { persist: true });
//
// `app`: an App tracked by connectWithViewState / trackViewState, a
// ViewState, or a ref or getter of either (null until connected). Inside a
// component's setup (or an effectScope) the composables stop with it, a
// pending save sent. Semantics: docs/views.md ("Frameworks").
import { computed, getCurrentScope, onScopeDispose, readonly, ref, shallowRef, toRaw, toValue, watch } from "vue";
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
/** @import { ComputedRef, MaybeRefOrGetter, Ref } from "vue" */

/**
 * What useViewState returns: `state` (assign it, or change the object it holds, and it is saved back debounced), `status`, and `flush()` to send a pending save now.
 * @template {ViewStateValue} T
 * @typedef {{ state: Ref<T>, status: Readonly<Ref<ViewStateStatus>>, flush(): Promise<boolean> }} ViewStateRefs
 */

/** What useSealedToken returns: the token as readonly refs, and the keeper's actions. @typedef {{ readonly [K in keyof SealedTokenSnapshot]: ComputedRef<SealedTokenSnapshot[K]> } & SealedTokenActions} SealedTokenRefs */

// Run `stop` with the current effect scope (a component's setup), if any.
const whenDisposed = (/** @type {() => void} */ stop) => getCurrentScope() && onScopeDispose(stop);

/**
 * `state` is a writable ref: assign it, or change the object it holds, and
 * the state is saved back debounced. `status` is a readonly ref of
 * { store, hostModel, writeThrough, restoredFrom, offered, maxBytes,
 * restored, saving, error, flush }. Stops with the component, a pending save sent.
 * @template {ViewStateValue} T
 * @param {MaybeRefOrGetter<ViewStateSource>} app
 * @param {T | (() => T)} initial
 * @param {ViewStateOptions} [options]
 * @returns {ViewStateRefs<T>}
 */
export function useViewState(app, initial = /** @type {T} */ (null), { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  const binding = viewStateBinding(initial, { debounceMs });
  const state = /** @type {Ref<T>} */ (ref(binding.state));
  const status = shallowRef(binding.snapshot.status);
  // The binding's own changes (the store's state) are mirrored into the ref, not saved back.
  let applying = false;
  const stopMirror = binding.subscribe(() => {
    const { state: next, status: now } = binding.snapshot;
    status.value = now;
    if (toRaw(state.value) === next) return;
    applying = true;
    state.value = next;
    applying = false;
  });
  // Deep and synchronous: `state.value.tab = "x"` is saved as `state.value = { … }` is.
  const stopWatch = watch(state, () => applying || binding.set(toRaw(state.value)), { deep: true, flush: "sync" });
  /** @type {() => void} */
  let unbind = () => {};
  const stopApp = watch(
    () => toRaw(toValue(app)), // an App kept in a ref() is a reactive proxy: the tracked App is the raw one
    (/** @type {ViewStateSource} */ next) => {
      unbind();
      unbind = binding.bind(next);
    },
    { immediate: true, flush: "sync" },
  );
  whenDisposed(() => {
    stopApp();
    stopWatch();
    stopMirror();
    unbind();
  });
  return { state, status: readonly(status), flush: binding.flush };
}

/**
 * The freshest sealed token of the View's tool results: `token`, `source`,
 * `expired` and `status` are readonly refs; `adopt`, `offer` and `reset` as
 * the keeper's. `appOrKeeper` may be a ref or getter: a new App makes a new
 * keeper (`initial` and `persist` as for keepFreshestToken).
 * @param {MaybeRefOrGetter<TokenKeeperSource>} appOrKeeper
 * @param {SealedTokenOptions} [options]
 * @returns {SealedTokenRefs}
 */
export function useSealedToken(appOrKeeper, { initial = null, persist = false } = {}) {
  const snapshot = shallowRef(tokenBinding(null).snapshot);
  let binding = tokenBinding(null);
  /** @type {() => void} */
  let stopMirror = () => {};
  const stopSource = watch(
    () => toRaw(toValue(appOrKeeper)),
    (/** @type {TokenKeeperSource} */ source) => {
      stopMirror();
      binding.dispose();
      binding = tokenBinding(source, { initial, persist });
      snapshot.value = binding.snapshot;
      stopMirror = binding.subscribe(() => (snapshot.value = binding.snapshot));
    },
    { immediate: true, flush: "sync" },
  );
  whenDisposed(() => {
    stopSource();
    stopMirror();
    binding.dispose();
  });
  return {
    token: computed(() => snapshot.value.token),
    source: computed(() => snapshot.value.source),
    expired: computed(() => snapshot.value.expired),
    status: computed(() => snapshot.value.status),
    adopt: (/** @type {unknown} */ result) => binding.adopt(result),
    offer: (/** @type {unknown} */ token) => binding.offer(token),
    reset: () => binding.reset(),
  };
}
