// Keys compared as HMAC-SHA256 sees them, through the
// packed package: a key is zero-padded to the 64-byte block and a longer key
// is hashed first, so `K` and `K + "\0"`, or a key over 64 bytes and its
// SHA-256, are one MAC key. The secret part derives its key from the bytes as
// given, so a token made by one passed the other's MAC and then failed to
// decrypt; a key list holding such a pair is refused as a duplicate.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { importPackage } from "./support.mjs";

const { StateCodec } = await importPackage();
const K = "keys-hmac-equivalence: at least thirty-two bytes";
const DUPLICATE = /key #1 is the same key as an earlier key to HMAC/;
const bytes = (s) => new TextEncoder().encode(s);
const sha256 = (b) => new Uint8Array(createHash("sha256").update(b).digest());

describe("a key list holds each HMAC key once", () => {
  test('[K, K + "\\0"] is refused', () => {
    assert.throws(
      () => new StateCodec({ key: [K, K + "\0"] }),
      (e) => e instanceof RangeError && DUPLICATE.test(e.message),
    );
    assert.throws(() => new StateCodec({ key: [K + "\0", K] }), DUPLICATE);
  });

  test("K and K zero-padded to the 64-byte block, as bytes", () => {
    const padded = new Uint8Array(64);
    padded.set(bytes(K));
    assert.throws(() => new StateCodec({ key: [bytes(K), padded] }), DUPLICATE);
  });

  test("a key over 64 bytes beside its SHA-256", () => {
    const long = bytes("L".repeat(65));
    assert.throws(() => new StateCodec({ key: [long, sha256(long)] }), DUPLICATE);
    assert.throws(() => new StateCodec({ key: [sha256(long), long] }), DUPLICATE);
  });

  test("keys HMAC tells apart stay two keys", () => {
    const block = bytes("B".repeat(64));
    const over = new Uint8Array(65);
    over.set(block);
    for (const key of [
      [K, "\0" + K],
      [block, over], // 64 bytes beside the same and a zero: the longer one is hashed
      [block, sha256(block)],
    ]) {
      const codec = new StateCodec({ key });
      assert.deepEqual(codec.open(codec.seal({ n: 1 })), { n: 1 });
    }
  });

  test("why: the MAC takes K + \\0 for K, the secret part does not", () => {
    const padded = new StateCodec({ key: K + "\0" });
    const plain = new StateCodec({ key: K });
    const token = padded.seal({ n: 1 }, { secret: { s: 2 } });
    assert.deepEqual(plain.open(token), { n: 1 });
    assert.throws(
      () => plain.openWithSecret(token),
      (e) => e.reason === "mac",
    );
  });
});
