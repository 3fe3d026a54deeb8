// @ts-check
// The framework-neutral half of the View entries (react, preact, vue, svelte,
// solid, angular): the view state and the freshest token as two small
// subscribable objects, each framework entry only mirroring their snapshots
// into its own reactive values. Not a public entry: the framework entries
// import it by relative path, so the semantics in docs/views.md
// ("Frameworks") exist once.
import { ViewState, keepFreshestToken } from "mcp-sealed-state/app";
// The app entry's plumbing (not public): the ViewState of an App's latest connect.
import { onViewState, viewStateOf } from "../app/tracking.js";
import { DEFAULT_DEBOUNCE_MS } from "../constants.js";

/** @import { App } from "@modelcontextprotocol/ext-apps" */
/** @import { HostModel, TokenKeeper, TokenSource, TokenStatus, ViewStateStoreName, ViewStateValue } from "mcp-sealed-state/app" */

/** What a framework entry's view state follows: an App connected with connectWithViewState (or tracked by trackViewState), or the ViewState; null until connected. @typedef {App | ViewState | null | undefined} ViewStateSource */
/** What a framework entry's token follows: an App (a keeper is made for it) or a keeper made before connect; null until there is one. @typedef {App | TokenKeeper | null | undefined} TokenKeeperSource */

/**
 * @typedef {object} ViewStateOptions
 * @property {number | undefined} [debounceMs] How long updates wait before one save (default DEFAULT_DEBOUNCE_MS); read once.
 */

/**
 * @typedef {object} SealedTokenOptions
 * @property {string | null | undefined} [initial] A token from elsewhere, offered once per source.
 * @property {boolean | string | undefined} [persist] As keepFreshestToken's: the token kept in the app's view state and restored from it (an App only; a keeper has its own).
 */

/**
 * What a framework entry shows of the view state.
 * @typedef {object} ViewStateStatusFields
 * @property {ViewStateStoreName | null} store Where saves go (one of VIEW_STATE_STORES); null until the store is decided.
 * @property {HostModel | null} hostModel How the View reached its Host; null until the store is decided.
 * @property {"local" | null} writeThrough "local" when saves to "openai" are also written to localStorage, else null.
 * @property {ViewStateStoreName | null} restoredFrom The store the restored state came from, or null.
 * @property {boolean} offered Whether the Host offered ui/set-view-state for this render.
 * @property {number | null} maxBytes The size limit saves apply (compact UTF-8 JSON bytes); null until the store is decided.
 * @property {ViewStateValue} restored
 * @property {boolean} saving
 * @property {unknown} error The error of the last failed save (a ViewStateError), cleared by the next good one.
 * @property {() => Promise<boolean>} flush Send a pending save now; resolves true once stored, false when nothing was sent or it failed.
 */
/** @typedef {Readonly<ViewStateStatusFields>} ViewStateStatus */

/**
 * The token as every framework entry shows it.
 * @typedef {object} SealedTokenFields
 * @property {string | null} token
 * @property {TokenSource | null} source Where the token came from, or null.
 * @property {boolean} expired
 * @property {TokenStatus} status "waiting" | "ready" | "expired" | "none" ("none": no token came: start over).
 */
/** @typedef {Readonly<SealedTokenFields>} SealedTokenSnapshot */

/**
 * The keeper's actions, as every framework entry passes them on.
 * @typedef {object} SealedTokenActions
 * @property {(result: unknown) => string | null} adopt Take a result of your own call obtained otherwise than through app.callServerTool or callTool; returns the kept token.
 * @property {(token: unknown) => string | null} offer Offer a token from elsewhere; returns the kept token.
 * @property {() => void} reset Forget the token.
 */

/**
 * A state update: the next state, or a function of the previous one.
 * @template T
 * @typedef {T | ((previous: T) => T)} StateUpdate
 */

export { DEFAULT_DEBOUNCE_MS };

/**
 * Call `use(viewState)` once the ViewState of `app` (an App tracked by
 * connectWithViewState / trackViewState, or a ViewState) is `ready`, and
 * again after each change it announces (a "local" store decided later). A
 * later connect's ViewState replaces an earlier one that settles late.
 * Returns the function that stops.
 * @param {App | ViewState} app
 * @param {(viewState: ViewState) => void} use
 * @returns {() => void}
 */
export function followViewState(app, use) {
  let live = true;
  /** @type {ViewState | null} */
  let latest = null;
  /** @type {() => void} */
  let unsubscribe = () => {};
  const follow = (/** @type {ViewState} */ vs) => {
    latest = vs;
    vs.ready.then(() => {
      if (!live || latest !== vs) return;
      unsubscribe();
      unsubscribe = vs.subscribe(() => live && latest === vs && use(vs));
      use(vs);
    });
  };
  /** @type {() => void} */
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

/** What runs when an App's close() is called, before it closes, per App. @type {WeakMap<App, Set<() => void>>} */
const closing = new WeakMap();

/**
 * Run `fn` when `app.close()` is called, before the App closes (its first
 * caller wraps `close` once); returns the function that stops. A component
 * whose parent closes the App as it goes (ext-apps' React `useApp` does in
 * its effect cleanup, which React runs before the children's) would
 * otherwise find the App closed when it sends its pending save.
 * @param {App} app
 * @param {() => void} fn
 * @returns {() => void}
 */
function beforeClose(app, fn) {
  let hooks = closing.get(app);
  if (hooks === undefined) {
    if (typeof app.close !== "function") return () => {};
    const running = new Set();
    hooks = running;
    closing.set(app, running);
    const close = app.close.bind(app);
    app.close = () => {
      for (const hook of [...running]) hook();
      return close();
    };
  }
  const added = hooks;
  added.add(fn);
  return () => void added.delete(fn);
}

/**
 * One component's view state: `state` starts as `initial`; once bound to an
 * app whose store has decided, it becomes the state that store holds for
 * this render (the restored one, or the last one saved in this render) unless
 * `set` was called first. Every `set` is saved back debounced; `unbind`
 * sends a pending save at once; a save asked for before the store is decided
 * is sent once it is. `snapshot` is `{ state, status }`, a new object only
 * after a change, announced to `subscribe` listeners.
 * @template {ViewStateValue} T
 * @param {T | (() => T)} [initial]
 * @param {ViewStateOptions} [options]
 */
export function viewStateBinding(initial = /** @type {T} */ (null), { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  if (!Number.isFinite(debounceMs) || debounceMs < 0) throw new RangeError("debounceMs must be a finite number of milliseconds, 0 or more");
  /** @type {T} */
  let state = typeof initial === "function" ? initial() : initial;
  /** @type {ViewState | null} */
  let viewState = null;
  let touched = false;
  let dirty = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let saving = false;
  /** @type {unknown} */
  let error = null;
  /** @type {{ state: T, status: ViewStateStatus } | null} */
  let snapshot = null;
  /** @type {Set<() => void>} */
  const listeners = new Set();
  const changed = () => {
    snapshot = null;
    for (const listener of listeners) listener();
  };

  /** @type {() => Promise<boolean>} */
  const flush = () => {
    clearTimeout(/** @type {any} */ (timer));
    timer = null;
    const vs = viewState;
    if (!dirty || vs === null) return Promise.resolve(false);
    dirty = false;
    saving = true;
    changed();
    const done = (/** @type {boolean} */ sent, /** @type {unknown} */ e) => {
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
    clearTimeout(/** @type {any} */ (timer));
    timer = setTimeout(flush, debounceMs);
  };
  // The store's state replaces `initial` unless the View changed it first; updates made before the store was decided are saved now.
  const use = (/** @type {ViewState} */ vs) => {
    viewState = vs;
    if (!touched && vs.state !== null) state = /** @type {T} */ (vs.state);
    else if (dirty) schedule();
    changed();
  };
  /** @returns {ViewStateStatus} */
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
    /**
     * Set the state (a value, or a function of the previous one) and save it, debounced.
     * @param {StateUpdate<T>} next
     */
    set(next) {
      state = typeof next === "function" ? /** @type {(previous: T) => T} */ (next)(state) : next;
      touched = true;
      schedule();
      changed();
    },
    flush,
    /** @param {() => void} listener */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /**
     * Follow `app` (or a ViewState); returns `unbind`, which stops and sends a pending save. null: nothing to follow.
     * @param {ViewStateSource} app
     * @returns {() => void}
     */
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

/** @type {(source: unknown) => source is TokenKeeper} */
const isKeeper = (/** @type {any} */ source) => typeof source?.subscribe === "function" && typeof source?.adopt === "function";

/** What a token binding shows before it has a keeper. */
/** @type {SealedTokenSnapshot} */
export const WAITING = Object.freeze({ token: null, source: null, expired: false, status: "waiting" });

/**
 * One component's view of the freshest token: over a keeper made here from an
 * App (`keepFreshestToken(app, { initial, persist })`, disposed by
 * `dispose`), or over a keeper made elsewhere (before connect: it has seen
 * the results that arrived before the first render), which is offered
 * `initial` and left running. `snapshot` is `{ token, source, expired,
 * status }`, a new object only after a change.
 * @param {TokenKeeperSource} source
 * @param {SealedTokenOptions} [options]
 */
export function tokenBinding(source, { initial = null, persist = false } = {}) {
  /** @type {TokenKeeper | null} */
  let keeper = null;
  let own = false;
  if (isKeeper(source)) {
    keeper = source;
    if (typeof initial === "string") keeper.offer(initial);
  } else if (source != null) {
    keeper = keepFreshestToken(source, { initial, persist });
    own = true;
  }
  /** @type {SealedTokenSnapshot} */
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
    subscribe: (/** @type {() => void} */ listener) => (keeper === null ? () => {} : keeper.subscribe(listener)),
    adopt: (/** @type {unknown} */ result) => keeper?.adopt(result) ?? null,
    offer: (/** @type {unknown} */ token) => keeper?.offer(token) ?? null,
    reset: () => keeper?.reset(),
    dispose() {
      if (own) /** @type {TokenKeeper} */ (keeper).dispose();
    },
  };
}
