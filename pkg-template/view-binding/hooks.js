// useViewState and useSealedToken over a hooks library: React's (with its
// useSyncExternalStore) and preact/hooks (without compat, so without it).
// Not a public entry: mcp-sealed-state/react and /preact bind it to theirs.
import { DEFAULT_DEBOUNCE_MS, WAITING, tokenBinding, viewStateBinding } from "./index.js";

// useSyncExternalStore from useState and useEffect: re-render when the snapshot differs from the one rendered.
function subscribedWith({ useEffect, useRef, useState }) {
  return function useSubscribed(subscribe, getSnapshot) {
    const [, rerender] = useState(0);
    const value = getSnapshot();
    const rendered = useRef(value);
    rendered.current = value;
    useEffect(() => {
      const check = () => getSnapshot() !== rendered.current && rerender((n) => n + 1);
      const stop = subscribe(check);
      check(); // a change between the render and this effect
      return stop;
      // getSnapshot reads the same object as subscribe does.
      // eslint-disable-next-line react-hooks/exhaustive-deps
    }, [subscribe]);
    return value;
  };
}

/** The two hooks over `hooks` ({ useState, useEffect, useRef, useCallback, useSyncExternalStore? }). */
export function viewHooks(hooks) {
  const { useState, useEffect, useCallback } = hooks;
  const useSubscribed = hooks.useSyncExternalStore ? (subscribe, get) => hooks.useSyncExternalStore(subscribe, get, get) : subscribedWith(hooks);

  function useViewState(app, initial = null, { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
    // `initial` and `debounceMs` are read once, as useState reads its initial value.
    const [binding] = useState(() => viewStateBinding(initial, { debounceMs }));
    useEffect(() => binding.bind(app), [binding, app]);
    const { state, status } = useSubscribed(binding.subscribe, () => binding.snapshot);
    return [state, binding.set, status];
  }

  function useSealedToken(source, { initial = null, persist = false } = {}) {
    const [binding, setBinding] = useState(null);
    useEffect(() => {
      const made = tokenBinding(source, { initial, persist });
      setBinding(made);
      return () => made.dispose();
      // `initial` and `persist` are read once per source, as useState reads its initial value.
      // eslint-disable-next-line react-hooks/exhaustive-deps
    }, [source]);
    const subscribe = useCallback((fn) => (binding ? binding.subscribe(fn) : () => {}), [binding]);
    const snapshot = useSubscribed(subscribe, () => binding?.snapshot ?? WAITING);
    return {
      ...snapshot,
      adopt: useCallback((result) => binding?.adopt(result) ?? null, [binding]),
      offer: useCallback((token) => binding?.offer(token) ?? null, [binding]),
      reset: useCallback(() => binding?.reset(), [binding]),
    };
  }

  return { useViewState, useSealedToken };
}
