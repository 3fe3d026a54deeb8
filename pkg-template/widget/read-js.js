// @ts-check
// The JS twin of the wasm reader's one export, `readTokenJson` (src/reader.rs
// over wire.rs, json.rs and envelope.rs), for pages whose CSP refuses
// WebAssembly. It is a line-by-line port: for every string it returns the
// same text as the wasm build, or undefined where that returns undefined.
// js/test/widget-backends.test.mjs holds it to that (SDK vectors, hostile
// rows, fast-check on random and hostile input). Change both or neither.
//
// Positions are UTF-16 indexes where Rust has byte indexes: every character
// the grammar looks at is ASCII, and no unit of a non-ASCII character (UTF-8
// bytes >= 0x80, UTF-16 units >= 0x80) matches any of them, so both scans
// accept the same texts and cut them at the same characters.

// MAX_READ_CHARS is src/reader.rs MAX_READ_BYTES (a token is ASCII): longer tokens are not read.
import { MAC_CHARS, MAX_READ_CHARS as MAX_READ_BYTES } from "../constants.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
// wire::split: "v1." body "." mac, both non-empty, all base64url (so one more "." only).
const TOKEN = /^v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What a token claims as TokenView JSON text, or undefined when it is not a v1 token. */
/**
 * @param {unknown} token
 * @returns {string | undefined}
 */
export function readTokenJsonJs(token) {
  if (typeof token !== "string" || token.length > MAX_READ_BYTES) return undefined;
  const m = TOKEN.exec(token);
  if (m === null || /** @type {string} */ (m[2]).length !== MAC_CHARS) return undefined;
  const body = decodeBody(/** @type {string} */ (m[1]));
  if (body === undefined) return undefined;
  const env = parseEnvelope(body);
  if (env === undefined) return undefined;
  const inner = parseInner(env.p);
  const payload = inner === undefined ? env.p : inner.d;
  const purpose = inner === undefined ? "null" : inner.tool === undefined ? '"view"' : '"requestState"';
  const tool = inner?.tool === undefined ? "null" : JSON.stringify(inner.tool);
  if (inner?.s !== undefined && !isSealedSecret(inner.s)) return undefined;
  return `{"payload":${payload},"purpose":${purpose},"tool":${tool},"exp":${env.exp},"bound":${env.b !== undefined},"hasSecret":${inner?.s !== undefined}}`;
}

// wire::decode (strict unpadded base64url) then String::from_utf8.
/** @param {string} b64 */
function decodeBody(b64) {
  const rem = b64.length % 4;
  const last = ALPHABET.indexOf(/** @type {string} */ (b64[b64.length - 1]));
  // An impossible length, or unused bits set in the last character (non-canonical).
  if (rem === 1 || (rem === 2 && (last & 0xf) !== 0) || (rem === 3 && (last & 0x3) !== 0)) return undefined;
  // The alphabet is checked already, where atob alone would forgive whitespace and padding.
  const bin = atob(b64.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined; // not UTF-8
  }
}

// envelope::parse: an object with `p` and an integer `exp`; `b` optional, any JSON.
/** @param {string} body */
function parseEnvelope(body) {
  const members = objectMembers(body);
  const found = members && pick(members, ["p", "exp", "b"]);
  if (!found || found[0] === undefined || found[1] === undefined) return undefined;
  const exp = parseInt64(found[1]);
  return exp === undefined ? undefined : { p: found[0], exp, b: found[2] };
}

// envelope::claim_all: {"p":"v","d":..} or {"p":"r","d":..,"o":"tool"}, each
// with an optional secret "s" (and request digest "q"); else undefined (raw).
/** @param {string} p */
function parseInner(p) {
  if (p[0] !== "{") return undefined;
  const members = objectMembers(p);
  const found = members && pick(members, ["p", "d", "o", "s", "q"]);
  if (!found) return undefined;
  const [purpose, d, o, s] = found;
  if (purpose === undefined || purpose[0] !== '"') return undefined;
  const name = JSON.parse(purpose);
  if (name === "v" && d !== undefined) return { d, tool: undefined, s };
  if (name === "r" && d !== undefined && o !== undefined && o[0] === '"') return { d, tool: wellFormed(JSON.parse(o)), s };
  return undefined;
}

// The reader's check of "s" (json::unescape, then wire::decode): a JSON
// string of strict unpadded base64url. What it says is never read.
/** @param {string} raw */
function isSealedSecret(raw) {
  if (raw[0] !== '"') return false;
  /** @type {string} */
  const b64 = JSON.parse(raw);
  if (!/^[A-Za-z0-9_-]*$/.test(b64)) return false;
  const rem = b64.length % 4;
  const last = ALPHABET.indexOf(/** @type {string} */ (b64[b64.length - 1]));
  return !(rem === 1 || (rem === 2 && (last & 0xf) !== 0) || (rem === 3 && (last & 0x3) !== 0));
}

// json::unescape makes a lone surrogate U+FFFD (a Rust string cannot hold one).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const wellFormed = (/** @type {string} */ s) => s.replace(LONE_SURROGATE, "\ufffd");

// envelope::pick: the raw values of the wanted keys; a wanted key twice makes it invalid.
/**
 * @param {{ key: string, value: string }[]} members
 * @param {string[]} names
 */
function pick(members, names) {
  /** @type {(string | undefined)[]} */
  const found = names.map(() => undefined);
  for (const { key, value } of members) {
    const idx = names.indexOf(JSON.parse(key));
    if (idx < 0) continue;
    if (found[idx] !== undefined) return undefined;
    found[idx] = value;
  }
  return found;
}

// json::parse_int: a plain integer literal in the i64 range, written as Rust's write_int does.
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
/** @param {string} raw */
function parseInt64(raw) {
  if (!/^-?(0|[1-9][0-9]*)$/.test(raw)) return undefined;
  const n = BigInt(raw);
  return n < I64_MIN || n > I64_MAX ? undefined : n.toString();
}

// ---- json.rs: the scanner. -1 stands for Rust's None.

const isWs = (/** @type {number} */ c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (/** @type {number} */ c) => c >= 0x30 && c <= 0x39;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const STRING_SPECIAL = /["\\\u0000-\u001f]/g;

/**
 * @param {string} s
 * @param {number} i
 */
function skipWs(s, i) {
  while (isWs(s.charCodeAt(i))) i++;
  return i;
}

/**
 * @param {string} s
 * @param {number} i
 */
function stringEnd(s, i) {
  if (s.charCodeAt(i) !== 0x22) return -1;
  i++;
  for (;;) {
    STRING_SPECIAL.lastIndex = i;
    if (STRING_SPECIAL.exec(s) === null) return -1;
    i = STRING_SPECIAL.lastIndex - 1;
    const c = s.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1; // a control character
    const e = s[i + 1];
    if (e === '"' || e === "\\" || e === "/" || e === "b" || e === "f" || e === "n" || e === "r" || e === "t") i += 2;
    else if (e === "u" && HEX4.test(s.slice(i + 2, i + 6))) i += 6;
    else return -1;
  }
}

/**
 * @param {string} s
 * @param {number} i
 */
function digitsEnd(s, i) {
  while (isDigit(s.charCodeAt(i))) i++;
  return i;
}

/**
 * @param {string} s
 * @param {number} i
 */
function numberEnd(s, i) {
  if (s.charCodeAt(i) === 0x2d) i++;
  const c = s.charCodeAt(i);
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) i = digitsEnd(s, i + 1);
  else return -1;
  if (s.charCodeAt(i) === 0x2e) {
    const end = digitsEnd(s, i + 1);
    if (end === i + 1) return -1;
    i = end;
  }
  if (s.charCodeAt(i) === 0x65 || s.charCodeAt(i) === 0x45) {
    i++;
    if (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d) i++;
    const end = digitsEnd(s, i);
    if (end === i) return -1;
    i = end;
  }
  return i;
}

const literalEnd = (/** @type {string} */ s, /** @type {number} */ i, /** @type {string} */ lit) => (s.startsWith(lit, i) ? i + lit.length : -1);

/**
 * @param {string} s
 * @param {number} i
 */
function memberValueStart(s, i) {
  const end = stringEnd(s, skipWs(s, i));
  if (end < 0) return -1;
  const j = skipWs(s, end);
  return s.charCodeAt(j) === 0x3a ? skipWs(s, j + 1) : -1;
}

// json::value_end: iterative, the nesting lives in an array.
/**
 * @param {string} s
 * @param {number} start
 */
function valueEnd(s, start) {
  /** @type {number[]} */
  const stack = [];
  let i = skipWs(s, start);
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const close = c + 2; // "}" or "]"
      const j = skipWs(s, i + 1);
      if (s.charCodeAt(j) === close) {
        i = j + 1;
      } else {
        stack.push(close);
        i = c === 0x7b ? memberValueStart(s, j) : j;
        if (i < 0) return -1;
        continue;
      }
    } else if (c === 0x22) i = stringEnd(s, i);
    else if (c === 0x74) i = literalEnd(s, i, "true");
    else if (c === 0x66) i = literalEnd(s, i, "false");
    else if (c === 0x6e) i = literalEnd(s, i, "null");
    else if (c === 0x2d || isDigit(c)) i = numberEnd(s, i);
    else return -1;
    if (i < 0) return -1;
    // A value ended at i: close containers until one continues.
    for (;;) {
      if (stack.length === 0) return i;
      const close = stack[stack.length - 1];
      i = skipWs(s, i);
      const d = s.charCodeAt(i);
      if (d === 0x2c && close === 0x7d) {
        i = memberValueStart(s, i + 1);
        if (i < 0) return -1;
        break;
      } else if (d === 0x2c) {
        i = skipWs(s, i + 1);
        break;
      } else if (d === close) {
        stack.pop();
        i++;
      } else return -1;
    }
  }
}

// json::object_members: the members of the object that is the whole of s, or undefined.
/** @param {string} s */
function objectMembers(s) {
  let i = skipWs(s, 0);
  if (s.charCodeAt(i) !== 0x7b) return undefined;
  /** @type {{ key: string, value: string }[]} */
  const members = [];
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === 0x7d) return skipWs(s, i + 1) === s.length ? members : undefined;
  for (;;) {
    const keyStart = skipWs(s, i);
    const keyEnd = stringEnd(s, keyStart);
    if (keyEnd < 0) return undefined;
    const valueStart = memberValueStart(s, keyStart);
    if (valueStart < 0) return undefined;
    const end = valueEnd(s, valueStart);
    if (end < 0) return undefined;
    members.push({ key: s.slice(keyStart, keyEnd), value: s.slice(valueStart, end) });
    i = skipWs(s, end);
    const c = s.charCodeAt(i);
    if (c === 0x2c) i++;
    else if (c === 0x7d) return skipWs(s, i + 1) === s.length ? members : undefined;
    else return undefined;
  }
}
