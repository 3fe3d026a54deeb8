// keepFreshestToken: the sealed token a View holds, from the tool results it
// sees, by a rule that a replayed or forged token cannot pin.
import { STATE_META_KEY, adoptToken, isSealedStateError, secondsLeft } from "mcp-sealed-state/widget";

/**
 * Keep the sealed token (`_meta["ng-mcp-ui/state"]`) of the View's latest
 * tool result. Call it before `app.connect()`. Sources: the Host's
 * ui/notifications/tool-result (listened to), `adopt(result)` for the results
 * of your own `app.callServerTool()` calls, and `initial` / `offer(token)` for
 * a token from elsewhere (the restored view state, the host context).
 *
 * The rule (the unverified `exp` is never compared, so neither a replay that
 * shares a second with the move nor a forged far-future token can pin it):
 * - a token that is not a v1 token, is expired by `now()`, or is identical to
 *   the kept one changes nothing;
 * - a token of your own call's result (`adopt`) replaces the kept one, whatever
 *   its `exp`: the latest result wins (arrival order);
 * - a token from the Host's notification or from elsewhere replaces the kept
 *   one in arrival order too, but never one that came from your own call, so
 *   a Host replaying the render's result after a move changes nothing.
 * After a reload, offer the restored token after the Host's replayed result
 * (from a toolresult listener added after this keeper's).
 *
 * `expired` is true once a result was the server refusing the token
 * ("expired, start over") and false again when a new token is kept.
 * `onchange(token, previous)` runs when the kept token changes;
 * `onexpired(result)` when a result refuses the token; `onerror(error)` (and
 * `keeper.error`) when a notified result is refused (e.g. a token over the read
 * limit) without throwing into the Host's dispatch; `subscribe(fn)` calls
 * `fn()` after either (returns the unsubscribe function); `dispose()` stops
 * listening to the app. `now()` (ms, default Date.now) judges expiry.
 */
export function keepFreshestToken(app, { initial = null, now = Date.now, onchange, onexpired, onerror } = {}) {
  if (typeof now !== "function") throw new TypeError("keepFreshestToken: now must be a function returning milliseconds");
  let token = null;
  let fromOwnCall = false;
  let expired = false;
  let error = null;
  const listeners = new Set();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  // Keep the result's token if the rule takes it; returns the kept token.
  const take = (result, ownCall) => {
    // State first, then listeners, then the caller's callback: a callback
    // that throws reaches the caller and leaves the keeper consistent.
    if (isSealedStateError(result)) {
      expired = true;
      notify();
      onexpired?.(result);
      return token;
    }
    const candidate = adoptToken(null, result); // the result's v1 token, or null; throws RangeError over the read limit
    if (candidate === null || candidate === token || (fromOwnCall && !ownCall) || secondsLeft(candidate, now()) <= 0) return token;
    const previous = token;
    token = candidate;
    fromOwnCall = ownCall;
    expired = false;
    notify();
    onchange?.(candidate, previous);
    return token;
  };
  const asResult = (candidate) => ({ _meta: { [STATE_META_KEY]: candidate } });
  const keeper = {
    get token() {
      return token;
    },
    get expired() {
      return expired;
    },
    /** The last refusal of a tool-result notification (e.g. a token over the read limit), or null. */
    get error() {
      return error;
    },
    /** A result of your own call: its token replaces the kept one (unless expired or not a token). */
    adopt(result) {
      return take(result, true);
    },
    /** A token from elsewhere: kept unless the kept token came from your own call. */
    offer(candidate) {
      return typeof candidate === "string" ? take(asResult(candidate), false) : token;
    },
    /** Forget the token (e.g. on "start over" before the new one arrives). */
    reset() {
      token = null;
      fromOwnCall = false;
      expired = false;
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      app.removeEventListener?.("toolresult", onToolResult);
      listeners.clear();
    },
  };
  // `initial` is kept as offer() would keep it, without callbacks: the caller has no keeper yet.
  if (typeof initial === "string") {
    try {
      const candidate = adoptToken(null, asResult(initial));
      if (candidate !== null && secondsLeft(candidate, now()) > 0) token = candidate;
    } catch (e) {
      error = e; // over the read limit: not kept, and said so
    }
  }
  // A throw here would escape into ext-apps' notification dispatch and the
  // later toolresult listeners would miss the result: report it instead.
  const onToolResult = (params) => {
    try {
      take(params, false);
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
  app.addEventListener("toolresult", onToolResult);
  return keeper;
}
