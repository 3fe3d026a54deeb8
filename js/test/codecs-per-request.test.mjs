// Codecs per request (docs/server.md, "A codec per request"): a server that
// builds a StateCodec or a drop-in codec inside every request and never frees
// it keeps wasm memory flat, with no FinalizationRegistry (workerd before
// 2025-05-05) and in a synchronous burst. And sharing one wasm codec between
// codecs of the same keys never mixes codecs of different keys or options.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, test } from "node:test";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { EDGE_GLUE_URL, PACKAGE_DIR, importPackage, resolvePackage } from "./support.mjs";
import { bundleForWorkerd, importTool } from "../lib/workerd.mjs";

const { StateCodec, SealedStateError, createRequestStateCodec } = await importPackage();
const nodeEntry = pathToFileURL(resolvePackage()).href;
const execFileP = promisify(execFile);
const MIB = 1024 * 1024;
const KEY = "per-request key: thirty-two bytes at least";

// What each request does, pasted into the child and the Worker: build a
// codec, seal and open a 64 KiB payload, drop it without free().
const REQUEST = `
const KEY = ${JSON.stringify(KEY)};
const PAYLOAD = "x".repeat(64 * 1024);
async function oneRequest(kind, i) {
  if (kind === "StateCodec") {
    const codec = new StateCodec({ key: KEY });
    if (codec.open(codec.seal({ i, data: PAYLOAD })).i !== i) throw new Error("the token did not open");
  } else {
    const codec = createRequestStateCodec({ key: KEY });
    if ((await codec.verify(await codec.mint({ i, data: PAYLOAD }))).i !== i) throw new Error("the token did not open");
  }
}`;

describe("Node without FinalizationRegistry: 2,000 codecs, 64 KiB payloads, wasm memory flat after the first 100", () => {
  // A codec that kept its own ~200 KiB of buffers would make 2,000 of them ~400 MiB.
  for (const kind of ["StateCodec", "drop-in"]) {
    for (const turns of ["one synchronous loop", "a macrotask between requests"]) {
      test(`${kind}, ${turns}`, async () => {
        const between = turns === "one synchronous loop" ? "" : "await new Promise((r) => setImmediate(r));";
        const source = `
          globalThis.FinalizationRegistry = undefined;
          const { StateCodec, createRequestStateCodec } = await import(${JSON.stringify(nodeEntry)});
          const { memory } = (await import(${JSON.stringify(EDGE_GLUE_URL)})).initSync();
          ${REQUEST}
          const pending = [];
          let after100;
          for (let i = 0; i < 2000; i++) {
            pending.push(oneRequest(${JSON.stringify(kind)}, i));
            ${between}
            if (i === 99) { await Promise.all(pending); after100 = memory.buffer.byteLength; }
          }
          await Promise.all(pending);
          console.log(JSON.stringify({ after100, end: memory.buffer.byteLength }));`;
        const { stdout } = await execFileP(process.execPath, ["--input-type=module", "-e", source], { maxBuffer: 1 << 20 });
        const { after100, end } = JSON.parse(stdout.trim().split("\n").at(-1));
        assert.ok(end - after100 <= MIB, `wasm memory grew from ${after100} to ${end} bytes`);
      });
    }
  }
});

describe("real workerd, compatibility date 2024-06-01 (no FinalizationRegistry): a codec per fetch() keeps wasm memory flat", () => {
  test("500 requests of each kind: the same wasm memory at 100 and at 500", async () => {
    const { Miniflare } = await importTool("miniflare");
    const source = `
      import { StateCodec, createRequestStateCodec } from "mcp-sealed-state";
      import { initSync } from ${JSON.stringify(join(PACKAGE_DIR, "wasm/edge.js"))};
      ${REQUEST}
      export default {
        async fetch(request) {
          const kind = new URL(request.url).searchParams.get("kind");
          const n = Number(new URL(request.url).searchParams.get("n"));
          for (let i = 0; i < n; i++) await oneRequest(kind, i);
          return Response.json({ wasm: initSync().memory.buffer.byteLength, finalizationRegistry: typeof FinalizationRegistry });
        },
      };`;
    const built = await bundleForWorkerd({ source, sourcefile: "per-request.test.js" });
    for (const kind of ["StateCodec", "drop-in"]) {
      const mf = new Miniflare({ modules: built.modules, modulesRoot: "/", compatibilityDate: "2024-06-01", cf: false });
      try {
        // Each fetch() is a request of its own; the counts are requests, not loops inside one.
        const fetchOnce = async () => (await mf.dispatchFetch(`http://w/?kind=${encodeURIComponent(kind)}&n=1`)).json();
        let r;
        for (let i = 0; i < 100; i++) r = await fetchOnce();
        assert.equal(r.finalizationRegistry, "undefined", "this compatibility date has no FinalizationRegistry");
        const at100 = r.wasm;
        for (let i = 100; i < 500; i++) r = await fetchOnce();
        assert.equal(r.wasm, at100, `${kind}: wasm memory grew from ${at100} to ${r.wasm} bytes`);
      } finally {
        await mf.dispose();
      }
    }
  });
});

describe("codecs share a wasm codec only when their keys and options are the same", () => {
  const T0 = Date.UTC(2026, 6, 28, 12, 0, 0);
  const keyOf = (i) => `tenant-${String(i).padStart(3, "0")}: a key of at least thirty-two bytes`;

  test("40 keys in turn (more than the cache keeps): each codec opens its own tokens and refuses the others'", () => {
    const codecs = Array.from({ length: 40 }, (_, i) => new StateCodec({ key: keyOf(i), now: () => T0 }));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < codecs.length; i++) {
        const token = codecs[i].seal({ i, round });
        assert.deepEqual(codecs[i].open(token), { i, round });
        // A codec built afresh with the same key (a new request) opens it too.
        assert.deepEqual(new StateCodec({ key: keyOf(i), now: () => T0 }).open(token), { i, round });
        const other = codecs[(i + 17) % codecs.length];
        assert.throws(
          () => other.open(token),
          (e) => e instanceof SealedStateError && e.reason === "mac",
        );
      }
    }
  });

  test("the same key with other options is another codec: ttl, leeway, maxTokenBytes, key lists", () => {
    const base = new StateCodec({ key: KEY, now: () => T0, ttlSeconds: 600 });
    const short = new StateCodec({ key: KEY, now: () => T0, ttlSeconds: 1 });
    const later = new StateCodec({ key: KEY, now: () => T0 + 2000 });
    assert.throws(
      () => later.open(short.seal(1)),
      (e) => e.reason === "expired",
    );
    assert.equal(later.open(base.seal(1)), 1);
    const lenient = new StateCodec({ key: KEY, now: () => T0 + 2000, leewaySeconds: 5 });
    assert.equal(lenient.open(short.seal(2)), 2);
    const small = new StateCodec({ key: KEY, now: () => T0, maxTokenBytes: 100 });
    assert.throws(() => small.seal("x".repeat(200)), RangeError);
    assert.equal(base.open(base.seal("x".repeat(200))), "x".repeat(200));
    // [KEY, OTHER] seals with KEY; [OTHER, KEY] with OTHER: never one codec.
    const OTHER = "another key, also thirty-two bytes long";
    const a = new StateCodec({ key: [KEY, OTHER], now: () => T0 });
    const b = new StateCodec({ key: [OTHER, KEY], now: () => T0 });
    assert.equal(new StateCodec({ key: KEY, now: () => T0 }).open(a.seal(3)), 3);
    assert.throws(
      () => new StateCodec({ key: KEY, now: () => T0 }).open(b.seal(3)),
      (e) => e.reason === "mac",
    );
  });

  test("a key the caller changes after construction does not change the codec (it was copied)", () => {
    const bytes = new TextEncoder().encode(KEY);
    const codec = new StateCodec({ key: bytes, now: () => T0 });
    bytes.fill(0x41);
    const token = codec.seal("kept");
    assert.equal(new StateCodec({ key: KEY, now: () => T0 }).open(token), "kept");
    assert.throws(
      () => new StateCodec({ key: bytes, now: () => T0 }).open(token),
      (e) => e.reason === "mac",
    );
  });

  test("free() retires that codec alone: another of the same key, built before or after, still works", () => {
    const before = new StateCodec({ key: KEY, now: () => T0 });
    const freed = new StateCodec({ key: KEY, now: () => T0 });
    freed.free();
    assert.throws(() => freed.seal(1), /make a new StateCodec/);
    assert.equal(before.open(before.seal(1)), 1);
    const after = new StateCodec({ key: KEY, now: () => T0 });
    assert.equal(after.open(before.seal(2)), 2);
  });

  test("a clock that builds other codecs mid-call (evicting this one's) still gets its own key's token", () => {
    let evict = false;
    const codec = new StateCodec({
      key: KEY,
      now: () => {
        if (evict) for (let i = 0; i < 20; i++) new StateCodec({ key: keyOf(100 + i) }).seal(i);
        return T0;
      },
    });
    evict = true;
    const token = codec.seal("mine");
    evict = false;
    assert.equal(new StateCodec({ key: KEY, now: () => T0 }).open(token), "mine");
  });

  test("drop-in codecs of one key per request verify each other's tokens", async () => {
    const token = await createRequestStateCodec({ key: KEY }).mint({ n: 1 });
    for (let i = 0; i < 20; i++) assert.deepEqual(await createRequestStateCodec({ key: KEY }).verify(token), { n: 1 });
    await assert.rejects(createRequestStateCodec({ key: keyOf(1) }).verify(token), { message: "mac" });
  });
});
