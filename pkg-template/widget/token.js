// @ts-check
// The token half of the widget API: an UNVERIFIED reader, expiry, adoption of
// the freshest token, and the "expired, start over" test. No key, no HMAC.
// Only reading a token's body needs the core (wasm, or its JS twin); the rest
// is JS that JS does natively.
import { MAX_READ_CHARS, SEALED_STATE_INVALID_MESSAGE, STATE_META_KEY, SealedStateError } from "../common.js";
import { NG_MCP_UI_INVALID_MESSAGE, TOKEN_PREFIX } from "../constants.js";
import { readTokenJsonJs } from "./read-js.js";
import { resultOf } from "./rpc.js";

/**
 * What a token CLAIMS. UNVERIFIED: anyone can forge it; for display only.
 * @template [T=unknown]
 * @typedef {object} TokenView
 * @property {T} payload
 * @property {"view" | "requestState" | null} purpose null for a raw `mint` token without a purpose envelope.
 * @property {string | null} tool The tool of a requestState token.
 * @property {number} exp Expiry, unix seconds.
 * @property {boolean} bound Whether the token carries a bind tag.
 * @property {boolean} hasSecret Whether it carries a secret part (only the server reads it; the widget sees that there is one, never what).
 */

/** Which implementation reads tokens: the wasm build, or its JS twin (read-js.js). @typedef {"wasm" | "js"} Backend */

/**
 * An entry's reader: `read` gives a TokenView's JSON text, or undefined for
 * what is not a v1 token.
 * @typedef {{ backend: Backend, read: (token: string) => string | undefined }} Core
 */

// Where a tool result carries the token, in the order of docs/hosts.md (window.openai's
// toolResponseMetadata, between the two, is read by the app entry's keeper).
const TOKEN_SOURCES = ["_meta", "structuredContent"];

// The string at record[source][STATE_META_KEY], or undefined (also for a throwing getter).
/**
 * @param {any} record
 * @param {string} source
 * @returns {string | undefined}
 */
function tokenIn(record, source) {
  try {
    const holder = record?.[source];
    const token = holder !== null && typeof holder === "object" && !Array.isArray(holder) ? holder[STATE_META_KEY] : undefined;
    return typeof token === "string" ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The token functions over `core`, `{ backend: "wasm" | "js", read(token) }`,
 * where `read` gives a TokenView's JSON text or undefined. An entry may swap
 * the core's fields once its wasm is ready: both give the same text.
 */
/** @param {Core} core */
export function tokenApi(core) {
  const read = (/** @type {string} */ token) => {
    if (core.backend === "wasm") {
      let json;
      try {
        json = core.read(token);
      } catch {
        // The wasm read only throws when it traps (a failed allocation): the
        // instance is not trusted after that, and the JS twin serves from now on.
        core.read = readTokenJsonJs;
        core.backend = "js";
        return core.read(token);
      }
      // The wasm reader also refuses cleanly, as for a malformed token, when
      // the buffer it reserves for the body does not fit in its memory. The
      // twin gives the same text for every token the wasm reads, so its
      // second opinion on a refusal changes only that case (and the instance
      // is fine: the wasm keeps serving).
      return json ?? readTokenJsonJs(token);
    }
    return core.read(token);
  };
  // The parsed TokenView, or undefined when it is not a v1 token this widget reads.
  /** @type {(token: unknown) => TokenView | undefined} */
  const view = (token) => {
    if (typeof token !== "string" || token.length > MAX_READ_CHARS) return undefined;
    const json = read(token);
    return json === undefined ? undefined : JSON.parse(json);
  };
  const expOf = (/** @type {unknown} */ token) => view(token)?.exp;

  /**
   * The backend serving now (documented on the entries' exports: browser.js).
   * @returns {Backend}
   */
  function backend() {
    return core.backend;
  }

  /**
   * What a token claims, unverified (documented on the entries' exports: browser.js).
   * @template [T=unknown]
   * @param {string} token
   * @returns {TokenView<T>}
   */
  function readTokenUnverified(token) {
    const v = view(token);
    if (v === undefined) throw new SealedStateError("malformed");
    return /** @type {TokenView<T>} */ (v);
  }

  /**
   * Seconds until the token stops opening, unverified (documented on the entries' exports: browser.js).
   * @param {string} token
   * @param {number | Date} [nowMs]
   * @returns {number}
   */
  function secondsLeft(token, nowMs) {
    // Only a number or a Date: anything else ("", [], true, 10n) would coerce to a
    // clock near the epoch and call every token valid.
    const now = nowMs == null ? Date.now() : nowMs instanceof Date ? nowMs.getTime() : typeof nowMs === "number" ? nowMs : NaN;
    if (!Number.isFinite(now)) throw new TypeError("nowMs must be a finite number of milliseconds (or a Date)");
    const exp = expOf(token);
    if (exp === undefined) throw new SealedStateError("malformed");
    // Open while floor(now) <= exp, as the codecs judge it.
    return exp + 1 - Math.floor(now / 1000);
  }

  /**
   * The token to keep after a tool result, by `exp` (documented on the entries' exports: browser.js).
   * @param {string | null} current
   * @param {unknown} toolResult A CallToolResult, the params of ui/notifications/tool-result, or a JSON-RPC message carrying either.
   * @returns {string | null}
   */
  function adoptToken(current, toolResult) {
    const keep = typeof current === "string" ? current : null;
    let r;
    try {
      r = resultOf(toolResult);
    } catch {
      return keep; // a result whose getters throw carries no token
    }
    /** @type {number | undefined} */
    let next;
    /** @type {string | undefined} */
    let candidate;
    for (const source of TOKEN_SOURCES) {
      candidate = tokenIn(r, source);
      if (candidate === undefined) continue;
      if (candidate.length > MAX_READ_CHARS && candidate.startsWith(TOKEN_PREFIX)) {
        throw new RangeError(`mcp-sealed-state/widget: the tool result's token is ${candidate.length} characters, over the ${MAX_READ_CHARS} this widget reads; seal less state`);
      }
      next = expOf(candidate);
      if (next !== undefined) break;
    }
    if (next === undefined) return keep;
    const old = keep === null ? undefined : expOf(keep);
    return old === undefined || old <= next ? /** @type {string} */ (candidate) : keep;
  }

  /**
   * Whether a tool result is the server refusing a token (documented on the entries' exports: browser.js).
   * @param {unknown} toolResult
   * @returns {boolean}
   */
  function isSealedStateError(toolResult) {
    const r = resultOf(toolResult);
    if (r?.isError !== true || !Array.isArray(r.content)) return false;
    // The SDK's McpServer and rust-server answer with a text block that IS the
    // message (an McpError thrown by a tool reads "MCP error <code>: <message>");
    // a substring match would let a server that echoes input fake it.
    return r.content.some((/** @type {any} */ c) => {
      if (c?.type !== "text" || typeof c.text !== "string") return false;
      const text = c.text.replace(/^MCP error -?\d{1,6}: /, "");
      return text === SEALED_STATE_INVALID_MESSAGE || text === NG_MCP_UI_INVALID_MESSAGE;
    });
  }

  return { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError };
}
