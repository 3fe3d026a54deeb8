// @ts-check
// StateCodec's options, read one way: an unknown name is refused with the
// known ones listed, a wrong type names the type that came, and an option a
// call cannot honour (a request on a view token, a secret on a raw token) is a
// TypeError rather than something silently left unchecked. And what
// construction reads: the keys' bytes, a Worker's `env`, production, and the
// core's words for a configuration it refuses.
import { CONFIG_ERRORS } from "../constants.js";

/**
 * A StateCodec key: a string (its UTF-8 bytes) or a Uint8Array (its bytes;
 * Buffer included). An ArrayBuffer or DataView is also read as its bytes. Any
 * other typed array (Uint16Array, Float32Array, ...) is a TypeError: its
 * elements are not bytes. At least 32 bytes; copied at construction.
 * @typedef {string | Uint8Array} Key
 */

/**
 * A Worker's bindings (the `env` of `fetch`): `STATE_KEY` is the key unless
 * `key` is given, and `NODE_ENV` decides `production` unless it is given.
 * @typedef {{ readonly STATE_KEY?: Key | Key[] | ArrayBuffer | undefined; readonly NODE_ENV?: string | undefined; readonly [binding: string]: unknown }} WorkerEnv
 */

/**
 * StateCodec's options. Each accepts `undefined` (the default), so
 * `key: env.STATE_KEY` compiles under `exactOptionalPropertyTypes`. An unknown
 * option is a TypeError listing these names; a wrong type is a TypeError
 * naming the type that came.
 * @typedef {object} CodecOptions
 * @property {Key | Key[] | null | undefined} [key] HMAC keys of at least 32 bytes (strings are UTF-8 encoded). The first seals; all open. An empty list is a RangeError. Left out: `env.STATE_KEY`, else the development key (one per process or isolate, drawn at the first call).
 * @property {number | null | undefined} [ttlSeconds] Token lifetime in seconds, a positive safe integer; default DEFAULT_TTL_SECONDS (constants.js). Re-sealing restarts it.
 * @property {number | null | undefined} [leewaySeconds] Extra seconds an expired token still opens; default DEFAULT_LEEWAY_SECONDS (none).
 * @property {number | null | undefined} [maxTokenBytes] Longer tokens are refused before any hashing; default DEFAULT_MAX_TOKEN_BYTES (constants.js).
 * @property {number | null | undefined} [maxRequestBytes] Bound of a request's RFC 8785 canonical UTF-8 text, checked while it is built (before any copy or hash); default DEFAULT_MAX_REQUEST_BYTES (constants.js). Over it: a RangeError sealing, reason "request" opening.
 * @property {boolean | undefined} [production] Refuse to run without a key. Left out: whether `env.NODE_ENV` (when `env` has NODE_ENV), else `process.env.NODE_ENV` where that can be read (a bundler's `define` included), reads as production: "production" or "prod" in any ASCII case, whitespace around it ignored. Anything but a boolean is a TypeError.
 * @property {WorkerEnv | undefined} [env] A Worker's bindings (the `env` of `fetch`): `STATE_KEY` is the key unless `key` is given, and `NODE_ENV` decides `production` unless it is given. With production on and no STATE_KEY, the constructor throws a RangeError that names the binding to set.
 * @property {(() => number) | undefined} [now] Clock in milliseconds; default Date.now.
 */

const utf8 = new TextEncoder();

/** What a value is, for an error message: "a string", "null", "an array", "a Uint8Array". */
/** @param {unknown} v */
export function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  if (t === "object") {
    const name = Object.getPrototypeOf(v)?.constructor?.name;
    return typeof name === "string" && name !== "" && name !== "Object" ? withArticle(name) : "an object";
  }
  return t === "undefined" ? "undefined" : withArticle(t);
}

// "an ArrayBuffer", "an Int8Array", "a Uint8Array" (a "you"), "an object", "a string".
const withArticle = (/** @type {string} */ word) => `a${/^[aeiouAEIO]/.test(word) ? "n" : ""} ${word}`;

/**
 * Refuse `opts` unless it is undefined or an object whose own names are all
 * in `known`. `refused` maps a name this call cannot honour to why.
 */
/**
 * @param {unknown} opts
 * @param {readonly string[]} known
 * @param {string} where
 * @param {Record<string, string>} [refused]
 */
export function checkNames(opts, known, where, refused = {}) {
  if (opts === undefined) return;
  if (opts === null || typeof opts !== "object" || Array.isArray(opts)) {
    throw new TypeError(`mcp-sealed-state: ${where}'s options must be an object (got ${typeOf(opts)})`);
  }
  for (const name of Object.keys(opts)) {
    if (known.includes(name)) continue;
    if (Object.hasOwn(refused, name)) {
      if (/** @type {Record<string, unknown>} */ (opts)[name] === undefined) continue; // an explicit undefined is no option (exactOptionalPropertyTypes)
      throw new TypeError(`mcp-sealed-state: ${where} takes no ${name} option: ${refused[name]}`);
    }
    throw new TypeError(`mcp-sealed-state: ${where} has no option ${JSON.stringify(name)}; its options are ${known.join(", ")}`);
  }
}

/** A safe integer option from `min` to `max`, or `fallback` when undefined or null. */
/**
 * @param {unknown} value
 * @param {number} fallback
 * @param {string} name
 * @param {number} [min]
 * @param {number} [max]
 * @returns {number}
 */
export function wholeNumber(value, fallback, name, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (value === undefined || value === null) return fallback;
  const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min === 1 ? " (positive)" : min > -Number.MAX_SAFE_INTEGER ? ` >= ${min}` : "";
  if (typeof value !== "number")
    throw new TypeError(
      `mcp-sealed-state: ${name} must be a safe integer${range}, not ${typeOf(value)}${typeof value === "string" ? ` (${JSON.stringify(value.slice(0, 40))}: convert it with Number())` : ""}`,
    );
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`mcp-sealed-state: ${name} must be a safe integer${range} (got ${value})`);
  return value;
}

// src/bindings/protocol.rs: the core's words for no key in production, no randomness, an empty key list.
const CONFIG_KEY_MISSING = 2;
export const CONFIG_NO_RANDOMNESS = 3;
export const CONFIG_KEY_EMPTY = 7;
// The Worker binding `env` is read for: the key, and whether this is production.
export const KEY_BINDING = "STATE_KEY";

// A NODE_ENV that reads as production ("production" or "prod", in any ASCII
// case, with JSON whitespace around it) is production: a slip such as
// "Production" fails closed (docs/server.md; tests/vectors/node-env.json).
const PRODUCTION = /^[ \t\n\r]*(?:production|prod)[ \t\n\r]*$/i;
const isProductionValue = (/** @type {unknown} */ value) => typeof value === "string" && PRODUCTION.test(value);

// NODE_ENV as bundlers' `define` spells it, so a bundle with
// process.env.NODE_ENV replaced reads "production" too. No `process`
// (browsers, workerd without nodejs_compat) or env access denied (Deno
// without --allow-env): not production; pass `production` there.
function isProduction() {
  try {
    return isProductionValue(process.env.NODE_ENV);
  } catch {
    return false;
  }
}

// StateCodec's key rule: a string is its UTF-8 bytes; a Uint8Array (Buffer
// included), an ArrayBuffer or a DataView is its bytes. Any other typed array
// is a TypeError: its elements are not bytes, and reading it either element by
// element (as the SDK's Uint8Array.from does) or byte by byte would surprise.
/**
 * @param {unknown} key
 * @param {number} index
 * @returns {Uint8Array}
 */
export function keyBytes(key, index) {
  if (typeof key === "string") return utf8.encode(key);
  if (ArrayBuffer.isView(key)) {
    // The tag, not instanceof: a Uint8Array from another realm is still one.
    const kind = /** @type {any} */ (key)[Symbol.toStringTag];
    if (kind === "Uint8Array" || kind === "DataView") return new Uint8Array(key.buffer, key.byteOffset, key.byteLength);
    throw new TypeError(`mcp-sealed-state: key #${index} must be a string or a Uint8Array, not a ${kind} (its elements are not bytes; convert it explicitly)`);
  }
  if (key instanceof ArrayBuffer) return new Uint8Array(key);
  throw new TypeError(`mcp-sealed-state: key #${index} must be a string or a Uint8Array (or an ArrayBuffer or DataView of its bytes)`);
}

// The core's words for a WasmCodec's configError (src/bindings/protocol.rs):
// the code in the low byte, a short key's index above it.
/**
 * @param {number} error
 * @param {readonly Uint8Array[]} keys
 */
export function configMessage(error, keys) {
  const index = error >>> 8;
  const text = CONFIG_ERRORS[error & 0xff] ?? `internal error (configError ${error})`;
  return text.replace("{index}", String(index)).replace("{len}", String(keys[index]?.length));
}

// A Worker's bindings (the `env` of fetch): STATE_KEY and NODE_ENV are read from it.
/**
 * @param {unknown} env
 * @returns {WorkerEnv | undefined}
 */
export function envOf(env) {
  if (env === undefined) return undefined;
  if (env === null || typeof env !== "object") throw new TypeError(`mcp-sealed-state: env must be the Worker's bindings (an object), not ${typeOf(env)}`);
  const key = /** @type {WorkerEnv} */ (env)[KEY_BINDING];
  // What `key` takes (keyBytes judges the bytes): a Worker secret is a string.
  if (key !== undefined && key !== null && typeof key !== "string" && !Array.isArray(key) && !ArrayBuffer.isView(key) && !(key instanceof ArrayBuffer)) {
    throw new TypeError(`mcp-sealed-state: env.${KEY_BINDING} must be a string (a Worker secret), a Uint8Array or an ArrayBuffer, as key is, not ${typeOf(key)}`);
  }
  return /** @type {WorkerEnv} */ (env);
}

/**
 * @param {unknown} production
 * @param {WorkerEnv | undefined} env
 * @returns {boolean}
 */
export function productionOf(production, env) {
  if (production === undefined) return env?.NODE_ENV !== undefined ? isProductionValue(env.NODE_ENV) : isProduction();
  if (typeof production !== "boolean") throw new TypeError(`mcp-sealed-state: production must be true, false or undefined (undefined reads NODE_ENV), not ${typeOf(production)}`);
  return production;
}

// No key in production: the error says where the key comes from.
/** @param {WorkerEnv | undefined} env */
export function missingKey(env) {
  const where = env === undefined ? `pass key (for example from process.env.${KEY_BINDING})` : `set the Worker secret ${KEY_BINDING} (wrangler secret put ${KEY_BINDING}; .dev.vars locally)`;
  return new RangeError(`mcp-sealed-state: ${CONFIG_ERRORS[CONFIG_KEY_MISSING]}; ${where}`);
}
