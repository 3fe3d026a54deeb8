// ViewState: one render's view state on the best store it has (docs/hosts.md, "View
// state on every host"): the Host's ui/set-view-state, ChatGPT's
// window.openai, localStorage under the tool result's viewUUID, or memory.
import { ViewStateError, setViewStateRequest, viewStateSupport } from "mcp-sealed-state/widget";
import { localStore, memoryStore, openaiStore, snapshot, storeOrder, usableLocalStorage, viewUUIDOf } from "./stores.js";

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
    async save(copy, requestOptions) {
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

/** A View's view state for one render: which store keeps it, what was restored, and saving. */
export class ViewState {
  #support;
  #store = null;
  #state = null;

  /**
   * `options.stores`: the stores to try, in order (default all, the order of docs/hosts.md);
   * `options.toolResult`: a watchFirstToolResult(app) installed before connect
   * (made here when "local" is to be tried and none is given).
   */
  constructor(app, rawInitializeResult, options = {}) {
    /** The ui/initialize result as the Host sent it. */
    this.rawInitializeResult = rawInitializeResult;
    this.#support = viewStateSupport(rawInitializeResult);
    const order = storeOrder(options.stores);
    let watch = options.toolResult ?? null;
    const pick = (from) => {
      for (let i = from; i < order.length; i++) {
        const name = order[i];
        if (name === "host" && this.#support !== null) return hostStore(app, this.#support);
        if (name === "openai") {
          const store = openaiStore();
          if (store !== null) return store;
        }
        if (name === "local") {
          const storage = usableLocalStorage();
          if (storage === null) continue;
          watch ??= watchFirstToolResult(app);
          return watch.promise.then((result) => {
            const uuid = viewUUIDOf(result);
            return (uuid === null ? null : localStore(storage, uuid)) ?? pick(i + 1);
          });
        }
        if (name === "memory") return memoryStore();
      }
      return memoryStore();
    };
    const chosen = pick(0);
    if (typeof chosen.then === "function") {
      /** Resolves with this ViewState once `store` and `restored` are final. */
      this.ready = chosen.then((store) => this.#settle(store));
    } else {
      watch?.dispose();
      this.ready = Promise.resolve(this.#settle(chosen));
    }
  }

  #settle(store) {
    this.#store = store;
    this.#state = store.restored;
    return this;
  }

  /** "host" | "openai" | "local" | "memory": where saves go ("memory" too while a "local" store waits for the tool result). */
  get store() {
    return (this.#store ?? PENDING).name;
  }

  /** Whether the Host advertised hostCapabilities.viewState for this render. */
  get supported() {
    return this.#support !== null;
  }

  /** The Host's maxBytes, or null. */
  get maxBytes() {
    return this.#support?.maxBytes ?? null;
  }

  /** The largest state `save` takes, in bytes of compact UTF-8 JSON: the Host's maxBytes for "host", else 64 KiB. */
  get limitBytes() {
    return (this.#store ?? PENDING).maxBytes;
  }

  /** This render's saved state from its store, or null (nothing saved, or not decided yet: await `ready`). */
  get restored() {
    return this.#store?.restored ?? null;
  }

  /** The last state the store accepted in this render, else the restored one. */
  get state() {
    return this.#state;
  }

  /**
   * Save `state` (an object, or null to clear). Resolves true once a store
   * that outlives the View took it; false for "memory" (and before `ready`),
   * or when the "openai" or "local" store threw. Rejects with a ViewStateError:
   * -32602 never as given (over the limit or not an object: checked here
   * first, so nothing is stored or sent; or refused by the Host), and from the
   * Host -32603 not now, -32601 a Host without the method.
   */
  async save(state, requestOptions) {
    const store = this.#store ?? PENDING;
    const copy = snapshot(state, store.maxBytes);
    if (!(await store.save(copy, requestOptions))) return false;
    this.#state = copy;
    return true;
  }
}
