// @ts-check
// The view-state half of the widget API: the rules of the MCP Apps
// `ui/set-view-state` proposal, for Views and for Hosts. Plain JS: the state's
// size is the UTF-8 length of JSON.stringify's text, which JS measures natively.
import { ViewStateError } from "../common.js";
import { DEFAULT_STORE_TIMEOUT_MS, SET_VIEW_STATE_METHOD, VIEW_STATE_ERRORS } from "../constants.js";
import { resultOf } from "./rpc.js";

// VIEW_STATE_ERRORS: JSON-RPC error codes of `ui/set-view-state`, -32602
// (INVALID_PARAMS) this state cannot or will not be stored, never resend it as
// it is; -32603 (INTERNAL_ERROR) it cannot be stored now, a later save may
// succeed; -32601 (METHOD_NOT_FOUND) an older Host that does not know the method.
// DEFAULT_VIEW_STATE_MAX_BYTES and DEFAULT_STORE_TIMEOUT_MS: constants.js says what they bound.
export { DEFAULT_STORE_TIMEOUT_MS, DEFAULT_VIEW_STATE_MAX_BYTES, VIEW_STATE_ERRORS } from "../constants.js";
const METHOD = SET_VIEW_STATE_METHOD;
const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout's limit

// The class lives in common.js, which every entry shares.
export { ViewStateError } from "../common.js";

/** A saved view state: a JSON object, or null (nothing saved, or cleared). @typedef {Record<string, unknown> | null} SavedState */

/**
 * The `ui/set-view-state` JSON-RPC request.
 * @typedef {{ jsonrpc: "2.0", id: number | string, method: typeof SET_VIEW_STATE_METHOD, params: { state: SavedState } }} SetViewStateRequest
 */

/**
 * ViewStateSaveQueue's options.
 * @typedef {object} SaveQueueOptions
 * @property {number} maxBytes The largest state saved (compact UTF-8 JSON bytes).
 * @property {SavedState | undefined} [initial] What the store holds already (`lastSaved` until a save completes).
 * @property {number | undefined} [storeTimeoutMs] A store call that has not settled by then fails its saves with -32603 (default DEFAULT_STORE_TIMEOUT_MS). If it completes later, its state becomes `lastSaved` then (the store holds it).
 */

/** @typedef {{ resolve: () => void, reject: (error: unknown) => void }} Waiter */
/** @typedef {{ json: string, waiters: Waiter[] }} Batch */

const utf8 = new TextEncoder();

// A maxBytes is usable when it is a positive whole number: the one rule for a caller's limit and a Host's.
const isValidMaxBytes = (/** @type {unknown} */ n) => typeof n === "number" && Number.isInteger(n) && n >= 1;

/**
 * Words for a thrown value that cannot throw themselves: a store or a toJSON
 * may throw null, a Symbol, an object without a prototype, or an error whose
 * `message` getter throws.
 */
/** @param {unknown} e */
function describe(e) {
  try {
    const message = e !== null && typeof e === "object" ? /** @type {{ message?: unknown }} */ (e).message : undefined;
    return typeof message === "string" ? message : String(e);
  } catch {
    return "a value that cannot be shown as text";
  }
}

const invalid = (/** @type {string} */ why) => new ViewStateError(VIEW_STATE_ERRORS.INVALID_PARAMS, `view state ${why}`);

// The compact JSON of a state that passes the rules, or a ViewStateError(-32602).
/**
 * @param {unknown} state
 * @param {unknown} maxBytes
 * @returns {string}
 */
function stateJson(state, maxBytes) {
  if (!isValidMaxBytes(maxBytes)) throw new RangeError("maxBytes must be a positive integer");
  if (state !== null && (typeof state !== "object" || Array.isArray(state))) throw invalid("must be an object or null");
  /** @type {string | undefined} */
  let json;
  try {
    json = JSON.stringify(state);
  } catch (e) {
    throw invalid(`is not JSON-serializable (${describe(e)})`);
  }
  // A toJSON may turn the object into anything: judge what would be sent.
  if (typeof json !== "string" || (json !== "null" && json[0] !== "{")) throw invalid("must serialize to a JSON object or null");
  const bytes = utf8.encode(json).length;
  if (bytes > /** @type {number} */ (maxBytes)) throw invalid(`is ${bytes} bytes of JSON, over the Host's maxBytes of ${maxBytes}`);
  return json;
}

/**
 * Bytes of the state as compact UTF-8 JSON: `new TextEncoder().encode(JSON.stringify(state)).length`.
 * @param {unknown} state
 * @returns {number}
 */
export function viewStateBytes(state) {
  // JSON.stringify escapes lone surrogates, so its text encodes without replacement;
  // undefined (a function, a Symbol) encodes as "", 0 bytes.
  /** @type {string | undefined} */
  const json = JSON.stringify(state);
  return json === undefined ? 0 : utf8.encode(json).length;
}

/**
 * Throws ViewStateError (code -32602) unless `state` is an object or null
 * within `maxBytes`; returns the compact JSON text that was checked. Store
 * that text (or what parses from it), not a second serialization: a `toJSON`
 * may answer differently each time.
 * @param {unknown} state
 * @param {number} maxBytes
 * @returns {string}
 */
export function checkViewState(state, maxBytes) {
  return stateJson(state, maxBytes);
}

/**
 * The Host's view-state offer from a RAW `ui/initialize` result (older ext-apps
 * View SDKs drop unknown hostCapabilities keys, so do not pass their parsed copy):
 * `{ maxBytes, state }`, or null when the Host did not advertise the capability,
 * in which case send nothing.
 * @param {unknown} initializeResult
 * @returns {{ maxBytes: number, state: SavedState } | null}
 */
export function viewStateSupport(initializeResult) {
  const r = resultOf(initializeResult);
  const maxBytes = r?.hostCapabilities?.viewState?.maxBytes;
  if (!isValidMaxBytes(maxBytes)) return null;
  const saved = r?.hostContext?.viewState;
  const state = saved !== null && typeof saved === "object" && !Array.isArray(saved) ? saved : null;
  return { maxBytes, state };
}

/**
 * The JSON-RPC request that saves `state` (an object, or null to clear). The
 * Host answers `{}` once the state would survive reloads, or an error:
 * -32602 never as given (e.g. over maxBytes), -32603 not now (retry later),
 * -32601 an older Host without the method.
 * @param {number | string} id
 * @param {SavedState} state
 * @returns {SetViewStateRequest}
 */
export function setViewStateRequest(id, state) {
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) throw new TypeError("id must be a string or a finite number");
  if (state !== null && (typeof state !== "object" || Array.isArray(state))) throw new TypeError("view state must be an object or null");
  return { jsonrpc: "2.0", id, method: METHOD, params: { state } };
}

/**
 * The Host side of `ui/set-view-state`: stores one save at a time, in order;
 * saves that arrive while one is being stored are coalesced (only the newest is
 * stored, and all of them settle with its outcome). Refusals reject with a
 * ViewStateError, -32602 for a state that breaks the rules (the last state is
 * kept), -32603 when the store fails: it throws, rejects (with anything at
 * all), or has not settled within `opts.storeTimeoutMs` (default
 * DEFAULT_STORE_TIMEOUT_MS). `lastSaved` is for the next ui/initialize:
 * it follows what the store holds, so a store call that timed out (its saves
 * refused -32603) and then completes makes its state `lastSaved` once it
 * settles; the next store call waits for it.
 */
export class ViewStateSaveQueue {
  /** @type {(state: SavedState) => Promise<void> | void} */
  #store;
  /** @type {number} */
  #maxBytes;
  /** @type {number} */
  #timeoutMs;
  /** @type {string} */
  #lastJson; // kept as text so no caller can change what was stored
  #running = false;
  /** @type {Promise<void> | null} */
  #slot = null; // settles when the store call in flight settles, timed out or not
  /** @type {Batch | null} */
  #pending = null;
  /** @type {(() => void)[]} */
  #idle = [];

  /**
   * @param {(state: SavedState) => Promise<void> | void} store Stores a state (null clears); a throw, a rejection or a timeout fails the save with -32603.
   * @param {SaveQueueOptions} opts
   */
  constructor(store, opts) {
    if (typeof store !== "function") throw new TypeError("store must be a function returning a promise");
    if (!isValidMaxBytes(opts?.maxBytes)) throw new RangeError("opts.maxBytes must be a positive integer");
    if (/** @type {{ timeoutMs?: unknown }} */ (opts).timeoutMs !== undefined) throw new TypeError("opts.timeoutMs is now opts.storeTimeoutMs");
    const timeoutMs = opts.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
      throw new RangeError(`opts.storeTimeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`);
    }
    this.#store = store;
    this.#maxBytes = opts.maxBytes;
    this.#timeoutMs = timeoutMs;
    // No size limit for what the Host already holds.
    this.#lastJson = stateJson(opts.initial ?? null, Number.MAX_SAFE_INTEGER);
  }

  /** The largest state a save takes (compact UTF-8 JSON bytes). */
  get maxBytes() {
    return this.#maxBytes;
  }

  /**
   * A copy of the last state the store holds (`opts.initial`, or the last store call that completed, late ones included), for the next ui/initialize.
   * @returns {SavedState}
   */
  get lastSaved() {
    return JSON.parse(this.#lastJson);
  }

  /**
   * Resolves once no save is being stored or waiting (e.g. before reading the store for a new render).
   * @returns {Promise<void>}
   */
  idle() {
    if (this.#running) return new Promise((resolve) => this.#idle.push(resolve));
    return this.#slot ? this.#slot.then(() => this.idle()) : Promise.resolve();
  }

  /**
   * Store `state` after the saves before it. Rejects with ViewStateError: code
   * -32602 (never as given) or -32603 (the store threw, rejected or timed out).
   * @param {unknown} state
   * @returns {Promise<void>}
   */
  save(state) {
    /** @type {string} */
    let json;
    try {
      json = stateJson(state, this.#maxBytes); // a snapshot: later changes by the caller are not stored
    } catch (e) {
      return Promise.reject(e instanceof ViewStateError ? e : new ViewStateError(VIEW_STATE_ERRORS.INVALID_PARAMS, describe(e)));
    }
    return new Promise((resolve, reject) => {
      /** @type {Waiter} */
      const waiter = { resolve, reject };
      if (this.#pending) {
        this.#pending.json = json;
        this.#pending.waiters.push(waiter);
      } else if (this.#running) {
        this.#pending = { json, waiters: [waiter] };
      } else {
        this.#drain({ json, waiters: [waiter] });
      }
    });
  }

  // Store batch after batch until none waits. Every waiter settles, whatever
  // the store does, and the queue is never left marked as running.
  /** @param {Batch} first */
  async #drain(first) {
    this.#running = true;
    try {
      for (let /** @type {Batch | null} */ batch = first; batch !== null; batch = this.#takePending()) {
        /** @type {ViewStateError | null} */
        let failure = null;
        try {
          await this.#storeWithinTimeout(batch.json); // sets #lastJson once the store took it, late or not
        } catch (e) {
          failure = new ViewStateError(VIEW_STATE_ERRORS.INTERNAL_ERROR, `view state could not be stored now (${describe(e)})`);
        } finally {
          for (const w of batch.waiters) failure === null ? w.resolve() : w.reject(failure);
        }
      }
    } finally {
      this.#running = false;
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  #takePending() {
    const next = this.#pending;
    this.#pending = null;
    return next;
  }

  // The store's outcome, or a rejection once it has run past the timeout. One
  // store call at a time, always: a call that timed out still holds the slot
  // until it settles (it may still write), and the next waits for it within
  // its own timeout. With the slot free the store is called at once
  // (synchronously), as save() promises.
  /**
   * @param {string} json
   * @returns {Promise<void>}
   */
  #storeWithinTimeout(json) {
    return new Promise((resolve, reject) => {
      const ms = this.#timeoutMs;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`the store did not settle within ${ms} ms`));
      }, ms);
      const done = () => clearTimeout(timer);
      const call = () => {
        if (timedOut) return;
        let stored;
        try {
          stored = this.#store(JSON.parse(json));
        } catch (e) {
          done();
          reject(e);
          return;
        }
        // A call that settles after its timeout still wrote: lastSaved follows
        // the store. No later call has started yet (they wait for this slot).
        const slot = Promise.resolve(stored).then(
          () => {
            this.#lastJson = json;
            done();
            resolve();
          },
          (e) => (done(), reject(e)),
        );
        this.#slot = slot;
        slot.then(() => {
          if (this.#slot === slot) this.#slot = null;
        });
      };
      if (this.#slot) this.#slot.then(call);
      else call();
    });
  }
}
