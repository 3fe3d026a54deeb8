// @ts-check
// ViewState: one render's view state on the best store it has (docs/views.md,
// "View state"): the Host's ui/set-view-state, ChatGPT's
// window.openai, localStorage under the tool result's viewUUID, or memory.
import { ViewStateError, setViewStateRequest, viewStateSupport } from "mcp-sealed-state/widget";
import { DEFAULT_READY_TIMEOUT_MS } from "../constants.js";
import { localStore, memoryStore, openaiStore, snapshot, storeOrder, usableLocalStorage, viewUUIDOf, viewUUIDOfOpenai } from "./stores.js";

/** @import { App } from "@modelcontextprotocol/ext-apps" */
/** @import { Store, ViewStateStoreName, ViewStateValue } from "./stores.js" */
/** @import { AppRequestOptions } from "./tool-calls.js" */

/** How the View reached its Host: the MCP Apps bridge, or the Apps SDK's window.openai alone. @typedef {(typeof HOST_MODELS)[number]} HostModel */

/**
 * What watchFirstToolResult gives: the first tool result's params (null once the Host cancels the call).
 * @typedef {{ promise: Promise<unknown>, dispose: () => void }} ToolResultWatch
 */

/**
 * How tracking makes a ViewState: `stores` to try, in order (default all, in
 * the order of docs/views.md); `toolResult`, a watchFirstToolResult(app)
 * installed before connect (made here when "local" is to be tried and none is
 * given); `window`, whose openai and localStorage are used (default
 * globalThis); `readyTimeoutMs`, how long `ready` waits for a store that needs
 * the first tool result; `hostModel`, "mcp-apps" (default) or "apps-sdk".
 * @typedef {object} ViewStateInit
 * @property {readonly ViewStateStoreName[] | undefined} [stores]
 * @property {ToolResultWatch | undefined} [toolResult]
 * @property {any} [window]
 * @property {number | undefined} [readyTimeoutMs]
 * @property {HostModel | undefined} [hostModel]
 */

// The result schema of ui/set-view-state: `{}`, and Views ignore fields they do not know.
// ext-apps 2.x's App validates with Standard Schema ("~standard"); 1.x's runs
// on the MCP SDK 1.x, which calls a zod-like safeParse: it has both.
const isResultObject = (/** @type {unknown} */ value) => value !== null && typeof value === "object" && !Array.isArray(value);
const SetViewStateResult = {
  "~standard": {
    version: 1,
    vendor: "mcp-sealed-state",
    validate: (/** @type {unknown} */ value) => (isResultObject(value) ? { value } : { issues: [{ message: "expected an object" }] }),
  },
  safeParse: (/** @type {unknown} */ value) =>
    isResultObject(value) ? { success: true, data: value } : { success: false, error: new TypeError("ui/set-view-state: expected an object as the result") },
};

// Until a "local" store is decided, saves are checked by the default rule and kept nowhere.
const PENDING = memoryStore();

/**
 * The first ui/notifications/tool-result the app receives from now on
 * (`promise` resolves with its params), or null once the Host cancels the
 * tool call. Install before `app.connect()`: the Host may send it at once.
 */
/**
 * @param {App} app
 * @returns {ToolResultWatch}
 */
export function watchFirstToolResult(app) {
  /** @type {(value: unknown) => void} */
  let settle;
  /** @type {Promise<unknown>} */
  const promise = new Promise((resolve) => (settle = resolve));
  const stop = () => {
    app.removeEventListener?.("toolresult", onResult);
    app.removeEventListener?.("toolcancelled", onCancelled);
  };
  const onResult = (/** @type {unknown} */ params) => (stop(), settle(params));
  const onCancelled = () => (stop(), settle(null));
  app.addEventListener("toolresult", onResult);
  app.addEventListener("toolcancelled", onCancelled);
  return { promise, dispose: stop };
}

// The Host's store: ui/set-view-state, within the Host's maxBytes.
/**
 * @param {App} app
 * @param {{ maxBytes: number, state: Record<string, unknown> | null }} support
 * @returns {Store}
 */
function hostStore(app, support) {
  return {
    name: "host",
    restored: support.state,
    maxBytes: support.maxBytes,
    /**
     * @param {ViewStateValue} copy
     * @param {string} [_text]
     * @param {AppRequestOptions} [requestOptions]
     */
    async save(copy, _text, requestOptions) {
      // setViewStateRequest shapes method and params; the id is not used, since the App numbers its own requests.
      const { method, params } = setViewStateRequest(0, copy);
      try {
        await app.request({ method, params }, /** @type {any} */ (SetViewStateResult), requestOptions);
      } catch (/** @type {any} */ error) {
        throw Number.isSafeInteger(error?.code) ? new ViewStateError(error.code, error.message) : error;
      }
      // As the PR's App.setViewState does: the host context shows what was saved, without a hostcontextchanged event.
      const hostContext = app.getHostContext?.();
      if (hostContext && typeof hostContext === "object") /** @type {Record<string, unknown>} */ (hostContext).viewState = copy;
      return true;
    },
  };
}

/**
 * The members of the saved state that a token keeper keeps (`persist`), for
 * the keeper alone: `viewState[PERSISTED].add(name, read)` makes every save
 * carry `read()` under `name`, `get(name)` reads the restored one, `save()`
 * saves the current state again. Not part of the public surface.
 * @internal
 */
export const PERSISTED = Symbol("mcp-sealed-state/app persisted members");

/** How the View reached its Host: "mcp-apps" (the bridge answered ui/initialize) or "apps-sdk" (window.openai only). */
const HOST_MODELS = Object.freeze(/** @type {const} */ (["mcp-apps", "apps-sdk"]));

/**
 * A View's view state for one render: which store keeps it, what was
 * restored, and saving. Made by connectWithViewState (the one way to get one).
 * @template {ViewStateValue} [T=ViewStateValue]
 */
export class ViewState {
  /** @type {{ maxBytes: number, state: Record<string, unknown> | null } | null} */
  #support;
  /** @type {HostModel} */
  #hostModel;
  /** @type {Store | null} */
  #store = null;
  /** @type {Store | null} */
  #through = null;
  /** @type {ViewStateStoreName | null} */
  #restoredFrom = null;
  /** @type {Record<string, unknown> | null} */
  #restoredFull = null; // the restored state as stored, persisted members included
  /** @type {ViewStateValue} */
  #state = null; // the caller's part of the last state accepted, else of the restored one
  /** @type {ViewStateValue} */
  #wanted = null; // the caller's part of the last state handed to save() that passed the rule, else of the restored one
  /** @type {Partial<Record<ViewStateStoreName, boolean>> | null} */
  #lastSave = null;
  /** @type {{ copy: ViewStateValue, text: string } | null} */
  #saved = null; // { copy, text } of the last state that passed the rule
  /** @type {Map<string, () => unknown>} */
  #members = new Map(); // name -> read(): the persisted members (PERSISTED)
  /** @type {Set<(viewState: this) => void>} */
  #listeners = new Set();

  /**
   * `options.stores`: the stores to try, in order (default all, in the order of docs/views.md);
   * `options.toolResult`: a watchFirstToolResult(app) installed before connect
   * (made here when "local" is to be tried and none is given);
   * `options.window`: the window whose openai and localStorage are used (default globalThis);
   * `options.readyTimeoutMs`: how long `ready` waits for a store that needs the first tool result;
   * `options.hostModel`: "mcp-apps" (default) or "apps-sdk".
   * @private
   * @param {App} app
   * @param {unknown} rawInitializeResult
   * @param {ViewStateInit} [options]
   */
  constructor(app, rawInitializeResult, options = {}) {
    /**
     * The ui/initialize result as the Host sent it (undefined where the bridge did not answer).
     * @readonly
     * @type {unknown}
     */
    this.rawInitializeResult = rawInitializeResult;
    this.#support = viewStateSupport(rawInitializeResult);
    this.#hostModel = /** @type {readonly unknown[]} */ (HOST_MODELS).includes(options.hostModel) ? /** @type {HostModel} */ (options.hostModel) : "mcp-apps";
    const scope = options.window ?? globalThis;
    const order = storeOrder(options.stores);
    const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    if (!Number.isFinite(readyTimeoutMs) || readyTimeoutMs < 0) throw new RangeError("readyTimeoutMs must be a finite number of milliseconds, 0 or more");
    let watch = options.toolResult ?? null;
    const storage = order.includes("local") ? usableLocalStorage(scope) : null;
    // This render's "local" store: now, where window.openai.toolResponseMetadata
    // holds a viewUUID (the render's result), else a promise of the one the
    // first tool result names (null: no usable viewUUID, or cancelled).
    const uuidNow = viewUUIDOfOpenai(scope);
    const localLater = () => {
      watch ??= watchFirstToolResult(app);
      return watch.promise.then((result) => {
        const uuid = result === null ? null : viewUUIDOf(result, scope);
        return uuid === null ? null : localStore(/** @type {Storage} */ (storage), uuid);
      });
    };
    // { store, through, late }: the stores decided now, and a promise of a
    // "local" store that the first tool result decides (it replaces "memory",
    // or joins as the write-through).
    /** @type {(from: number) => { store: Store, through?: Store | null, late?: Promise<Store | null> }} */
    const pick = (from) => {
      for (let i = from; i < order.length; i++) {
        const name = order[i];
        if (name === "host" && this.#support !== null) return { store: hostStore(app, this.#support) };
        if (name === "openai") {
          const store = openaiStore(scope);
          if (store === null) continue;
          // Write through to "local" where it is allowed and works: development
          // tools inject a window.openai that keeps state in memory only.
          if (storage === null) return { store };
          if (uuidNow !== null) return { store, through: localStore(storage, uuidNow) };
          return { store, late: localLater() };
        }
        if (name === "local" && storage !== null) {
          if (uuidNow === null) return { ...pick(i + 1), late: localLater() }; // the next store serves until the tool result decides
          const store = localStore(storage, uuidNow);
          if (store !== null) return { store };
        }
        if (name === "memory") break;
      }
      return { store: memoryStore() };
    };
    const { store, through = null, late } = pick(0);
    if (late === undefined) {
      watch?.dispose();
      this.#settle(store, through);
      /**
       * Resolves with this ViewState once `store` and `restored` are settled:
       * at once, except where "local" (or "openai"'s write-through to it, when
       * "openai" restored nothing) waits for the first tool result's viewUUID,
       * and then within `readyTimeoutMs` (default DEFAULT_READY_TIMEOUT_MS)
       * whatever happens. A "local" store that a later result decides joins
       * then (it replaces "memory", or becomes the write-through) and
       * `subscribe` listeners hear of it, with the state it restored. Never rejects.
       * @readonly
       * @type {Promise<this>}
       */
      this.ready = Promise.resolve(this);
      return;
    }
    if (store.restored !== null) {
      // A restored state comes first: decided now, and "local" joins once the tool result names the viewUUID.
      this.#settle(store, through);
      this.ready = Promise.resolve(this);
      late.then((found) => this.#join(found));
      return;
    }
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {Promise<"timeout">} */
    const bound = new Promise((resolve) => (timer = setTimeout(resolve, readyTimeoutMs, "timeout")));
    this.ready = Promise.race([late, bound]).then((found) => {
      clearTimeout(timer);
      if (found === "timeout") {
        this.#settle(store, through);
        late.then((joined) => this.#join(joined));
      } else if (found === null) {
        this.#settle(store, through);
      } else if (store.name === "memory") {
        this.#settle(found, through);
      } else {
        this.#settle(store, found);
      }
      return this;
    });
  }

  /**
   * @param {Store} store
   * @param {Store | null} through
   */
  #settle(store, through) {
    this.#store = store;
    this.#through = through;
    // Restore from the store first, then from its write-through.
    if (store.restored !== null) this.#restore(store.name, store.restored);
    else if (through?.restored != null) this.#restore(through.name, through.restored);
  }

  /**
   * @param {ViewStateStoreName} from
   * @param {Record<string, unknown>} full
   */
  #restore(from, full) {
    this.#restoredFrom = from;
    this.#restoredFull = full;
    this.#state = this.#callerPart(full);
    this.#wanted = this.#state;
  }

  // A "local" store decided after `ready`: it replaces "memory" or joins as the
  // write-through. A state it restored is told to the listeners and never
  // overwritten before they have heard of it; else the last state saved is written there.
  /** @param {Store | null} found */
  #join(found) {
    if (found === null) return;
    if (/** @type {Store} */ (this.#store).name === "memory") this.#store = found;
    else if (this.#through === null) this.#through = found;
    else return;
    if (found.restored !== null && this.#restoredFrom === null) {
      const saved = this.#saved !== null;
      this.#restoredFrom = found.name;
      this.#restoredFull = found.restored;
      if (!saved) this.#state = this.#wanted = this.#callerPart(found.restored);
    } else if (this.#saved !== null) {
      void found.save(this.#saved.copy, this.#saved.text);
    }
    for (const listener of this.#listeners) {
      try {
        listener(this);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  // The caller's part of a stored state: without the persisted members; null
  // where nothing else is there.
  /**
   * @param {ViewStateValue} full
   * @returns {ViewStateValue}
   */
  #callerPart(full) {
    if (full === null || this.#members.size === 0) return full;
    const part = { ...full };
    for (const name of this.#members.keys()) delete part[name];
    return Object.keys(part).length === 0 && Object.keys(full).some((name) => this.#members.has(name)) ? null : part;
  }

  /**
   * How the View reached its Host: "mcp-apps" (the bridge answered ui/initialize) or "apps-sdk" (window.openai only, no answer within the bound).
   * @returns {HostModel}
   */
  get hostModel() {
    return this.#hostModel;
  }

  /**
   * Where saves go ("memory" too while a "local" store waits for the tool result).
   * @returns {ViewStateStoreName}
   */
  get store() {
    return (this.#store ?? PENDING).name;
  }

  /**
   * "local" when saves to `store` are also written to localStorage under the
   * viewUUID (window.openai may keep state in memory only, as development
   * tools' does), else null.
   * @returns {"local" | null}
   */
  get writeThrough() {
    return /** @type {"local" | null} */ (this.#through?.name ?? null);
  }

  /**
   * The store `restored` came from ("openai" first, then its write-through "local"), or null when nothing was restored.
   * @returns {ViewStateStoreName | null}
   */
  get restoredFrom() {
    return this.#restoredFrom;
  }

  /**
   * Whether the Host offered ui/set-view-state (hostCapabilities.viewState) for this render, whichever store is used.
   * @returns {boolean}
   */
  get offered() {
    return this.#support !== null;
  }

  /**
   * The largest state `save` takes, in bytes of compact UTF-8 JSON: the Host's maxBytes for "host", else DEFAULT_VIEW_STATE_MAX_BYTES.
   * @returns {number}
   */
  get maxBytes() {
    return (this.#store ?? PENDING).maxBytes;
  }

  /**
   * This render's saved state (from `store`, else from its write-through), or null: nothing saved, or not decided yet (await `ready`).
   * @returns {T | null}
   */
  get restored() {
    return /** @type {T | null} */ (this.#callerPart(this.#restoredFull));
  }

  /**
   * The last state `store` accepted in this render, else the restored one.
   * @returns {T | null}
   */
  get state() {
    return /** @type {T | null} */ (this.#state);
  }

  /**
   * What each store answered to the last save, e.g. `{ openai: false, local: true }`; null before the first.
   * @returns {Partial<Record<ViewStateStoreName, boolean>> | null}
   */
  get lastSave() {
    return this.#lastSave;
  }

  /**
   * Call `listener(viewState)` when a store is decided after `ready` (a tool
   * result that came later named the viewUUID of a "local" store): `store`,
   * `writeThrough`, and `restored` where that store held a state, which no
   * save overwrites before the listeners have run. Returns the unsubscribe function.
   * @param {(viewState: this) => void} listener
   * @returns {() => boolean}
   */
  subscribe(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Save `state` (an object, or null to clear). Resolves true once `store`
   * took it and it outlives the View; false for "memory" (and before
   * `ready`), or when the "openai" or "local" store threw. A write-through
   * happens whatever `store` answered (see `lastSave`). Rejects with a
   * ViewStateError, -32602 never as given (over `maxBytes` or not an object:
   * checked here first, on the very text that is stored, so nothing is
   * stored or sent; or refused by the Host), and from the Host -32603 not
   * now, -32601 a Host without the method.
   * @param {T | null} state
   * @param {AppRequestOptions} [requestOptions]
   * @returns {Promise<boolean>}
   */
  async save(state, requestOptions) {
    const store = this.#store ?? PENDING;
    const through = this.#through;
    const { copy, text } = snapshot(this.#withMembers(state), store.maxBytes);
    this.#saved = { copy, text }; // a store that joins later starts from it
    this.#wanted = this.#callerPart(copy);
    const [primary, second] = await Promise.allSettled([store.save(copy, text, requestOptions), through?.save(copy, text)]);
    this.#lastSave = { [store.name]: primary.status === "fulfilled" && primary.value === true };
    if (through) this.#lastSave[through.name] = second.status === "fulfilled" && second.value === true;
    if (primary.status === "rejected") throw primary.reason;
    if (!primary.value) return false;
    this.#state = this.#callerPart(copy);
    return true;
  }

  // `state` with the persisted members' current values (a member whose value is null is left out).
  /**
   * @param {unknown} state
   * @returns {unknown}
   */
  #withMembers(state) {
    if (this.#members.size === 0) return state;
    /** @type {any} */
    let full = state;
    for (const [name, read] of this.#members) {
      const value = read();
      if (value === null || value === undefined) continue;
      // Anything but an object (or null) is refused by the rule below, as without members.
      if (full === null) full = {};
      else if (typeof full !== "object" || Array.isArray(full)) return state;
      else if (full === state) full = { .../** @type {object} */ (state) };
      full[name] = value;
    }
    return full;
  }

  /** @internal */
  get [PERSISTED]() {
    return {
      add: (/** @type {string} */ name, /** @type {() => unknown} */ read) => {
        this.#members.set(name, read);
        this.#state = this.#callerPart(this.#state);
        this.#wanted = this.#callerPart(this.#wanted);
      },
      get: (/** @type {string} */ name) => (this.#restoredFull !== null && typeof this.#restoredFull === "object" ? (this.#restoredFull[name] ?? null) : null),
      // Again the state the caller last asked for, so a save in flight is not undone.
      save: () => this.save(/** @type {T | null} */ (this.#wanted)),
    };
  }
}
