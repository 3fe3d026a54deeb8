// The secret part (docs/format.md, "s") and request binding (docs/format.md, "q"
// binding (MRTR)"): what only a key holder reads, what a key holder who
// tampers is refused, and what an MRTR token is bound to.
import * as edge from "mcp-sealed-state";
import * as widget from "mcp-sealed-state/widget";
import { assert, test } from "../harness.js";
import { KEY, KEY2, PAYLOAD, T0, b64url, clearError, envelope, fromB64url, refused, signed } from "../util.js";

const { StateCodec } = edge;
const codec = (key = KEY) => new StateCodec({ key, now: () => T0 });
const SECRET = { cursor: "upstream-7f3a", price: 129.5, ids: [1, 2, 3], note: "naïve 😀" };

/** The body of `token` with its purpose envelope changed by `edit`, re-MACed with KEY (what a key holder could do). */
async function resealed(token, edit) {
  const env = envelope(token);
  edit(env.p);
  return signed(JSON.stringify(env));
}

test("secret: seal with a secret, openWithSecret gives both, open gives the payload alone", () => {
  const c = codec();
  const t = c.seal(PAYLOAD, { secret: SECRET, bind: "u1" });
  assert.deepEqual(c.openWithSecret(t, { bind: "u1" }), { payload: PAYLOAD, secret: SECRET });
  assert.deepEqual(c.open(t, { bind: "u1" }), PAYLOAD);
  assert.deepEqual(c.openWithSecret(c.seal(PAYLOAD)), { payload: PAYLOAD, secret: undefined });
  for (const secret of [null, 0, "", [], false, "x".repeat(1000)]) assert.deepEqual(c.openWithSecret(c.seal(1, { secret })).secret, secret, JSON.stringify(secret));
  const r = c.sealRequestState(PAYLOAD, "move", { secret: SECRET });
  assert.deepEqual(c.openRequestStateWithSecret(r, "move"), { payload: PAYLOAD, secret: SECRET });
  assert.deepEqual(c.openRequestState(r, "move"), PAYLOAD);
});

test("secret: the widget sees that there is one (hasSecret), never what; the ciphertext is not the JSON", () => {
  const c = codec();
  const t = c.seal(PAYLOAD, { secret: SECRET });
  for (const read of [widget.readTokenUnverified]) {
    const view = read(t);
    assert.equal(view.hasSecret, true);
    assert.deepEqual(view.payload, PAYLOAD);
    assert.equal(read(c.seal(PAYLOAD)).hasSecret, false);
  }
  const s = envelope(t).p.s;
  assert.equal(typeof s, "string");
  const bytes = fromB64url(s);
  // nonce (24) + ciphertext (the JSON's length) + tag (16)
  assert.equal(bytes.length, 24 + new TextEncoder().encode(JSON.stringify(SECRET)).length + 16);
  assert.ok(!atob(s.replace(/-/g, "+").replace(/_/g, "/")).includes("upstream"), "the secret is not in the clear");
  // A fresh nonce per seal: two seals of the same secret differ.
  assert.notEqual(envelope(c.seal(PAYLOAD, { secret: SECRET })).p.s, s);
});

test("secret: rotation, sealed under the old key, opened under [new, old] with the secret", () => {
  const old = c2(KEY);
  const t = old.seal(PAYLOAD, { secret: SECRET, bind: "b" });
  assert.deepEqual(c2([KEY2, KEY]).openWithSecret(t, { bind: "b" }), { payload: PAYLOAD, secret: SECRET });
  refused(edge, () => c2(KEY2).openWithSecret(t, { bind: "b" }), "mac");
  function c2(key) {
    return new StateCodec({ key, now: () => T0 });
  }
});

test("secret: every single-byte change of nonce, ciphertext or tag, re-MACed by a key holder, is refused (mac)", async () => {
  const c = codec();
  const t = c.seal(PAYLOAD, { secret: { k: 1 } });
  const bytes = fromB64url(envelope(t).p.s);
  for (let i = 0; i < bytes.length; i++) {
    const changed = bytes.slice();
    changed[i] ^= 0x01 << (i % 8);
    const forged = await resealed(t, (p) => (p.s = b64url(changed)));
    assert.deepEqual(c.open(forged), PAYLOAD, "open leaves the secret sealed");
    refused(edge, () => c.openWithSecret(forged), "mac", `byte ${i}`);
  }
});

test("secret: moved into another purpose or tool, it does not decrypt (the AAD binds purpose and tool)", async () => {
  const c = codec();
  const view = c.seal(1, { secret: SECRET });
  const moveRs = c.sealRequestState(1, "move", { secret: SECRET });
  const s = envelope(view).p.s;
  const intoRs = await resealed(c.sealRequestState(1, "move"), (p) => (p.s = s));
  refused(edge, () => c.openRequestStateWithSecret(intoRs, "move"), "mac", "view secret in a requestState token");
  const otherTool = await resealed(c.sealRequestState(1, "undo"), (p) => (p.s = envelope(moveRs).p.s));
  refused(edge, () => c.openRequestStateWithSecret(otherTool, "undo"), "mac", "another tool's secret");
  const intoView = await resealed(c.seal(1), (p) => (p.s = envelope(moveRs).p.s));
  refused(edge, () => c.openWithSecret(intoView), "mac", "a requestState secret in a view token");
});

test("secret: an s that is not canonical base64url, or shorter than nonce + tag, is refused, never a trap", async () => {
  const c = codec();
  const t = c.seal(1, { secret: 2 });
  const s = envelope(t).p.s;
  for (const [bad, reasons] of [
    [s + "=", ["malformed"]],
    [s.slice(0, -1) + "+", ["malformed"]],
    ["", ["malformed", "mac"]],
    [b64url(new Uint8Array(39)), ["malformed", "mac"]],
    [7, ["malformed"]],
  ]) {
    const forged = await resealed(t, (p) => (p.s = bad));
    const e = assert.throws(() => c.openWithSecret(forged), undefined, String(bad));
    assert.ok(e instanceof edge.SealedStateError && reasons.includes(e.reason), `${JSON.stringify(bad)}: ${e?.reason ?? e}`);
  }
});

test("secret: not JSON-serializable is a TypeError; over the size limit is refused before sealing; nothing of it in errors", () => {
  const c = codec();
  const cyclic = { hiddenName: "hidden-value" };
  cyclic.self = cyclic;
  for (const secret of [() => 1, Symbol("s"), 10n, cyclic]) {
    const e = clearError(() => c.seal(1, { secret }), TypeError, /secret is not JSON-serializable/);
    assert.ok(!String(e.message).includes("hidden"), e.message);
    assert.equal(e.cause, undefined, "no engine error (which names the secret's keys) as the cause");
  }
  const small = new StateCodec({ key: KEY, now: () => T0, maxTokenBytes: 600 });
  const e = clearError(() => small.seal(1, { secret: "top-secret-" + "x".repeat(500) }), RangeError, /maxTokenBytes/);
  assert.ok(!e.message.includes("top-secret"), e.message);
  assert.deepEqual(small.openWithSecret(small.seal(1, { secret: "ok" })), { payload: 1, secret: "ok" }, "the codec still works");
});

test("request binding: key order does not matter; a changed value, a missing or an extra request is refused (request)", () => {
  const c = codec();
  const args = { row: 1, col: 2, opts: { a: [1, 2.5e-7, "é"], b: null } };
  const t = c.sealRequestState(PAYLOAD, "move", { request: args, bind: "u" });
  const reordered = { opts: { b: null, a: [1, 2.5e-7, "é"] }, col: 2, row: 1 };
  assert.deepEqual(c.openRequestState(t, "move", { request: reordered, bind: "u" }), PAYLOAD);
  refused(edge, () => c.openRequestState(t, "move", { request: { ...args, col: 3 }, bind: "u" }), "request", "a changed value");
  refused(edge, () => c.openRequestState(t, "move", { bind: "u" }), "request", "no request");
  refused(edge, () => c.openRequestState(t, "move", { request: { ...args, extra: 0 }, bind: "u" }), "request", "an extra member");
  refused(edge, () => c.openRequestState(c.sealRequestState(PAYLOAD, "move"), "move", { request: args }), "request", "sealed without");
  // The purpose check still comes first, and the request is checked with the key whose MAC matched.
  refused(edge, () => c.openRequestState(t, "undo", { request: args, bind: "u" }), "purpose");
  const rotated = new StateCodec({ key: [KEY2, KEY], now: () => T0 });
  assert.deepEqual(rotated.openRequestState(t, "move", { request: reordered, bind: "u" }), PAYLOAD);
  // A request on a view token would go unchecked: refused.
  clearError(() => c.seal(1, { request: args }), TypeError, /requestState tokens only/);
  clearError(() => c.sealRequestState(1, "move", { request: () => 1 }), TypeError, /request is a function, not a JSON value/);
});

test("keys: an empty key list is a RangeError, never the ephemeral key", () => {
  clearError(() => new StateCodec({ key: [] }), RangeError, /the key list is empty/);
  clearError(() => new StateCodec({ key: [KEY, KEY] }), RangeError, /same key as an earlier key/);
});
