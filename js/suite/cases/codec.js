// StateCodec: the three carriers (seal/open, sealRequestState/openRequestState,
// mint/verify), binding, purposes, construction.
import * as edge from "mcp-sealed-state";
import * as edgeSub from "mcp-sealed-state/edge";
import * as widget from "mcp-sealed-state/widget";
import { assert, test } from "../harness.js";
import { KEY, KEY2, PAYLOAD, S0, T0, TOKEN_SHAPE, clearError, envelope, refused } from "../util.js";

const { StateCodec, STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE } = edge;
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });

/** Every carrier still seals and opens: the codec was not left broken. */
export function stillWorks(codec) {
  const bind = { bind: "still-works" };
  assert.deepEqual(codec.open(codec.seal(PAYLOAD, bind), bind), PAYLOAD);
  assert.deepEqual(codec.openRequestState(codec.sealRequestState(PAYLOAD, "tool", bind), "tool", bind), PAYLOAD);
  assert.deepEqual(codec.verify(codec.mint(PAYLOAD)), PAYLOAD);
}

test("exports: the constants, one module under . and ./edge, the widget's constants agree", () => {
  assert.equal(STATE_META_KEY, "ng-mcp-ui/state");
  assert.equal(typeof SEALED_STATE_INVALID_MESSAGE, "string");
  assert.ok(SEALED_STATE_INVALID_MESSAGE.length > 0);
  assert.equal(edgeSub.StateCodec, StateCodec);
  assert.equal(edgeSub.SealedStateError, edge.SealedStateError);
  assert.equal(widget.SEALED_STATE_INVALID_MESSAGE, SEALED_STATE_INVALID_MESSAGE);
  assert.equal(widget.STATE_META_KEY, STATE_META_KEY);
  assert.equal(typeof edge.createRequestStateCodec, "function");
});

const carriers = (codec) => [
  { name: "seal/open", seal: (p, o) => codec.seal(p, o), open: (t, o) => codec.open(t, o), inner: (d) => ({ p: "v", d }) },
  {
    name: "sealRequestState/openRequestState",
    seal: (p, o) => codec.sealRequestState(p, "move", o),
    open: (t, o) => codec.openRequestState(t, "move", o),
    inner: (d) => ({ p: "r", d, o: "move" }),
  },
  { name: "mint/verify", seal: (p, o) => codec.mint(p, o), open: (t, o) => codec.verify(t, o), inner: (d) => d },
];

for (const { name } of carriers(null)) {
  for (const bind of [undefined, "user-42"]) {
    test(`carrier ${name}, ${bind ? "bound" : "unbound"}: round trip, envelope, binding fails closed`, () => {
      const c = carriers(at(T0)).find((x) => x.name === name);
      const opts = bind === undefined ? undefined : { bind };
      for (const payload of [PAYLOAD, null, 0, "text", [1, [2]], true, { "": "\u2028\ud83d\ude00" }]) {
        const token = c.seal(payload, opts);
        assert.match(token, TOKEN_SHAPE);
        assert.deepEqual(c.open(token, opts), payload);
        const env = envelope(token);
        assert.deepEqual(env.p, c.inner(payload));
        assert.equal(env.exp, S0 + 600);
        assert.deepEqual(Object.keys(env), bind ? ["p", "exp", "b"] : ["p", "exp"]); // docs/format.md's key order
        if (bind) assert.match(env.b, /^[A-Za-z0-9_-]{22}$/);
      }
      const token = c.seal(PAYLOAD, opts);
      if (bind) {
        refused(edge, () => c.open(token), "bind", "no bind");
        refused(edge, () => c.open(token, { bind: "user-43" }), "bind", "another principal");
        refused(edge, () => c.open(token, { bind: "" }), "bind", "empty bind");
      } else {
        refused(edge, () => c.open(token, { bind: "user-42" }), "bind", "a bind the token lacks");
      }
    });
  }
}

test("purposes never mix; a requestState token opens only for its tool", () => {
  const codec = at(T0);
  const view = codec.seal(PAYLOAD);
  const rs = codec.sealRequestState(PAYLOAD, "move");
  const raw = codec.mint(PAYLOAD);
  refused(edge, () => codec.openRequestState(view, "move"), "purpose");
  refused(edge, () => codec.open(rs), "purpose");
  refused(edge, () => codec.openRequestState(rs, "start"), "purpose");
  refused(edge, () => codec.openRequestState(rs, "Move"), "purpose");
  refused(edge, () => codec.open(raw), "purpose");
  refused(edge, () => codec.openRequestState(raw, "move"), "purpose");
  // verify() sees any payload raw, envelopes included, as the SDK's verify does.
  assert.deepEqual(codec.verify(view), { p: "v", d: PAYLOAD });
  assert.deepEqual(codec.verify(rs), { p: "r", d: PAYLOAD, o: "move" });
});

test("the same input at the same clock gives the same token; re-sealing later restarts the lifetime", () => {
  assert.equal(at(T0).seal(PAYLOAD, { bind: "u" }), at(T0).seal(PAYLOAD, { bind: "u" }));
  assert.equal(envelope(at(T0 + 5000).seal(PAYLOAD)).exp, S0 + 5 + 600);
});

test("keys: at least 32 UTF-8 bytes; a string key and its bytes are one key; other types refused", () => {
  clearError(() => new StateCodec({ key: "k".repeat(31) }), RangeError, /key #0 is 31 bytes; keys must be at least 32 bytes/);
  clearError(() => new StateCodec({ key: new Uint8Array(31) }), RangeError, /31 bytes/);
  clearError(() => new StateCodec({ key: "" }), RangeError, /0 bytes/);
  // What counts is UTF-8 bytes, not UTF-16 units: fewer than 32 units can be 32 bytes or more.
  for (const [key, units, bytes] of [
    ["é".repeat(15) + "a", 16, 31],
    ["é".repeat(16), 16, 32],
    ["😀".repeat(8), 16, 32],
    ["😀".repeat(7) + "abc", 17, 31],
    ["\ud800".repeat(11), 11, 33], // a lone surrogate encodes as U+FFFD, 3 bytes
  ]) {
    assert.equal(key.length, units);
    assert.equal(new TextEncoder().encode(key).length, bytes);
    if (bytes < 32) clearError(() => new StateCodec({ key }), RangeError, new RegExp(`is ${bytes} bytes`), `${units} units`);
    else stillWorks(new StateCodec({ key }));
  }
  const exact = "é".repeat(16); // 16 units, 32 bytes
  const t = new StateCodec({ key: exact, now: () => T0 }).seal(1);
  assert.equal(new StateCodec({ key: new TextEncoder().encode(exact), now: () => T0 }).open(t), 1);
  for (const key of [42, {}, true]) clearError(() => new StateCodec({ key }), TypeError, /key/);
  for (const key of [42, {}, [KEY, 7], true, null]) clearError(() => new StateCodec({ key: [key] }), TypeError, /must be a string or a Uint8Array/);
  // Typed arrays other than Uint8Array are refused, not reinterpreted: their elements are not bytes.
  for (const Kind of [Uint16Array, Int8Array, Uint8ClampedArray, Int32Array, Float32Array, Float64Array, BigUint64Array]) {
    clearError(() => new StateCodec({ key: new Kind(64) }), TypeError, new RegExp(`must be a string or a Uint8Array, not a ${Kind.name} \\(its elements are not bytes`));
    clearError(() => new StateCodec({ key: [KEY, new Kind(64)] }), TypeError, /key #1 must be/);
  }
  // An ArrayBuffer and a DataView are read as their bytes.
  const buf = new ArrayBuffer(32);
  new Uint8Array(buf).set(KEY2);
  const viaBuffer = new StateCodec({ key: buf, now: () => T0 });
  assert.equal(viaBuffer.seal(1), new StateCodec({ key: KEY2, now: () => T0 }).seal(1));
  assert.equal(new StateCodec({ key: new DataView(buf), now: () => T0 }).seal(1), viaBuffer.seal(1));
});

test("the key bytes are copied at construction", () => {
  const key = new Uint8Array(KEY2);
  const c = new StateCodec({ key, now: () => T0 });
  const before = c.seal(1);
  key.fill(0);
  assert.equal(c.seal(1), before);
});

test("options: ttlSeconds, leewaySeconds, maxTokenBytes are checked at construction", () => {
  for (const ttlSeconds of [NaN, Infinity, -Infinity])
    clearError(() => new StateCodec({ key: KEY, ttlSeconds }), RangeError, /ttlSeconds must be a safe integer \(positive\) \(got -?(NaN|Infinity)\)$/);
  for (const [ttlSeconds, type] of [
    ["600", "a string"],
    [{}, "an object"],
  ])
    clearError(() => new StateCodec({ key: KEY, ttlSeconds }), TypeError, new RegExp(`ttlSeconds must be a safe integer \\(positive\\), not ${type}`));
  clearError(() => new StateCodec({ key: KEY, ttlSeconds: 1.5 }), RangeError, /ttlSeconds must be a safe integer \(positive\) \(got 1.5\)$/);
  clearError(() => new StateCodec({ key: KEY, leewaySeconds: -1 }), RangeError, /leewaySeconds must be a safe integer >= 0 \(got -1\)$/);
  clearError(() => new StateCodec({ key: KEY, leewaySeconds: NaN }), RangeError, /leewaySeconds must be a safe integer >= 0 \(got NaN\)/);
  clearError(() => new StateCodec({ key: KEY, maxTokenBytes: 0 }), RangeError, /maxTokenBytes/);
  assert.equal(envelope(new StateCodec({ key: KEY, ttlSeconds: null, now: () => T0 }).seal(1)).exp, S0 + 600);
});

// One development key per isolate, drawn at first use: a codec built per
// request must open the last request's tokens.
test("no key: production refuses it; otherwise the codecs of one isolate share one development key", () => {
  for (const key of [undefined, null]) clearError(() => new StateCodec({ key, production: true }), RangeError, /no key configured, and production mode refuses the ephemeral development key/);
  // An empty list is a mistake in either mode, never the ephemeral key.
  for (const production of [true, false]) clearError(() => new StateCodec({ key: [], production }), RangeError, /the key list is empty/);
  // production is explicit here: whether NODE_ENV is readable differs by runtime.
  const a = new StateCodec({ production: false });
  const b = new StateCodec({ production: false, ttlSeconds: 30 });
  const token = a.seal({ n: 1 });
  assert.deepEqual(a.open(token), { n: 1 });
  assert.deepEqual(b.open(token), { n: 1 });
  assert.deepEqual(a.openRequestState(b.sealRequestState(2, "t"), "t"), 2);
  refused(edge, () => at(T0).open(token), "mac", "a keyed codec");
  b.free();
  assert.deepEqual(a.open(token), { n: 1 }, "free() of one leaves the others working");
  stillWorks(a);
});

test("bad input: non-string tokens, tools and binds are clear errors, never traps", () => {
  const codec = at(T0);
  const good = codec.seal(1);
  for (const token of [42, null, undefined, {}, [], { toString: () => good }, new String(good), Symbol("t"), 1n]) {
    refused(edge, () => codec.open(token), "malformed", String(token));
    refused(edge, () => codec.openRequestState(token, "move"), "malformed", String(token));
    refused(edge, () => codec.verify(token), "malformed", String(token));
    stillWorks(codec);
  }
  for (const tool of [undefined, "", null, 7, {}]) {
    clearError(() => codec.sealRequestState(1, tool), TypeError, /needs the tool name/);
    clearError(() => codec.openRequestState(codec.sealRequestState(1, "t"), tool), TypeError, /needs the tool name/);
  }
  for (const bind of [5, null, {}, ["a"]]) {
    clearError(() => codec.seal(1, { bind }), TypeError, /bind must be a string/);
    clearError(() => codec.open(good, { bind }), TypeError, /bind must be a string/);
  }
  const cyclic = {};
  cyclic.self = cyclic;
  for (const payload of [undefined, () => 1, Symbol("s"), cyclic, 1n]) clearError(() => codec.seal(payload), TypeError, /JSON/);
  stillWorks(codec);
});

test("size limit: a token over maxTokenBytes is refused before hashing, and sealing one is refused", () => {
  const small = at(T0, { maxTokenBytes: 200 });
  clearError(() => small.seal("x".repeat(300)), RangeError, /maxTokenBytes/);
  refused(edge, () => small.open(`v1.${"A".repeat(300)}.${"A".repeat(43)}`), "malformed");
  const huge = `v1.${"A".repeat(4 * 1024 * 1024)}.${"A".repeat(43)}`; // over the 256 KiB default
  refused(edge, () => at(T0).open(huge), "malformed");
  assert.equal(small.open(small.seal("fits")), "fits");
  stillWorks(at(T0));
});
