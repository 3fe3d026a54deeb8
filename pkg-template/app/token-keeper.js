// keepFreshestToken: the sealed token a View holds, from the tool results it
// sees, by a rule that a replayed or forged token cannot pin.
import { STATE_META_KEY, adoptToken, isSealedStateError, secondsLeft } from "mcp-sealed-state/widget";
import { SET_GLOBALS_EVENT, field, safeResultOf, toolResponseMetadataOf, toolResponseMetadataOfEvent } from "./openai.js";

/**
 * Keep the sealed token of the View's latest tool result: "freshest" means
 * the token the server sealed last, which this keeper judges by arrival order
 * (the widget's adoptToken estimates the same thing by the later `exp`, which
 * a forged token can fake). Call it before `app.connect()`.
 *
 * Where the token comes from (docs/hosts.md, "Where the token and the
 * viewUUID reach the View"), the first that carries a v1 token of: the result's
 * `_meta["ng-mcp-ui/state"]`; `window.openai.toolResponseMetadata` (ChatGPT
 * strips `_meta` from the notification and exposes it there: read when the
 * keeper starts, for each notified result, and again on every
 * `openai:set_globals` event on window); the result's `structuredContent`
 * (a server's mirror for hosts that drop `_meta`). `keeper.source` says which
 * ("_meta" | "toolResponseMetadata" | "structuredContent" | "offer", or null).
 * Results arrive from the Host's ui/notifications/tool-result (listened to),
 * `adopt(result)` for the results of your own `app.callServerTool()` calls
 * (its `_meta`, then its `structuredContent`: window.openai holds the render's
 * result, not your call's), and `initial` / `offer(token)` for a token from
 * elsewhere (the restored view state, the host context).
 *
 * The rule, the same for every source (the unverified `exp` is never
 * compared, so neither a replay that shares a second with the move nor a
 * forged far-future token can pin it):
 * - a token that is not a v1 token, is expired by `now()`, or is identical to
 *   the kept one changes nothing;
 * - a token of your own call's result (`adopt`) replaces the kept one, whatever
 *   its `exp`: the latest result wins (arrival order);
 * - a token from the Host (its notification, window.openai) or from elsewhere
 *   (`offer`) replaces the kept one in arrival order too, but never one that
 *   came from your own call, so a Host replaying the render's result after a
 *   move changes nothing;
 * - window.openai.toolResponseMetadata counts as a new arrival only when its
 *   token differs from the one last read there: ChatGPT fires
 *   openai:set_globals for every global (theme, display mode), and the same
 *   render's token read again changes nothing.
 * A window.openai whose getters throw, or whose toolResponseMetadata is not an
 * object, gives nothing; the other sources still serve.
 * After a reload, offer the restored token after the Host's replayed result
 * (from a toolresult listener added after this keeper's); `initial` counts as
 * arriving after the render's result that window.openai holds.
 *
 * `expired` is true once a result was the server refusing the token
 * ("expired, start over") and false again when a new token is kept.
 * `onchange(token, previous)` runs when the kept token changes (for a token
 * read from window.openai when the keeper starts: a microtask later, so the
 * caller has its keeper by then); `onexpired(result)` when a result refuses
 * the token; `onerror(error)` (and `keeper.error`) when a result from the Host
 * is refused (e.g. a token over the read limit) without throwing into the
 * Host's dispatch; `subscribe(fn)` calls `fn()` after either (returns the
 * unsubscribe function); `dispose()` stops listening to the app and window.
 * `now()` (ms, default Date.now) judges expiry; `window` (default globalThis)
 * is the window whose `openai` is read.
 */
export function keepFreshestToken(app, { initial = null, now = Date.now, onchange, onexpired, onerror, window: scope = globalThis } = {}) {
  if (typeof now !== "function") throw new TypeError("keepFreshestToken: now must be a function returning milliseconds");
  let token = null;
  let source = null;
  let fromOwnCall = false;
  let expired = false;
  let error = null;
  let lastFromMetadata = null; // the token window.openai.toolResponseMetadata held when last read
  let changes = 0;
  const listeners = new Set();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  // Keep `candidate` (a v1 token or null) if the rule takes it; returns the kept token.
  const take = (candidate, from, ownCall) => {
    // State first, then listeners, then the caller's callback: a callback
    // that throws reaches the caller and leaves the keeper consistent.
    // The kept token arriving again in your own call's result (same payload, same second: the same bytes)
    // changes nothing visible, but from now on it is your own call's, which no Host source replaces.
    if (candidate !== null && candidate === token && ownCall && secondsLeft(candidate, now()) > 0) fromOwnCall = true;
    if (candidate === null || candidate === token || (fromOwnCall && !ownCall) || secondsLeft(candidate, now()) <= 0) return token;
    const previous = token;
    token = candidate;
    source = from;
    fromOwnCall = ownCall;
    expired = false;
    changes++;
    notify();
    onchange?.(candidate, previous);
    return token;
  };
  // The v1 token of a toolResponseMetadata, or null; throws RangeError over the read limit.
  const metadataToken = (metadata) => (metadata === null ? null : adoptToken(null, { _meta: metadata }));
  // That token as a Host's arrival: null (nothing new) when it is the one last read there.
  const arrived = (candidate) => {
    if (candidate === null || candidate === lastFromMetadata) return null;
    lastFromMetadata = candidate;
    return candidate;
  };
  const fromMetadata = (metadata) => arrived(metadataToken(metadata));
  // A tool result: "expired, start over", or the first source that carries a v1 token.
  const takeResult = (result, ownCall) => {
    const r = safeResultOf(result);
    if (isSealedStateError(r)) {
      expired = true;
      notify();
      onexpired?.(result);
      return token;
    }
    const meta = adoptToken(null, { _meta: field(r, "_meta") }); // the result's v1 token, or null; throws RangeError over the read limit
    if (meta !== null) return take(meta, "_meta", ownCall);
    if (!ownCall) {
      const candidate = metadataToken(toolResponseMetadataOf(scope)); // read once: each read parses the token
      if (candidate !== null) return take(arrived(candidate), "toolResponseMetadata", false);
    }
    return take(adoptToken(null, { structuredContent: field(r, "structuredContent") }), "structuredContent", ownCall);
  };
  const asResult = (candidate) => ({ _meta: { [STATE_META_KEY]: candidate } });
  const keeper = {
    get token() {
      return token;
    },
    /** Where the kept token came from: "_meta" | "toolResponseMetadata" | "structuredContent" | "offer", or null. */
    get source() {
      return source;
    },
    get expired() {
      return expired;
    },
    /** The last refusal of a result from the Host (e.g. a token over the read limit), or null. */
    get error() {
      return error;
    },
    /** A result of your own call: its token replaces the kept one (unless expired or not a token). */
    adopt(result) {
      return takeResult(result, true);
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
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      app.removeEventListener?.("toolresult", onToolResult);
      try {
        scope?.removeEventListener?.(SET_GLOBALS_EVENT, onSetGlobals);
      } catch {
        // a window whose removeEventListener throws: nothing more to stop
      }
      listeners.clear();
    },
  };
  // A throw here would escape into ext-apps' notification dispatch (or the
  // window's event dispatch) and later listeners would miss the result:
  // report it instead.
  const guarded = (fn) => (arg) => {
    try {
      fn(arg);
    } catch (e) {
      error = e;
      try {
        onerror?.(e);
      } catch (thrown) {
        // The author's callback threw: report it from a microtask of its own, not inside the Host's dispatch.
        queueMicrotask(() => {
          throw thrown;
        });
      }
    }
  };
  const onToolResult = guarded((params) => takeResult(params, false));
  const onSetGlobals = guarded((event) => take(fromMetadata(toolResponseMetadataOfEvent(event, scope)), "toolResponseMetadata", false));
  // The render's result as window.openai holds it, as a Host's arrival; then
  // `initial`, kept as offer() would keep it after that result (a restored
  // token is later than the render's), without callbacks: the caller has no
  // keeper yet. A token read from window.openai and kept gets its callbacks a
  // microtask later, once the caller has the keeper.
  try {
    const candidate = fromMetadata(toolResponseMetadataOf(scope));
    if (candidate !== null && secondsLeft(candidate, now()) > 0) [token, source] = [candidate, "toolResponseMetadata"];
  } catch (e) {
    error = e;
  }
  if (typeof initial === "string") {
    try {
      const candidate = adoptToken(null, asResult(initial));
      if (candidate !== null && secondsLeft(candidate, now()) > 0) [token, source] = [candidate, "offer"];
    } catch (e) {
      error = e; // over the read limit: not kept, and said so
    }
  }
  if (token !== null && source === "toolResponseMetadata") {
    const [at, candidate] = [changes, token];
    queueMicrotask(() => {
      if (changes !== at || token !== candidate) return;
      notify();
      onchange?.(candidate, null);
    });
  }
  app.addEventListener("toolresult", onToolResult);
  try {
    if (typeof scope?.addEventListener === "function") scope.addEventListener(SET_GLOBALS_EVENT, onSetGlobals);
  } catch {
    // a window whose addEventListener throws: the other sources still serve
  }
  return keeper;
}
