// createRequestStateCodec, the drop-in for @modelcontextprotocol/server's:
// same options, same async shape, the SDK's tokens byte for byte, the SDK's
// reason codes on failure.
import * as edge from "mcp-sealed-state";
import vectors from "../vectors.js";
import { assert, test } from "../harness.js";
import { KEY, S0, T0, atClock, signed, vectorKey } from "../util.js";

const { createRequestStateCodec } = edge;
const ctxOf = (user) => ({ mcpReq: { method: "tools/call" }, http: { authInfo: { clientId: user } } });
const bind = (ctx) => ctx.http.authInfo.clientId;

/**
 * The drop-in rejects as the SDK does: a plain Error whose message is the
 * reason code (where the SDK's seam reads it), here also in `reason`.
 * js/test/drop-in.test.mjs checks these messages against the SDK itself.
 */
const rejectsWith = (promise, code, label) => assert.rejects(promise, (e) => e?.constructor === Error && e.message === code && e.reason === code, `${label ?? code}`);

test("drop-in: mint and verify return promises; the SDK's raw vectors come out byte for byte", async () => {
  const raw = vectors.vectors.filter((v) => v.kind === "raw");
  assert.ok(raw.length > 20);
  for (const v of raw) {
    const options = { key: vectorKey(v.key), ttlSeconds: v.ttlSeconds, ...(v.bind !== null && { bind: () => v.bind }) };
    const codec = createRequestStateCodec(options);
    const ctx = v.bind === null ? undefined : {};
    const minted = atClock(v.nowMs, () => {
      const p = codec.mint(JSON.parse(v.payloadJson), ctx);
      assert.ok(p instanceof Promise, "mint returns a promise");
      return p;
    });
    assert.equal(await minted, v.token, v.name);
    const verified = await atClock(v.nowMs, () => {
      const p = codec.verify(v.token, ctx);
      assert.ok(p instanceof Promise, "verify returns a promise");
      return p;
    });
    assert.equal(JSON.stringify(verified), v.payloadJson, v.name);
  }
});

test("drop-in: bind(ctx) binds to the principal; the SDK's reason codes on failure", async () => {
  const codec = createRequestStateCodec({ key: KEY, ttlSeconds: 5, bind });
  const unbound = createRequestStateCodec({ key: KEY, ttlSeconds: 5 });
  const token = await atClock(T0, () => codec.mint({ step: 1 }, ctxOf("alice")));
  assert.deepEqual(await atClock(T0, () => codec.verify(token, ctxOf("alice"))), { step: 1 });
  await atClock(T0, () => rejectsWith(codec.verify(token, ctxOf("bob")), "bind", "another principal"));
  await atClock(T0, () => rejectsWith(unbound.verify(token, {}), "bind", "a bound token at an unbound codec"));
  const plain = await atClock(T0, () => unbound.mint({ step: 1 }));
  await atClock(T0, () => rejectsWith(codec.verify(plain, ctxOf("alice")), "bind", "an unbound token at a bound codec"));
  assert.deepEqual(await atClock((S0 + 5) * 1000 + 999, () => unbound.verify(plain, {})), { step: 1 });
  await atClock((S0 + 6) * 1000, () => rejectsWith(unbound.verify(plain, {}), "expired"));
  const tampered = plain.slice(0, 10) + (plain[10] === "A" ? "B" : "A") + plain.slice(11);
  await atClock(T0, () => rejectsWith(unbound.verify(tampered, {}), "mac"));
  await atClock(T0, () => rejectsWith(unbound.verify("v2.e30.AAAA", {}), "malformed"));
  const foreign = await atClock(T0, () => createRequestStateCodec({ key: "x".repeat(32) }).mint(1));
  await atClock(T0, () => rejectsWith(unbound.verify(foreign, {}), "mac", "another key"));
  // Where the SDK's own order of checks gives another reason than the core's, the SDK's.
  await atClock(T0, () => rejectsWith(unbound.verify("v1.!!!!.AAAA", {}), "mac", "a body that is not base64url"));
  await atClock(T0, () => rejectsWith(unbound.verify("garbage", {}), "malformed"));
  await atClock(T0, async () => rejectsWith(unbound.verify(await signed('"hello"'), {}), "expired", "a genuine MAC around a body without exp"));
  const born = await atClock(T0, () => createRequestStateCodec({ key: KEY, ttlSeconds: -1 }).mint(1));
  await atClock(T0, () => rejectsWith(unbound.verify(born, {}), "expired", "born expired"));
  await atClock(T0, () => rejectsWith(unbound.verify(`${plain}=`, {}), "malformed", "a padded MAC, which the SDK tolerates (docs/format.md's exception)"));
});

test("drop-in: bind(ctx) values that are not strings are stringified the SDK's way", async () => {
  // "" + value, as the SDK concatenates: valueOf before toString.
  const odd = [
    [42, "42"],
    [null, "null"],
    [true, "true"],
    [{ valueOf: () => "from-valueOf", toString: () => "from-toString" }, "from-valueOf"],
    [["a", 1], "a,1"],
  ];
  for (const [value, asString] of odd) {
    const a = await atClock(T0, () => createRequestStateCodec({ key: KEY, bind: () => value }).mint(1, {}));
    const b = await atClock(T0, () => createRequestStateCodec({ key: KEY, bind: () => asString }).mint(1, {}));
    assert.equal(a, b, String(asString));
  }
});

test("drop-in: construction and call errors as the SDK's", async () => {
  assert.throws(() => createRequestStateCodec({ key: "short" }), RangeError);
  assert.throws(() => createRequestStateCodec({ key: "é".repeat(15) + "a" }), RangeError); // 31 UTF-8 bytes
  createRequestStateCodec({ key: "é".repeat(16) }); // 32 bytes
  for (const ttlSeconds of [NaN, Infinity, 1.5]) assert.throws(() => createRequestStateCodec({ key: KEY, ttlSeconds }), RangeError, String(ttlSeconds));
  const bound = createRequestStateCodec({ key: KEY, bind });
  await assert.rejects(bound.mint(1), (e) => e instanceof TypeError && /requires ctx/.test(e.message));
});
