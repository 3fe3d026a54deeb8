// The drop-in's size limit comes before any decoding: SECURITY.md promises
// that a token over maxTokenBytes is refused before it is hashed or decoded,
// so an oversize token costs no more than its length check. The reason stays the SDK-style "malformed" either way, so the test watches the
// work itself: the drop-in's only decoder is the global atob, and its shape
// step scans the token with lastIndexOf; neither may run for an oversize token.
import assert from "node:assert/strict";
import { test } from "node:test";
import { importPackage } from "./support.mjs";

const { createRequestStateCodec } = await importPackage();

const KEY = "drop-in-size-key: a string of at least thirty-two bytes";

/** How often atob (decodes) and String#lastIndexOf (scans) ran during `fn`, and what `fn` rejected with. */
async function workDuring(fn) {
  const { atob } = globalThis;
  const { lastIndexOf } = String.prototype;
  const seen = { decodes: 0, scans: 0 };
  globalThis.atob = (s) => {
    seen.decodes++;
    return atob(s);
  };
  String.prototype.lastIndexOf = function (...args) {
    seen.scans++;
    return lastIndexOf.apply(this, args);
  };
  try {
    await fn();
    assert.fail("expected verify to reject");
  } catch (e) {
    return { ...seen, message: e.message, reason: e.reason };
  } finally {
    globalThis.atob = atob;
    String.prototype.lastIndexOf = lastIndexOf;
  }
}

test("a token under the limit with a bad MAC: scanned and its MAC part decoded (the spies see the drop-in's work)", async () => {
  const codec = createRequestStateCodec({ key: KEY });
  const token = await codec.mint({ a: 1 });
  const seen = await workDuring(() => codec.verify(`${token.slice(0, -2)}AA`));
  assert.deepEqual({ message: seen.message, reason: seen.reason }, { message: "mac", reason: "mac" });
  assert.ok(seen.decodes > 0, "the drop-in decoded nothing: the spy sees nothing");
  assert.ok(seen.scans > 0, "the drop-in scanned nothing: the spy sees nothing");
});

test("over maxTokenBytes: refused as malformed with no decoding and no scan, whatever the MAC part holds", async () => {
  const small = createRequestStateCodec({ key: KEY, maxTokenBytes: 200 });
  const genuine = await createRequestStateCodec({ key: KEY }).mint({ pad: "y".repeat(200) });
  const body = genuine.split(".")[1];
  const oversize = [
    ["a genuine token (a valid 32-byte MAC)", small, genuine],
    ["a MAC part that is not base64 at all", small, `v1.${body}.${"!".repeat(43)}`],
    ["a MAC part atob would throw on (a length of 4n+1)", small, `v1.${body}.${"A".repeat(45)}`],
    ["not v1-shaped at all", small, "x".repeat(201)],
    ["a 4 MiB MAC part under the default limit (256 KiB)", createRequestStateCodec({ key: KEY }), `v1.${body}.${"A".repeat(4 << 20)}`],
  ];
  for (const [label, codec, token] of oversize) {
    const seen = await workDuring(() => codec.verify(token));
    assert.deepEqual(seen, { decodes: 0, scans: 0, message: "malformed", reason: "malformed" }, label);
  }
});

test("at exactly maxTokenBytes the token is read (the limit is inclusive); one character less is refused unread", async () => {
  const token = await createRequestStateCodec({ key: KEY }).mint({ n: 7 });
  const exact = createRequestStateCodec({ key: KEY, maxTokenBytes: token.length });
  assert.deepEqual(await exact.verify(token), { n: 7 });
  const below = createRequestStateCodec({ key: KEY, maxTokenBytes: token.length - 1 });
  assert.deepEqual(await workDuring(() => below.verify(token)), { decodes: 0, scans: 0, message: "malformed", reason: "malformed" });
});
