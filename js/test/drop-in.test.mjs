// Our createRequestStateCodec (the packed package, js/out/consumer) beside the
// REAL one of @modelcontextprotocol/server@2.4.0, as code written against the
// SDK uses it (docs/drop-in.md, "Where it differs from the SDK", failures
// included"):
//   1. every token the SDK refuses, we refuse with the same message;
//   2. one row per odd input (keys, payloads, options, verify arguments): what
//      the SDK does, what we do, and, where they differ, why;
//   3. the seam: an MRTR round trip through McpServer's requestState.verify
//      with the real client, once per codec: the same results and errors.
// The behaviour suite (js/suite/cases/dropin.js) runs the drop-in in every
// other runtime (workerd, Chromium, Deno, Bun) and pins the same reason codes.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as sdk from "@modelcontextprotocol/server";
import { atClock as at } from "../lib/clock.mjs";
import { importPackage } from "./support.mjs";

const ours = await importPackage();

const KEY = "drop-in-key: a string of at least thirty-two bytes";
const OTHER_KEY = "another key, also at least thirty-two bytes long";
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250);
const S0 = Math.floor(T0 / 1000);
const CODECS = [
  ["SDK", sdk.createRequestStateCodec],
  ["ours", ours.createRequestStateCodec],
];

/** What a call did: its value, or the error's class and message (plus `reason`, if any). */
async function outcome(fn) {
  try {
    return { value: await fn() };
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `a wasm trap: ${e}`);
    return { error: e?.constructor?.name, message: e?.message, ...(e?.reason !== undefined && { reason: e.reason }) };
  }
}

/** The SDK's outcome and ours, for the same options and the same call. */
async function side(options, call, clock = T0) {
  const results = [];
  for (const [, make] of CODECS) results.push(await at(clock, async () => call(make(options))));
  return results;
}
async function sideOutcomes(options, call, clock = T0) {
  const results = [];
  for (const [, make] of CODECS) results.push(await at(clock, () => outcome(async () => call(make(options)))));
  return results;
}

/** Ours must fail as the SDK fails: same class, same message; our reason code is the message. */
function assertSameFailure(theirs, mine) {
  const { reason, ...rest } = mine;
  assert.deepEqual(rest, theirs);
  if (reason !== undefined) assert.equal(reason, mine.message);
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
/** A token around any body, with a genuine MAC under `key`: what only a key holder can make. */
function signed(body, key = KEY) {
  const b = b64url(typeof body === "string" ? Buffer.from(body, "utf8") : body);
  return `v1.${b}.${b64url(createHmac("sha256", key).update(`v1.${b}`).digest())}`;
}
const envelopeOf = (token) => JSON.parse(Buffer.from(token.split(".")[1], "base64url"));
const bindUser = (ctx) => ctx.user;

// ---------------------------------------------------------------------------

describe("1. every token the SDK refuses, we refuse with the SDK's message", async () => {
  const sdkUnbound = sdk.createRequestStateCodec({ key: KEY });
  const sdkBound = sdk.createRequestStateCodec({ key: KEY, bind: bindUser });
  const alice = { user: "alice" };
  const good = await at(T0, () => sdkUnbound.mint({ board: [0, 1, 2], turn: 2 }));
  const bound = await at(T0, () => sdkBound.mint({ board: [3] }, alice));
  const foreign = await at(T0, () => sdk.createRequestStateCodec({ key: OTHER_KEY }).mint({ board: [0, 1, 2], turn: 2 }));
  const dot = good.lastIndexOf(".");
  const body = good.slice(3, dot);
  const mac = good.slice(dot + 1);
  const swap = (s, i) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
  const future = (S0 + 601) * 1000;

  test("the tokens under test are the same from both codecs", async () => {
    for (const [options, ctx, token] of [
      [{ key: KEY }, undefined, good],
      [{ key: KEY, bind: bindUser }, alice, bound],
    ]) {
      const [a, b] = await side(options, (c) => c.mint(envelopeOf(token).p, ctx));
      assert.equal(a, token);
      assert.equal(b, token);
    }
  });

  // [case, token, bound codec?, ctx, clock, the SDK's message ("ok": it opens)]
  const rows = [
    ["untouched", good, false, undefined, T0, "ok"],
    ["untouched, last second of its life", good, false, undefined, (S0 + 600) * 1000 + 999, "ok"],
    ["tampered body: first character", `v1.${swap(body, 0)}.${mac}`, false, undefined, T0, "mac"],
    ["tampered body: a middle character", `v1.${swap(body, 20)}.${mac}`, false, undefined, T0, "mac"],
    ["tampered body: last character", `v1.${swap(body, body.length - 1)}.${mac}`, false, undefined, T0, "mac"],
    ["tampered body: a character outside base64url", `v1.${body.slice(0, 5)}!${body.slice(6)}.${mac}`, false, undefined, T0, "mac"],
    ["tampered body: padding appended", `v1.${body}==.${mac}`, false, undefined, T0, "mac"],
    ["tampered body: a space inside", `v1.${body.slice(0, 8)} ${body.slice(8)}.${mac}`, false, undefined, T0, "mac"],
    ["tampered body: truncated", `v1.${body.slice(0, -1)}.${mac}`, false, undefined, T0, "mac"],
    ["body removed", `v1..${mac}`, false, undefined, T0, "malformed"],
    ["tampered MAC: first character", `v1.${body}.${swap(mac, 0)}`, false, undefined, T0, "mac"],
    ["tampered MAC: last three characters", `v1.${body}.${mac.slice(0, -3)}${mac.endsWith("AAA") ? "BBB" : "AAA"}`, false, undefined, T0, "mac"],
    ["tampered MAC: one character short", good.slice(0, -1), false, undefined, T0, "mac"],
    ["tampered MAC: one character more", `${good}A`, false, undefined, T0, "mac"],
    ["tampered MAC: two characters more (impossible length)", `${good}AA`, false, undefined, T0, "malformed"],
    ["tampered MAC: a character outside base64", `${good.slice(0, -1)}!`, false, undefined, T0, "malformed"],
    ["MAC removed", `v1.${body}.`, false, undefined, T0, "mac"],
    ["another key", foreign, false, undefined, T0, "mac"],
    ["garbage: empty string", "", false, undefined, T0, "malformed"],
    ["garbage: no dots", "garbage", false, undefined, T0, "malformed"],
    ["garbage: the prefix alone", "v1.", false, undefined, T0, "malformed"],
    ["garbage: two parts", "v1.abc", false, undefined, T0, "malformed"],
    ["garbage: v1-shaped, junk MAC", "v1.e30.e30", false, undefined, T0, "mac"],
    ["garbage: v1-shaped, one-character MAC", "v1.a.b.c", false, undefined, T0, "malformed"],
    ["wrong number of parts: a fourth part", `${good}.extra`, false, undefined, T0, "malformed"],
    ["wrong number of parts: a fourth, base64-shaped", `${good}.AAAA`, false, undefined, T0, "mac"],
    ["wrong number of parts: a part in the middle", `v1.${body}.xx.${mac}`, false, undefined, T0, "mac"],
    ["bad JSON (genuine MAC)", signed("{not json"), false, undefined, T0, "malformed"],
    ["bad JSON: truncated (genuine MAC)", signed('{"p":1,"exp":'), false, undefined, T0, "malformed"],
    ["bad UTF-8 (genuine MAC)", signed(new Uint8Array([0x7b, 0xff, 0x7d])), false, undefined, T0, "malformed"],
    ["non-object envelope: a string (genuine MAC)", signed('"hello"'), false, undefined, T0, "expired"],
    ["non-object envelope: a number (genuine MAC)", signed("42"), false, undefined, T0, "expired"],
    ["non-object envelope: an array (genuine MAC)", signed("[]"), false, undefined, T0, "expired"],
    ["non-object envelope: true (genuine MAC)", signed("true"), false, undefined, T0, "expired"],
    ["envelope without exp (genuine MAC)", signed('{"p":1}'), false, undefined, T0, "expired"],
    ["envelope with a string exp (genuine MAC)", signed(`{"p":1,"exp":"${S0 + 600}"}`), false, undefined, T0, "expired"],
    ["envelope with an exponent exp in the past (genuine MAC)", signed('{"p":1,"exp":1e3}'), false, undefined, T0, "expired"],
    ["expired", good, false, undefined, future, "expired"],
    ["expired, bound, echoed by another principal", bound, true, { user: "bob" }, future, "expired"],
    ["expired, MAC spelled with padding", `${good}=`, false, undefined, future, "expired"],
    ["bound, its own principal", bound, true, alice, T0, "ok"],
    ["bound to another principal", bound, true, { user: "bob" }, T0, "bind"],
    ["bound, tampered, another principal", `v1.${swap(bound.slice(3), 4)}`, true, { user: "bob" }, T0, "mac"],
    ["a bound token in a codec without bind", bound, false, undefined, T0, "bind"],
    ["an unbound token in a codec with bind", good, true, alice, T0, "bind"],
    ["version prefix changed: v2", `v2${good.slice(2)}`, false, undefined, T0, "malformed"],
    ["version prefix changed: V1", `V1${good.slice(2)}`, false, undefined, T0, "malformed"],
    ["version prefix changed: v10", `v10${good.slice(2)}`, false, undefined, T0, "malformed"],
    ["version prefix changed: a leading space", ` ${good}`, false, undefined, T0, "malformed"],
  ];

  for (const [name, token, isBound, ctx, clock, expected] of rows) {
    test(`${name}: ${expected === "ok" ? "opens" : `"${expected}"`}`, async () => {
      const options = { key: KEY, ...(isBound && { bind: bindUser }) };
      const [theirs, mine] = await sideOutcomes(options, (c) => c.verify(token, ctx), clock);
      if (expected === "ok") {
        assert.deepEqual(theirs, { value: envelopeOf(token).p });
        assert.deepEqual(mine, theirs);
        return;
      }
      assert.deepEqual(theirs, { error: "Error", message: expected }, "the SDK's own behaviour");
      assertSameFailure(theirs, mine);
    });
  }

  test("a JSON null envelope (genuine MAC): the SDK's TypeError, as it throws it", async () => {
    const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(signed("null")));
    assert.equal(theirs.error, "TypeError");
    assert.deepEqual(mine, theirs);
  });

  test("StateCodec and SealedStateError keep the one stable message", () => {
    const c = new ours.StateCodec({ key: KEY, now: () => T0 });
    for (const [token, reason] of [
      [`v1.${swap(body, 0)}.${mac}`, "mac"],
      ["garbage", "malformed"],
      [bound, "bind"],
    ]) {
      assert.throws(
        () => c.verify(token),
        (e) => e instanceof ours.SealedStateError && e.message === ours.SEALED_STATE_INVALID_MESSAGE && e.reason === reason,
      );
    }
    assert.throws(() => new ours.StateCodec({ key: KEY, now: () => future }).verify(good), { message: ours.SEALED_STATE_INVALID_MESSAGE, reason: "expired" });
  });
});

// ---------------------------------------------------------------------------

/** Tokens of both codecs for the same options, payload and ctx, at T0. */
const mints = (options, payload, ctx) => side(options, (c) => c.mint(payload, ctx));
/** Each codec verifies the other's token: [SDK verifies ours, we verify the SDK's]. */
async function crossVerify(options, payload, ctx) {
  const [theirs, mine] = await mints(options, payload, ctx);
  const [sdkCodec, ourCodec] = CODECS.map(([, make]) => make(options));
  return at(T0, async () => [await outcome(() => sdkCodec.verify(mine, ctx)), await outcome(() => ourCodec.verify(theirs, ctx))]);
}
/** The same token from both codecs, and each opens the other's to `expected`. */
async function assertSameTokens(options, payload, expected, ctx) {
  const [a, b] = await mints(options, payload, ctx);
  assert.equal(b, a);
  const [x, y] = await crossVerify(options, payload, ctx);
  assert.deepEqual(x, { value: expected });
  assert.deepEqual(y, { value: expected });
}
async function assertSameConstructionError(options) {
  const results = CODECS.map(([, make]) => {
    try {
      make(options);
      return { value: "constructed" };
    } catch (e) {
      return { error: e.constructor.name, message: e.message };
    }
  });
  assert.notDeepEqual(results[0], { value: "constructed" }, "the SDK refuses it");
  assert.deepEqual(results[1], results[0]);
}

const PATTERN_32 = Array.from({ length: 40 }, (_, i) => (i * 37 + 300) % 70000);

describe("2. inputs as the SDK reads them: one row per input (SDK | ours | why they differ)", () => {
  const rows = [
    // ---- keys -------------------------------------------------------------
    {
      input: "key: a string of 16 UTF-16 units, 32 UTF-8 bytes",
      sdk: "UTF-8 bytes; accepted",
      ours: "the same; same tokens",
      check: () => assertSameTokens({ key: "é".repeat(16) }, 1, 1),
    },
    {
      input: "key: a string of 31 UTF-8 bytes",
      sdk: "RangeError at construction",
      ours: "the same error",
      check: () => assertSameConstructionError({ key: "é".repeat(15) + "a" }),
    },
    {
      input: "key: a Uint8Array changed after construction",
      sdk: "copied at construction: its tokens do not change",
      ours: "the same",
      check: async () => {
        const key = new Uint8Array(40).fill(9);
        const codecs = CODECS.map(([, make]) => make({ key }));
        const before = await at(T0, () => Promise.all(codecs.map((c) => c.mint({ n: 1 }))));
        key.fill(0);
        const after = await at(T0, () => Promise.all(codecs.map((c) => c.mint({ n: 1 }))));
        assert.deepEqual(after, before);
        assert.equal(before[1], before[0]);
        assert.deepEqual(await at(T0, () => codecs[1].verify(before[0])), { n: 1 });
      },
    },
    {
      input: "key: a Buffer",
      sdk: "its bytes",
      ours: "the same; same tokens",
      check: () => assertSameTokens({ key: Buffer.from(KEY) }, "b", "b"),
    },
    ...[Uint16Array, Int8Array, Int32Array, Float32Array, Float64Array, Uint8ClampedArray].map((Kind) => ({
      input: `key: a ${Kind.name} of 40 elements`,
      sdk: "Uint8Array.from: element by element, each reduced to a byte (modulo 256, fractions dropped)",
      ours: "the same (the drop-in reads the key with the SDK's expression); same tokens. StateCodec refuses it with a TypeError",
      why: "StateCodec keeps its own rule: a typed array other than Uint8Array is not bytes",
      check: async () => {
        const key = Kind.from(PATTERN_32.map((n) => (Kind === Int8Array ? (n % 256) - 128 : Kind.name.startsWith("Float") ? n + 0.75 : n)));
        await assertSameTokens({ key }, [1], [1]);
        const asBytes = Uint8Array.from(key);
        await assertSameTokens({ key: asBytes }, [1], [1]);
        const [viaTyped] = await mints({ key }, [1]);
        const [viaBytes] = await mints({ key: asBytes }, [1]);
        assert.equal(viaTyped, viaBytes);
        assert.throws(
          () => new ours.StateCodec({ key }),
          (e) => e instanceof TypeError && e.message.includes(`not a ${Kind.name}`),
        );
      },
    })),
    {
      input: "key: a BigInt64Array",
      sdk: "TypeError (Uint8Array.from cannot convert a BigInt)",
      ours: "the same error",
      check: () => assertSameConstructionError({ key: new BigInt64Array(40) }),
    },
    {
      input: "key: a plain array of numbers (out of range, negative, fractional, numeric strings, null)",
      sdk: "Uint8Array.from: each element to a byte (256 -> 0, -1 -> 255, 1.9 -> 1, '7' -> 7, null -> 0)",
      ours: "the same; same tokens",
      check: async () => {
        const key = [256, -1, 1.9, "7", null, ...PATTERN_32];
        await assertSameTokens({ key }, { k: "array" }, { k: "array" });
        await assertSameTokens({ key: Uint8Array.from(key) }, { k: "array" }, { k: "array" });
        assert.deepEqual([...Uint8Array.from(key).slice(0, 5)], [0, 255, 1, 7, 0]);
      },
    },
    {
      input: "key: an array of 40 strings (a key-rotation list by mistake)",
      sdk: "Uint8Array.from: each string to a number, non-numeric ones to 0: a key of zeros, accepted",
      ours: "read the same way, then refused: a RangeError, the key is all zero bytes",
      why: "docs/format.md#keys: a key of zero bytes only is no secret (HMAC keys it as the empty key)",
      check: () => {
        const options = { key: Array.from({ length: 40 }, () => KEY) };
        assert.doesNotThrow(() => sdk.createRequestStateCodec(options));
        assert.throws(
          () => ours.createRequestStateCodec(options),
          (e) => e instanceof RangeError && /key #0 is all zero bytes/.test(e.message),
        );
      },
    },
    {
      input: "key: an array of 2 strings",
      sdk: "RangeError: 2 bytes",
      ours: "the same error",
      check: () => assertSameConstructionError({ key: [KEY, OTHER_KEY] }),
    },
    {
      input: "key: a Set of 40 numbers (an iterable)",
      sdk: "Uint8Array.from iterates it",
      ours: "the same; same tokens",
      check: () => assertSameTokens({ key: new Set(PATTERN_32) }, 2, 2),
    },
    {
      input: "key: an ArrayBuffer of 64 bytes",
      sdk: "read as empty (Uint8Array.from finds no length): RangeError (got 0)",
      ours: "the same error",
      check: () => assertSameConstructionError({ key: new ArrayBuffer(64) }),
    },
    {
      input: "key: a DataView of 64 bytes",
      sdk: "read as empty: RangeError (got 0)",
      ours: "the same error",
      check: () => assertSameConstructionError({ key: new DataView(new ArrayBuffer(64)) }),
    },
    {
      input: "key: a number, undefined, null",
      sdk: "RangeError (got 0) for a number; TypeError for undefined and null",
      ours: "the same errors",
      check: async () => {
        for (const key of [42, undefined, null]) await assertSameConstructionError({ key });
      },
    },
    {
      input: "options: none",
      sdk: "TypeError (reading key of undefined)",
      ours: "the same error",
      check: () => assertSameConstructionError(undefined),
    },
    // ---- payloads -----------------------------------------------------------
    {
      input: "payload: undefined",
      sdk: 'mints an envelope without "p" ({"exp":N}); verify resolves undefined',
      ours: "the same; same tokens, bound or not",
      check: async () => {
        await assertSameTokens({ key: KEY }, undefined, undefined);
        await assertSameTokens({ key: KEY, bind: bindUser }, undefined, undefined, { user: "alice" });
        const [theirs] = await mints({ key: KEY }, undefined);
        assert.deepEqual(envelopeOf(theirs), { exp: S0 + 600 });
        const [a, b] = await sideOutcomes({ key: KEY, bind: bindUser }, (c) => c.verify(theirs, { user: "alice" }));
        assert.deepEqual(a, { error: "Error", message: "bind" });
        assertSameFailure(a, b);
        const [x, y] = await sideOutcomes({ key: KEY }, (c) => c.verify(theirs), (S0 + 601) * 1000);
        assert.deepEqual(x, { error: "Error", message: "expired" });
        assertSameFailure(x, y);
        await stillUsable(ours.createRequestStateCodec({ key: KEY }));
      },
    },
    {
      input: "payload: a function, a symbol, an object whose toJSON returns undefined or a function",
      sdk: 'JSON omits "p", as for undefined',
      ours: "the same; same tokens",
      check: async () => {
        for (const payload of [() => 1, Symbol("s"), { toJSON: () => undefined }, { toJSON: () => () => 1 }]) {
          const [theirs, mine] = await mints({ key: KEY }, payload);
          assert.deepEqual(envelopeOf(theirs), { exp: S0 + 600 });
          assert.equal(mine, theirs);
          assert.deepEqual(await crossVerify({ key: KEY }, payload), [{ value: undefined }, { value: undefined }]);
        }
      },
    },
    {
      input: "payload: an object whose toJSON returns another value",
      sdk: "seals what toJSON returns",
      ours: "the same; same tokens",
      check: () => assertSameTokens({ key: KEY }, { secret: 1, toJSON: () => ({ swapped: true }) }, { swapped: true }),
    },
    {
      input: "payload: a toJSON that reads its key argument",
      sdk: 'toJSON is called with "p" (the envelope\'s key), not ""',
      ours: 'the same: "p"; same tokens',
      check: () => assertSameTokens({ key: KEY }, { toJSON: (key) => ({ key }) }, { key: "p" }),
    },
    {
      input: "payload: a Date, a Map, nested toJSON, NaN, -0, Infinity",
      sdk: "JSON.stringify's reading: an ISO string, {}, nested values replaced, null, 0, null",
      ours: "the same; same tokens",
      check: async () => {
        const payload = { when: new Date(T0), map: new Map([[1, 2]]), nested: { deep: { toJSON: (k) => `key:${k}` } }, n: [NaN, -0, Infinity] };
        await assertSameTokens({ key: KEY }, payload, JSON.parse(JSON.stringify(payload)));
      },
    },
    {
      input: "payload: a cycle, a BigInt, a nested toJSON that throws",
      sdk: "mint rejects with JSON.stringify's own error (TypeError, or the thrown one)",
      ours: "the same error",
      check: async () => {
        const cycle = { a: 1 };
        cycle.self = cycle;
        class Boom extends Error {}
        const payloads = [
          cycle,
          { n: 10n },
          10n,
          {
            nested: {
              toJSON: () => {
                throw new Boom("no");
              },
            },
          },
          {
            toJSON: () => {
              throw new Boom("top");
            },
          },
        ];
        for (const payload of payloads) {
          const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.mint(payload));
          assert.ok(theirs.error, "the SDK rejects");
          assert.deepEqual(mine, theirs);
        }
        await stillUsable(ours.createRequestStateCodec({ key: KEY }));
      },
    },
    {
      input: "payload: one whose token is over 256 KiB",
      sdk: "mints and verifies it (no size limit)",
      ours: "mint throws a RangeError; with maxTokenBytes raised, the same token as the SDK",
      why: "docs/format.md: the size limit applies (maxTokenBytes, an extra option; tokens are refused before hashing)",
      check: async () => {
        const payload = { big: "x".repeat(200_000) };
        const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.mint(payload));
        assert.equal(typeof theirs.value, "string");
        assert.equal(mine.error, "RangeError");
        assert.deepEqual(await at(T0, () => outcome(() => ours.createRequestStateCodec({ key: KEY }).verify(theirs.value))), { error: "Error", message: "malformed", reason: "malformed" });
        await assertSameTokens({ key: KEY, maxTokenBytes: 400_000 }, payload, payload);
      },
    },
    // ---- options ----------------------------------------------------------------
    {
      input: "ttlSeconds: undefined, null",
      sdk: "600",
      ours: "600; same tokens",
      check: async () => {
        for (const ttlSeconds of [undefined, null]) {
          await assertSameTokens({ key: KEY, ttlSeconds }, 1, 1);
          assert.equal(envelopeOf((await mints({ key: KEY, ttlSeconds }, 1))[1]).exp, S0 + 600);
        }
      },
    },
    {
      input: "ttlSeconds: 0 and -0",
      sdk: "exp is the current second: opens within it, expired from the next",
      ours: "the same; same tokens",
      check: async () => {
        for (const ttlSeconds of [0, -0]) {
          await assertSameTokens({ key: KEY, ttlSeconds }, 1, 1);
          const [token] = await mints({ key: KEY, ttlSeconds }, 1);
          const [theirs, mine] = await sideOutcomes({ key: KEY, ttlSeconds }, (c) => c.verify(token), (S0 + 1) * 1000);
          assert.deepEqual(theirs, { error: "Error", message: "expired" });
          assertSameFailure(theirs, mine);
        }
      },
    },
    {
      input: "ttlSeconds: -5",
      sdk: "accepted: every token is born expired",
      ours: "the same; same tokens",
      check: async () => {
        const [a, b] = await mints({ key: KEY, ttlSeconds: -5 }, 1);
        assert.equal(b, a);
        const [theirs, mine] = await sideOutcomes({ key: KEY, ttlSeconds: -5 }, (c) => c.verify(a));
        assert.deepEqual(theirs, { error: "Error", message: "expired" });
        assertSameFailure(theirs, mine);
      },
    },
    {
      input: "ttlSeconds: 1e15 (exp still an exact integer in JS)",
      sdk: "accepted",
      ours: "the same; same tokens",
      check: () => assertSameTokens({ key: KEY, ttlSeconds: 1e15 }, 1, 1),
    },
    {
      input: "ttlSeconds: 2**60 (exp past 2**53)",
      sdk: "accepted; exp is the rounded double sum",
      ours: "accepted; the ttl is capped at 2**53-1 seconds, so tokens differ in exp; each opens the other's",
      why: "StateCodec takes safe-integer ttls; past 2**53 s (285 million years) the meaning is the same: no token expires in this era",
      check: async () => {
        const [a, b] = await mints({ key: KEY, ttlSeconds: 2 ** 60 }, 1);
        assert.notEqual(a, b);
        assert.deepEqual(await crossVerify({ key: KEY, ttlSeconds: 2 ** 60 }, 1), [{ value: 1 }, { value: 1 }]);
      },
    },
    {
      input: "ttlSeconds: 1e20 (exp past 2**63)",
      sdk: "accepted; exp written as 100000000001796110000-like digits",
      ours: "accepted; the ttl is capped at 2**53-1 seconds, so tokens differ in exp; each opens the other's",
      why: "StateCodec takes safe-integer ttls; the meaning is the same (no token expires in this era), and the drop-in reads exp as the SDK does: any JSON number",
      check: async () => {
        const [a, b] = await mints({ key: KEY, ttlSeconds: 1e20 }, 1);
        assert.notEqual(a, b);
        assert.deepEqual(await crossVerify({ key: KEY, ttlSeconds: 1e20 }, 1), [{ value: 1 }, { value: 1 }]);
      },
    },
    {
      input: "ttlSeconds: -1e300",
      sdk: "accepted; every token expired",
      ours: "the same meaning (expired, both ways); exp is written differently",
      check: async () => {
        const [theirs, mine] = await crossVerify({ key: KEY, ttlSeconds: -1e300 }, 1);
        assert.deepEqual(theirs, { error: "Error", message: "expired" });
        assert.deepEqual(mine, { error: "Error", message: "expired", reason: "expired" });
      },
    },
    {
      input: "ttlSeconds: 1.5",
      sdk: "accepted; exp is fractional",
      ours: "RangeError at construction",
      why: "docs/format.md's deliberate exception: exp is an integer number of seconds",
      check: () => {
        sdk.createRequestStateCodec({ key: KEY, ttlSeconds: 1.5 });
        assert.throws(() => ours.createRequestStateCodec({ key: KEY, ttlSeconds: 1.5 }), { name: "RangeError", message: /ttlSeconds must be a whole number/ });
      },
    },
    {
      input: "ttlSeconds: NaN, Infinity, '600', {}",
      sdk: "RangeError: ttlSeconds must be a finite number",
      ours: "the same error",
      check: async () => {
        for (const ttlSeconds of [NaN, Infinity, -Infinity, "600", {}]) await assertSameConstructionError({ key: KEY, ttlSeconds });
      },
    },
    {
      input: "bind returning a number, null, undefined, true, an object with valueOf, an array, a Promise",
      sdk: '"label" + value: the value as a string (ToPrimitive, valueOf first; a Promise is "[object Promise]" for everyone)',
      ours: "the same string; same tokens",
      check: async () => {
        const odd = [42, null, undefined, true, { valueOf: () => "v", toString: () => "t" }, ["a", 1], Promise.resolve("alice")];
        for (const value of odd) await assertSameTokens({ key: KEY, bind: () => value }, { n: 1 }, { n: 1 }, {});
      },
    },
    {
      input: "bind returning a Symbol, or throwing",
      sdk: "mint rejects with that TypeError / the thrown error; verify rejects with it only for a token whose MAC, body and exp passed",
      ours: "the same outcomes, in the same order; the codec stays usable",
      check: async () => {
        for (const bind of [
          () => Symbol("s"),
          () => {
            throw new RangeError("no principal");
          },
        ]) {
          const [theirs, mine] = await sideOutcomes({ key: KEY, bind }, (c) => c.mint(1, {}));
          assert.ok(theirs.error);
          assert.deepEqual(mine, theirs);
          const good = await at(T0, () => sdk.createRequestStateCodec({ key: KEY, bind: () => "x" }).mint(1, {}));
          for (const [token, clock] of [
            ["garbage", T0],
            [`${good.slice(0, -3)}AAA`, T0],
            [good, (S0 + 601) * 1000],
            [good, T0],
          ]) {
            const [a, b] = await sideOutcomes({ key: KEY, bind }, (c) => c.verify(token, {}), clock);
            assert.deepEqual(b.error, a.error);
            assert.deepEqual(b.message, a.message);
          }
        }
        await stillUsable(ours.createRequestStateCodec({ key: KEY, bind: bindUser }), { user: "u" });
      },
    },
    {
      input: "how often verify calls bind",
      sdk: "once for a token whose MAC, body and exp passed; not at all for the others",
      ours: "once for every token past the SDK's shape check (prefix, dots, MAC characters), before hashing; the same outcomes",
      why: "one pass over the token instead of two: a bound verify costs one MAC and one scan (measured, CPU per verify: 17.5 -> 6.3 us small, 1100 -> 575 us at 64 KiB); the SDK documents bind as called at verify time",
      check: async () => {
        const calls = { SDK: 0, ours: 0 };
        const codecs = CODECS.map(([name, make]) => [name, make({ key: KEY, bind: (ctx) => (calls[name]++, ctx.user) })]);
        const good = await at(T0, () => codecs[0][1].mint(1, { user: "a" }));
        calls.SDK = 0;
        for (const [name, codec] of codecs) {
          for (const token of ["garbage", "v1.x", `${good.slice(0, -1)}!`]) await assert.rejects(codec.verify(token, { user: "a" }), { message: "malformed" });
          assert.equal(calls[name], 0, `${name}: no bind call for a token that fails the shape check`);
          await assert.rejects(codec.verify(`${good.slice(0, -3)}AAA`, { user: "a" }), { message: "mac" });
          await at((S0 + 601) * 1000, () => assert.rejects(codec.verify(good, { user: "a" }), { message: "expired" }));
          assert.equal(calls[name], name === "SDK" ? 0 : 2, `${name}: bind calls for a bad MAC and an expired token`);
          calls[name] = 0;
          assert.equal(await at(T0, () => codec.verify(good, { user: "a" })), 1);
          await assert.rejects(
            at(T0, () => codec.verify(good, { user: "b" })),
            { message: "bind" },
          );
          assert.equal(calls[name], 2, `${name}: one bind call per verify of a sound token`);
        }
      },
    },
    {
      input: "bind that is not a function ('user', 42)",
      sdk: "accepted at construction; mint and verify of a sound token reject with a TypeError (bind is not a function)",
      ours: "the same",
      check: async () => {
        for (const bind of ["user", 42]) {
          const [theirs, mine] = await sideOutcomes({ key: KEY, bind }, (c) => c.mint(1, {}));
          assert.equal(theirs.error, "TypeError");
          assert.deepEqual(mine, theirs);
          const good = await at(T0, () => sdk.createRequestStateCodec({ key: KEY, bind: () => "x" }).mint(1, {}));
          for (const token of ["garbage", good]) {
            const [a, b] = await sideOutcomes({ key: KEY, bind }, (c) => c.verify(token, {}));
            assert.deepEqual({ error: b.error, message: b.message }, a);
          }
        }
      },
    },
    {
      input: "mint without ctx when bind is set; with ctx null",
      sdk: "TypeError: mint() requires ctx when a bind callback is configured; null is a ctx (bind(null) runs)",
      ours: "the same",
      check: async () => {
        const [theirs, mine] = await sideOutcomes({ key: KEY, bind: bindUser }, (c) => c.mint(1));
        assert.deepEqual(theirs, { error: "TypeError", message: "createRequestStateCodec: mint() requires ctx when a bind callback is configured" });
        assert.deepEqual(mine, theirs);
        const [a, b] = await sideOutcomes({ key: KEY, bind: bindUser }, (c) => c.mint(1, null));
        assert.equal(a.error, "TypeError");
        assert.deepEqual(b, a);
        await assertSameTokens({ key: KEY, bind: (ctx) => String(ctx) }, 1, 1, null);
      },
    },
    {
      input: "without WebCrypto (globalThis.crypto absent)",
      sdk: "TypeError at construction",
      ours: "works",
      why: "the HMAC is in the wasm core, which needs no WebCrypto",
      check: async () => {
        const real = Object.getOwnPropertyDescriptor(globalThis, "crypto");
        Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
        try {
          assert.throws(() => sdk.createRequestStateCodec({ key: KEY }), TypeError);
          await stillUsable(ours.createRequestStateCodec({ key: KEY }));
        } finally {
          Object.defineProperty(globalThis, "crypto", real);
        }
      },
    },
    // ---- verify's arguments --------------------------------------------------------
    {
      input: "verify(undefined), verify(42), verify({})",
      sdk: "TypeError from reading the state as a string",
      ours: "the same error",
      check: async () => {
        for (const state of [undefined, null, 42, {}, ["v1.a.b"]]) {
          const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(state));
          assert.equal(theirs.error, "TypeError");
          assert.deepEqual(mine, theirs);
        }
      },
    },
    {
      input: "verify(new String(token))",
      sdk: "opens it (String methods)",
      ours: "the same",
      check: async () => {
        const [token] = await mints({ key: KEY }, { s: 1 });
        const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(new String(token)));
        assert.deepEqual(theirs, { value: { s: 1 } });
        assert.deepEqual(mine, theirs);
      },
    },
    {
      input: "a genuine token re-spelt: MAC padded (=), with + and /, with a space, with stray trailing bits",
      sdk: "opens it (atob tolerates all four)",
      ours: '"malformed"',
      why: "docs/format.md's deliberate exception: non-canonical base64url is refused (no codec mints it; one token, one spelling)",
      check: async () => {
        const [token] = await mints({ key: KEY }, { s: 1 });
        const dot = token.lastIndexOf(".");
        const mac = token.slice(dot + 1);
        const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(mac.at(-1));
        const stray = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last | 1];
        const plusSlash = mac.replaceAll("-", "+").replaceAll("_", "/");
        const respelt = [`${token}=`, `${token.slice(0, dot + 1)}${mac.slice(0, 10)} ${mac.slice(10)}`, `${token.slice(0, -1)}${stray}`];
        if (plusSlash !== mac) respelt.push(`${token.slice(0, dot + 1)}${plusSlash}`);
        for (const state of respelt) {
          const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(state));
          assert.deepEqual(theirs, { value: { s: 1 } }, state);
          assert.deepEqual(mine, { error: "Error", message: "malformed", reason: "malformed" }, state);
        }
      },
    },
    {
      input: "a body re-spelt with stray trailing bits (genuine MAC over that spelling)",
      sdk: 'opens it (atob ignores the bits); refuses it as "expired" once expired',
      ours: '"malformed"; "expired" once expired, as the SDK',
      why: "docs/format.md's deliberate exception: non-canonical base64url is refused",
      check: async () => {
        let text = `{"p":{"s":1},"exp":${S0 + 600}}`;
        while (b64url(Buffer.from(text)).length % 4 !== 2) text += " ";
        const body = b64url(Buffer.from(text));
        const strayBody =
          body.slice(0, -1) + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(body.at(-1)) | 1];
        assert.notEqual(strayBody, body);
        const token = `v1.${strayBody}.${b64url(createHmac("sha256", KEY).update(`v1.${strayBody}`).digest())}`;
        const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(token));
        assert.deepEqual(theirs, { value: { s: 1 } });
        assert.deepEqual(mine, { error: "Error", message: "malformed", reason: "malformed" });
        const [a, b] = await sideOutcomes({ key: KEY }, (c) => c.verify(token), (S0 + 601) * 1000);
        assert.deepEqual(a, { error: "Error", message: "expired" });
        assertSameFailure(a, b);
      },
    },
    {
      input: 'envelopes only a key holder can make: no "p", a fractional, exponent or huge exp, a repeated key, a leading BOM, a "b" of another type',
      sdk: "reads them as JSON.parse and JS read them (p undefined; exp compared as a number; the last key wins; TextDecoder drops the BOM)",
      ours: "the same outcome for each: the drop-in's core reads a raw envelope as the SDK does (StateCodec keeps docs/format.md's one reading)",
      check: async () => {
        const exp = S0 + 600;
        const bodies = [
          `{"exp":${exp}}`,
          `{"p":1,"exp":${exp}.5}`,
          `{"p":1,"exp":${S0}.25}`,
          `{"p":1,"exp":${S0 - 1}.75}`,
          `{"p":1,"exp":1e20}`,
          `{"p":1,"exp":1e400}`,
          `{"p":1,"exp":-1e400}`,
          `{"p":1,"exp":${exp / 10}e1}`,
          `{"p":1,"exp":1e3}`,
          `{"p":1,"p":2,"exp":${exp}}`,
          `{"p":1,"exp":1,"exp":${exp}}`,
          `{"p":1,"exp":${exp},"exp":1}`,
          `\ufeff{"p":[true],"exp":${exp}}`,
          `{"\\u0070":7,"\\u0065xp":${exp}}`,
          `{"p":1,"exp":${exp},"b":null}`,
          `{"p":1,"exp":${exp},"b":5}`,
          `{"p":{"__proto__":{"x":1}},"exp":${exp}}`,
          `{"__proto__":{"exp":${exp}},"p":1}`,
        ];
        for (const text of bodies) {
          const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(signed(text)));
          if ("value" in theirs) assert.deepEqual(mine, theirs, text);
          else assertSameFailure(theirs, mine);
        }
        assert.deepEqual((await sideOutcomes({ key: KEY }, (c) => c.verify(signed(`{"exp":${exp}.5}`))))[1], { value: undefined });
        // With bind: "b" beside a no-"p" or fractional-exp envelope.
        const tag = envelopeOf(await at(T0, () => sdk.createRequestStateCodec({ key: KEY, bind: bindUser }).mint(0, { user: "alice" }))).b;
        for (const text of [`{"exp":${exp}.5,"b":"${tag}"}`, `{"p":2,"b":"x","b":"${tag}","exp":${exp}}`, `{"p":2,"exp":${exp},"b":5}`]) {
          for (const user of ["alice", "bob"]) {
            const [theirs, mine] = await sideOutcomes({ key: KEY, bind: bindUser }, (c) => c.verify(signed(text), { user }));
            if ("value" in theirs) assert.deepEqual(mine, theirs, `${text} ${user}`);
            else assertSameFailure(theirs, mine);
          }
        }
      },
    },
    {
      input: 'a signed "null" envelope',
      sdk: "TypeError (reading exp of null)",
      ours: "the same error",
      check: async () => {
        const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(signed("null")));
        assert.equal(theirs.error, "TypeError");
        assert.deepEqual(mine, theirs);
      },
    },
    {
      input: "a signed exp of more than 17 digits within half a double's spacing below the current second",
      sdk: "opens it: JS rounds exp to the current second",
      ours: '"expired"',
      why: "the core compares the decimal text exactly (float parsing would cost the edge .wasm 15.4 KB gzipped); the two agree on every exp that JSON.stringify writes, and only a key holder can write this one",
      check: async () => {
        const token = signed(`{"p":1,"exp":${S0 - 1}.99999999999}`);
        const [theirs, mine] = await sideOutcomes({ key: KEY }, (c) => c.verify(token));
        assert.deepEqual(theirs, { value: 1 });
        assert.deepEqual(mine, { error: "Error", message: "expired", reason: "expired" });
      },
    },
    {
      input: "a token over maxTokenBytes (extra option, here 200)",
      sdk: "(no such option) opens it",
      ours: '"malformed", before any hashing',
      why: "docs/format.md: the size limit applies",
      check: async () => {
        const [token] = await mints({ key: KEY }, { pad: "y".repeat(200) });
        const codec = ours.createRequestStateCodec({ key: KEY, maxTokenBytes: 200 });
        assert.deepEqual(await at(T0, () => outcome(() => codec.verify(token))), { error: "Error", message: "malformed", reason: "malformed" });
        assert.deepEqual(await at(T0, () => sdk.createRequestStateCodec({ key: KEY }).verify(token)), { pad: "y".repeat(200) });
      },
    },
  ];

  for (const row of rows) {
    const label = `${row.input} | SDK: ${row.sdk} | ours: ${row.ours}${row.why ? ` | why: ${row.why}` : ""}`;
    test(label, row.check);
  }
});

/** After a failure the codec still mints and verifies. */
async function stillUsable(codec, ctx) {
  const token = await codec.mint({ still: "usable" }, ctx);
  assert.deepEqual(await codec.verify(token, ctx), { still: "usable" });
}

// ---------------------------------------------------------------------------

describe("3. the seam: McpServer's requestState.verify with the real client, once per codec", () => {
  const bindToClient = (ctx) => ctx.http?.authInfo?.clientId ?? "anonymous";
  const INPUT = { confirm: { action: "accept", content: { ok: true } } };

  /** An in-process MCP server (createMcpHandler) whose requestState is minted and verified by `make`'s codec. */
  function serve(make) {
    const codec = make({ key: KEY, bind: bindToClient });
    const logged = [];
    const factory = () => {
      const server = new sdk.McpServer({ name: "drop-in-seam", version: "0.0.0" }, { requestState: { verify: codec.verify } });
      server.server.onerror = (e) => logged.push(e.message);
      server.registerTool("risky_move", { inputSchema: sdk.fromJsonSchema({ type: "object", properties: { cell: { type: "integer" } }, required: ["cell"] }) }, async ({ cell }, ctx) => {
        const state = ctx.mcpReq.requestState();
        const answer = sdk.acceptedContent(ctx.mcpReq.inputResponses, "confirm");
        if (state === undefined || answer === undefined) {
          return sdk.inputRequired({
            inputRequests: {
              confirm: sdk.inputRequired.elicit({ message: `Play ${cell}?`, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }),
            },
            requestState: await codec.mint({ cell }, ctx),
          });
        }
        return { content: [{ type: "text", text: `played ${state.cell}` }], structuredContent: { cell: state.cell, ok: answer.ok } };
      });
      return server;
    };
    const handler = sdk.createMcpHandler(factory);
    const client = async (user) => {
      const c = new Client({ name: "seam", version: "0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
      const authInfo = { token: `t-${user}`, clientId: user, scopes: [] };
      await c.connect(new StreamableHTTPClientTransport(new URL("http://in-process/mcp"), { fetch: (url, init) => handler.fetch(new Request(url, init), { authInfo }) }));
      return c;
    };
    return { client, logged };
  }

  /** The four echoes through one codec: what the client sees, and what the server logged. */
  async function echoes(make) {
    const { client, logged } = serve(make);
    const alice = await client("alice");
    const bob = await client("bob");
    const seen = {};
    try {
      const round1 = await at(T0, () => alice.callTool({ name: "risky_move", arguments: { cell: 7 } }, { allowInputRequired: true }));
      const token = round1.requestState;
      assert.equal(typeof token, "string");
      const i = token.indexOf(".") + 5;
      const tampered = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
      const retry = (c, requestState, clock) => at(clock, () => outcome(async () => c.callTool({ name: "risky_move", arguments: { cell: 7 }, inputResponses: INPUT, requestState })));
      const asSeen = (o) => (o.value !== undefined ? { result: o.value } : { error: o.error, message: o.message });
      const seenError = async (c, requestState, clock) => {
        try {
          await at(clock, () => c.callTool({ name: "risky_move", arguments: { cell: 7 }, inputResponses: INPUT, requestState }));
          return { result: "no error" };
        } catch (e) {
          return { code: e.code, message: e.message, data: e.data };
        }
      };
      seen.good = asSeen(await retry(alice, token, T0 + 1000));
      seen.tampered = await seenError(alice, tampered, T0 + 1000);
      seen.expired = await seenError(alice, token, (S0 + 601) * 1000);
      seen.otherPrincipal = await seenError(bob, token, T0 + 1000);
      seen.logged = [...logged];
      seen.token = token;
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
    return seen;
  }

  test("good, tampered, expired and other-principal echoes: the client sees the same from both codecs", async () => {
    const [theirs, mine] = [await echoes(sdk.createRequestStateCodec), await echoes(ours.createRequestStateCodec)];
    assert.equal(mine.token, theirs.token, "the same requestState from both, at the same clock and principal");
    assert.deepEqual(theirs.good.result.structuredContent, { cell: 7, ok: true });
    for (const echo of ["tampered", "expired", "otherPrincipal"]) {
      assert.equal(theirs[echo].code, -32602, `${echo}: ${JSON.stringify(theirs[echo])}`);
      assert.match(theirs[echo].message, /Invalid or expired requestState/);
      assert.deepEqual(theirs[echo].data, { reason: "invalid_request_state" });
    }
    for (const key of ["good", "tampered", "expired", "otherPrincipal"]) assert.deepEqual(mine[key], theirs[key], key);
    // The SDK hands verify's message to the server's onerror only; both codecs give the same reasons.
    assert.deepEqual(
      theirs.logged,
      ["mac", "expired", "bind"].map((r) => `requestState verification rejected tools/call: ${r}`),
    );
    assert.deepEqual(mine.logged, theirs.logged);
  });
});
