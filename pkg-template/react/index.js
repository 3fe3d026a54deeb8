// mcp-sealed-state/react: view state and the freshest sealed token as React
// hooks, over mcp-sealed-state/app. React and @modelcontextprotocol/ext-apps
// are optional peer dependencies of the package, needed only by this entry.
//
//   const [state, setState, status] = useViewState(app, { tab: "board" });
//   const { token, expired, adopt } = useSealedToken(app);
//
// `app` is an ext-apps App that mcp-sealed-state/app tracks: connected with
// connectWithViewState(app), or given to trackViewState(app) before something
// else connects it (ext-apps' useApp: `onAppCreated: trackViewState`, then
// `useViewState(app, initial)`: the hook finds the ViewState of that connect,
// so a useApp user never needs to hold one); or the ViewState itself.
// null/undefined (not connected yet) is allowed. The hook waits for the
// ViewState's `ready` (its store decided) before restoring.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { ViewState, keepFreshestToken } from "mcp-sealed-state/app";
// The app entry's plumbing (not public): the ViewState of an App's latest connect.
import { onViewState, viewStateOf } from "../app/tracking.js";

/** Default debounce of useViewState saves (ms): a burst of updates sends one ui/set-view-state. */
export const DEFAULT_DEBOUNCE_MS = 300;

// The ViewState of `app` once `ready`, else null, and a count of its changes
// after `ready` (a "local" store decided by a later tool result).
function useResolvedViewState(app) {
  const [viewState, setViewState] = useState(null);
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    if (!app) {
      setViewState(null);
      return undefined;
    }
    let live = true;
    let latest = null;
    let unsubscribe = () => {};
    const use = (vs) => {
      latest = vs;
      // A later connect's ViewState wins over an earlier one that settles late.
      vs.ready.then(() => {
        if (!live || latest !== vs) return;
        unsubscribe();
        unsubscribe = vs.subscribe(() => live && latest === vs && setChanges((n) => n + 1));
        setViewState(vs);
      });
    };
    if (app instanceof ViewState) {
      use(app);
      return () => {
        live = false;
        unsubscribe();
      };
    }
    const off = onViewState(app, (vs) => live && use(vs));
    Promise.resolve(viewStateOf(app)).then((vs) => live && vs && latest === null && use(vs));
    return () => {
      live = false;
      off();
      unsubscribe();
    };
  }, [app]);
  return [viewState, changes];
}

/**
 * Like useState, for state that survives a remount of the View: it starts as
 * the restored view state of this render's store (the Host's, ChatGPT's
 * widgetState, or localStorage under the tool result's viewUUID: see
 * connectWithViewState) when there is one, else `initial`; every update is
 * saved back to that store, debounced (`debounceMs`), and a pending save is
 * sent at once on unmount. The state must be a JSON object or null. Updates
 * made before the store is decided are saved once it is.
 *
 * Returns [state, setState, status]: status is { store, writeThrough,
 * restoredFrom, offered, maxBytes, restored, saving, error, flush } (store:
 * "host" | "openai" | "local" | "memory", null until decided; offered: the
 * Host offered ui/set-view-state; maxBytes: the size limit saves apply, null
 * until decided; error: the ViewStateError of the last failed save, cleared
 * by the next good one).
 */
export function useViewState(app, initial = null, { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  const [viewState, changes] = useResolvedViewState(app);
  const [state, setState] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState(null);
  const latest = useRef(state);
  const touched = useRef(false);
  const dirty = useRef(false);
  const timer = useRef(null);
  const live = useRef(true);
  const vsRef = useRef(viewState);
  vsRef.current = viewState;

  const flush = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = null;
    const vs = vsRef.current;
    if (!dirty.current || !vs) return Promise.resolve(false);
    dirty.current = false;
    if (live.current) setSaving(true);
    return vs.save(latest.current).then(
      (sent) => {
        if (live.current) {
          setSaving(false);
          setError(null);
        }
        return sent;
      },
      (e) => {
        if (live.current) {
          setSaving(false);
          setError(e);
        }
        return false;
      },
    );
  }, []);

  const schedule = useCallback(() => {
    dirty.current = true;
    clearTimeout(timer.current);
    timer.current = setTimeout(flush, debounceMs);
  }, [flush, debounceMs]);

  // The restored state replaces `initial` unless the View changed it first;
  // a store decided after `ready` restores the same way.
  useEffect(() => {
    if (!viewState) return;
    if (!touched.current && viewState.restored !== null) {
      latest.current = viewState.restored;
      setState(viewState.restored);
    } else if (dirty.current) {
      schedule(); // updates made before the store was decided are saved now
    }
  }, [viewState, changes, schedule]);

  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
      if (dirty.current) void flush();
    };
  }, [flush]);

  const update = useCallback(
    (next) => {
      const value = typeof next === "function" ? next(latest.current) : next;
      latest.current = value;
      touched.current = true;
      setState(value);
      schedule();
    },
    [schedule],
  );

  const status = {
    store: viewState?.store ?? null,
    hostModel: viewState?.hostModel ?? null,
    writeThrough: viewState?.writeThrough ?? null,
    restoredFrom: viewState?.restoredFrom ?? null,
    offered: viewState?.offered ?? false,
    maxBytes: viewState?.maxBytes ?? null,
    restored: viewState?.restored ?? null,
    saving,
    error,
    flush,
  };
  return [state, update, status];
}

/**
 * The freshest sealed token of the View's tool results (the one the server
 * sealed last, by keepFreshestToken's arrival-order rule, from `_meta`,
 * window.openai's toolResponseMetadata or `structuredContent`), and whether
 * the server refused it ("expired, start over"). The first argument is an ext-apps App (the hook
 * listens to its tool results while mounted) or a keeper made by
 * keepFreshestToken(app) before connect, which has also seen the results that
 * arrived before the first render. `initial` (e.g. the restored token) is
 * offered once the hook listens.
 *
 * `persist` as for keepFreshestToken: the token kept in the app's view state
 * and restored from it on the next render.
 *
 * Returns { token, source, expired, status, adopt(result), offer(token),
 * reset() }: `source` is where the token came from ("_meta" |
 * "toolResponseMetadata" | "structuredContent" | "viewState" | "offer", or
 * null); `status` is "waiting" | "ready" | "expired" | "none" ("none": no
 * token came, show "start over").
 */
export function useSealedToken(source, { initial = null, persist = false } = {}) {
  const isKeeper = typeof source?.subscribe === "function" && typeof source?.adopt === "function";
  const [own, setOwn] = useState(null);
  useEffect(() => {
    if (isKeeper || !source) {
      setOwn(null);
      return undefined;
    }
    const keeper = keepFreshestToken(source, { initial, persist });
    setOwn(keeper);
    return () => keeper.dispose();
    // `initial` is read once per source, as useState reads its initial value.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source, isKeeper]);
  const keeper = isKeeper ? source : own;
  useEffect(() => {
    if (isKeeper && typeof initial === "string") source.offer(initial);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source, isKeeper]);
  const subscribe = useCallback((fn) => (keeper ? keeper.subscribe(fn) : () => {}), [keeper]);
  const token = useSyncExternalStore(
    subscribe,
    () => keeper?.token ?? null,
    () => null,
  );
  const expired = useSyncExternalStore(
    subscribe,
    () => keeper?.expired ?? false,
    () => false,
  );
  const from = useSyncExternalStore(
    subscribe,
    () => keeper?.source ?? null,
    () => null,
  );
  const status = useSyncExternalStore(
    subscribe,
    () => keeper?.status ?? "waiting",
    () => "waiting",
  );
  return {
    token,
    source: from,
    expired,
    status,
    adopt: useCallback((result) => keeper?.adopt(result) ?? null, [keeper]),
    offer: useCallback((t) => keeper?.offer(t) ?? null, [keeper]),
    reset: useCallback(() => keeper?.reset(), [keeper]),
  };
}
