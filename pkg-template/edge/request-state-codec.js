// @ts-check
// createRequestStateCodec: the drop-in for @modelcontextprotocol/server's codec
// of the same name (2.x, src/server/requestStateCodec.ts). It keeps the SDK's
// contract, not StateCodec's: `verify` rejects with an Error whose message is
// the SDK's reason code (one of SDK_REASONS in constants.js), given exactly
// where the SDK gives it, because the SDK's requestState.verify seam and code
// written against the SDK read that message. Options and inputs are read as the
// SDK reads them (the same expressions, so the same values and the same
// errors), except where docs/format.md makes us stricter: non-canonical base64url is
// refused, a fractional ttlSeconds is a RangeError, the size limit applies.
// Tokens are written and read by the core's SDK reading (src/envelope.rs,
// parse_as_sdk): an undefined payload, a fractional or huge exp, a repeated
// key open as they open in the SDK.
import { SealedStateError } from "../common.js";
import { DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TTL_SECONDS, SDK_REASONS, TOKEN_PREFIX as PREFIX } from "../constants.js";
import { StateCodec } from "./state-codec.js";
import { SDK_READING } from "./sdk-reading.js";

/** @import { CodecOptions } from "./codec-options.js" */

/**
 * The SDK's reason codes, which the drop-in's `verify` rejects with: a name
 * of SDK_REASONS (constants.js), the first four of the core's.
 * @typedef {(typeof SDK_REASONS)[number]} SdkReason
 */

/**
 * A failure of the drop-in's `verify`: as in the SDK, an `Error` whose
 * `message` is the reason code. `reason` is the same code.
 * @typedef {Error & { readonly message: SdkReason, readonly reason: SdkReason }} RequestStateCodecError
 */

/**
 * The drop-in's options: the SDK's, and `maxTokenBytes`.
 * @template [C=Record<string, any>]
 * @typedef {object} RequestStateCodecOptions
 * @property {Uint8Array | string} key The HMAC key, at least 32 bytes, read as the SDK reads it: a string is UTF-8; anything else goes through `Uint8Array.from(key)` (an array of numbers or another typed array element by element, modulo 256; an ArrayBuffer as empty, so a RangeError). Copied at construction.
 * @property {number | undefined} [ttlSeconds] Token lifetime in whole seconds (default DEFAULT_TTL_SECONDS, constants.js; a fraction is a RangeError, unlike the SDK; 0 or negative, as in the SDK, makes every token born expired).
 * @property {((ctx: C) => string) | undefined} [bind] Binds tokens to a principal: called with mint's `ctx` at mint, and at verify with verify's `ctx` for every token that passed the size limit and the shape check (the prefix, a dot, a MAC part that decodes), before its MAC, body and expiry are checked; a token minted under another value fails with "bind". The SDK calls it only after the MAC and exp passed; a bind that throws rejects verify with its error, unless the MAC, body or exp failed first, as in the SDK (docs/drop-in.md).
 * @property {number | undefined} [maxTokenBytes] Longer tokens are refused ("malformed") before hashing, and not minted; default DEFAULT_MAX_TOKEN_BYTES (constants.js). Not in the SDK.
 */

/**
 * What createRequestStateCodec returns, the SDK's RequestStateCodec: `mint`
 * seals a payload (with `bind`, `ctx` is required: a TypeError otherwise, as in
 * the SDK); `verify` resolves with the payload, or rejects with a
 * {@link RequestStateCodecError} (its message one of SDK_REASONS).
 * @template [T=unknown]
 * @template [C=Record<string, any>]
 * @typedef {{ mint(payload: T, ctx?: C): Promise<string>, verify(state: string, ctx: C): Promise<T> }} RequestStateCodec
 */

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The SDK's failure: an Error whose message is the reason code (and, for logs, `reason`).
 * @param {SdkReason} reason
 * @returns {RequestStateCodecError}
 */
function failure(reason) {
  const error = /** @type {Error & { reason: SdkReason, message: SdkReason }} */ (new Error(reason));
  error.reason = reason;
  return error;
}

// The SDK's base64url decoding (atob): it tolerates padding, "+", "/",
// whitespace and stray trailing bits, and throws on anything else.
/** @param {string} s */
function sdkBase64UrlToBytes(s) {
  const bin = atob(s.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** @param {Uint8Array} bytes */
function canonicalBase64Url(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

// What JSON.stringify({ p: payload }) puts under "p": toJSON is called with
// the key "p" (JSON.stringify(payload) would pass ""), once.
/** @param {unknown} payload */
function envelopeValue(payload) {
  if ((typeof payload === "object" && payload !== null) || typeof payload === "bigint") {
    const toJSON = /** @type {{ toJSON?: unknown }} */ (payload).toJSON;
    if (typeof toJSON === "function") return toJSON.call(payload, "p");
  }
  return payload;
}

/**
 * Drop-in for @modelcontextprotocol/server's createRequestStateCodec: same
 * options, async shape, tokens and failures (verify's message is the SDK's
 * reason code, not SEALED_STATE_INVALID_MESSAGE). Lenient where the SDK is
 * (unknown options ignored, any whole ttlSeconds); stricter in two ways:
 * non-canonical base64url is refused, and so is a fractional ttlSeconds.
 * Extra option: `maxTokenBytes`. `bind` is called once for every token past
 * the shape check (the SDK: only after the MAC and exp passed);
 * docs/drop-in.md lists every difference.
 *
 * `C` is the context `bind` reads, which mint and verify take: the SDK's
 * `ServerContext` when `bind` is annotated with it (the package does not
 * depend on the SDK), else any object.
 * @template [T=unknown]
 * @template [C=Record<string, any>]
 * @param {RequestStateCodecOptions<C>} options
 * @returns {RequestStateCodec<T, C>}
 */
export function createRequestStateCodec(options) {
  // The SDK's own reading of the key: a string is UTF-8; anything else goes
  // through Uint8Array.from (a number array or typed array element by element,
  // an ArrayBuffer as empty), which also copies it.
  const keyBytes = typeof options.key === "string" ? new TextEncoder().encode(options.key) : Uint8Array.from(options.key);
  if (keyBytes.byteLength < 32) throw new RangeError(`createRequestStateCodec: key must be at least 32 bytes (got ${keyBytes.byteLength})`);
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isFinite(ttlSeconds)) throw new RangeError("createRequestStateCodec: ttlSeconds must be a finite number");
  // docs/format.md: stricter than the SDK, which would write a fractional exp that no integer-exp codec opens.
  if (!Number.isInteger(ttlSeconds)) throw new RangeError(`createRequestStateCodec: ttlSeconds must be a whole number of seconds (got ${ttlSeconds})`);
  const maxTokenBytes = options.maxTokenBytes ?? DEFAULT_MAX_TOKEN_BYTES;
  // The SDK checks bind only where it calls it: any value is accepted here.
  const bind = options.bind;

  // Each call reads Date.now once (fake timers apply, as with the SDK) and
  // every check of that call uses the same second.
  /** @type {number | undefined} */
  let clock;
  /** @type {StateCodec} */
  let codec;
  try {
    // The SDK takes any whole ttl; StateCodec takes safe integers. Past 2^53
    // seconds either way the meaning is the same (never expires in this era,
    // or always expired), so the drop-in caps it there.
    const ttl = Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, ttlSeconds));
    codec = new StateCodec(/** @type {CodecOptions} */ ({ key: keyBytes, ttlSeconds: ttl, maxTokenBytes, production: true, now: () => clock, [SDK_READING]: true }));
  } finally {
    keyBytes.fill(0); // StateCodec holds its own copy
  }

  /**
   * @template R
   * @param {number} ms
   * @param {() => R} fn
   * @returns {R}
   */
  function atClock(ms, fn) {
    const outer = clock; // a payload's toJSON may call this codec again
    clock = ms;
    try {
      return fn();
    } finally {
      clock = outer;
    }
  }

  /** @typedef {{ payload: T, reason?: undefined } | { reason: import("../common.js").SealedStateReason, payload?: undefined }} Attempt */
  /** @typedef {{ value: string, error?: undefined } | { error: unknown, value?: undefined }} Binding */

  // { payload } or { reason }: StateCodec.verify without throwing.
  /**
   * @param {string} token
   * @param {string | undefined} bindValue
   * @returns {Attempt}
   */
  function attempt(token, bindValue) {
    try {
      return { payload: codec.verify(token, bindValue === undefined ? undefined : { bind: bindValue }) };
    } catch (e) {
      if (e instanceof SealedStateError) return { reason: e.reason };
      throw e;
    }
  }

  // bind(ctx) as the SDK turns it into a string: { value }, or { error } if it throws.
  /**
   * @param {C} ctx
   * @returns {Binding | undefined}
   */
  function bound(ctx) {
    if (bind === undefined) return undefined;
    try {
      return { value: "" + bind(ctx) }; // as the SDK's "label" + value: ToPrimitive, valueOf first
    } catch (error) {
      return { error };
    }
  }

  // { payload } or { reason } (the SDK's reason) for the token `v1.body.mac`,
  // with `binding` from bound(ctx). One pass over the token: bind(ctx) ran
  // first, where the SDK calls it only for a token whose MAC, body and exp
  // passed; that changes no outcome, as a bind that threw is judged here in
  // the SDK's order.
  /**
   * @param {string} body
   * @param {string} mac
   * @param {number} nowMs
   * @param {Binding | undefined} binding
   * @returns {{ payload: T, reason?: undefined } | { reason: SdkReason, payload?: undefined }}
   */
  function check(body, mac, nowMs, binding) {
    const token = `${PREFIX}${body}.${mac}`;
    if (binding?.error === undefined) {
      const result = attempt(token, binding?.value);
      return result.reason === undefined ? result : { reason: sdkReason(result.reason, body, mac, nowMs, binding) };
    }
    // bind threw: the SDK rejects with that error unless the MAC, body or exp failed first.
    const result = attempt(token, undefined);
    if (result.reason === undefined || result.reason === "bind") throw binding.error;
    return { reason: sdkReason(result.reason, body, mac, nowMs, binding) };
  }

  /**
   * @param {import("../common.js").SealedStateReason} reason
   * @param {string} body
   * @param {string} mac
   * @param {number} nowMs
   * @param {Binding | undefined} binding
   * @returns {SdkReason}
   */
  function sdkReason(reason, body, mac, nowMs, binding) {
    if (reason === "mac") return sdkReasonBeforeMac(body, mac, nowMs, binding);
    if (reason !== "malformed") return /** @type {SdkReason} */ (reason); // raw tokens have no purpose or request
    if (!BASE64URL.test(body) || !BASE64URL.test(mac)) return sdkReasonBeforeMac(body, mac, nowMs, binding);
    return sdkReasonAfterMac(body, nowMs);
  }

  // The core judges the spelling before hashing; the SDK hashes first, so it
  // says "mac" for a body or MAC no codec signed. A MAC part that is a
  // non-canonical spelling of 32 bytes is judged by its canonical spelling,
  // which the SDK reads the same: its reason then, or, where the SDK accepts
  // the token, ours ("malformed": docs/format.md refuses non-canonical base64url).
  /**
   * @param {string} body
   * @param {string} mac
   * @param {number} nowMs
   * @param {Binding | undefined} binding
   * @returns {SdkReason}
   */
  function sdkReasonBeforeMac(body, mac, nowMs, binding) {
    if (!BASE64URL.test(body)) return "mac";
    const bytes = sdkBase64UrlToBytes(mac);
    const canonical = bytes.length === 32 ? canonicalBase64Url(bytes) : mac;
    if (canonical === mac) return "mac";
    return check(body, canonical, nowMs, binding).reason ?? "malformed";
  }

  // The core refused a body whose MAC it verified: it is not strict base64url,
  // UTF-8 or one JSON text, or it is `null`. The SDK decodes base64url more
  // loosely: its reason, where it has one, else ours ("malformed", where the
  // SDK would read on: docs/format.md's exception for non-canonical base64url).
  /**
   * @param {string} body
   * @param {number} nowMs
   * @returns {SdkReason}
   */
  function sdkReasonAfterMac(body, nowMs) {
    let envelope;
    try {
      envelope = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(sdkBase64UrlToBytes(body)));
    } catch {
      return "malformed";
    }
    // A JSON null envelope throws a TypeError here, as it does in the SDK.
    if (typeof envelope.exp !== "number" || envelope.exp < Math.floor(nowMs / 1e3)) return "expired";
    return "malformed";
  }

  return {
    /**
     * @param {T} payload
     * @param {C} [ctx]
     */
    async mint(payload, ctx) {
      const nowMs = Date.now(); // the SDK fixes exp before it calls bind
      /** @type {string | undefined} */
      let bindValue;
      if (bind !== undefined) {
        if (ctx === undefined) throw new TypeError("createRequestStateCodec: mint() requires ctx when a bind callback is configured");
        bindValue = "" + bind(ctx); // as the SDK's "label" + value
      }
      const p = envelopeValue(payload);
      try {
        // toJSON already ran with the key "p": hand StateCodec the value it
        // gave. Where JSON leaves it out (undefined, a function, a symbol),
        // the SDK reading writes no "p", as JSON.stringify({ p }) does.
        return atClock(nowMs, () => codec.mint({ toJSON: () => p }, { bind: bindValue }));
      } catch (e) {
        // JSON.stringify's own error (a cycle, a BigInt, a throwing nested toJSON), as the SDK rejects with it.
        if (e instanceof TypeError && e.cause !== undefined) throw e.cause;
        throw e;
      }
    },

    /**
     * @param {string} state
     * @param {C} ctx
     * @returns {Promise<T>}
     */
    async verify(state, ctx) {
      // docs/format.md: the size limit comes before any decoding or scan, so an oversize
      // string costs no more to refuse than reading its length. "malformed" is
      // the SDK's reason for a bad shape, and where its shape step would read
      // on (it has no limit), docs/format.md's refusal.
      if (typeof state === "string" && state.length > maxTokenBytes) throw failure("malformed");
      // The SDK's shape step, the same expressions: a non-string fails as it fails there.
      const dot = state.lastIndexOf(".");
      if (!state.startsWith(PREFIX) || dot <= PREFIX.length) throw failure("malformed");
      const body = state.slice(PREFIX.length, dot);
      const mac = state.slice(dot + 1);
      try {
        sdkBase64UrlToBytes(mac);
      } catch {
        throw failure("malformed");
      }
      const nowMs = Date.now();
      const binding = bound(ctx);
      const result = atClock(nowMs, () => check(body, mac, nowMs, binding));
      if (result.reason !== undefined) throw failure(result.reason);
      return result.payload;
    },
  };
}
