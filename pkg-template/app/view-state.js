// ViewState: one render's view state on the best store it has (SPEC "View
// state on every host"): the Host's ui/set-view-state, ChatGPT's
// window.openai, localStorage under the tool result's viewUUID, or memory.
import { ViewStateError, setViewStateRequest, viewStateSupport } from "mcp-sealed-state/widget";
import { localStore, memoryStore, openaiStore, snapshot, storeOrder, usableLocalStorage, viewUUIDOf, viewUUIDOfOpenai } from "./stores.js";

// The result schema of ui/set-view-state: `{}`, and Views ignore fields they do not know.
const SetViewStateResult = {
  "~standard": {
    version: 1,
    vendor: "mcp-sealed-state",
    validate: (value) => (value !== null && typeof value === "object" && !Array.isArray(value) ? { value } : { issues: [{ message: "expected an object" }] }),
  },
};

// Until a "local" store is decided, saves are checked by the default rule and kept nowhere.
const PENDING = memoryStore();

/**
 * The first ui/notifications/tool-result the app receives from now on
 * (`promise` resolves with its params), or null once the Host cancels the
 * tool call. Install before `app.connect()`: the Host may send it at once.
 */
export function watchFirstToolResult(app) {
  let settle;
  const promise = new Promise((resolve) => (settle = resolve));
  const stop = () => {
    app.removeEventListener?.("toolresult", onResult);
    app.removeEventListener?.("toolcancelled", onCancelled);
  };
  const onResult = (params) => (stop(), settle(params));
  const onCancelled = () => (stop(), settle(null));
  app.addEventListener("toolresult", onResult);
  app.addEventListener("toolcancelled", onCancelled);
  return { promise, dispose: stop };
}

// The Host's store: ui/set-view-state, within the Host's maxBytes.
function hostStore(app, support) {
  return {
    name: "host",
    restored: support.state,
    maxBytes: support.maxBytes,
    async save(copy, _text, requestOptions) {
      // setViewStateRequest shapes method and params; the id is not used, since the App numbers its own requests.
      const { method, params } = setViewStateRequest(0, copy);
      try {
        await app.request({ method, params }, SetViewStateResult, requestOptions);
      } catch (error) {
        throw Number.isSafeInteger(error?.code) ? new ViewStateError(error.code, error.message) : error;
      }
      // As the PR's App.setViewState does: the host context shows what was saved, without a hostcontextchanged event.
      const hostContext = app.getHostContext?.();
      if (hostContext && typeof hostContext === "object") hostContext.viewState = copy;
      return true;
    },
  };
}

/** A View's view state for one render: which store keeps it, what was restored, and saving. Made by connectWithViewState. */
export class ViewState {
  #support;
  #store = null;
  #through = null;
  #restoredFrom = null;
  #state = null;
  #lastSave = null;
  #saved = null; // { copy, text } of the last state that passed the rule

  /**
   * `options.stores`: the stores to try, in order (default all, SPEC order);
   * `options.toolResult`: a watchFirstToolResult(app) installed before connect
   * (made here when "local" is to be tried and none is given);
   * `options.window`: the window whose openai and localStorage are used (default globalThis).
   */
  constructor(app, rawInitializeResult, options = {}) {
    /** The ui/initialize result as the Host sent it. */
    this.rawInitializeResult = rawInitializeResult;
    this.#support = viewStateSupport(rawInitializeResult);
    const scope = options.window ?? globalThis;
    const order = storeOrder(options.stores);
    let watch = options.toolResult ?? null;
    // The "local" store of this render's viewUUID: at once where
    // window.openai.toolResponseMetadata holds one (the render's result),
    // else from the first tool result (null: no usable viewUUID, or cancelled).
    const local = (storage) => {
      const now = viewUUIDOfOpenai(scope);
      if (now !== null) return localStore(storage, now);
      watch ??= watchFirstToolResult(app);
      return watch.promise.then((result) => {
        const uuid = result === null ? null : viewUUIDOf(result, scope);
        return uuid === null ? null : localStore(storage, uuid);
      });
    };
    const pick = (from) => {
      for (let i = from; i < order.length; i++) {
        const name = order[i];
        if (name === "host" && this.#support !== null) return hostStore(app, this.#support);
        if (name === "openai") {
          const store = openaiStore(scope);
          if (store === null) continue;
          // Write through to "local" where it is allowed, works and has a viewUUID:
          // development tools inject a window.openai that keeps state in memory only.
          const storage = order.includes("local") ? usableLocalStorage(scope) : null;
          if (storage === null) return store;
          const through = local(storage);
          if (typeof through?.then !== "function") return { store, through };
          // openai restored a state, which comes first: decided now, and the
          // write-through starts once the tool result names the viewUUID.
          if (store.restored !== null) return { store, through: null, attach: through };
          return through.then((decided) => ({ store, through: decided }));
        }
        if (name === "local") {
          const storage = usableLocalStorage(scope);
          if (storage === null) continue;
          return then(local(storage), (store) => store ?? pick(i + 1));
        }
        if (name === "memory") return memoryStore();
      }
      return memoryStore();
    };
    const chosen = pick(0);
    if (typeof chosen.then === "function") {
      /** Resolves with this ViewState once `store` and `restored` are final. */
      this.ready = chosen.then((picked) => this.#settle(picked));
    } else {
      if (chosen.attach === undefined) watch?.dispose(); // else it still waits for the write-through's viewUUID
      this.ready = Promise.resolve(this.#settle(chosen));
    }
  }

  #settle(picked) {
    const { store, through = null, attach } = "store" in picked ? picked : { store: picked };
    this.#store = store;
    this.#through = through;
    attach?.then((late) => {
      if (late === null) return;
      this.#through = late;
      // What was saved before the viewUUID was known is written through now.
      if (this.#saved !== null) void late.save(this.#saved.copy, this.#saved.text);
    });
    // Restore from the store first, then from its write-through.
    if (store.restored !== null) {
      this.#state = store.restored;
      this.#restoredFrom = store.name;
    } else if (through?.restored != null) {
      this.#state = through.restored;
      this.#restoredFrom = through.name;
    }
    return this;
  }

  /** "host" | "openai" | "local" | "memory": where saves go ("memory" too while a "local" store waits for the tool result). */
  get store() {
    return (this.#store ?? PENDING).name;
  }

  /**
   * "local" when saves to `store` ("openai") are also written to localStorage
   * under the viewUUID (window.openai may keep state in memory only, as
   * development tools' does), else null.
   */
  get writeThrough() {
    return this.#through?.name ?? null;
  }

  /** The store `restored` came from ("host" | "openai" | "local"), or null when nothing was restored. */
  get restoredFrom() {
    return this.#restoredFrom;
  }

  /** Whether the Host offered ui/set-view-state (hostCapabilities.viewState) for this render. */
  get offered() {
    return this.#support !== null;
  }

  /** The largest state `save` takes, in bytes of compact UTF-8 JSON: the Host's maxBytes for "host", else 64 KiB. */
  get maxBytes() {
    return (this.#store ?? PENDING).maxBytes;
  }

  /** This render's saved state (from `store`, else from its write-through), or null (nothing saved, or not decided yet: await `ready`). */
  get restored() {
    return this.#restoredFrom === null ? null : this.#restoredFrom === this.#store?.name ? this.#store.restored : this.#through.restored;
  }

  /** The last state `store` accepted in this render, else the restored one. */
  get state() {
    return this.#state;
  }

  /** What each store answered to the last save, e.g. `{ openai: false, local: true }`; null before the first. */
  get lastSave() {
    return this.#lastSave;
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
   */
  async save(state, requestOptions) {
    const store = this.#store ?? PENDING;
    const through = this.#through;
    const { copy, text } = snapshot(state, store.maxBytes);
    this.#saved = { copy, text }; // a write-through that joins later starts from it
    const [primary, second] = await Promise.allSettled([store.save(copy, text, requestOptions), through?.save(copy, text)]);
    this.#lastSave = { [store.name]: primary.status === "fulfilled" && primary.value === true };
    if (through) this.#lastSave[through.name] = second.status === "fulfilled" && second.value === true;
    if (primary.status === "rejected") throw primary.reason;
    if (!primary.value) return false;
    this.#state = copy;
    return true;
  }
}

// `f(value)` now, or once `value` (a promise) resolves.
const then = (value, f) => (typeof value?.then === "function" ? value.then(f) : f(value));
