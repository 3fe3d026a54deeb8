// StateCodec's options, read one way: an unknown name is refused with the
// known ones listed, a wrong type names the type that came, and an option a
// call cannot honour (a request on a view token, a secret on a raw token) is a
// TypeError rather than something silently left unchecked. And what
// construction reads: the keys' bytes, a Worker's `env`, production, and the
// core's words for a configuration it refuses.
import { CONFIG_ERRORS } from "../constants.js";

const utf8 = new TextEncoder();

/** What a value is, for an error message: "a string", "null", "an array", "a Uint8Array". */
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
const withArticle = (word) => `a${/^[aeiouAEIO]/.test(word) ? "n" : ""} ${word}`;

/**
 * Refuse `opts` unless it is undefined or an object whose own names are all
 * in `known`. `refused` maps a name this call cannot honour to why.
 */
export function checkNames(opts, known, where, refused = {}) {
  if (opts === undefined) return;
  if (opts === null || typeof opts !== "object" || Array.isArray(opts)) {
    throw new TypeError(`mcp-sealed-state: ${where}'s options must be an object (got ${typeOf(opts)})`);
  }
  for (const name of Object.keys(opts)) {
    if (known.includes(name)) continue;
    if (Object.hasOwn(refused, name)) {
      if (opts[name] === undefined) continue; // an explicit undefined is no option (exactOptionalPropertyTypes)
      throw new TypeError(`mcp-sealed-state: ${where} takes no ${name} option: ${refused[name]}`);
    }
    throw new TypeError(`mcp-sealed-state: ${where} has no option ${JSON.stringify(name)}; its options are ${known.join(", ")}`);
  }
}

/** A safe integer option from `min` to `max`, or `fallback` when undefined or null. */
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
const isProductionValue = (value) => typeof value === "string" && PRODUCTION.test(value);

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
export function keyBytes(key, index) {
  if (typeof key === "string") return utf8.encode(key);
  if (ArrayBuffer.isView(key)) {
    // The tag, not instanceof: a Uint8Array from another realm is still one.
    const kind = key[Symbol.toStringTag];
    if (kind === "Uint8Array" || kind === "DataView") return new Uint8Array(key.buffer, key.byteOffset, key.byteLength);
    throw new TypeError(`mcp-sealed-state: key #${index} must be a string or a Uint8Array, not a ${kind} (its elements are not bytes; convert it explicitly)`);
  }
  if (key instanceof ArrayBuffer) return new Uint8Array(key);
  throw new TypeError(`mcp-sealed-state: key #${index} must be a string or a Uint8Array (or an ArrayBuffer or DataView of its bytes)`);
}

// The core's words for a WasmCodec's configError (src/bindings/protocol.rs):
// the code in the low byte, a short key's index above it.
export function configMessage(error, keys) {
  const index = error >>> 8;
  const text = CONFIG_ERRORS[error & 0xff] ?? `internal error (configError ${error})`;
  return text.replace("{index}", String(index)).replace("{len}", String(keys[index]?.length));
}

// A Worker's bindings (the `env` of fetch): STATE_KEY and NODE_ENV are read from it.
export function envOf(env) {
  if (env === undefined) return undefined;
  if (env === null || typeof env !== "object") throw new TypeError(`mcp-sealed-state: env must be the Worker's bindings (an object), not ${typeOf(env)}`);
  const key = env[KEY_BINDING];
  // What `key` takes (keyBytes judges the bytes): a Worker secret is a string.
  if (key !== undefined && key !== null && typeof key !== "string" && !Array.isArray(key) && !ArrayBuffer.isView(key) && !(key instanceof ArrayBuffer)) {
    throw new TypeError(`mcp-sealed-state: env.${KEY_BINDING} must be a string (a Worker secret), a Uint8Array or an ArrayBuffer, as key is, not ${typeOf(key)}`);
  }
  return env;
}

export function productionOf(production, env) {
  if (production === undefined) return env?.NODE_ENV !== undefined ? isProductionValue(env.NODE_ENV) : isProduction();
  if (typeof production !== "boolean") throw new TypeError(`mcp-sealed-state: production must be true, false or undefined (undefined reads NODE_ENV), not ${typeOf(production)}`);
  return production;
}

// No key in production: the error says where the key comes from.
export function missingKey(env) {
  const where = env === undefined ? `pass key (for example from process.env.${KEY_BINDING})` : `set the Worker secret ${KEY_BINDING} (wrangler secret put ${KEY_BINDING}; .dev.vars locally)`;
  return new RangeError(`mcp-sealed-state: ${CONFIG_ERRORS[CONFIG_KEY_MISSING]}; ${where}`);
}
