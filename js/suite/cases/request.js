// Request binding's canonical form (SPEC "Request binding"): RFC
// 8785 of a plain JSON value, the same in JS and Rust. What has none is a
// clear error when sealing and reason "request" when opening, never a
// TypeError, a stack overflow or a silent rewrite.
import * as edge from "mcp-sealed-state";
import { assert, test } from "../harness.js";
import { KEY, T0, clearError, refused } from "../util.js";

const { StateCodec } = edge;
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });

// `depth` arrays, one inside the other (a scalar is depth 0, `[]` depth 1).
function nested(depth) {
  let v = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

// `{ amount: 1e400 }` is Infinity once parsed: binding it as `{ amount: null }` would let two requests share a token.
test("request: a non-finite number has no canonical form (sealing: TypeError naming where; opening: request)", () => {
  const c = at(T0);
  const parsed = JSON.parse('{"amount":1e400}');
  clearError(() => c.sealRequestState(1, "pay", { request: parsed }), TypeError, /^mcp-sealed-state: request\.amount is Infinity, which JSON cannot carry/);
  for (const bad of [NaN, -Infinity]) clearError(() => c.sealRequestState(1, "pay", { request: { a: [bad] } }), TypeError, /request\.a\[0\] is (NaN|-Infinity)/);
  const t = c.sealRequestState(1, "pay", { request: { amount: null } });
  refused(edge, () => c.openRequestState(t, "pay", { request: parsed }), "request", "Infinity never opens a token sealed for null");
  refused(edge, () => c.openRequestStateWithSecret(t, "pay", { request: { amount: NaN } }), "request");
  assert.equal(c.openRequestState(t, "pay", { request: JSON.parse('{"amount":null}') }), 1);
});

// Rust reads a lone surrogate as U+FFFD, so sealing one would let tokens cross between requests.
test("request: lone surrogates in strings and member names have no canonical form", () => {
  const c = at(T0);
  for (const request of [{ s: "\ud800" }, { s: "a\udfffb" }, ["\udc00"], { "\ud800": 1 }, { ok: { "x\udc00": 1 } }]) {
    clearError(() => c.sealRequestState(1, "t", { request }), TypeError, /lone surrogate/);
  }
  const t = c.sealRequestState(1, "t", { request: { s: "\ufffd", "\ufffd": 1 } });
  refused(edge, () => c.openRequestState(t, "t", { request: { s: "\ud800", "\ufffd": 1 } }), "request");
  refused(edge, () => c.openRequestState(t, "t", { request: { s: "\ufffd", "\udc00": 1 } }), "request");
  // A pair is a character like any other.
  const emoji = c.sealRequestState(1, "t", { request: { "🎲": "🎲" } });
  assert.equal(c.openRequestState(emoji, "t", { request: { "🎲": "🎲" } }), 1);
});

// One depth limit in both languages (a deeper JS token would never open in
// Rust), and deeply nested client arguments must not overflow the stack.
test("request: nesting past MAX_REQUEST_DEPTH (64) is refused; deep client arguments are reason request, never a stack overflow", () => {
  const c = at(T0);
  const t = c.sealRequestState(1, "t", { request: nested(64) });
  assert.equal(c.openRequestState(t, "t", { request: nested(64) }), 1);
  clearError(() => c.sealRequestState(1, "t", { request: nested(65) }), RangeError, /nested more than 64 levels deep/);
  clearError(() => c.sealRequestState(1, "t", { request: { a: nested(64) } }), RangeError, /^mcp-sealed-state: request\.a\[0\]\[0\].* is nested more than 64 levels deep/);
  refused(edge, () => c.openRequestState(t, "t", { request: nested(65) }), "request");
  // 100,000 levels (what `[`.repeat(1e5) parses to, were JSON.parse to allow it): refused at level 65.
  refused(edge, () => c.openRequestState(t, "t", { request: nested(100_000) }), "request");
  let deepObject = {};
  for (let i = 0; i < 100_000; i++) deepObject = { a: deepObject };
  refused(edge, () => c.openRequestState(t, "t", { request: deepObject }), "request");
});

test("request: only plain JSON values (no Map, Set, BigInt, function, symbol, undefined element, Date, class instance, toJSON)", () => {
  const c = at(T0);
  class Point {
    constructor() {
      this.x = 1;
    }
  }
  const bad = [
    [new Map([["a", 1]]), /request is a Map/],
    [{ s: new Set([1]) }, /request\.s is a Set/],
    [{ n: 1n }, /request\.n is a BigInt/],
    [{ f() {} }, /request\.f is a function/],
    [[Symbol("s")], /request\[0\] is a symbol/],
    [[1, undefined], /request\[1\] is undefined/],
    [[1, , 3], /request\[1\] is undefined/], // eslint-disable-line no-sparse-arrays
    [{ d: new Date(0) }, /request\.d is a Date/],
    [new Point(), /request is a Point/],
    [{ n: Object(1) }, /request\.n is a Number/],
    [{ toJSON: () => ({}) }, /request\.toJSON is a function/],
    [{ [Symbol("k")]: 1 }, /request has a symbol-keyed member/],
  ];
  const t = c.sealRequestState(1, "t", { request: {} });
  for (const [request, why] of bad) {
    clearError(() => c.sealRequestState(1, "t", { request }), TypeError, why, String(why));
    refused(edge, () => c.openRequestState(t, "t", { request }), "request", String(why));
  }
  // A Map is not a JSON value: read as {}, it would open a token sealed for {}.
  refused(edge, () => c.openRequestState(t, "t", { request: new Map() }), "request", "a Map is not {}");
  // An object member that is undefined is absent, as JSON.stringify leaves it out; -0 is 0.
  const u = c.sealRequestState(1, "t", { request: { a: 1, b: undefined, z: -0 } });
  assert.equal(c.openRequestState(u, "t", { request: { z: 0, a: 1 } }), 1);
  // Objects without a prototype are plain.
  const bare = Object.assign(Object.create(null), { a: 1 });
  assert.equal(c.openRequestState(c.sealRequestState(1, "t", { request: bare }), "t", { request: { a: 1 } }), 1);
});

// The request is bounded before it is copied into wasm, whose memory never shrinks.
test("request: maxRequestBytes (default 65536) bounds the canonical UTF-8 text; over it, RangeError sealing and reason request opening", () => {
  const c = at(T0);
  // {"s":"..."} is 8 bytes around the string; "é" is 2 bytes of UTF-8.
  const exactly = (bytes, ch = "x") => ({ s: ch.repeat((bytes - 8) / (ch === "é" ? 2 : 1)) });
  const t = c.sealRequestState(1, "t", { request: exactly(65536) });
  assert.equal(c.openRequestState(t, "t", { request: exactly(65536) }), 1);
  clearError(() => c.sealRequestState(1, "t", { request: exactly(65538, "é") }), RangeError, /^mcp-sealed-state: request is over maxRequestBytes \(65536 bytes of canonical JSON\)/);
  assert.equal(c.openRequestState(c.sealRequestState(1, "t", { request: exactly(65536, "é") }), "t", { request: exactly(65536, "é") }), 1);
  refused(edge, () => c.openRequestState(t, "t", { request: exactly(65537) }), "request");
  refused(edge, () => c.openRequestState(t, "t", { request: { s: "x".repeat(4 << 20) } }), "request");
  refused(edge, () => c.openRequestState(t, "t", { request: new Array(1 << 20).fill(0) }), "request");
  const small = at(T0, { maxRequestBytes: 10 });
  assert.equal(small.openRequestState(small.sealRequestState(1, "t", { request: [1234567] }), "t", { request: [1234567] }), 1); // 9 bytes
  clearError(() => small.sealRequestState(1, "t", { request: { abcdef: 1 } }), RangeError, /over maxRequestBytes \(10 bytes/); // 12 bytes
  clearError(() => at(T0, { maxRequestBytes: 0 }), RangeError, /maxRequestBytes must be a safe integer from 1/);
});
