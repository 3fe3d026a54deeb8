// View side of the draft MCP Apps request `ui/set-view-state`, and sealed-token
// adoption, over @modelcontextprotocol/ext-apps 2.0.4's `App`.
//
//   const app = new App({ name: "my-view", version: "1.0.0" }, {});
//   const token = keepFreshestToken(app, { onchange: (t) => ... });   // before connect
//   const viewState = await connectWithViewState(app);
//   viewState.restored;             // hostContext.viewState of this render, or null
//   await viewState.save({ tab });  // true once stored; false: nothing sent (no capability)
//
// ext-apps 2.0.4's App drops hostCapabilities keys it does not know, so
// `app.getHostCapabilities()` never shows `viewState`: connectWithViewState reads
// the RAW ui/initialize result off the transport and hands it to the package's
// viewStateSupport().
import { PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { STATE_META_KEY, ViewStateError, adoptToken, checkViewState, isSealedStateError, setViewStateRequest, viewStateSupport } from "mcp-sealed-state/widget";

// The result schema of ui/set-view-state: `{}`, and Views ignore fields they do not know.
const SetViewStateResult = {
  "~standard": {
    version: 1,
    vendor: "mcp-sealed-state",
    validate: (value) =>
      value !== null && typeof value === "object" && !Array.isArray(value) ? { value } : { issues: [{ message: "expected an object" }] },
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

/**
 * Connect `app` (default transport: PostMessageTransport to window.parent) and
 * read the Host's view-state offer from the raw ui/initialize result.
 */
export async function connectWithViewState(app, transport = new PostMessageTransport(window.parent, window.parent), options) {
  const capture = captureInitializeResult(transport);
  await app.connect(transport, options);
  return new ViewState(app, capture.result);
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
   * case nothing is sent. Rejects with ViewStateError: -32602 never as given
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
 * ui/notifications/tool-result, by the package's adoptToken rule. Call it
 * before `app.connect()`. `adopt(result)` takes results of your own
 * `app.callServerTool()` calls; `offer(token)` a token from elsewhere (e.g. the
 * restored view state). `onchange(token, previous)` runs when the kept token
 * changes; `onexpired(result)` when a result is the server refusing the token.
 *
 * Expiry has whole-second resolution and a tie goes to the token offered last,
 * so after a reload offer the restored token AFTER the Host's replayed tool
 * result (a `start` and the moves after it often share a second): otherwise the
 * replay of `start` replaces the restored game. www/game/game.js does that.
 */
export function keepFreshestToken(app, { initial = null, onchange, onexpired } = {}) {
  let token = typeof initial === "string" ? initial : null;
  const keeper = {
    get token() {
      return token;
    },
    adopt(result) {
      if (isSealedStateError(result)) onexpired?.(result);
      const next = adoptToken(token, result);
      if (next !== token) {
        const previous = token;
        token = next;
        onchange?.(next, previous);
      }
      return token;
    },
    offer(candidate) {
      return typeof candidate === "string" ? keeper.adopt({ _meta: { [STATE_META_KEY]: candidate } }) : token;
    },
  };
  app.addEventListener("toolresult", (params) => keeper.adopt(params));
  return keeper;
}
