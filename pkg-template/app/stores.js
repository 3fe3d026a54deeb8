// The View-side stores of view state other than the Host's, and the order in
// which connectWithViewState tries them (docs/hosts.md, "View state on every host"):
// "host" (ui/set-view-state), "openai" (ChatGPT's window.openai), "local"
// (localStorage under the tool result's _meta.viewUUID), "memory" (nothing
// outlives the View). Every store applies the same size rule, and a store
// that throws never breaks the View: its save resolves false.
import { checkViewState } from "mcp-sealed-state/widget";
import { DEFAULT_VIEW_STATE_MAX_BYTES } from "../constants.js";

/** The stores in the order they are tried. */
export const VIEW_STATE_STORES = Object.freeze(["host", "openai", "local", "memory"]);

/** What the localStorage key of a view starts with; the rest is its viewUUID. */
export const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
const PROBE_KEY = "mcp-sealed-state/probe";
const MAX_VIEW_UUID_CHARS = 128;

/** `options.stores` checked: the names to try, in order (default: all of them). */
export function storeOrder(stores) {
  if (stores === undefined) return VIEW_STATE_STORES;
  if (!Array.isArray(stores) || stores.length === 0) throw new TypeError(`options.stores must be a non-empty array of ${VIEW_STATE_STORES.map((s) => JSON.stringify(s)).join(", ")}`);
  const seen = new Set();
  for (const name of stores) {
    if (!VIEW_STATE_STORES.includes(name))
      throw new TypeError(`options.stores: unknown store ${typeof name === "string" ? JSON.stringify(name) : typeof name}; the stores are ${VIEW_STATE_STORES.join(", ")}`);
    if (seen.has(name)) throw new TypeError(`options.stores: ${JSON.stringify(name)} is listed twice`);
    seen.add(name);
  }
  return Object.freeze([...stores]);
}

/** The viewUUID of a tool result's `_meta` (a string of 1 to 128 characters), else null. */
export function viewUUIDOf(toolResult) {
  let uuid;
  try {
    uuid = toolResult?._meta?.viewUUID;
  } catch {
    return null; // a getter that throws: no usable viewUUID
  }
  return typeof uuid === "string" && uuid.length >= 1 && uuid.length <= MAX_VIEW_UUID_CHARS ? uuid : null;
}

// A deep copy of a JSON object, or null for anything else (including what JSON cannot copy).
function objectOrNull(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  try {
    const copy = JSON.parse(JSON.stringify(value));
    return copy !== null && typeof copy === "object" && !Array.isArray(copy) ? copy : null;
  } catch {
    return null;
  }
}

/**
 * `state` as it will be stored: checked by the one size rule (a ViewStateError
 * -32602 otherwise), then copied so that the caller's later changes do not count.
 * Every store's `save` takes such a copy.
 */
export function snapshot(state, maxBytes) {
  checkViewState(state, maxBytes);
  return JSON.parse(JSON.stringify(state));
}

/** The store that keeps nothing: saves resolve false. */
export function memoryStore() {
  return { name: "memory", restored: null, maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES, save: async () => false };
}

/**
 * ChatGPT's store, when `window.openai.setWidgetState` is a function: the
 * restored state is `window.openai.widgetState` when it is an object, a save
 * calls `setWidgetState(state)`. Null when there is no such API.
 */
export function openaiStore(scope = globalThis) {
  let openai;
  let restored;
  try {
    openai = scope.openai;
    if (openai === null || typeof openai !== "object" || typeof openai.setWidgetState !== "function") return null;
    restored = objectOrNull(openai.widgetState);
  } catch {
    return null; // a throwing getter: the API is not usable here
  }
  return {
    name: "openai",
    restored,
    maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES,
    async save(copy) {
      try {
        await openai.setWidgetState(copy);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * This frame's localStorage when it works (a write and remove of a probe key
 * succeed), else null: an opaque-origin sandbox throws SecurityError on
 * access, disabled or full storage throws on write.
 */
export function usableLocalStorage(scope = globalThis) {
  try {
    const storage = scope.localStorage;
    if (storage === null || typeof storage !== "object") return null;
    storage.setItem(PROBE_KEY, "1");
    storage.removeItem(PROBE_KEY);
    return storage;
  } catch {
    return null;
  }
}

/**
 * The per-view store in `storage` under LOCAL_KEY_PREFIX + viewUUID, or null
 * when the saved state cannot be read. Text that is not a JSON object reads as
 * nothing saved, and the next save overwrites it.
 */
export function localStore(storage, viewUUID) {
  const key = LOCAL_KEY_PREFIX + viewUUID;
  let text;
  try {
    text = storage.getItem(key);
  } catch {
    return null;
  }
  let restored = null;
  if (typeof text === "string") {
    try {
      restored = objectOrNull(JSON.parse(text));
    } catch {
      restored = null;
    }
  }
  return {
    name: "local",
    restored,
    maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES,
    async save(copy) {
      try {
        if (copy === null) storage.removeItem(key);
        else storage.setItem(key, JSON.stringify(copy));
        return true;
      } catch {
        return false; // QuotaExceededError, or storage turned off since
      }
    },
  };
}
