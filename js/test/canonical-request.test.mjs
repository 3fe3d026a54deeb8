// A request's canonical form: the packed package's request digest
// against an independent RFC 8785 implementation (npm `canonicalize`) on
// generated values, the Rust command against the package on generated
// requests both ways, and wasm memory under large forged requests.
//
// Needs the packed package (node js/pack.mjs) and target/debug/mcp-sealed-state
// (cargo build --features cli).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import fc from "fast-check";
import canonicalize from "canonicalize";
import { ROOT, edgeWasmMemory, importPackage } from "./support.mjs";

const { SealedStateError, StateCodec } = await importPackage();
const execFileP = promisify(execFile);
const KEY = "canonical-request-key: at least thirty-two bytes long";
const CLI = join(ROOT, "target/debug/mcp-sealed-state");
const RUNS = Number(process.env.CANONICAL_RUNS ?? 2000);

// docs/format.md, "`q`: the request digest": base64url(HMAC-SHA256(key, label + JCS(args))[0..16]).
const digest = (jcs) => createHmac("sha256", KEY).update(`mcp-sealed-state/v1/request:${jcs}`).digest().subarray(0, 16).toString("base64url");
const qOf = (token) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()).p.q;

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// Whether a JSON value holds a lone surrogate in a string or a member name, and how deep it nests.
function hasLone(v) {
  if (typeof v === "string") return LONE.test(v);
  if (Array.isArray(v)) return v.some(hasLone);
  if (v !== null && typeof v === "object") return Object.entries(v).some(([k, x]) => LONE.test(k) || hasLone(x));
  return false;
}
const depth = (v) => (v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
const nonFinite = (v) => (typeof v === "number" ? !Number.isFinite(v) : v !== null && typeof v === "object" && Object.values(v).some(nonFinite));

// JSON values with any UTF-16 units (lone surrogates included), numbers of
// every magnitude, and nesting around the limit.
const values = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ stringUnit: "binary", maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 68 }).chain((n) => fc.jsonValue({ maxDepth: 0 }).map((leaf) => Array.from({ length: n }).reduce((v) => [v], leaf))) },
  { weight: 1, arbitrary: fc.double().map((n) => ({ n })) },
);

describe("the package's request digest is RFC 8785's (npm canonicalize) on generated requests", () => {
  test(`${RUNS} generated values: the same digest, or refused exactly where RFC 8785 has no form`, () => {
    const codec = new StateCodec({ key: KEY });
    let sealed = 0;
    fc.assert(
      fc.property(values, (v) => {
        const refused = hasLone(v) || depth(v) > 64 || nonFinite(v);
        let token;
        try {
          token = codec.sealRequestState(1, "t", { request: v });
        } catch (e) {
          assert.ok(refused, `refused a value RFC 8785 canonicalizes: ${e.message}`);
          assert.ok(e instanceof TypeError || e instanceof RangeError);
          // Opening with it is reason "request", never a TypeError.
          assert.throws(
            () => codec.openRequestState(codec.sealRequestState(1, "t", { request: 0 }), "t", { request: v }),
            (x) => x instanceof SealedStateError && x.reason === "request",
          );
          return;
        }
        assert.ok(!refused, "sealed a value with no canonical form");
        assert.equal(qOf(token), digest(canonicalize(v)));
        // Any spelling of it opens: the parsed text with members in another order.
        const reparsed = JSON.parse(JSON.stringify(v), (k, x) => (x !== null && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x));
        assert.equal(codec.openRequestState(token, "t", { request: reparsed }), 1);
        sealed++;
      }),
      { numRuns: RUNS },
    );
    assert.ok(sealed > RUNS / 2, `only ${sealed} of ${RUNS} sealed`);
  });
});

describe("JS and Rust bind the same requests, both ways (target/debug/mcp-sealed-state)", { skip: !existsSync(CLI) && "cargo build --features cli first" }, () => {
  const env = { ...process.env, STATE_KEY: KEY };
  // Requests both sides canonicalize: no lone surrogates, depth <= 64.
  const requests = fc
    .sample(fc.jsonValue({ maxDepth: 4 }), { numRuns: 60, seed: 35 })
    .concat([[1e21, 1e-7, -0, 5e-324, 1.7976931348623157e308], { "\u20ac": 1, "\ud83d\ude00": 2, a: 3, "\u0080": 4 }, Array.from({ length: 63 }).reduce((v) => [v], 1)]);

  test(`${requests.length} requests sealed by JS open in Rust, and not for another request`, async () => {
    const codec = new StateCodec({ key: KEY });
    for (const request of requests) {
      const token = codec.sealRequestState({ ok: 1 }, "tool", { request });
      const { stdout } = await execFileP(CLI, ["verify", "--tool", "tool", `--request=${JSON.stringify(request)}`, token], { env });
      assert.equal(stdout.trim(), '{"ok":1}', JSON.stringify(request));
      const other = await execFileP(CLI, ["verify", "--tool", "tool", `--request=${JSON.stringify([request])}`, token], { env }).then(
        () => "opened",
        (e) => e.stderr,
      );
      assert.match(other, /request/, JSON.stringify(request));
    }
  });

  test(`${requests.length} requests sealed by Rust open in JS, and not for another request`, async () => {
    const codec = new StateCodec({ key: KEY });
    for (const request of requests) {
      const { stdout } = await execFileP(CLI, ["seal", "--tool", "tool", `--request=${JSON.stringify(request)}`, '{"ok":2}'], { env });
      const token = stdout.trim();
      assert.deepEqual(codec.openRequestState(token, "tool", { request: JSON.parse(JSON.stringify(request)) }), { ok: 2 }, JSON.stringify(request));
      assert.throws(
        () => codec.openRequestState(token, "tool", { request: [request] }),
        (e) => e instanceof SealedStateError && e.reason === "request",
      );
    }
  });

  // Numbers past the double range and nesting past 64 across languages: what JS refuses, Rust refuses too.
  test("a number past the double range and nesting past 64 are refused by both", async () => {
    const codec = new StateCodec({ key: KEY });
    const token = codec.sealRequestState(1, "tool", { request: { amount: null } });
    for (const text of ['{"amount":1e400}', `${"[".repeat(65)}${"]".repeat(65)}`]) {
      const rust = await execFileP(CLI, ["verify", "--tool", "tool", `--request=${text}`, token], { env }).then(
        () => "opened",
        (e) => e.code,
      );
      assert.notEqual(rust, "opened", text);
      assert.throws(
        () => codec.openRequestState(token, "tool", { request: JSON.parse(text) }),
        (e) => e instanceof SealedStateError && e.reason === "request",
      );
    }
  });
});

// A forged token's request is refused before it is copied into wasm, whose memory never shrinks.
test("1,000 forged tokens with 4 MiB requests: refused (request) before any copy; wasm memory stays flat", async () => {
  const codec = new StateCodec({ key: KEY });
  const token = codec.sealRequestState(1, "tool", { request: { q: "small" } });
  const big = { q: "x".repeat(4 << 20) };
  codec.openRequestState(token, "tool", { request: { q: "small" } }); // warm: buffers at their working size
  const memory = await edgeWasmMemory();
  const before = memory.buffer.byteLength;
  for (let i = 0; i < 1000; i++) {
    assert.throws(
      () => codec.openRequestState(`${token.slice(0, -2)}${i % 2 ? "AA" : "AB"}`, "tool", { request: big }),
      (e) => e instanceof SealedStateError && e.reason === "request",
    );
  }
  const after = memory.buffer.byteLength;
  console.log(`# wasm memory: ${before} bytes before, ${after} after 1,000 forged tokens with 4 MiB requests`);
  assert.equal(after, before);
});

// Review: the object pre-check counted members whose value is undefined,
// which write nothing (as JSON.stringify leaves them out), so a request whose
// canonical text fits maxRequestBytes exactly was refused when sealing.
test("maxRequestBytes counts the canonical text only: an undefined member costs nothing, the limit itself fits", () => {
  const codec = new StateCodec({ key: KEY, maxRequestBytes: 7 }); // `{"a":1}` is 7 bytes
  const wide = { a: 1 };
  for (let i = 0; i < 10; i++) wide[`u${i}`] = undefined;
  for (const request of [{ a: 1 }, { a: 1, b: undefined }, wide]) {
    const token = codec.sealRequestState(1, "tool", { request });
    assert.equal(qOf(token), digest('{"a":1}'));
    assert.equal(codec.openRequestState(token, "tool", { request: { a: 1 } }), 1);
    assert.equal(codec.openRequestState(token, "tool", { request }), 1);
  }
  assert.throws(
    () => codec.sealRequestState(1, "tool", { request: { a: 10 } }),
    (e) => e instanceof RangeError && /maxRequestBytes/.test(e.message),
  );
});
