// @ts-check
// useViewState and useSealedToken over a hooks library: React's (with its
// useSyncExternalStore) and preact/hooks (without compat, so without it).
// Not a public entry: mcp-sealed-state/react and /preact bind it to theirs.
import { DEFAULT_DEBOUNCE_MS, WAITING, tokenBinding, viewStateBinding } from "./index.js";

/** @import { ViewStateValue } from "mcp-sealed-state/app" */
/** @import { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus } from "./index.js" */

/**
 * Like useState, restored from this render's view-state store and saved back to it (debounced).
 * `app`: an App connected with connectWithViewState, or one that ext-apps' `useApp` connects with
 * `onAppCreated: trackViewState`; or a ViewState.
 * @typedef {<T extends ViewStateValue>(app: ViewStateSource, initial: T | (() => T), options?: ViewStateOptions) => [T, (next: StateUpdate<T>) => void, ViewStateStatus]} UseViewState
 */

/** The token and the keeper's actions, as useSealedToken returns them. @typedef {SealedTokenSnapshot & SealedTokenActions} SealedToken */

/**
 * The freshest sealed token of the View's tool results (the one the server sealed last, by arrival: see keepFreshestToken), and the "expired, start over" flag.
 * @typedef {(appOrKeeper: TokenKeeperSource, options?: SealedTokenOptions) => SealedToken} UseSealedToken
 */

/**
 * The hooks a library gives (React's or preact/hooks'), as this module calls
 * them; useSyncExternalStore where the library has it.
 * @typedef {{ useState: any, useEffect: any, useRef: any, useCallback: any, useSyncExternalStore?: any }} Hooks
 */

// useSyncExternalStore from useState and useEffect: re-render when the snapshot differs from the one rendered.
/**
 * @param {Hooks} hooks
 * @returns {<S>(subscribe: (listener: () => void) => () => void, getSnapshot: () => S) => S}
 */
function subscribedWith({ useEffect, useRef, useState }) {
  return function useSubscribed(subscribe, getSnapshot) {
    const [, rerender] = useState(0);
    const value = getSnapshot();
    const rendered = useRef(value);
    rendered.current = value;
    useEffect(() => {
      const check = () => getSnapshot() !== rendered.current && rerender((/** @type {number} */ n) => n + 1);
      const stop = subscribe(check);
      check(); // a change between the render and this effect
      return stop;
      // getSnapshot reads the same object as subscribe does.
      // eslint-disable-next-line react-hooks/exhaustive-deps
    }, [subscribe]);
    return value;
  };
}

/**
 * The two hooks over `hooks` ({ useState, useEffect, useRef, useCallback, useSyncExternalStore? }).
 * @param {Hooks} hooks
 * @returns {{ useViewState: UseViewState, useSealedToken: UseSealedToken }}
 */
export function viewHooks(hooks) {
  const { useState, useEffect, useCallback } = hooks;
  /** @type {<S>(subscribe: (listener: () => void) => () => void, getSnapshot: () => S) => S} */
  const useSubscribed = hooks.useSyncExternalStore ? (subscribe, get) => hooks.useSyncExternalStore(subscribe, get, get) : subscribedWith(hooks);

  /** @type {UseViewState} */
  function useViewState(app, initial = /** @type {any} */ (null), { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
    // `initial` and `debounceMs` are read once, as useState reads its initial value.
    /** @type {[ReturnType<typeof viewStateBinding<any>>]} */
    const [binding] = useState(() => viewStateBinding(initial, { debounceMs }));
    useEffect(() => binding.bind(app), [binding, app]);
    const { state, status } = useSubscribed(binding.subscribe, () => binding.snapshot);
    return [state, binding.set, status];
  }

  /** @type {UseSealedToken} */
  function useSealedToken(source, { initial = null, persist = false } = {}) {
    /** @type {[ReturnType<typeof tokenBinding> | null, (binding: ReturnType<typeof tokenBinding>) => void]} */
    const [binding, setBinding] = useState(null);
    useEffect(() => {
      const made = tokenBinding(source, { initial, persist });
      setBinding(made);
      return () => made.dispose();
      // `initial` and `persist` are read once per source, as useState reads its initial value.
      // eslint-disable-next-line react-hooks/exhaustive-deps
    }, [source]);
    const subscribe = useCallback((/** @type {() => void} */ fn) => (binding ? binding.subscribe(fn) : () => {}), [binding]);
    const snapshot = useSubscribed(subscribe, () => binding?.snapshot ?? WAITING);
    return {
      ...snapshot,
      adopt: useCallback((/** @type {unknown} */ result) => binding?.adopt(result) ?? null, [binding]),
      offer: useCallback((/** @type {unknown} */ token) => binding?.offer(token) ?? null, [binding]),
      reset: useCallback(() => binding?.reset(), [binding]),
    };
  }

  return { useViewState, useSealedToken };
}
