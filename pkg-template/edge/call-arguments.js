// @ts-check
// The arguments of StateCodec's calls, checked and turned into what the wasm
// core takes: the payload's and the secret's JSON, the request's canonical
// text, the bind value and the tool; and what a caller may not combine.
import { MAC_CHARS, REASONS, TOKEN_PREFIX } from "../constants.js";
import { SealedStateError } from "../common.js";
import { NotCanonical, canonicalRequest } from "./canonical-request.js";
import { typeOf } from "./codec-options.js";

/**
 * @typedef {object} BindOptions
 * @property {string | undefined} [bind] A principal (e.g. the authenticated user): a token bound to one fails for another.
 */

/**
 * @typedef {object} SecretOption
 * @property {unknown} [secret] JSON only a key holder reads: sealed with XChaCha20-Poly1305 under a key derived from the sealing key, beside the readable payload. Not JSON-serializable: a TypeError.
 */

/** @typedef {BindOptions & SecretOption} SecretOptions */

/**
 * @typedef {object} RequestOption
 * @property {unknown} [request] The request's arguments, a plain JSON value: bound by a digest of their RFC 8785 canonical JSON (key order does not matter); reason "request" when they differ or one side has none. No canonical form (a non-finite number, a lone surrogate, nesting past 64, a Map, Set, Date, BigInt, function or class instance, text over maxRequestBytes): a TypeError or RangeError sealing, reason "request" opening.
 */

/** @typedef {BindOptions & RequestOption} RequestOptions */

const REQUEST = REASONS[6]; // the code of Reason::Request

export const NO_REQUEST = "request binds requestState tokens only (sealRequestState / openRequestState)";
export const NO_SECRET_HERE = "a secret is sealed by seal or sealRequestState and read by openWithSecret or openRequestStateWithSecret";
export const RAW_NO_SECRET = "a raw token has no secret part (seal a view token for one)";
export const RAW_NO_REQUEST = "a raw token binds no request (sealRequestState binds one)";

// The fewest characters of a token whose payload (and tool) JSON has
// `chars` UTF-16 units, each at least a byte: prefix, base64url(envelope),
// ".", MAC, the envelope at least `{"p":` payload `,"exp":0}`.
export const minTokenChars = (/** @type {number} */ chars) => TOKEN_PREFIX.length + Math.ceil(((chars + 14) * 4) / 3) + 1 + MAC_CHARS;

// The text of anything a callback threw, without throwing again: `throw
// null`, a Symbol, an object with no prototype, a `message` getter that throws.
/** @param {unknown} e */
export function thrownText(e) {
  try {
    const message = e !== null && typeof e === "object" ? /** @type {{ message?: unknown }} */ (e).message : undefined;
    return typeof message === "string" ? message : String(e);
  } catch {
    return "a thrown value that cannot be shown as text";
  }
}

// `sdk`: the SDK's mint takes what JSON.stringify leaves out (undefined, a
// function, a symbol) and writes no "p"; 0 bytes of payload tell the core so.
/**
 * @param {unknown} payload
 * @param {boolean} [sdk]
 * @returns {string}
 */
export function payloadJson(payload, sdk = false) {
  let json;
  try {
    json = JSON.stringify(payload);
  } catch (e) {
    throw new TypeError(`mcp-sealed-state: payload is not JSON-serializable (${thrownText(e)})`, { cause: e });
  }
  if (typeof json === "string") return json;
  if (sdk) return "";
  throw new TypeError("mcp-sealed-state: payload is not JSON-serializable (undefined, a function or a symbol)");
}

// The secret's JSON, or undefined for none. Its error never quotes it (a
// cycle's message names its keys), and never carries the engine's as cause.
/** @param {{ secret?: unknown } | undefined} opts */
export function secretJson(opts) {
  const secret = opts?.secret;
  if (secret === undefined) return undefined;
  let json;
  try {
    json = JSON.stringify(secret);
  } catch {
    json = undefined;
  }
  if (typeof json !== "string") throw new TypeError("mcp-sealed-state: secret is not JSON-serializable");
  return json;
}

// The request's arguments to seal as RFC 8785 text (canonical-request.js),
// or undefined for none: what has no canonical form is the sealer's mistake.
/**
 * @param {{ request?: unknown } | undefined} opts
 * @param {number} maxBytes
 */
export function requestToSeal(opts, maxBytes) {
  const request = opts?.request;
  if (request === undefined) return undefined;
  try {
    return canonicalRequest(request, maxBytes);
  } catch (e) {
    if (!(e instanceof NotCanonical)) throw e; // a getter of the caller's that threw
    throw e.kind === "range" ? new RangeError(`mcp-sealed-state: ${e.message}`) : new TypeError(`mcp-sealed-state: ${e.message}`);
  }
}

// The arguments a client sent, to open with: anything without a canonical
// form (or over the bound) cannot be what was sealed, so it is the token's
// failure, reason "request", decided before a byte is copied or hashed.
/**
 * @param {{ request?: unknown } | undefined} opts
 * @param {number} maxBytes
 */
export function requestToOpen(opts, maxBytes) {
  const request = opts?.request;
  if (request === undefined) return undefined;
  try {
    return canonicalRequest(request, maxBytes);
  } catch {
    throw new SealedStateError(REQUEST);
  }
}

// Characters of a sealed secret of `json`, at least: base64url of nonce, ciphertext and tag, and `,"s":""`.
export const minSecretChars = (/** @type {string | undefined} */ json) => (json === undefined ? 0 : Math.ceil(((json.length + 40) * 4) / 3) + 7);

/**
 * @param {{ bind?: unknown } | undefined} opts
 * @returns {string | undefined}
 */
export function bindOf(opts) {
  const bind = opts?.bind;
  if (bind !== undefined && typeof bind !== "string") throw new TypeError(`mcp-sealed-state: bind must be a string, not ${typeOf(bind)}`);
  return bind;
}

/**
 * @param {unknown} tool
 * @returns {string}
 */
export function toolOf(tool) {
  if (typeof tool !== "string" || tool === "") throw new TypeError("mcp-sealed-state: a requestState token needs the tool name (a non-empty string)");
  return tool;
}
