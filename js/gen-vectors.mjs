// Generates interoperability test vectors for the v1 token wire format
// (see docs/format.md, "Grammar") using the REAL reference codec,
// `createRequestStateCodec` from @modelcontextprotocol/server 2.4.0.
//
//   node js/gen-vectors.mjs            (from the repo root)
//   npm --prefix js run vectors
//
// Output: tests/vectors/sdk-v1.json (resolved from this script's location).
// The output is deterministic: fixed keys, a fixed clock (Date.now is
// temporarily replaced, since the SDK codec has no clock option) and
// deterministically generated payloads. Running it twice gives byte-identical
// output.
//
// After writing, every vector is re-checked: the token is verified by a fresh
// SDK codec at the same clock, the decoded body is compared with the envelope
// docs/format.md describes, and the MAC and bind tag are recomputed independently
// with node:crypto. Any mismatch exits non-zero.

import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { createHmac } from "node:crypto";
import { deepStrictEqual, strictEqual, ok } from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { atClock } from "./lib/clock.mjs";

// The real clock, to check that every pinned call restored it.
const realDateNow = Date.now;

const SDK_NAME = "@modelcontextprotocol/server";
const SDK_VERSION = "2.4.0";
const OUT_URL = new URL("../tests/vectors/sdk-v1.json", import.meta.url);
const OUT_PATH = fileURLToPath(OUT_URL);

// Make sure we really are running against the pinned SDK version.
{
  const pkgUrl = new URL(`./node_modules/${SDK_NAME}/package.json`, import.meta.url);
  const installed = JSON.parse(readFileSync(pkgUrl, "utf8")).version;
  if (installed !== SDK_VERSION) {
    console.error(`expected ${SDK_NAME}@${SDK_VERSION}, found ${installed}`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

const hexBytes = (n, f) => Buffer.from(Array.from({ length: n }, (_, i) => f(i) & 0xff)).toString("hex");

const KEYS = {
  // ASCII string keys (UTF-8 encoded by the codec)
  ascii1: { utf8: "mcp-sealed-state test vector key #1 (ascii)" },
  ascii2: { utf8: "another-ascii-key-for-sdk-v1-vectors-0123456789" },
  ascii32: { utf8: "0123456789abcdef0123456789ABCDEF" }, // exactly 32 bytes: the minimum
  // Non-ASCII string key: "é" (2 bytes), "ü" (2), "🔑" (4, astral), "—" (3)
  unicode: { utf8: "clé secrète 🔑 — ünïcødé vector key" },
  // Byte keys
  hex32: { hex: hexBytes(32, (i) => i) }, // 00 01 .. 1f
  hex64: { hex: hexBytes(64, (i) => i * 37 + 11) }, // exactly one SHA-256 block
  hex100: { hex: hexBytes(100, (i) => 0xa5 ^ (i * 13)) }, // > block size: HMAC hashes it first
};

function keyMaterial(key) {
  if ("utf8" in key) return key.utf8; // codec encodes strings as UTF-8
  return Uint8Array.from(Buffer.from(key.hex, "hex"));
}

function keyBytes(key) {
  return "utf8" in key ? Buffer.from(key.utf8, "utf8") : Buffer.from(key.hex, "hex");
}

for (const [name, key] of Object.entries(KEYS)) {
  const n = keyBytes(key).length;
  if (n < 32) throw new Error(`key ${name} too short (${n} bytes)`);
}
ok(/[^\x00-\x7f]/.test(KEYS.unicode.utf8) && keyBytes(KEYS.unicode).length >= 32);
strictEqual(keyBytes(KEYS.ascii32).length, 32);
strictEqual(keyBytes(KEYS.hex32).length, 32);
strictEqual(keyBytes(KEYS.hex64).length, 64);
strictEqual(keyBytes(KEYS.hex100).length, 100);

// ---------------------------------------------------------------------------
// Clocks, payloads
// ---------------------------------------------------------------------------

const NOW_A = 1764500000123; // 2025-11-30T10:53:20.123Z
const NOW_B = 1767225599999; // 2025-12-31T23:59:59.999Z (floor drops .999)

const TICTACTOE = { board: [0, 0, 0, 0, 0, 0, 0, 0, 0], turn: 1 };

const NESTED = {
  a: { b: { c: [1, [2, [3, [4, { d: null }]]]] } },
  list: [{}, [], "", 0, false, true, null],
  "key with spaces": { "": "empty key" },
  num: [1.5, -2.25, 1e-7, 123456789012, 9007199254740991],
};

const UNICODE_MIXED = {
  cjk: "漢字かなカナ한글",
  emoji: "🎲🧩👩‍💻🏳️‍🌈",
  rtl: "مرحبا بالعالم שלום",
  combining: "e\u0301 n\u0303 a\u030a\u0323",
  seps: "\u2028\u2029",
};

// ~4 KiB of mixed text, deterministic.
function makeText4k() {
  const words = ["alpha", "βήτα", "гамма", "délta", "ε", "ζήτα", "漢字", "🎲", "שלום", "naïve", '"q"', "back\\slash"];
  const parts = [];
  let bytes = 0;
  for (let i = 0; bytes < 4096; i++) {
    const w = `${words[i % words.length]}-${i}`;
    parts.push(w);
    bytes += Buffer.byteLength(w) + 1;
  }
  return { id: "text-4k", text: parts.join(" ") };
}

// ~64 KiB structured payload, deterministic (linear congruential sequence).
function makeLarge64k() {
  const rows = [];
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648);
  let bytes = 0;
  for (let i = 0; bytes < 64 * 1024; i++) {
    const row = {
      i,
      v: next() % 100000,
      f: (next() % 2000000) / 1000 - 1000,
      s: `row-${i}-${(next() % 65536).toString(16)}`,
      ok: (i & 1) === 0,
    };
    if (i % 17 === 0) row.u = `ü${i}漢🎲`;
    rows.push(row);
    bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
  }
  return { id: "large-64k", rows };
}

const TEXT_4K = makeText4k();
const LARGE_64K = makeLarge64k();

// ---------------------------------------------------------------------------
// Vector specifications
// ---------------------------------------------------------------------------
// Each spec: name, kind, key (a KEYS entry), nowMs, ttlSeconds, bind (null =
// unbound codec), tool (requestState only), payload.

const specs = [];
const add = (s) => specs.push({ key: KEYS.ascii1, nowMs: NOW_A, ttlSeconds: 600, bind: null, tool: null, ...s });

// --- raw, unbound: the value space of payloads -----------------------------
add({ name: "raw-tictactoe", kind: "raw", payload: TICTACTOE });
add({ name: "raw-null", kind: "raw", payload: null });
add({ name: "raw-true", kind: "raw", payload: true });
add({ name: "raw-false", kind: "raw", payload: false, key: KEYS.hex32 });
add({ name: "raw-zero", kind: "raw", payload: 0 });
add({ name: "raw-negative-float", kind: "raw", payload: -273.15 });
add({ name: "raw-negative-tiny-float", kind: "raw", payload: -1.5e-7, key: KEYS.ascii2 });
add({ name: "raw-1e21", kind: "raw", payload: 1e21 });
add({ name: "raw-max-safe-integer", kind: "raw", payload: 9007199254740991, key: KEYS.hex64 });
add({ name: "raw-string", kind: "raw", payload: "hello, sealed state" });
add({ name: "raw-empty-string", kind: "raw", payload: "", key: KEYS.ascii32 });
add({ name: "raw-empty-object", kind: "raw", payload: {} });
add({ name: "raw-empty-array", kind: "raw", payload: [] });
add({ name: "raw-nested", kind: "raw", payload: NESTED, key: KEYS.hex100 });
add({ name: "raw-unicode-cjk", kind: "raw", payload: "漢字・かな・カナ・한글", key: KEYS.unicode });
add({ name: "raw-unicode-astral-emoji", kind: "raw", payload: { e: "😀🎲𝄞𠜎", zwj: "👩‍👩‍👧‍👦" } });
add({ name: "raw-unicode-combining-marks", kind: "raw", payload: "Ze\u0301\u0301bra n\u0303 \u0041\u030a", key: KEYS.hex64 });
add({ name: "raw-unicode-rtl", kind: "raw", payload: "\u202bمرحبا\u202c שלום עולם", key: KEYS.hex32 });
add({ name: "raw-line-paragraph-separators", kind: "raw", payload: "a\u2028b\u2029c" });
add({ name: "raw-control-chars", kind: "raw", payload: "\u0000\u0001\b\t\n\u000b\f\r\u001f\u007f\u0085", key: KEYS.ascii2 });
add({ name: "raw-quotes-backslashes", kind: "raw", payload: { 'q"k': 'say "hi" \\ back\\\\slash / \\u0000' } });
add({ name: "raw-lone-surrogate", kind: "raw", payload: "\ud800" });
add({ name: "raw-lone-surrogates-mixed", kind: "raw", payload: { hi: "x\ud800y", lo: "\udc00", swapped: "\udc00\ud800", ["\udfff"]: 1 }, key: KEYS.unicode });
add({ name: "raw-4kib", kind: "raw", payload: TEXT_4K, key: KEYS.hex100 });
add({ name: "raw-64kib", kind: "raw", payload: LARGE_64K });

// --- raw, bound ---------------------------------------------------------------
add({ name: "raw-bound-tictactoe", kind: "raw", payload: TICTACTOE, bind: "user-42" });
add({ name: "raw-bound-empty-bind", kind: "raw", payload: { n: 1 }, bind: "", key: KEYS.hex32 });
add({ name: "raw-bound-unicode-bind", kind: "raw", payload: "ok", bind: "用户-é-🙂", key: KEYS.unicode });
add({ name: "raw-bound-ttl-0", kind: "raw", payload: 123456, bind: "tenant:acme/user:7", ttlSeconds: 0, nowMs: NOW_B, key: KEYS.hex100 });

// --- view, unbound ------------------------------------------------------------
add({ name: "view-tictactoe", kind: "view", payload: TICTACTOE });
add({ name: "view-null", kind: "view", payload: null });
add({ name: "view-empty-object", kind: "view", payload: {}, key: KEYS.ascii32 });
add({ name: "view-unicode-mixed", kind: "view", payload: UNICODE_MIXED, key: KEYS.unicode });
add({ name: "view-nested", kind: "view", payload: NESTED, key: KEYS.hex64 });
add({ name: "view-lone-surrogate", kind: "view", payload: ["\ud800", "\n", "\u001f"], key: KEYS.hex32 });
add({ name: "view-ttl-1", kind: "view", payload: TICTACTOE, ttlSeconds: 1 });
add({ name: "view-ttl-86400", kind: "view", payload: TICTACTOE, ttlSeconds: 86400, key: KEYS.ascii2 });
add({ name: "view-ttl-0", kind: "view", payload: TICTACTOE, ttlSeconds: 0, key: KEYS.hex100 });
add({ name: "view-clock-b", kind: "view", payload: TICTACTOE, nowMs: NOW_B });
add({ name: "view-4kib", kind: "view", payload: TEXT_4K, key: KEYS.ascii2 });

// --- view, bound ----------------------------------------------------------------
add({ name: "view-bound-tictactoe", kind: "view", payload: TICTACTOE, bind: "user-42" });
add({ name: "view-bound-unicode-bind", kind: "view", payload: { board: [1, 2, 0, 0, 1, 0, 0, 0, 2], turn: 2 }, bind: "ユーザー✓ «ñ»", key: KEYS.hex64 });
add({ name: "view-bound-empty-bind", kind: "view", payload: [10], bind: "", key: KEYS.ascii32 });
add({ name: "view-bound-clock-b-ttl-86400", kind: "view", payload: "persist", bind: "user-42", nowMs: NOW_B, ttlSeconds: 86400, key: KEYS.hex32 });

// --- requestState, unbound ------------------------------------------------------
add({ name: "rs-move-tictactoe", kind: "requestState", payload: TICTACTOE, tool: "move" });
add({ name: "rs-start-null", kind: "requestState", payload: null, tool: "start" });
add({ name: "rs-tool-with-spaces", kind: "requestState", payload: { step: 2 }, tool: "tool with spaces", key: KEYS.ascii2 });
add({ name: "rs-unicode-tool", kind: "requestState", payload: 1e21, tool: "ünïcødé-tool", key: KEYS.unicode });
add({ name: "rs-quote-tool", kind: "requestState", payload: "q", tool: 'say "hi"\\now', key: KEYS.hex32 });
add({ name: "rs-lone-surrogate", kind: "requestState", payload: { s: "\ud800!" }, tool: "move", key: KEYS.hex64 });
add({ name: "rs-ttl-1-clock-b", kind: "requestState", payload: -273.15, tool: "start", ttlSeconds: 1, nowMs: NOW_B });

// --- requestState, bound --------------------------------------------------------
add({ name: "rs-bound-move", kind: "requestState", payload: TICTACTOE, tool: "move", bind: "user-42" });
add({ name: "rs-bound-unicode", kind: "requestState", payload: UNICODE_MIXED, tool: "ünïcødé-tool", bind: "用户-é-🙂", key: KEYS.unicode });
add({ name: "rs-bound-empty-bind", kind: "requestState", payload: "true", tool: "start", bind: "", key: KEYS.ascii32 });
add({ name: "rs-bound-4kib-ttl-0", kind: "requestState", payload: TEXT_4K, tool: "tool with spaces", bind: "user-42", ttlSeconds: 0, key: KEYS.hex100 });
add({
  name: "rs-bound-quote-tool-clock-b",
  kind: "requestState",
  payload: { board: [0, 0, 0, 0, 0, 0, 0, 0, 0], turn: 1 },
  tool: '"quoted"',
  bind: 'principal "with" quotes\\',
  nowMs: NOW_B,
  ttlSeconds: 86400,
  key: KEYS.hex64,
});

// ---------------------------------------------------------------------------
// Mint
// ---------------------------------------------------------------------------

function makeCodec(spec) {
  const options = { key: keyMaterial(spec.key), ttlSeconds: spec.ttlSeconds };
  if (spec.bind !== null) options.bind = (ctx) => ctx.principal;
  return createRequestStateCodec(options);
}

function mintInput(spec) {
  switch (spec.kind) {
    case "raw":
      return spec.payload;
    case "view":
      return { p: "v", d: spec.payload };
    case "requestState":
      return { p: "r", d: spec.payload, o: spec.tool };
    default:
      throw new Error(`unknown kind ${spec.kind}`);
  }
}

const ctxFor = (spec) => (spec.bind === null ? undefined : { principal: spec.bind });

{
  const names = new Set();
  for (const s of specs) {
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(s.name)) throw new Error(`name not kebab-case: ${s.name}`);
    if (names.has(s.name)) throw new Error(`duplicate name: ${s.name}`);
    names.add(s.name);
    if ((s.kind === "requestState") !== (typeof s.tool === "string")) throw new Error(`tool/kind mismatch: ${s.name}`);
    if (!Number.isInteger(s.ttlSeconds)) throw new Error(`non-integer ttl: ${s.name}`);
  }
}

const vectors = [];
for (const spec of specs) {
  const input = mintInput(spec);
  const token = await atClock(spec.nowMs, () => makeCodec(spec).mint(input, ctxFor(spec)));
  vectors.push({
    name: spec.name,
    kind: spec.kind,
    key: "utf8" in spec.key ? { utf8: spec.key.utf8 } : { hex: spec.key.hex },
    nowMs: spec.nowMs,
    ttlSeconds: spec.ttlSeconds,
    exp: Math.floor(spec.nowMs / 1000) + spec.ttlSeconds,
    bind: spec.bind,
    tool: spec.tool,
    payloadJson: JSON.stringify(spec.payload),
    token,
  });
}

const output = {
  generator: `${SDK_NAME}@${SDK_VERSION} createRequestStateCodec (js/gen-vectors.mjs)`,
  vectors,
};
const text = JSON.stringify(output, null, 2) + "\n";
mkdirSync(dirname(OUT_PATH), { recursive: true });
writeFileSync(OUT_PATH, text);

// ---------------------------------------------------------------------------
// Self-check (re-reads the written file)
// ---------------------------------------------------------------------------

const b64url = (buf) => Buffer.from(buf).toString("base64url"); // no padding
const B64URL_RE = /^[A-Za-z0-9_-]*$/;

function b64urlDecodeStrict(s) {
  if (!B64URL_RE.test(s) || s.length % 4 === 1) throw new Error(`not base64url: ${s.slice(0, 20)}...`);
  const buf = Buffer.from(s, "base64url");
  if (b64url(buf) !== s) throw new Error("non-canonical base64url");
  return buf;
}

const written = JSON.parse(readFileSync(OUT_PATH, "utf8"));
strictEqual(JSON.stringify(written, null, 2) + "\n", text, "file round-trip");

let failures = 0;
const mod3 = { 0: 0, 1: 0, 2: 0 };
const perKind = {};

for (let i = 0; i < written.vectors.length; i++) {
  const v = written.vectors[i];
  const spec = specs[i];
  try {
    // The file says what the in-memory spec says.
    strictEqual(v.name, spec.name);
    strictEqual(v.kind, spec.kind);
    deepStrictEqual(v.key, "utf8" in spec.key ? { utf8: spec.key.utf8 } : { hex: spec.key.hex });
    strictEqual(v.nowMs, spec.nowMs);
    strictEqual(v.ttlSeconds, spec.ttlSeconds);
    strictEqual(v.bind, spec.bind);
    strictEqual(v.tool, spec.tool);
    const minted = mintInput(spec);

    // 1. The SDK's own verify: a fresh codec built from the file's fields, same clock.
    const verified = await atClock(v.nowMs, () => makeCodec(v).verify(v.token, ctxFor(v)));
    deepStrictEqual(verified, minted, "verified value");
    deepStrictEqual(verified, JSON.parse(JSON.stringify(minted)), "verified value vs JSON round-trip");
    // payloadJson is exactly JSON.stringify(payload)
    strictEqual(v.payloadJson, JSON.stringify(spec.payload));
    deepStrictEqual(JSON.parse(v.payloadJson), spec.payload);

    // 2. Token shape.
    const parts = v.token.split(".");
    strictEqual(parts.length, 3, "three dot-separated parts");
    strictEqual(parts[0], "v1");
    const [, body, mac] = parts;
    strictEqual(mac.length, 43, "mac length");
    b64urlDecodeStrict(mac);

    // 3. Body is exactly the envelope docs/format.md describes.
    const kb = keyBytes(v.key);
    let inner;
    if (v.kind === "raw") inner = v.payloadJson;
    else if (v.kind === "view") inner = `{"p":"v","d":${v.payloadJson}}`;
    else inner = `{"p":"r","d":${v.payloadJson},"o":${JSON.stringify(v.tool)}}`;
    strictEqual(v.exp, Math.floor(v.nowMs / 1000) + v.ttlSeconds, "exp formula");
    ok(Number.isSafeInteger(v.exp), "integer exp");
    let expected = `{"p":${inner},"exp":${v.exp}`;
    if (v.bind !== null) {
      const tag = b64url(
        createHmac("sha256", kb)
          .update(Buffer.from("mcp.requestState.bind:" + v.bind, "utf8"))
          .digest()
          .subarray(0, 16),
      );
      strictEqual(tag.length, 22, "bind tag length");
      expected += `,"b":"${tag}"`;
    }
    expected += "}";
    const bodyBytes = b64urlDecodeStrict(body);
    strictEqual(bodyBytes.toString("utf8"), expected, "decoded body");
    ok(bodyBytes.equals(Buffer.from(expected, "utf8")), "body bytes");
    strictEqual(body, b64url(Buffer.from(expected, "utf8")), "body encoding");

    // 4. MAC recomputed independently.
    strictEqual(
      mac,
      b64url(
        createHmac("sha256", kb)
          .update("v1." + body, "utf8")
          .digest(),
      ),
      "independent MAC",
    );

    mod3[bodyBytes.length % 3]++;
    perKind[v.kind] ??= { total: 0, unbound: 0, bound: 0, mod3: [0, 0, 0] };
    perKind[v.kind].total++;
    perKind[v.kind][v.bind === null ? "unbound" : "bound"]++;
    perKind[v.kind].mod3[bodyBytes.length % 3]++;
  } catch (err) {
    failures++;
    console.error(`FAIL ${v.name}: ${err.message}`);
  }
}

// Coverage requirements.
for (const k of [0, 1, 2]) {
  if (mod3[k] === 0) {
    failures++;
    console.error(`FAIL coverage: no vector with body byte length mod 3 = ${k}`);
  }
}
for (const kind of ["raw", "view", "requestState"]) {
  const c = perKind[kind];
  if (!c || c.unbound === 0 || c.bound === 0) {
    failures++;
    console.error(`FAIL coverage: kind ${kind} needs bound and unbound vectors`);
  }
  for (const k of [0, 1, 2]) {
    if (!c || c.mod3[k] === 0) {
      failures++;
      console.error(`FAIL coverage: kind ${kind} has no body with byte length mod 3 = ${k}`);
    }
  }
}
if (Date.now !== realDateNow) {
  failures++;
  console.error("FAIL: Date.now was not restored");
}

const rel = fileURLToPath(new URL("../", import.meta.url));
console.log(`wrote ${OUT_PATH.startsWith(rel) ? OUT_PATH.slice(rel.length) : OUT_PATH} (${Buffer.byteLength(text)} bytes, ${written.vectors.length} vectors)`);
console.log(`body bytes mod 3: 0 -> ${mod3[0]}, 1 -> ${mod3[1]}, 2 -> ${mod3[2]}`);
for (const [kind, c] of Object.entries(perKind)) {
  console.log(`  ${kind.padEnd(12)} ${String(c.total).padStart(3)} (unbound ${c.unbound}, bound ${c.bound}); mod 3 = [${c.mod3.join(", ")}]`);
}
if (failures > 0) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
console.log("self-check OK");
