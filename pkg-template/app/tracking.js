// @ts-check
// The plumbing that ties a ViewState to an App's connect: the raw
// ui/initialize result captured off the transport, and the latest ViewState
// of each tracked App, for connectWithViewState and the React hooks (which
// import this module by relative path). Not a public entry.
import { DEFAULT_BRIDGE_TIMEOUT_MS } from "../constants.js";
import { openaiOf } from "./openai.js";
import { storeOrder } from "./stores.js";
import { ViewState, watchFirstToolResult } from "./view-state.js";

/** @import { App } from "@modelcontextprotocol/ext-apps" */
/** @import { ViewStateStoreName } from "./stores.js" */
/** @import { ViewStateInit } from "./view-state.js" */

/**
 * The options of trackViewState and connectWithViewState that shape the ViewState.
 * @typedef {object} ViewStateOptions
 * @property {readonly ViewStateStoreName[] | undefined} [stores] The stores to try, in order (default VIEW_STATE_STORES); "memory" is always the last resort. An unknown name, a name twice, or an empty list is a TypeError.
 * @property {number | undefined} [bridgeTimeoutMs] Where `window.openai` exists, how long to wait for the MCP Apps bridge to answer ui/initialize before deciding the store without it (default DEFAULT_BRIDGE_TIMEOUT_MS): Apps SDK hosts answer nothing.
 * @property {number | undefined} [readyTimeoutMs] How long `ready` waits for the tool result whose viewUUID decides "local" (default DEFAULT_READY_TIMEOUT_MS).
 */

/** @typedef {Parameters<App["connect"]>[0]} AppTransport */
/** @typedef {{ stores: readonly ViewStateStoreName[] | undefined, bridgeTimeoutMs: number, readyTimeoutMs: number | undefined }} CheckedOptions */
/** @typedef {{ current: Promise<ViewState>, settled: boolean, listeners: Set<(viewState: ViewState) => void>, options: CheckedOptions }} Tracked */

/** ViewState's constructor, private to the package's users: tracking makes them. @typedef {new (app: App, rawInitializeResult: unknown, options: ViewStateInit) => ViewState} MakeViewState */

/**
 * Watch a transport for the response to `ui/initialize`, untouched by the SDK's
 * schemas. Install it before `app.connect(transport)`. `promise` resolves with
 * the raw JSON-RPC response (`{ result }` or `{ error }`); `result` is the raw
 * result once it has arrived.
 */
/**
 * @param {any} transport an ext-apps Transport
 * @returns {{ promise: Promise<any>, readonly result: unknown }}
 */
export function captureInitializeResult(transport) {
  /** @type {unknown} */
  let initializeId;
  /** @type {any} */
  let response;
  /** @type {(value: unknown) => void} */
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  const send = transport.send.bind(transport);
  transport.send = (/** @type {any} */ message, /** @type {unknown} */ options) => {
    if (message?.method === "ui/initialize" && message.id !== undefined) initializeId = message.id;
    return send(message, options);
  };
  // Protocol.connect() assigns transport.onmessage; wrap whatever it assigns.
  let onmessage = transport.onmessage;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => onmessage,
    set: (/** @type {unknown} */ handler) => {
      onmessage =
        typeof handler === "function"
          ? (/** @type {any} */ message, /** @type {unknown} */ extra) => {
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
/** @type {WeakMap<App, Tracked>} */
const tracked = new WeakMap();

/** The options of trackViewState and connectWithViewState that shape the ViewState, checked. */
/**
 * @param {ViewStateOptions} [options]
 * @returns {CheckedOptions}
 */
function viewStateOptions({ stores, bridgeTimeoutMs = DEFAULT_BRIDGE_TIMEOUT_MS, readyTimeoutMs } = {}) {
  if (!Number.isFinite(bridgeTimeoutMs) || bridgeTimeoutMs < 0) throw new RangeError("bridgeTimeoutMs must be a finite number of milliseconds, 0 or more");
  if (readyTimeoutMs !== undefined && (!Number.isFinite(readyTimeoutMs) || readyTimeoutMs < 0)) throw new RangeError("readyTimeoutMs must be a finite number of milliseconds, 0 or more");
  return { stores: stores === undefined ? undefined : storeOrder(stores), bridgeTimeoutMs, readyTimeoutMs };
}

/**
 * Make every later `app.connect(transport)` capture the raw ui/initialize
 * result and watch for the first tool result; resolves with the ViewState
 * once connected. Where `window.openai` exists (an Apps SDK host, which
 * answers nothing on the bridge), the ViewState is made without the bridge
 * once `bridgeTimeoutMs` passed or the connect failed; a bridge that answers
 * later serves tool calls, and the store stays as decided. `app.connect`
 * itself still settles as ext-apps' does. `options` as viewStateOptions takes.
 * @param {App} app
 * @param {ViewStateOptions} [options]
 * @returns {Promise<ViewState>}
 */
export function track(app, options) {
  const checked = viewStateOptions(options);
  const known = tracked.get(app);
  if (known) {
    if (options !== undefined) known.options = checked;
    return known.current;
  }
  /** @type {(viewState: ViewState) => void} */
  let settle;
  /** @type {Tracked} */
  const entry = { current: new Promise((r) => (settle = r)), settled: false, listeners: new Set(), options: checked };
  tracked.set(app, entry);
  const decide = (/** @type {ViewState} */ viewState) => {
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
  const connect = app.connect.bind(app);
  app.connect = async (/** @type {AppTransport} */ transport, /** @type {Parameters<App["connect"]>[1]} */ connectOptions) => {
    const { stores, bridgeTimeoutMs, readyTimeoutMs } = entry.options;
    const capture = captureInitializeResult(transport);
    // The Host may send the tool result as soon as the View is initialized, before connect() returns here.
    const toolResult = storeOrder(stores).includes("local") ? watchFirstToolResult(app) : undefined;
    // A connect that fails leaves the promise pending for the next one.
    if (entry.settled) {
      entry.current = new Promise((r) => (settle = r));
      entry.settled = false;
    }
    let decided = false;
    const withoutBridge = () => {
      if (decided) return;
      decided = true;
      decide(new /** @type {MakeViewState} */ (/** @type {unknown} */ (ViewState))(app, undefined, { stores, toolResult, readyTimeoutMs, hostModel: "apps-sdk" }));
    };
    const appsSdk = openaiOf(globalThis) !== null;
    const timer = appsSdk ? setTimeout(withoutBridge, bridgeTimeoutMs) : undefined;
    try {
      await connect(transport, connectOptions);
    } catch (error) {
      clearTimeout(timer);
      if (appsSdk) withoutBridge();
      else toolResult?.dispose();
      throw error;
    }
    clearTimeout(timer);
    if (decided) return; // the bridge answered late: it serves tool calls, the store stays as decided
    decided = true;
    decide(new /** @type {MakeViewState} */ (/** @type {unknown} */ (ViewState))(app, capture.result, { stores, toolResult, readyTimeoutMs, hostModel: "mcp-apps" }));
  };
  return entry.current;
}

/**
 * The ViewState of `app`'s latest connect through trackViewState / connectWithViewState, or null.
 * @param {App} app
 * @returns {Promise<ViewState> | null}
 */
export function viewStateOf(app) {
  return tracked.get(app)?.current ?? null;
}

/**
 * Call `listener(viewState)` after every connect of a tracked app; returns the unsubscribe function.
 * @param {App} app
 * @param {(viewState: ViewState) => void} listener
 * @returns {() => boolean}
 */
export function onViewState(app, listener) {
  track(app);
  const entry = /** @type {Tracked} */ (tracked.get(app));
  entry.listeners.add(listener);
  return () => entry.listeners.delete(listener);
}
