// @ts-check
// The one canonical form of a request's arguments (docs/format.md, "`q`: the request digest"):
// RFC 8785 (JCS) text of a plain JSON value, the same text the Rust core
// writes (src/jcs.rs). Written here rather than by an npm package because it
// must also refuse what has no canonical form (non-finite numbers, lone
// surrogates, nesting past MAX_REQUEST_DEPTH, values JSON cannot carry) and
// stop at maxRequestBytes while it is being built; js/test/canonical-request
// checks it against the `canonicalize` package on generated values.
//
// The walk is iterative, so 10 KB of `[` from a client is a refusal, never a
// stack overflow. JS's own number form (Number::toString) and JSON.stringify's
// string escapes are RFC 8785's, and the default sort compares UTF-16 code
// units as the RFC orders member names.

import { MAX_REQUEST_DEPTH } from "../constants.js";

/** Why a value has no canonical form: `range` (too deep, too large) or `type` (not a JSON value). */
export class NotCanonical extends Error {
  /**
   * @param {"range" | "type"} kind
   * @param {string} message
   */
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const NON_ASCII = /[^\x00-\x7f]/;
// Node 20+, Deno, Bun and workerd have isWellFormed; the regex is for older engines.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** @type {(s: string) => boolean} */
const wellFormed = typeof String.prototype.isWellFormed === "function" ? (s) => s.isWellFormed() : (s) => !LONE_SURROGATE.test(s);

// UTF-8 bytes of a well-formed string whose UTF-16 length is `s.length`.
/** @param {string} s */
function utf8Bytes(s) {
  if (!NON_ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A unit of a surrogate pair adds 1 (4 bytes per pair), 0x80-0x7ff 1, the rest of the BMP 2.
    if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
  }
  return n;
}

// A plain object: its prototype is a realm's Object.prototype (whose own
// prototype is null) or null. Class instances, Map, Set, Date, boxed
// primitives and arrays' prototypes all have Object.prototype above them.
/** @param {object} o */
function isPlainObject(o) {
  const proto = Object.getPrototypeOf(o);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** @param {unknown} v */
function describe(v) {
  if (v === undefined) return "undefined";
  if (typeof v === "bigint") return "a BigInt";
  if (typeof v === "function") return "a function";
  if (typeof v === "symbol") return "a symbol";
  if (typeof v === "number") return String(v);
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  const name = Object.getPrototypeOf(v)?.constructor?.name;
  return `a ${typeof name === "string" && name !== "" && name !== "Object" ? name : tag}`;
}

// Where in the value the walk is: `request`, `request.a[3]`.
/**
 * One open array (`keys` null) or object of the walk; `v` is the caller's
 * value, read member by member.
 * @typedef {{ v: any, keys: string[] | null, i: number, n: number }} Frame
 */

/**
 * @param {Frame[]} stack
 * @param {number} top
 */
function pathOf(stack, top) {
  let path = "request";
  for (let i = 0; i < top; i++) {
    const f = stack[i];
    path += f.keys === null ? `[${f.i - 1}]` : /^[A-Za-z_$][\w$]*$/.test(f.keys[f.i - 1]) ? `.${f.keys[f.i - 1]}` : `[${JSON.stringify(f.keys[f.i - 1])}]`;
  }
  return path;
}

/**
 * The RFC 8785 text of `value`, a plain JSON value: null, a boolean, a finite
 * number, a well-formed string, an array of them or a plain object of them.
 * An object member that is undefined is left out, as JSON.stringify leaves
 * it; undefined anywhere else, and anything else (a Map, Set, Date, BigInt,
 * function, symbol, class instance, a symbol-keyed member, toJSON), throws
 * NotCanonical("type"); nesting deeper than MAX_REQUEST_DEPTH, or text of more
 * than `maxBytes` UTF-8 bytes, throws NotCanonical("range") as soon as it is
 * known, before the rest is read.
 */
/**
 * @param {unknown} value
 * @param {number} maxBytes
 * @returns {string}
 */
export function canonicalRequest(value, maxBytes) {
  let out = "";
  let bytes = 0;
  /** @type {Frame[]} */
  const stack = []; // frames { v, keys (null for an array), i }
  let top = 0; // frames in use (they are reused)
  const over = () => new NotCanonical("range", `request is over maxRequestBytes (${maxBytes} bytes of canonical JSON)`);
  const add = (/** @type {string} */ text, /** @type {number} */ n) => {
    bytes += n;
    if (bytes > maxBytes) throw over();
    out += text;
  };
  /** @type {any} */
  let v = value;
  for (;;) {
    // Write `v` (a scalar), or open it (an array or object) as a new frame.
    if (v === null) add("null", 4);
    else if (v === true) add("true", 4);
    else if (v === false) add("false", 5);
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new NotCanonical("type", `${pathOf(stack, top)} is ${v}, which JSON cannot carry (RFC 8785 has no form for a non-finite number)`);
      const s = String(v); // -0 writes "0", as RFC 8785 says
      add(s, s.length);
    } else if (typeof v === "string") {
      // Every unit is at least a byte, plus the quotes: refuse before stringifying a huge string.
      if (bytes + v.length + 2 > maxBytes) throw over();
      if (!wellFormed(v)) throw new NotCanonical("type", `${pathOf(stack, top)} holds a lone surrogate (RFC 8785 has no form for it)`);
      const s = JSON.stringify(v);
      add(s, s.length - v.length + utf8Bytes(v));
    } else if (typeof v === "object" && (Array.isArray(v) || isPlainObject(v))) {
      if (top === MAX_REQUEST_DEPTH) throw new NotCanonical("range", `${pathOf(stack, top)} is nested more than ${MAX_REQUEST_DEPTH} levels deep`);
      let keys = null;
      if (Array.isArray(v)) {
        // "[" "]" and at least a byte and a comma per element.
        if (bytes + 2 * v.length + 1 > maxBytes) throw over();
        add("[", 1);
      } else {
        if (Object.getOwnPropertySymbols(v).length > 0) throw new NotCanonical("type", `${pathOf(stack, top)} has a symbol-keyed member, which JSON cannot carry`);
        // A member that is undefined writes nothing, so it counts for nothing below.
        keys = Object.keys(v).filter((k) => v[k] !== undefined);
        // `"":0,` is the least a member writes.
        if (bytes + 5 * keys.length + 1 > maxBytes) throw over();
        keys.sort();
        add("{", 1);
      }
      const frame = stack[top] ?? (stack[top] = { v: null, keys: null, i: 0, n: 0 });
      frame.v = v;
      frame.keys = keys;
      frame.i = 0;
      frame.n = 0;
      top++;
    } else {
      throw new NotCanonical("type", `${pathOf(stack, top)} is ${describe(v)}, not a JSON value (only null, booleans, finite numbers, strings, arrays and plain objects)`);
    }
    // The next value to write, closing every frame that is done.
    for (;;) {
      if (top === 0) return out;
      const f = stack[top - 1];
      if (f.keys === null) {
        if (f.i < f.v.length) {
          if (f.i > 0) add(",", 1);
          v = f.v[f.i++];
          if (v === undefined) throw new NotCanonical("type", `${pathOf(stack, top)} is undefined (an array hole or undefined element), not a JSON value`);
          break;
        }
        add("]", 1);
      } else {
        let next = false;
        while (f.i < f.keys.length) {
          const k = f.keys[f.i++];
          v = f.v[k];
          if (v === undefined) continue; // as JSON.stringify: an undefined member is absent
          if (bytes + k.length + 3 > maxBytes) throw over();
          if (!wellFormed(k)) throw new NotCanonical("type", `${pathOf(stack, top - 1)} has a member name with a lone surrogate (RFC 8785 has no form for it)`);
          const name = JSON.stringify(k);
          const comma = f.n++ > 0;
          add(comma ? `,${name}:` : `${name}:`, name.length - k.length + utf8Bytes(k) + (comma ? 2 : 1));
          next = true;
          break;
        }
        if (next) break;
        add("}", 1);
      }
      f.v = null;
      f.keys = null;
      top--;
    }
  }
}
