// @ts-check
// mcp-sealed-state/app-bridge: the Host side of the draft MCP Apps request
// `ui/set-view-state` on @modelcontextprotocol/ext-apps' AppBridge (an optional
// peer dependency), which does not know it yet. The save rules (one store at a
// time, in order; coalescing; -32602 / -32603) are the widget's
// ViewStateSaveQueue, the same code a Host in Node or a worker would use.
//
//   const bridge = new ViewStateAppBridge(client, hostInfo, hostCapabilities, options, {
//     storage: localStorageViewState(`view-state:${toolCallId}`),   // or any { load, save }
//     maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES,
//   });
//   await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
//
// What it adds to AppBridge:
// - `ui/initialize` results carry `hostCapabilities.viewState.maxBytes` and
//   `hostContext.viewState` (the saved state or null), but only when the store
//   was read for that render: if `storage.load()` throws, rejects, takes longer
//   than `storeTimeoutMs`, or holds something that is not an object or null,
//   neither is sent, so the View cannot overwrite state it has not seen, and
//   its saves are refused with -32603. The next render reads the store again.
// - `ui/set-view-state` answers `{}` once `storage.save()` resolved, -32602 for a
//   state that is never storable as given (not an object or null, over maxBytes),
//   -32603 when the store threw, rejected or took longer than `storeTimeoutMs`.
//   The View keeps working either way. The last saved state is kept for the
//   next ui/initialize on this bridge (an iframe reload); a new bridge (a
//   reload of the Host page) reads the store again.
// - viewState is never sent in ui/notifications/host-context-changed.
// - Reload guard: a second ui/initialize means a new document in the iframe. The
//   previous document's in-flight requests are aborted (their responses would
//   otherwise reach the new document, whose request ids start over and can match
//   them), and the store is read only after the saves already received settle
//   (waited for up to `storeTimeoutMs`; past that, no capability for that render).
import { AppBridge, McpUiInitializeRequestSchema } from "@modelcontextprotocol/ext-apps/app-bridge";
import { VIEW_STATE_ERRORS, ViewStateError, ViewStateSaveQueue } from "mcp-sealed-state/widget";
import { DEFAULT_STORE_TIMEOUT_MS, DEFAULT_VIEW_STATE_MAX_BYTES, SET_VIEW_STATE_METHOD } from "../constants.js";

// How long one `load()` or `save()` of the store may take (DEFAULT_STORE_TIMEOUT_MS,
// the queue's own default): a slower store call counts as failed (load: no
// capability for that render, a save -32603), and a save that timed out may
// still complete in the store: once it settles, the bridge counts it as saved
// (the next ui/initialize offers it), though that save was answered -32603.
// DEFAULT_VIEW_STATE_MAX_BYTES: the PR's suggested floor for maxBytes, the default here.
export { DEFAULT_STORE_TIMEOUT_MS, DEFAULT_VIEW_STATE_MAX_BYTES, SET_VIEW_STATE_METHOD } from "../constants.js";

/**
 * Where a Host keeps one View instance's state. Either method may return a value or a promise.
 * @typedef {object} ViewStateStore
 * @property {() => unknown} load The saved state (an object) or null; anything else, a throw or a timeout: not offered this render.
 * @property {(state: Record<string, unknown> | null) => unknown} save Store `state` (null clears). A throw, a rejection or a timeout answers the View -32603.
 */

/**
 * The view-state part of ViewStateAppBridge's construction.
 * @typedef {object} ViewStateBridgeOptions
 * @property {ViewStateStore} storage
 * @property {number | undefined} [maxBytes] Default DEFAULT_VIEW_STATE_MAX_BYTES.
 * @property {number | undefined} [storeTimeoutMs] Default DEFAULT_STORE_TIMEOUT_MS.
 */

/** @typedef {ConstructorParameters<typeof AppBridge>} BridgeArgs */

// The params schema of ui/set-view-state, as a Standard Schema (the SDK takes any):
// only the presence of `state` is checked here, so that the queue's own -32602
// refusal, with its clear message, covers everything else.
const SetViewStateParams = {
  "~standard": {
    version: 1,
    vendor: "mcp-sealed-state",
    validate: (/** @type {unknown} */ params) =>
      params !== null && typeof params === "object" && Object.hasOwn(params, "state")
        ? { value: params }
        : { issues: [{ message: "params.state is required: an object, or null to clear", path: ["state"] }] },
  },
};

/**
 * @template R
 * @param {R} record
 * @returns {R}
 */
function withoutViewState(record) {
  if (record === null || typeof record !== "object" || !Object.hasOwn(record, "viewState")) return record;
  const { viewState: _, ...rest } = /** @type {Record<string, unknown>} */ (record);
  return /** @type {R} */ (rest);
}

/**
 * Run `call()` (sync or async; a throw becomes a rejection) with a deadline.
 * @template R
 * @param {() => R} call
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<Awaited<R>>}
 */
function withTimeout(call, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {Promise<never>} */
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the view-state store's ${what}() took longer than ${ms} ms`)), ms);
  });
  return Promise.race([Promise.resolve().then(call), deadline]).finally(() => clearTimeout(timer));
}

/**
 * A store keyed by whatever identifies one View instance (e.g. the tool call
 * id) in `localStorage`. A stored value that does not parse makes `load()`
 * throw, so the bridge withholds the capability for that render.
 * @param {string} key
 * @param {Storage} [storage]
 * @returns {ViewStateStore}
 */
export function localStorageViewState(key, storage = globalThis.localStorage) {
  return {
    async load() {
      const text = storage.getItem(key);
      return text === null ? null : JSON.parse(text);
    },
    async save(/** @type {Record<string, unknown> | null} */ state) {
      if (state === null) storage.removeItem(key);
      else storage.setItem(key, JSON.stringify(state)); // QuotaExceededError -> -32603
    },
  };
}

/**
 * ext-apps' AppBridge with the Host side of ui/set-view-state: the store is
 * read for each render and offered as hostCapabilities.viewState, and saves
 * go to it one at a time (ViewStateSaveQueue).
 */
export class ViewStateAppBridge extends AppBridge {
  /** @type {ViewStateStore} */
  #storage;
  /** @type {number} */
  #maxBytes;
  /** @type {number} */
  #timeoutMs;
  /** @type {ViewStateSaveQueue | null} null until the store was read once. */
  #queue = null;
  /** Whether the current render was offered the capability. */
  #offered = false;
  #renders = 0;

  /**
   * Called with the state after each successful save (for a Host's UI or logs).
   * @type {((state: Record<string, unknown> | null) => void) | undefined}
   */
  onviewstatesaved = undefined;
  /**
   * Called with the error when the store could not be read for a render.
   * @type {((error: unknown) => void) | undefined}
   */
  onviewstateunavailable = undefined;

  /**
   * @param {BridgeArgs[0]} client an MCP Client, or null (the Host answers tools/call itself)
   * @param {BridgeArgs[1]} hostInfo
   * @param {BridgeArgs[2]} hostCapabilities without viewState: it is added per render
   * @param {BridgeArgs[3]} options AppBridge options ({ hostContext })
   * @param {ViewStateBridgeOptions} viewState
   */
  constructor(
    client,
    hostInfo,
    hostCapabilities,
    options,
    { storage, maxBytes = DEFAULT_VIEW_STATE_MAX_BYTES, storeTimeoutMs = DEFAULT_STORE_TIMEOUT_MS } = /** @type {ViewStateBridgeOptions} */ ({}),
  ) {
    super(client, hostInfo, withoutViewState(hostCapabilities ?? {}), options);
    if (typeof storage?.load !== "function" || typeof storage?.save !== "function") {
      throw new TypeError("ViewStateAppBridge: storage must have load() and save(state)");
    }
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError("ViewStateAppBridge: maxBytes must be a positive integer");
    // The queue's own limit on timers (about 24.8 days) applies too.
    if (!Number.isSafeInteger(storeTimeoutMs) || storeTimeoutMs < 1 || storeTimeoutMs > 2 ** 31 - 1) {
      throw new RangeError("ViewStateAppBridge: storeTimeoutMs must be a whole number of milliseconds from 1 to 2147483647");
    }
    this.#storage = storage;
    this.#maxBytes = maxBytes;
    this.#timeoutMs = storeTimeoutMs;
    // AppBridge's internals, which this class extends, are not in its types.
    /** @type {any} */ (this)._hostContext = withoutViewState(/** @type {any} */ (this)._hostContext);
    // AppBridge registered ui/initialize with a result schema; re-register it
    // without one (which would strip keys it does not know) and wrap the SDK's handler.
    try {
      /** @type {any} */ (this).replaceRequestHandler("ui/initialize", { params: McpUiInitializeRequestSchema.shape.params }, (/** @type {any} */ params, /** @type {any} */ ctx) =>
        this.#initialize(params, ctx),
      );
      /** @type {any} */ (this).setRequestHandler(SET_VIEW_STATE_METHOD, { params: SetViewStateParams }, (/** @type {{ state: unknown }} */ params) => this.#save(params.state));
    } catch (error) {
      // ext-apps 1.x registers handlers by schema, not by method name: the View side works there, this class does not.
      throw new TypeError("ViewStateAppBridge needs @modelcontextprotocol/ext-apps 2.x (its AppBridge registers request handlers by method name)", { cause: error });
    }
  }

  /**
   * The Host's maxBytes.
   * @returns {number}
   */
  get viewStateMaxBytes() {
    return this.#maxBytes;
  }

  /**
   * What the store holds: the last state saved (a save answered -32603 for its timeout counts once its store call completes), or what was read from it; null before the store was read.
   * @returns {Record<string, unknown> | null}
   */
  get viewState() {
    return this.#queue?.lastSaved ?? null;
  }

  /**
   * Whether the current render was offered `hostCapabilities.viewState`.
   * @returns {boolean}
   */
  get viewStateOffered() {
    return this.#offered;
  }

  /**
   * Resolves once no save is in progress (saves that arrive meanwhile are waited for too).
   * @returns {Promise<void>}
   */
  async whenViewStateSettled() {
    await this.#queue?.idle();
  }

  /**
   * As AppBridge's, but never sends viewState in host-context-changed: saves are not echoed.
   * @param {Parameters<AppBridge["setHostContext"]>[0]} hostContext
   */
  setHostContext(hostContext) {
    return super.setHostContext(withoutViewState(hostContext));
  }

  /**
   * As AppBridge's, without viewState.
   * @param {Parameters<AppBridge["sendHostContextChange"]>[0]} params
   */
  sendHostContextChange(params) {
    return super.sendHostContextChange(withoutViewState(params));
  }

  // A Host callback that throws must not turn a stored state into a failed save.
  /**
   * @template V
   * @param {((value: V) => void) | undefined} callback
   * @param {V} value
   */
  #notify(callback, value) {
    try {
      callback?.call(this, value);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * @param {unknown} params
   * @param {any} ctx
   */
  async #initialize(params, ctx) {
    this.#offered = false;
    if (++this.#renders > 1) this.#abortPreviousDocument(ctx?.mcpReq?.id);
    const base = await /** @type {any} */ (this)._onAppsInitialize(params);
    const result = { ...base, hostCapabilities: withoutViewState(base.hostCapabilities), hostContext: withoutViewState(base.hostContext) };
    try {
      // Bounded: a save() that never settles holds the queue for good, and
      // this render must still be answered. Until it settles, what the store
      // holds is unknown, so the capability is withheld, as for a failed load.
      await withTimeout(() => this.whenViewStateSettled(), this.#timeoutMs, "save");
    } catch (error) {
      this.#notify(this.onviewstateunavailable, error);
      return result;
    }
    const queue = await this.#readStore();
    if (queue === null) return result;
    this.#offered = true;
    return {
      ...result,
      hostCapabilities: { ...result.hostCapabilities, viewState: { maxBytes: this.#maxBytes } },
      hostContext: { ...result.hostContext, viewState: queue.lastSaved },
    };
  }

  // The queue, once the store has been read; null when it cannot be read now.
  /** @returns {Promise<ViewStateSaveQueue | null>} */
  async #readStore() {
    if (this.#queue) return this.#queue;
    try {
      const saved = await withTimeout(() => this.#storage.load(), this.#timeoutMs, "load");
      // `initial` refuses what is not an object or null (-32602): treated as unreadable.
      // The queue calls the store once per stored state (coalesced saves share
      // one call), so that is where the Host hears of it.
      // The queue applies the same deadline to each save (storeTimeoutMs).
      const store = async (/** @type {Record<string, unknown> | null} */ state) => {
        await this.#storage.save(state);
        this.#notify(this.onviewstatesaved, state);
      };
      this.#queue = new ViewStateSaveQueue(store, { maxBytes: this.#maxBytes, initial: /** @type {Record<string, unknown> | null} */ (saved ?? null), storeTimeoutMs: this.#timeoutMs });
      return this.#queue;
    } catch (error) {
      this.#notify(this.onviewstateunavailable, error);
      return null;
    }
  }

  /** @param {unknown} currentId */
  #abortPreviousDocument(currentId) {
    // Protocol keeps an AbortController per request being handled, and sends no
    // response for an aborted one. The saves themselves still complete.
    for (const [id, controller] of /** @type {Iterable<[unknown, AbortController]>} */ (/** @type {any} */ (this)._requestHandlerAbortControllers ?? [])) {
      if (id !== currentId) controller.abort(new Error("the View document was replaced"));
    }
  }

  /** @param {unknown} state */
  async #save(state) {
    if (!this.#offered || this.#queue === null) {
      throw new ViewStateError(VIEW_STATE_ERRORS.INTERNAL_ERROR, "view state is not available for this render (the Host did not advertise it)");
    }
    await this.#queue.save(state); // rejects with ViewStateError: its `code` becomes the JSON-RPC error code
    return {};
  }
}
