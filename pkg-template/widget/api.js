// The widget API: an UNVERIFIED reader, token adoption, and the View-state
// rules of the MCP Apps `ui/set-view-state` proposal. No key, no HMAC.
// js/build.mjs also copies this file into the edge entry, pointed at that build's wasm.
import {
  checkViewStateJson,
  isSealedStateMessage,
  jsonBytes,
  isValidMaxBytes,
  preferCandidate,
  readTokenJson,
  secondsLeft as wasmSecondsLeft,
} from "../wasm/widget.js";
import { MAX_READ_CHARS, STATE_META_KEY, SealedStateError } from "../common.js";

export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";

/** JSON-RPC error codes of `ui/set-view-state`. */
export const VIEW_STATE_ERRORS = Object.freeze({
  /** -32602: this state cannot or will not be stored; never resend it as it is. */
  INVALID_PARAMS: -32602,
  /** -32603: it cannot be stored now; a later save may succeed. */
  INTERNAL_ERROR: -32603,
  /** -32601: an older Host that does not know the method. */
  METHOD_NOT_FOUND: -32601,
});

/** A refused view-state save, with its JSON-RPC `code`. */
export class ViewStateError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ViewStateError";
    this.code = code;
  }
}

function asToken(token) {
  return typeof token === "string" && token.length <= MAX_READ_CHARS ? token : undefined;
}

/**
 * What a token CLAIMS: payload, purpose, tool, exp, bound. It verifies NOTHING
 * (the widget has no key; anyone can forge these bytes): use it for display
 * only. Throws SealedStateError (reason "malformed") for anything but a v1 token.
 */
export function readTokenUnverified(token) {
  const t = asToken(token);
  const json = t === undefined ? undefined : readTokenJson(t);
  if (json === undefined) throw new SealedStateError("malformed");
  return JSON.parse(json);
}

/** Seconds until the token expires: > 0 while it opens, <= 0 once expired. Unverified. */
export function secondsLeft(token, nowMs) {
  // A clock that is not a number would read as the epoch and call every token valid.
  const now = nowMs == null ? Date.now() : Number(nowMs);
  if (!Number.isFinite(now)) throw new TypeError("nowMs must be a finite number of milliseconds");
  const t = asToken(token);
  const left = t === undefined ? NaN : wasmSecondsLeft(t, now);
  if (Number.isNaN(left)) throw new SealedStateError("malformed");
  return left;
}

// A CallToolResult, the params of ui/notifications/tool-result, or either wrapped
// in a JSON-RPC message.
function resultOf(x) {
  if (x === null || typeof x !== "object") return undefined;
  if (typeof x.method === "string" && x.params && typeof x.params === "object") return x.params;
  if (typeof x.jsonrpc === "string" && x.result && typeof x.result === "object") return x.result;
  return x;
}

/**
 * The token to keep after a tool result: the result's `_meta["ng-mcp-ui/state"]`
 * unless there is none (or it is not a v1 token), or `current` expires strictly later.
 */
export function adoptToken(current, toolResult) {
  const keep = typeof current === "string" ? current : null;
  const candidate = asToken(resultOf(toolResult)?._meta?.[STATE_META_KEY]);
  if (candidate === undefined) return keep;
  return preferCandidate(keep ?? undefined, candidate) ? candidate : keep;
}

/**
 * Whether a tool result is the server refusing a sealed token (ours or
 * ng-mcp-ui's stable message in an isError result): show "expired, start over".
 */
export function isSealedStateError(toolResult) {
  const r = resultOf(toolResult);
  if (r?.isError !== true || !Array.isArray(r.content)) return false;
  return r.content.some((c) => c?.type === "text" && typeof c.text === "string" && isSealedStateMessage(c.text));
}

// The compact JSON of a state that passes the rules, or a ViewStateError(-32602).
function stateJson(state, maxBytes) {
  if (!isValidMaxBytes(Number(maxBytes))) throw new RangeError("maxBytes must be a positive integer");
  const invalid = (why) => new ViewStateError(VIEW_STATE_ERRORS.INVALID_PARAMS, `view state ${why}`);
  if (state !== null && (typeof state !== "object" || Array.isArray(state))) throw invalid("must be an object or null");
  let json;
  try {
    json = JSON.stringify(state);
  } catch (e) {
    throw invalid(`is not JSON-serializable (${e.message})`);
  }
  if (typeof json !== "string") throw invalid("must be an object or null");
  const bytes = checkViewStateJson(json, maxBytes);
  if (bytes === -1) throw invalid("must serialize to a JSON object or null");
  if (bytes === -2) throw invalid(`is ${jsonBytes(json)} bytes of JSON, over the Host's maxBytes of ${maxBytes}`);
  return json;
}

/** Bytes of the state as compact UTF-8 JSON: `new TextEncoder().encode(JSON.stringify(state)).length`. */
export function viewStateBytes(state) {
  const json = JSON.stringify(state);
  // TextEncoder encodes undefined as "" (0 bytes). JSON.stringify escapes lone
  // surrogates, so its output is well-formed and the UTF-8 copy into wasm has
  // exactly TextEncoder's length.
  return json === undefined ? 0 : jsonBytes(json);
}

/** Throws ViewStateError (code -32602) unless `state` is an object or null within `maxBytes`. */
export function checkViewState(state, maxBytes) {
  stateJson(state, maxBytes);
}

/**
 * The Host's view-state offer from a RAW `ui/initialize` result (older ext-apps
 * View SDKs drop unknown hostCapabilities keys, so do not pass their parsed copy):
 * `{ maxBytes, state }`, or null when the Host did not advertise the capability,
 * in which case send nothing.
 */
export function viewStateSupport(initializeResult) {
  const r = resultOf(initializeResult);
  const maxBytes = r?.hostCapabilities?.viewState?.maxBytes;
  if (typeof maxBytes !== "number" || !isValidMaxBytes(maxBytes)) return null;
  const saved = r?.hostContext?.viewState;
  const state = saved !== null && typeof saved === "object" && !Array.isArray(saved) ? saved : null;
  return { maxBytes, state };
}

/**
 * The JSON-RPC request that saves `state` (an object, or null to clear). The
 * Host answers `{}` once the state would survive reloads, or an error:
 * -32602 never as given (e.g. over maxBytes), -32603 not now (retry later),
 * -32601 an older Host without the method.
 */
export function setViewStateRequest(id, state) {
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) throw new TypeError("id must be a string or a finite number");
  if (state !== null && (typeof state !== "object" || Array.isArray(state))) throw new TypeError("view state must be an object or null");
  return { jsonrpc: "2.0", id, method: "ui/set-view-state", params: { state } };
}

/**
 * The Host side of `ui/set-view-state`: stores one save at a time, in order;
 * saves that arrive while one is being stored are coalesced (only the newest is
 * stored, and all of them settle with its outcome). Refusals reject with a
 * ViewStateError: -32602 for a state that breaks the rules (the last state is
 * kept), -32603 when the store fails. `lastSaved` is for the next ui/initialize.
 */
export class ViewStateSaveQueue {
  #store;
  #maxBytes;
  #lastJson; // kept as text so no caller can change what was stored
  #running = false;
  #pending = null;
  #idle = [];

  constructor(store, opts) {
    if (typeof store !== "function") throw new TypeError("store must be a function returning a promise");
    if (!isValidMaxBytes(Number(opts?.maxBytes))) throw new RangeError("opts.maxBytes must be a positive integer");
    this.#store = store;
    this.#maxBytes = opts.maxBytes;
    // No size limit for what the Host already holds (stateJson refuses a non-integer maxBytes such as Infinity).
    this.#lastJson = stateJson(opts.initial ?? null, Number.MAX_SAFE_INTEGER);
  }

  get maxBytes() {
    return this.#maxBytes;
  }

  /** A copy of the last state stored successfully (or `opts.initial`), for the next ui/initialize. */
  get lastSaved() {
    return JSON.parse(this.#lastJson);
  }

  /** Resolves once no save is being stored or waiting (e.g. before reading the store for a new render). */
  idle() {
    return this.#running ? new Promise((resolve) => this.#idle.push(resolve)) : Promise.resolve();
  }

  save(state) {
    let json;
    try {
      json = stateJson(state, this.#maxBytes); // a snapshot: later changes by the caller are not stored
    } catch (e) {
      return Promise.reject(e instanceof ViewStateError ? e : new ViewStateError(VIEW_STATE_ERRORS.INVALID_PARAMS, e.message));
    }
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      if (this.#pending) {
        this.#pending.json = json;
        this.#pending.waiters.push(waiter);
      } else if (this.#running) {
        this.#pending = { json, waiters: [waiter] };
      } else {
        this.#run({ json, waiters: [waiter] });
      }
    });
  }

  async #run(batch) {
    this.#running = true;
    let failure = null;
    try {
      await this.#store(JSON.parse(batch.json));
      this.#lastJson = batch.json;
    } catch (e) {
      failure = new ViewStateError(VIEW_STATE_ERRORS.INTERNAL_ERROR, `view state could not be stored now (${e?.message ?? e})`);
    }
    for (const w of batch.waiters) failure ? w.reject(failure) : w.resolve();
    const next = this.#pending;
    this.#pending = null;
    if (next) return this.#run(next);
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
