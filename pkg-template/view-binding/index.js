// The framework-neutral half of the View entries (react, preact, vue, svelte,
// solid, angular): the view state and the freshest token as two small
// subscribable objects, each framework entry only mirroring their snapshots
// into its own reactive values. Not a public entry: the framework entries
// import it by relative path, so the semantics in docs/views.md
// ("Frameworks") exist once.
import { ViewState, keepFreshestToken } from "mcp-sealed-state/app";
// The app entry's plumbing (not public): the ViewState of an App's latest connect.
import { onViewState, viewStateOf } from "../app/tracking.js";

/** Default debounce of view-state saves (ms): a burst of updates sends one save. */
export const DEFAULT_DEBOUNCE_MS = 300;

/**
 * Call `use(viewState)` once the ViewState of `app` (an App tracked by
 * connectWithViewState / trackViewState, or a ViewState) is `ready`, and
 * again after each change it announces (a "local" store decided later). A
 * later connect's ViewState replaces an earlier one that settles late.
 * Returns the function that stops.
 */
export function followViewState(app, use) {
  let live = true;
  let latest = null;
  let unsubscribe = () => {};
  const follow = (vs) => {
    latest = vs;
    vs.ready.then(() => {
      if (!live || latest !== vs) return;
      unsubscribe();
      unsubscribe = vs.subscribe(() => live && latest === vs && use(vs));
      use(vs);
    });
  };
  let off = () => {};
  if (app instanceof ViewState) follow(app);
  else {
    off = onViewState(app, (vs) => live && follow(vs));
    Promise.resolve(viewStateOf(app)).then((vs) => live && vs && latest === null && follow(vs));
  }
  return () => {
    live = false;
    off();
    unsubscribe();
  };
}

// What runs when an App's close() is called, before it closes, per App.
const closing = new WeakMap();

/**
 * Run `fn` when `app.close()` is called, before the App closes (its first
 * caller wraps `close` once); returns the function that stops. A component
 * whose parent closes the App as it goes (ext-apps' React `useApp` does in
 * its effect cleanup, which React runs before the children's) would
 * otherwise find the App closed when it sends its pending save.
 */
function beforeClose(app, fn) {
  let hooks = closing.get(app);
  if (hooks === undefined) {
    if (typeof app.close !== "function") return () => {};
    hooks = new Set();
    closing.set(app, hooks);
    const close = app.close;
    app.close = function (...args) {
      for (const hook of [...hooks]) hook();
      return close.apply(this, args);
    };
  }
  hooks.add(fn);
  return () => hooks.delete(fn);
}

/**
 * One component's view state: `state` starts as `initial`; once bound to an
 * app whose store has decided, it becomes the state that store holds for
 * this render (the restored one, or the last one saved in this render) unless
 * `set` was called first. Every `set` is saved back debounced; `unbind`
 * sends a pending save at once; a save asked for before the store is decided
 * is sent once it is. `snapshot` is `{ state, status }`, a new object only
 * after a change, announced to `subscribe` listeners.
 */
export function viewStateBinding(initial = null, { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  if (!Number.isFinite(debounceMs) || debounceMs < 0) throw new RangeError("debounceMs must be a finite number of milliseconds, 0 or more");
  let state = typeof initial === "function" ? initial() : initial;
  let viewState = null;
  let touched = false;
  let dirty = false;
  let timer = null;
  let saving = false;
  let error = null;
  let snapshot = null;
  const listeners = new Set();
  const changed = () => {
    snapshot = null;
    for (const listener of listeners) listener();
  };

  const flush = () => {
    clearTimeout(timer);
    timer = null;
    const vs = viewState;
    if (!dirty || vs === null) return Promise.resolve(false);
    dirty = false;
    saving = true;
    changed();
    const done = (sent, e) => {
      saving = false;
      error = e;
      changed();
      return sent;
    };
    return vs.save(state).then(
      (sent) => done(sent, null),
      (e) => done(false, e),
    );
  };
  const schedule = () => {
    dirty = true;
    clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };
  // The store's state replaces `initial` unless the View changed it first; updates made before the store was decided are saved now.
  const use = (vs) => {
    viewState = vs;
    if (!touched && vs.state !== null) state = vs.state;
    else if (dirty) schedule();
    changed();
  };
  const status = () => ({
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
  });
  return {
    get snapshot() {
      snapshot ??= { state, status: status() };
      return snapshot;
    },
    get state() {
      return state;
    },
    /** Set the state (a value, or a function of the previous one) and save it, debounced. */
    set(next) {
      state = typeof next === "function" ? next(state) : next;
      touched = true;
      schedule();
      changed();
    },
    flush,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Follow `app` (or a ViewState); returns `unbind`, which stops and sends a pending save. null: nothing to follow. */
    bind(app) {
      if (app == null) return () => {};
      const stop = followViewState(app, use);
      const flushPending = () => dirty && void flush();
      const stopBeforeClose = app instanceof ViewState ? () => {} : beforeClose(app, flushPending);
      return () => {
        stop();
        stopBeforeClose();
        flushPending();
      };
    },
  };
}

const isKeeper = (source) => typeof source?.subscribe === "function" && typeof source?.adopt === "function";

/** What a token binding shows before it has a keeper. */
export const WAITING = Object.freeze({ token: null, source: null, expired: false, status: "waiting" });

/**
 * One component's view of the freshest token: over a keeper made here from an
 * App (`keepFreshestToken(app, { initial, persist })`, disposed by
 * `dispose`), or over a keeper made elsewhere (before connect: it has seen
 * the results that arrived before the first render), which is offered
 * `initial` and left running. `snapshot` is `{ token, source, expired,
 * status }`, a new object only after a change.
 */
export function tokenBinding(source, { initial = null, persist = false } = {}) {
  let keeper = null;
  let own = false;
  if (isKeeper(source)) {
    keeper = source;
    if (typeof initial === "string") keeper.offer(initial);
  } else if (source != null) {
    keeper = keepFreshestToken(source, { initial, persist });
    own = true;
  }
  let snapshot = WAITING;
  const read = () => {
    if (keeper === null) return WAITING;
    const { token, source: from, expired, status } = keeper;
    if (snapshot.token !== token || snapshot.source !== from || snapshot.expired !== expired || snapshot.status !== status) snapshot = { token, source: from, expired, status };
    return snapshot;
  };
  return {
    keeper,
    get snapshot() {
      return read();
    },
    subscribe: (listener) => (keeper === null ? () => {} : keeper.subscribe(listener)),
    adopt: (result) => keeper?.adopt(result) ?? null,
    offer: (token) => keeper?.offer(token) ?? null,
    reset: () => keeper?.reset(),
    dispose() {
      if (own) keeper.dispose();
    },
  };
}
