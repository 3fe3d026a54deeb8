// @ts-check
// The View-side stores of view state other than the Host's; connectWithViewState
// tries them in the order of VIEW_STATE_STORES (docs/views.md, "View state").
// Every store applies the same size rule, and a store that throws never breaks
// the View: its save resolves false.
import { checkViewState } from "mcp-sealed-state/widget";
import { DEFAULT_VIEW_STATE_MAX_BYTES, VIEW_STATE_STORES } from "../constants.js";
import { field, isRecord, openaiOf, safeResultOf, toolResponseMetadataOf } from "./openai.js";

export { VIEW_STATE_STORES };

/** A View-side store of view state: a name of VIEW_STATE_STORES. @typedef {(typeof VIEW_STATE_STORES)[number]} ViewStateStoreName */

/** A JSON object, or null: what a View may save. @typedef {Record<string, unknown> | null} ViewStateValue */

/**
 * One store of this render: what it restored, its size limit, and its save
 * (resolves true once the state outlives the View; never rejects).
 * (`text` is the copy's JSON, which "local" writes; `requestOptions` go to the Host's request.)
 * @typedef {{ name: ViewStateStoreName, restored: Record<string, unknown> | null, maxBytes: number, save(copy: ViewStateValue, text?: string, requestOptions?: import("./tool-calls.js").AppRequestOptions): Promise<boolean> }} Store
 */

/** What the localStorage key of a view starts with; the rest is its viewUUID. */
export const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
/** The localStorage key of the index of the views that keep state there (LRU first). */
export const LOCAL_INDEX_KEY = "mcp-sealed-state/views";
const INDEX_KEY = LOCAL_INDEX_KEY;
/** The most views whose state the "local" store keeps on one origin. */
export const MAX_LOCAL_VIEWS = 1000;
const PROBE_KEY = "mcp-sealed-state/probe";
const MAX_VIEW_UUID_CHARS = 128;

/** `options.stores` checked: the names to try, in order (default: all of them). */
/**
 * @param {unknown} stores
 * @returns {readonly ViewStateStoreName[]}
 */
export function storeOrder(stores) {
  if (stores === undefined) return VIEW_STATE_STORES;
  if (!Array.isArray(stores) || stores.length === 0) throw new TypeError(`options.stores must be a non-empty array of ${VIEW_STATE_STORES.map((s) => JSON.stringify(s)).join(", ")}`);
  const seen = new Set();
  for (const name of stores) {
    if (!(/** @type {readonly unknown[]} */ (VIEW_STATE_STORES).includes(name)))
      throw new TypeError(`options.stores: unknown store ${typeof name === "string" ? JSON.stringify(name) : typeof name}; the stores are ${VIEW_STATE_STORES.join(", ")}`);
    if (seen.has(name)) throw new TypeError(`options.stores: ${JSON.stringify(name)} is listed twice`);
    seen.add(name);
  }
  return Object.freeze([...stores]);
}

/**
 * The viewUUID of a tool result (a string of 1 to 128 characters), from the
 * first of: its `_meta.viewUUID`; `window.openai.toolResponseMetadata.viewUUID`
 * (ChatGPT strips `_meta` from the notification); its
 * `structuredContent.viewUUID` (a server's mirror). Else null: anything else
 * is ignored, never used as a key.
 */
/**
 * @param {unknown} toolResult
 * @param {unknown} [scope]
 * @returns {string | null}
 */
export function viewUUIDOf(toolResult, scope = globalThis) {
  const r = safeResultOf(toolResult);
  for (const record of [field(r, "_meta"), toolResponseMetadataOf(scope), field(r, "structuredContent")]) {
    const uuid = usableViewUUID(field(record, "viewUUID"));
    if (uuid !== null) return uuid;
  }
  return null;
}

/** The viewUUID that window.openai.toolResponseMetadata holds now (the render's result), else null. */
/**
 * @param {unknown} [scope]
 * @returns {string | null}
 */
export function viewUUIDOfOpenai(scope = globalThis) {
  return usableViewUUID(field(toolResponseMetadataOf(scope), "viewUUID"));
}

const usableViewUUID = (/** @type {unknown} */ uuid) => (typeof uuid === "string" && uuid.length >= 1 && uuid.length <= MAX_VIEW_UUID_CHARS ? uuid : null);

// A deep copy of a JSON object, or null for anything else (including what JSON cannot copy).
/**
 * @param {unknown} value
 * @returns {Record<string, unknown> | null}
 */
function objectOrNull(value) {
  if (!isRecord(value)) return null;
  try {
    const copy = JSON.parse(JSON.stringify(value));
    return isRecord(copy) ? copy : null;
  } catch {
    return null;
  }
}

/**
 * `state` as it will be stored: serialized ONCE and checked by the one size
 * rule on that very text (a ViewStateError -32602 otherwise), so that a
 * `toJSON` that answers differently on a second call cannot store something
 * else, and the caller's later changes do not count. `text` is what the
 * "local" store writes, `copy` (parsed from it) what the other stores take.
 */
/**
 * @param {unknown} state
 * @param {number} maxBytes
 * @returns {{ text: string, copy: ViewStateValue }}
 */
export function snapshot(state, maxBytes) {
  const text = checkViewState(state, maxBytes);
  return { text, copy: JSON.parse(text) };
}

// ChatGPT's structured widget state: the model sees modelContent, and neither privateContent nor the images' ids.
const STRUCTURED_MEMBERS = Object.freeze(["modelContent", "privateContent", "imageIds"]);

/** The store that keeps nothing: saves resolve false. */
/** @returns {Store} */
export function memoryStore() {
  return { name: "memory", restored: null, maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES, save: async () => false };
}

/**
 * ChatGPT's store, when `window.openai.setWidgetState` is a function
 * (docs/views.md, "View state"). ChatGPT shows
 * widget state to the model unless it has the structured shape
 * `{ modelContent, privateContent, imageIds }`, and view state is UI-only:
 * - restored from `window.openai.widgetState.privateContent` when widgetState
 *   is an object and privateContent an object; anything else reads as nothing
 *   saved (the top level is never read as view state);
 * - a save calls `setWidgetState({ modelContent, privateContent: state, imageIds })`,
 *   the structured shape only, keeping the page's `modelContent` and
 *   `imageIds` where it set them. It never writes view state at the top level.
 * - a current widgetState with any other top-level member is the page's own
 *   classic state, which the model sees: writing the structured shape would
 *   drop it, and adding privateContent beside it would show view state to the
 *   model, so it is not overwritten and that save resolves false. So is a
 *   widgetState that cannot be read or is not an object (nor null).
 * Null when there is no such API (or reading it throws).
 */
/**
 * @param {unknown} [scope]
 * @returns {Store | null}
 */
export function openaiStore(scope = globalThis) {
  const openai = openaiOf(scope);
  if (openai === null || typeof field(openai, "setWidgetState") !== "function") return null;
  /** @returns {Record<string, any> | undefined} */
  const current = () => {
    let widgetState;
    try {
      widgetState = openai.widgetState;
    } catch {
      return undefined;
    }
    if (widgetState === null || widgetState === undefined) return {};
    return isRecord(widgetState) ? widgetState : undefined;
  };
  return {
    name: "openai",
    restored: objectOrNull(field(current(), "privateContent")),
    maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES,
    /** @param {ViewStateValue} copy */
    async save(copy) {
      try {
        const base = current();
        if (base === undefined || Object.keys(base).some((name) => !STRUCTURED_MEMBERS.includes(name))) return false;
        /** @type {Record<string, unknown>} */
        const next = { privateContent: copy };
        if (base.modelContent !== undefined) next.modelContent = base.modelContent;
        if (base.imageIds !== undefined) next.imageIds = base.imageIds;
        await openai.setWidgetState(next);
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
 * access, a cross-site frame where the browser blocks third-party storage
 * throws too (Chromium: "Access is denied for this document"), disabled or
 * full storage throws on write.
 */
/**
 * @param {any} [scope]
 * @returns {Storage | null}
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

// The index of the views that keep state on this origin: a JSON array of
// [viewUUID, lastUseMs], least recently used first.
/** @typedef {[string, number]} IndexEntry */
/** @type {(storage: Storage) => IndexEntry[]} */
const readIndex = (storage) => {
  try {
    const list = JSON.parse(/** @type {string} */ (storage.getItem(INDEX_KEY)));
    return Array.isArray(list) ? list.filter((/** @type {unknown} */ e) => Array.isArray(e) && usableViewUUID(e[0]) !== null && Number.isFinite(e[1])) : [];
  } catch {
    return [];
  }
};
/** @type {(storage: Storage, list: IndexEntry[]) => boolean} */
const writeIndex = (storage, list) => {
  try {
    if (list.length === 0) storage.removeItem(INDEX_KEY);
    else storage.setItem(INDEX_KEY, JSON.stringify(list));
    return true;
  } catch {
    return false;
  }
};

/** @type {(e: any) => boolean} */
const isQuotaError = (e) => {
  try {
    return e?.name === "QuotaExceededError" || e?.name === "NS_ERROR_DOM_QUOTA_REACHED" || e?.code === 22 || e?.code === 1014;
  } catch {
    return false;
  }
};

// Our keys that the index does not list (an older version's, or an index
// entry lost to another document's write): reclaimed before any listed one.
/**
 * @param {Storage} storage
 * @param {Set<string>} listed
 */
function unlistedViews(storage, listed) {
  /** @type {string[]} */
  const found = [];
  try {
    if (typeof storage.key !== "function") return found;
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (typeof key === "string" && key.startsWith(LOCAL_KEY_PREFIX)) {
        const uuid = key.slice(LOCAL_KEY_PREFIX.length);
        if (!listed.has(uuid)) found.push(uuid);
      }
    }
  } catch {
    // storage that cannot be listed: the index alone serves
  }
  return found;
}

/**
 * Remove the least recently used view's state other than `keep`'s; false
 * when there is none left to remove.
 */
/**
 * @param {Storage} storage
 * @param {string} keep
 */
function reclaimOne(storage, keep) {
  const list = readIndex(storage);
  const listed = new Set(list.map(([uuid]) => uuid));
  const victim = unlistedViews(storage, listed).find((uuid) => uuid !== keep) ?? list.find(([uuid]) => uuid !== keep)?.[0];
  if (victim === undefined) return false;
  try {
    storage.removeItem(LOCAL_KEY_PREFIX + victim);
  } catch {
    return false;
  }
  writeIndex(
    storage,
    list.filter(([uuid]) => uuid !== victim),
  );
  return true;
}

/** `storage.setItem(key, text)`; on a quota error, reclaim the least recently used views' states (never `keep`'s) and try again. */
/**
 * @param {Storage} storage
 * @param {string} key
 * @param {string} text
 * @param {string} keep
 */
function setItemReclaiming(storage, key, text, keep) {
  for (;;) {
    try {
      storage.setItem(key, text);
      return true;
    } catch (e) {
      if (!isQuotaError(e) || !reclaimOne(storage, keep)) return false;
    }
  }
}

// Mark `uuid` as used now (or, with `present` false, forget it), keeping at most MAX_LOCAL_VIEWS listed.
/**
 * @param {Storage} storage
 * @param {string} uuid
 * @param {boolean} present
 * @param {number} nowMs
 */
function touch(storage, uuid, present, nowMs) {
  const list = readIndex(storage).filter(([u]) => u !== uuid);
  if (present) list.push([uuid, nowMs]);
  while (list.length > MAX_LOCAL_VIEWS) {
    const [old] = /** @type {IndexEntry} */ (list.shift());
    try {
      storage.removeItem(LOCAL_KEY_PREFIX + old);
    } catch {
      // left for a later reclaim, as an unlisted key
    }
  }
  const text = JSON.stringify(list);
  if (list.length === 0) return writeIndex(storage, list);
  return setItemReclaiming(storage, INDEX_KEY, text, uuid);
}

/**
 * The per-view store in `storage` under LOCAL_KEY_PREFIX + viewUUID, or null
 * when the saved state cannot be read. Text that is not a JSON object reads as
 * nothing saved, and the next save overwrites it.
 *
 * Reclaiming: an index under LOCAL_INDEX_KEY lists the views that keep state
 * on this origin with their last use (a restore or a save). When a save meets
 * the storage quota, the states of the least recently used views (keys of
 * ours that the index does not list first, then the index's oldest) are
 * removed one at a time until it fits; the view being saved is never removed,
 * and keys that are not ours are never touched. At most MAX_LOCAL_VIEWS views
 * are listed: past that, the least recently used one's state is removed.
 */
/**
 * @param {Storage} storage
 * @param {string} viewUUID
 * @param {{ now?: (() => number) | undefined }} [options]
 * @returns {Store | null}
 */
export function localStore(storage, viewUUID, { now = Date.now } = {}) {
  const key = LOCAL_KEY_PREFIX + viewUUID;
  /** @type {string | null} */
  let text;
  try {
    text = storage.getItem(key);
  } catch {
    return null;
  }
  /** @type {Record<string, unknown> | null} */
  let restored = null;
  if (typeof text === "string") {
    try {
      restored = objectOrNull(JSON.parse(text));
    } catch {
      restored = null;
    }
    touch(storage, viewUUID, true, now());
  }
  return {
    name: "local",
    restored,
    maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES,
    /**
     * @param {ViewStateValue} copy
     * @param {string} [stateText]
     */
    async save(copy, stateText = JSON.stringify(copy)) {
      try {
        if (copy === null) {
          storage.removeItem(key);
          touch(storage, viewUUID, false, now());
          return true;
        }
        if (!setItemReclaiming(storage, key, stateText, viewUUID)) return false;
        touch(storage, viewUUID, true, now());
        return true;
      } catch {
        return false; // storage turned off since
      }
    },
  };
}
