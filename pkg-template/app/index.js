// mcp-sealed-state/app: the View side of view state (the draft MCP Apps
// request `ui/set-view-state`) and sealed-token adoption, over
// @modelcontextprotocol/ext-apps' `App` (an optional peer dependency).
//
//   const app = new App({ name: "my-view", version: "1.0.0" }, {});
//   const keeper = keepFreshestToken(app, { onchange: (t) => ... });   // before connect
//   const viewState = await connectWithViewState(app);
//   viewState.restored;             // hostContext.viewState of this render, or null
//   await viewState.save({ tab });  // true once stored; false: nothing sent (no capability)
//
// ext-apps 2.0.4's App drops hostCapabilities keys it does not know, so
// `app.getHostCapabilities()` never shows `viewState`: the RAW ui/initialize
// result is read off the transport and handed to the widget's viewStateSupport().
import { PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { STATE_META_KEY, ViewStateError, adoptToken, checkViewState, isSealedStateError, setViewStateRequest, viewStateSupport } from "mcp-sealed-state/widget";

// The result schema of ui/set-view-state: `{}`, and Views ignore fields they do not know.
const SetViewStateResult = {
  "~standard": {
    version: 1,
    vendor: "mcp-sealed-state",
    validate: (value) => (value !== null && typeof value === "object" && !Array.isArray(value) ? { value } : { issues: [{ message: "expected an object" }] }),
  },
};

/**
 * Watch a transport for the response to `ui/initialize`, untouched by the SDK's
 * schemas. Install it before `app.connect(transport)`. `promise` resolves with
 * the raw JSON-RPC response (`{ result }` or `{ error }`); `result` is the raw
 * result once it has arrived.
 */
export function captureInitializeResult(transport) {
  let initializeId;
  let response;
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message?.method === "ui/initialize" && message.id !== undefined) initializeId = message.id;
    return send(message, options);
  };
  // Protocol.connect() assigns transport.onmessage; wrap whatever it assigns.
  let onmessage = transport.onmessage;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => onmessage,
    set: (handler) => {
      onmessage =
        typeof handler === "function"
          ? (message, extra) => {
              if (response === undefined && initializeId !== undefined && message?.id === initializeId && ("result" in message || "error" in message)) {
                response = structuredClone(message);
                resolve(response);
              }
              return handler(message, extra);
            }
          : handler;
    },
  });
  return {
    promise,
    get result() {
      return response?.result;
    },
  };
}

// App -> Promise<ViewState> of its latest connect, for the React hooks.
const tracked = new WeakMap();

/**
 * Make every later `app.connect(transport)` capture the raw ui/initialize
 * result (for Apps that something else connects, such as ext-apps' `useApp`:
 * call it from `onAppCreated`). Resolves with the ViewState once connected.
 */
export function trackViewState(app) {
  const known = tracked.get(app);
  if (known) return known.current;
  let settle;
  const entry = { current: new Promise((r) => (settle = r)), settled: false, listeners: new Set() };
  tracked.set(app, entry);
  const connect = app.connect.bind(app);
  app.connect = async (transport, options) => {
    const capture = captureInitializeResult(transport);
    // A connect that fails leaves the promise pending for the next one.
    if (entry.settled) {
      entry.current = new Promise((r) => (settle = r));
      entry.settled = false;
    }
    await connect(transport, options);
    const viewState = new ViewState(app, capture.result);
    entry.settled = true;
    settle(viewState);
    for (const listener of entry.listeners) {
      try {
        listener(viewState);
      } catch (error) {
        // The App is connected: a listener's failure must not make connect() reject.
        app.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };
  return entry.current;
}

/** The ViewState of `app`'s latest connect through trackViewState / connectWithViewState, or null. */
export function viewStateOf(app) {
  return tracked.get(app)?.current ?? null;
}

/** Call `listener(viewState)` after every connect of a tracked app; returns the unsubscribe function. */
export function onViewState(app, listener) {
  trackViewState(app);
  const entry = tracked.get(app);
  entry.listeners.add(listener);
  return () => entry.listeners.delete(listener);
}

/**
 * Connect `app` (default transport: PostMessageTransport to window.parent) and
 * read the Host's view-state offer from the raw ui/initialize result.
 */
export async function connectWithViewState(app, transport, options) {
  const viewState = trackViewState(app);
  await app.connect(transport ?? new PostMessageTransport(window.parent, window.parent), options);
  return (await viewStateOf(app)) ?? viewState;
}

/** A View's view state for one render: what was restored, and saving. */
export class ViewState {
  #app;
  #support;
  #state;

  constructor(app, rawInitializeResult) {
    this.#app = app;
    /** The ui/initialize result as the Host sent it. */
    this.rawInitializeResult = rawInitializeResult;
    this.#support = viewStateSupport(rawInitializeResult);
    this.#state = this.#support?.state ?? null;
  }

  /** Whether the Host advertised hostCapabilities.viewState for this render. */
  get supported() {
    return this.#support !== null;
  }

  /** The Host's maxBytes, or null. */
  get maxBytes() {
    return this.#support?.maxBytes ?? null;
  }

  /** hostContext.viewState of this render's ui/initialize (null: nothing saved, or not supported). */
  get restored() {
    return this.#support?.state ?? null;
  }

  /** The last state the Host accepted in this render, else the restored one. */
  get state() {
    return this.#state;
  }

  /**
   * Save `state` (an object, or null to clear). Resolves true once the Host has
   * stored it; false when the Host did not advertise the capability, in which
   * case nothing is sent. Rejects with a ViewStateError, -32602 never as given
   * (checked here first against maxBytes, so an oversize state is never sent;
   * or refused by the Host), -32603 not now, -32601 a Host without the method.
   */
  async save(state, requestOptions) {
    if (this.#support === null) return false;
    checkViewState(state, this.#support.maxBytes);
    const snapshot = JSON.parse(JSON.stringify(state));
    // setViewStateRequest checks the state and shapes method and params; the id
    // is not used, since the App numbers its own requests.
    const { method, params } = setViewStateRequest(0, snapshot);
    try {
      await this.#app.request({ method, params }, SetViewStateResult, requestOptions);
    } catch (error) {
      throw Number.isSafeInteger(error?.code) ? new ViewStateError(error.code, error.message) : error;
    }
    this.#state = snapshot;
    // As the PR's App.setViewState does: the host context shows what was saved,
    // without a hostcontextchanged event.
    const hostContext = this.#app.getHostContext?.();
    if (hostContext && typeof hostContext === "object") hostContext.viewState = snapshot;
    return true;
  }
}

/**
 * Keep the freshest sealed token (`_meta["ng-mcp-ui/state"]`) of every
 * ui/notifications/tool-result, by the widget's adoptToken rule. Call it
 * before `app.connect()`. `adopt(result)` takes results of your own
 * `app.callServerTool()` calls; `offer(token)` a token from elsewhere (e.g. the
 * restored view state). `expired` is true once a result was the server
 * refusing the token ("expired, start over") and false again when a new token
 * is adopted. `onchange(token, previous)` runs when the kept token changes;
 * `onexpired(result)` when a result refuses the token; `onerror(error)` (and
 * `keeper.error`) when a notified result is refused (e.g. a token over the
 * read limit) without throwing into the Host's dispatch; `subscribe(fn)` calls
 * `fn()` after either (returns the unsubscribe function); `dispose()` stops
 * listening to the app.
 *
 * Expiry has whole-second resolution and a tie goes to the token offered last,
 * so after a reload offer the restored token AFTER the Host's replayed tool
 * result (a `start` and the moves after it often share a second): otherwise the
 * replay of `start` replaces the restored game.
 */
export function keepFreshestToken(app, { initial = null, onchange, onexpired, onerror } = {}) {
  let token = typeof initial === "string" ? initial : null;
  let expired = false;
  let error = null;
  const listeners = new Set();
  const notify = () => {
    for (const listener of listeners) listener();
  };
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
    adopt(result) {
      // State first, then listeners, then the caller's callback: a callback
      // that throws reaches the caller of adopt() and leaves the keeper consistent.
      if (isSealedStateError(result)) {
        expired = true;
        notify();
        onexpired?.(result);
        return token;
      }
      const next = adoptToken(token, result);
      if (next !== token) {
        const previous = token;
        token = next;
        expired = false;
        notify();
        onchange?.(next, previous);
      }
      return token;
    },
    offer(candidate) {
      return typeof candidate === "string" ? keeper.adopt({ _meta: { [STATE_META_KEY]: candidate } }) : token;
    },
    /** Forget the token (e.g. on "start over" before the new one arrives). */
    reset() {
      token = null;
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
  // A throw here would escape into ext-apps' notification dispatch and the
  // later toolresult listeners would miss the result: report it instead.
  const onToolResult = (params) => {
    try {
      keeper.adopt(params);
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
