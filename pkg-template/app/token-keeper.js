// @ts-check
// keepFreshestToken: the sealed token a View holds, from the tool results it
// sees, by a rule that a replayed or forged token cannot pin.
import { STATE_META_KEY, adoptToken, isSealedStateError, secondsLeft } from "mcp-sealed-state/widget";
import { DEFAULT_READY_TIMEOUT_MS } from "../constants.js";
import { field, onSetGlobals, openaiOf, safeResultOf, toolResponseMetadataOf, toolResponseMetadataOfEvent } from "./openai.js";
import { bridgeConnected, onOwnToolResult } from "./tool-calls.js";
import { onViewState, viewStateOf } from "./tracking.js";
import { PERSISTED } from "./view-state.js";

/** @import { App } from "@modelcontextprotocol/ext-apps" */
/** @import { ViewState } from "./view-state.js" */

/** Where a kept token came from ("viewState": restored from the previous render's view state). @typedef {"_meta" | "toolResponseMetadata" | "structuredContent" | "viewState" | "offer"} TokenSource */

/**
 * What a View shows for its token: "waiting" (none yet, one may come),
 * "ready", "expired" (the server refused it: start over), "none" (the View
 * connected a while ago, no tool is running and no token came: start over;
 * a token arriving later makes it "ready").
 * @typedef {"waiting" | "ready" | "expired" | "none"} TokenStatus
 */

/**
 * What a keeper holds now.
 * @typedef {object} TokenKeeperState
 * @property {string | null} token The kept token, or null.
 * @property {TokenSource | null} source Where the kept token came from, or null (none kept).
 * @property {boolean} expired True once a result refused the token ("expired, start over"); false again when a new token is adopted.
 * @property {TokenStatus} status "waiting" | "ready" | "expired" | "none".
 * @property {unknown} error The last refusal of a result from the Host (e.g. a token over the read limit), or of a save of the token (`persist`), or null.
 */

/**
 * What a keeper does.
 * @typedef {object} TokenKeeperActions
 * @property {(result: unknown) => string | null} adopt Take a result of your own call obtained otherwise than through `app.callServerTool` or `callTool` (those are taken without this): its token replaces the kept one; returns the kept token.
 * @property {(token: unknown) => string | null} offer Offer a token from elsewhere (e.g. the restored view state): kept unless the kept one came from your own call; returns the kept token.
 * @property {() => void} reset Forget the token.
 * @property {(listener: () => void) => () => boolean} subscribe `listener()` runs after each change; returns the unsubscribe function.
 * @property {() => void} dispose Stop listening to the app and the window.
 */

/** Keeps the freshest sealed token (the one the server sealed last, by arrival order) of the app's tool results. @typedef {Readonly<TokenKeeperState> & TokenKeeperActions} TokenKeeper */

/**
 * The part of a window the keeper reads: ChatGPT's `openai` globals and their `openai:set_globals` event.
 * @typedef {object} OpenAiWindow
 * @property {unknown} [openai]
 * @property {((type: string, listener: (event: any) => void) => void) | undefined} [addEventListener]
 * @property {((type: string, listener: (event: any) => void) => void) | undefined} [removeEventListener]
 */

/**
 * keepFreshestToken's options.
 * @typedef {object} KeepFreshestTokenOptions
 * @property {string | null | undefined} [initial] A token from elsewhere (e.g. restored by your own means), kept like a restored one when it is an unexpired v1 token.
 * @property {boolean | string | undefined} [persist] Keep the token in this app's view state (connectWithViewState / trackViewState): true (member STATE_META_KEY) or the member name. Every save carries it, it is saved again when it changes (null once the server refused it), it is restored on the next render, and the member is left out of `restored` and `state`.
 * @property {(() => number) | undefined} [now] Milliseconds, default Date.now: judges expiry.
 * @property {((token: string | null, previous: string | null) => void) | undefined} [onchange]
 * @property {((result: unknown) => void) | undefined} [onexpired]
 * @property {((error: unknown) => void) | undefined} [onerror] A result from the Host the keeper refused (e.g. a token over the read limit), or a failed save of the token; never thrown into the dispatch.
 * @property {OpenAiWindow | undefined} [window] The window whose `openai` is read and listened to (default globalThis).
 */

/**
 * Keep the sealed token of the View's latest tool result: "freshest" means
 * the token the server sealed last, which this keeper judges by arrival order
 * (the widget's adoptToken estimates the same thing by the later `exp`, which
 * a forged token can fake). Call it before `app.connect()`. The rule and the
 * sources are in docs/views.md ("The token keeper").
 *
 * Results arrive from the Host (ui/notifications/tool-result, and
 * window.openai.toolResponseMetadata with its set_globals events), from the
 * View's own calls (every `app.callServerTool()` and `callTool()` of this
 * app, seen without a step of yours; `adopt(result)` for a result obtained
 * otherwise), from the restored view state (`persist`) and from `initial` /
 * `offer(token)`.
 *
 * `persist` (true, or the member name; true is "ng-mcp-ui/state") keeps the
 * token in this app's view state (connectWithViewState / trackViewState):
 * every save carries it under that member, it is saved again whenever it
 * changes (as null once the server refused it), and it is restored from
 * there on the next render, ahead of the render's own result, which the Host
 * replays and which is older.
 * @param {App} app
 * @param {KeepFreshestTokenOptions} [options]
 * @returns {TokenKeeper}
 */
export function keepFreshestToken(app, { initial = null, now = Date.now, onchange, onexpired, onerror, persist = false, window: scope = globalThis } = {}) {
  if (typeof now !== "function") throw new TypeError("keepFreshestToken: now must be a function returning milliseconds");
  if (persist !== false && persist !== true && (typeof persist !== "string" || persist === "")) throw new TypeError("keepFreshestToken: persist must be true, false or a member name");
  const member = persist === true ? STATE_META_KEY : persist === false ? null : persist;
  /** @type {string | null} */
  let token = null;
  /** @type {TokenSource | null} */
  let source = null;
  let fromOwnCall = false;
  let expired = false;
  /** @type {unknown} */
  let error = null;
  /** @type {string | null} */
  let lastFromMetadata = null; // the token window.openai.toolResponseMetadata held when last read
  let renderSeen = false; // the render's result (the Host's first) has arrived
  let skipRender = false; // a restored token came first: the render's result, when it arrives, is older
  let awaitingMetadata = false; // a call through window.openai brought no token: the host's next toolResponseMetadata is its
  let toolRunning = false; // the Host sent a tool's input and no result yet
  let noneDue = false; // the View connected a while ago
  /** @type {ViewState | null} */
  let viewState = null; // this app's ViewState, for `persist`
  let changes = 0;
  /** @type {Set<() => void>} */
  const listeners = new Set();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  let restoredYet = false; // the token of the view state was offered: from now on each change is saved there
  let starting = true; // while the keeper is made: no callbacks, the caller has no keeper yet
  const live = (/** @type {string | null} */ candidate) => candidate !== null && secondsLeft(candidate, now()) > 0;
  // Save the kept token into the view state (a failure, such as a state over maxBytes, is reported as the keeper's error).
  const save = () => {
    if (member === null || viewState === null || !restoredYet) return;
    viewState[PERSISTED].save().catch((e) => report(e));
  };
  // Keep `candidate` (a v1 token or null) if the rule takes it; returns the kept token.
  /** @type {(candidate: string | null, from: TokenSource, ownCall: boolean) => string | null} */
  const take = (candidate, from, ownCall) => {
    // State first, then listeners, then the caller's callback: a callback
    // that throws reaches the caller and leaves the keeper consistent.
    // The kept token arriving again in your own call's result (same payload, same second: the same bytes)
    // changes nothing visible, but from now on it is your own call's, which no Host source replaces.
    if (candidate !== null && candidate === token && ownCall && live(candidate)) fromOwnCall = true;
    if (candidate === null || candidate === token || (fromOwnCall && !ownCall) || !live(candidate)) return token;
    const previous = token;
    token = candidate;
    source = from;
    fromOwnCall = ownCall;
    expired = false;
    changes++;
    if (starting) return token;
    notify();
    save();
    onchange?.(candidate, previous);
    return token;
  };
  const refused = (/** @type {unknown} */ result) => {
    expired = true;
    notify();
    save();
    onexpired?.(result);
    return token;
  };
  // A Host's arrival: its first is the render's result, older than a restored token.
  /** @type {(candidate: string | null, from: TokenSource) => string | null} */
  const fromHost = (candidate, from) => {
    const first = !renderSeen;
    renderSeen = true;
    if (first && skipRender) {
      skipRender = false;
      return token;
    }
    return take(candidate, from, false);
  };
  // A token from the previous render (the view state) or `initial`: later than the render's result.
  /** @type {(candidate: unknown, from: TokenSource) => string | null} */
  const restore = (candidate, from) => {
    /** @type {string | null} */
    let checked = null;
    try {
      checked = typeof candidate === "string" ? adoptToken(null, asResult(candidate)) : null;
    } catch (e) {
      error = e; // over the read limit: not kept, and said so
    }
    if (!live(checked) || fromOwnCall) return token;
    if (!renderSeen) skipRender = true;
    return take(checked, from, false);
  };
  // The v1 token of a toolResponseMetadata, or null; throws RangeError over the read limit.
  const metadataToken = (/** @type {Record<string, any> | null} */ metadata) => (metadata === null ? null : adoptToken(null, { _meta: metadata }));
  // That token as an arrival: null (nothing new) when it is the one last read there.
  const arrived = (/** @type {string | null} */ candidate) => {
    if (candidate === null || candidate === lastFromMetadata) return null;
    lastFromMetadata = candidate;
    return candidate;
  };
  const fromMetadata = (/** @type {Record<string, any> | null} */ metadata) => arrived(metadataToken(metadata));
  // A result's own token: its `_meta`, then its `structuredContent`; throws RangeError over the read limit.
  /** @type {(r: unknown) => [string | null, TokenSource]} */
  const ownToken = (r) => {
    const meta = adoptToken(null, { _meta: field(r, "_meta") });
    if (meta !== null) return [meta, "_meta"];
    return [adoptToken(null, { structuredContent: field(r, "structuredContent") }), "structuredContent"];
  };
  // A result from the Host: "expired, start over", or the first source that carries a v1 token.
  const takeHostResult = (/** @type {unknown} */ result) => {
    const r = safeResultOf(result);
    toolRunning = false;
    if (isSealedStateError(r)) return refused(result);
    const meta = adoptToken(null, { _meta: field(r, "_meta") });
    if (meta !== null) return fromHost(meta, "_meta");
    const candidate = metadataToken(toolResponseMetadataOf(scope)); // read once: each read parses the token
    if (candidate !== null) return fromHost(arrived(candidate), "toolResponseMetadata");
    return fromHost(adoptToken(null, { structuredContent: field(r, "structuredContent") }), "structuredContent");
  };
  // A result of the View's own call. Where window.openai exists it may carry
  // no token (MCPJam returns `_meta: null`, ChatGPT strips it): the host's
  // toolResponseMetadata then holds it, now or at its next set_globals.
  /** @type {(result: unknown, via: "bridge" | "openai") => string | null} */
  const takeOwnResult = (result, via) => {
    awaitingMetadata = false;
    const r = safeResultOf(result);
    if (isSealedStateError(r)) return refused(result);
    const [candidate, from] = ownToken(r);
    if (candidate !== null || (via !== "openai" && openaiOf(scope) === null)) return take(candidate, from, true);
    const updated = fromMetadata(toolResponseMetadataOf(scope));
    if (updated !== null) return take(updated, "toolResponseMetadata", true);
    awaitingMetadata = true;
    return token;
  };
  const asResult = (/** @type {string} */ candidate) => ({ _meta: { [STATE_META_KEY]: candidate } });
  /** @type {TokenKeeper} */
  const keeper = {
    get token() {
      return token;
    },
    /** Where the kept token came from: "_meta" | "toolResponseMetadata" | "structuredContent" | "viewState" | "offer", or null. */
    get source() {
      return source;
    },
    get expired() {
      return expired;
    },
    /** "waiting" | "ready" | "expired" | "none": what the View shows. */
    get status() {
      if (expired) return "expired";
      if (token !== null) return "ready";
      return noneDue && !toolRunning ? "none" : "waiting";
    },
    /** The last refusal of a result from the Host (e.g. a token over the read limit), or of a save of the token, or null. */
    get error() {
      return error;
    },
    /** A result of your own call obtained otherwise than through `app.callServerTool` or `callTool`: its token replaces the kept one (unless expired or not a token). */
    adopt(result) {
      return takeOwnResult(result, "bridge");
    },
    /** A token from elsewhere: kept unless the kept token came from your own call. */
    offer(candidate) {
      return typeof candidate === "string" ? take(adoptToken(null, asResult(candidate)), "offer", false) : token;
    },
    /** Forget the token (e.g. on "start over" before the new one arrives). */
    reset() {
      token = null;
      source = null;
      fromOwnCall = false;
      expired = false;
      changes++;
      notify();
      save();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      app.removeEventListener?.("toolresult", onToolResult);
      app.removeEventListener?.("toolinput", onToolInput);
      app.removeEventListener?.("toolcancelled", onToolCancelled);
      stopOwn();
      stopGlobals();
      stopViewState();
      stopLateRestore();
      clearTimeout(noneTimer);
      listeners.clear();
    },
  };
  // A throw here would escape into ext-apps' notification dispatch (or the
  // window's event dispatch) and later listeners would miss the result:
  // report it instead.
  const report = (/** @type {unknown} */ e) => {
    error = e;
    try {
      onerror?.(e);
    } catch (thrown) {
      // The author's callback threw: report it from a microtask of its own, not inside the Host's dispatch.
      queueMicrotask(() => {
        throw thrown;
      });
    }
  };
  /** @type {<A extends unknown[]>(fn: (...args: A) => unknown) => (...args: A) => void} */
  const guarded =
    (fn) =>
    (...args) => {
      try {
        fn(...args);
      } catch (e) {
        report(e);
      }
    };
  const onToolResult = guarded((/** @type {unknown} */ params) => takeHostResult(params));
  const onToolInput = () => {
    toolRunning = true;
    notify();
  };
  const onToolCancelled = () => {
    toolRunning = false;
    notify();
  };
  const onGlobals = guarded((/** @type {unknown} */ event) => {
    const candidate = fromMetadata(toolResponseMetadataOfEvent(event, scope));
    if (awaitingMetadata && candidate !== null) {
      awaitingMetadata = false;
      take(candidate, "toolResponseMetadata", true);
    } else if (candidate !== null) {
      fromHost(candidate, "toolResponseMetadata");
    }
  });
  const stopOwn = onOwnToolResult(app, guarded(takeOwnResult));
  // The render's result as window.openai holds it, as the Host's first
  // arrival; then `initial`, as a restored token. A token read from
  // window.openai and kept gets its callbacks a microtask later, once the
  // caller has the keeper.
  try {
    const candidate = fromMetadata(toolResponseMetadataOf(scope));
    if (candidate !== null) {
      renderSeen = true;
      if (live(candidate)) [token, source] = [candidate, "toolResponseMetadata"];
    }
  } catch (e) {
    error = e;
  }
  if (typeof initial === "string") restore(initial, "offer");
  starting = false;
  if (token !== null && source === "toolResponseMetadata") {
    const [at, candidate] = [changes, token];
    queueMicrotask(() => {
      if (changes !== at || token !== candidate) return;
      notify();
      onchange?.(candidate, null);
    });
  }
  // This app's ViewState: the token restored from it and saved into it
  // (`persist`), and the moment after which no token means "none".
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let noneTimer;
  /** @type {() => void} */
  let stopLateRestore = () => {};
  const startNoneTimer = () => {
    clearTimeout(noneTimer);
    noneTimer = setTimeout(() => {
      noneDue = true;
      if (token === null) notify();
    }, DEFAULT_READY_TIMEOUT_MS);
  };
  const attach = (/** @type {ViewState} */ vs) => {
    viewState = vs;
    restoredYet = false;
    if (member !== null) vs[PERSISTED].add(member, () => (expired ? null : token));
    vs.ready.then(() => {
      if (viewState !== vs) return;
      if (member !== null) {
        guarded(() => restore(vs[PERSISTED].get(member), "viewState"))();
        restoredYet = true;
        if ((expired ? null : token) !== vs[PERSISTED].get(member)) save(); // what this render holds, unless the store has it
        stopLateRestore();
        stopLateRestore = vs.subscribe(guarded(() => restore(vs[PERSISTED].get(member), "viewState")));
      }
      startNoneTimer();
    });
  };
  const stopViewState = onViewState(app, attach);
  Promise.resolve(viewStateOf(app)).then((vs) => vs !== null && viewState === null && attach(vs));
  // An App connected before the keeper, by something that did not track it: the View is up already.
  if (bridgeConnected(app)) startNoneTimer();
  app.addEventListener("toolresult", onToolResult);
  // A tool's input comes before connect() returns; a keeper made later has missed it, and ext-apps warns of the listener.
  if (!bridgeConnected(app)) {
    app.addEventListener("toolinput", onToolInput);
    app.addEventListener("toolcancelled", onToolCancelled);
  }
  const stopGlobals = onSetGlobals(scope, onGlobals);
  return keeper;
}
