// StateCodec in Node, from the packed tarball the way a consumer gets it
// (js/out/consumer, Node's "node" export condition): what only Node can show
// (entries sharing one module graph, Buffer and other realms' keys, NODE_ENV,
// the warning on stderr, wasm memory). The behaviour suite (js/suite) runs the
// rest of StateCodec in every runtime; interop with the SDK is interop.test.mjs.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { CONSUMER, PACKAGE_DIR, edgeWasmMemory, importPackage, resolvePackage } from "./support.mjs";

const edge = await importPackage();
const { StateCodec, SealedStateError, SEALED_STATE_INVALID_MESSAGE } = edge;

const KEY = "edge-test-key: at least thirty-two bytes long, surely";
const KEY2 = new Uint8Array(32).map((_, i) => i * 7 + 1);
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250); // ms, not on a second boundary
const PAYLOAD = { board: [0, 1, 2, null], turn: 2, name: "Zoë 🎲", nested: { ok: true, n: -1.5e-7 } };

const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });
const execFileP = promisify(execFile);

/** Expect a SealedStateError with this reason, and check its whole shape. */
function refused(fn, reason) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected a SealedStateError(${reason}), nothing was thrown`);
  assert.ok(!(error instanceof WebAssembly.RuntimeError), `a wasm trap: ${error}`);
  assert.ok(error instanceof SealedStateError, `${error?.constructor?.name}: ${error?.message}`);
  assert.ok(error instanceof Error);
  assert.equal(error.name, "SealedStateError");
  assert.equal(error.message, SEALED_STATE_INVALID_MESSAGE);
  assert.equal(error.reason, reason);
  assert.equal(error.cause, reason);
  return error;
}

/** Expect an ordinary, clear JS error (not a trap, not a SealedStateError). */
function clearError(fn, type, pattern) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error, "expected an error, nothing was thrown");
  assert.ok(!(error instanceof WebAssembly.RuntimeError), `a wasm trap: ${error}`);
  assert.ok(error instanceof type, `${error?.constructor?.name}: ${error?.message}`);
  assert.match(error.message, pattern);
  assert.match(error.message, /^(mcp-sealed-state|createRequestStateCodec): /);
  return error;
}

/** Every carrier still seals and opens: the module was not left broken. */
function stillWorks(codec) {
  const bind = { bind: "still-works" };
  assert.deepEqual(codec.open(codec.seal(PAYLOAD, bind), bind), PAYLOAD);
  assert.deepEqual(codec.openRequestState(codec.sealRequestState(PAYLOAD, "tool", bind), "tool", bind), PAYLOAD);
  assert.deepEqual(codec.verify(codec.mint(PAYLOAD)), PAYLOAD);
}

test("one SealedStateError and one ViewStateError class across every entry a program imports", async () => {
  assert.equal((await importPackage("/edge")).StateCodec, StateCodec);
  // The edge's browser entry fetches its .wasm, which Node cannot do from a file: URL.
  const entries = [await importPackage("/widget"), await import(pathToFileURL(join(PACKAGE_DIR, "widget/browser.js")).href)];
  const { ViewStateError } = entries[0];
  assert.equal(typeof ViewStateError, "function");
  assert.throws(
    () => new StateCodec({ key: KEY2 }).open("v1.x"),
    (e) => e instanceof SealedStateError && e.name === "SealedStateError" && e.constructor.name === "SealedStateError" && e.reason === "malformed",
  );
  for (const entry of entries) {
    assert.equal(entry.SealedStateError, SealedStateError);
    assert.equal(entry.ViewStateError, ViewStateError);
    assert.throws(
      () => entry.checkViewState({ big: "x".repeat(100) }, 10),
      (e) => e instanceof ViewStateError && e.name === "ViewStateError" && e.constructor.name === "ViewStateError" && e.code === -32602,
    );
    assert.throws(
      () => entry.readTokenUnverified("v1.x.y"),
      (e) => e instanceof SealedStateError && e.name === "SealedStateError" && e.constructor.name === "SealedStateError" && e.reason === "malformed",
    );
  }
});

test("under a frozen globalThis (SES-style lockdown) every entry works, with one class", async () => {
  // Node defines some globals lazily, on first read: read them before freezing.
  const program = `void [TextDecoder, TextEncoder, FinalizationRegistry, WebAssembly, performance, crypto];
Object.freeze(globalThis);
const edge = await import("mcp-sealed-state");
const widget = await import("mcp-sealed-state/widget");
const codec = new edge.StateCodec({ key: "k".repeat(32) });
const reason = (f, cls) => { try { f(); } catch (e) { return e instanceof cls && e.reason; } };
console.log(JSON.stringify({
  opened: codec.open(codec.seal({ x: 1 })),
  edge: reason(() => codec.open("v1.x"), edge.SealedStateError),
  widget: reason(() => widget.readTokenUnverified("v1.x"), widget.SealedStateError),
  same: edge.SealedStateError === widget.SealedStateError,
}));`;
  const { stdout } = await execFileP(process.execPath, ["--input-type=module", "-e", program], { cwd: CONSUMER });
  assert.deepEqual(JSON.parse(stdout), { opened: { x: 1 }, edge: "malformed", widget: "malformed", same: true });
});

test("keys: a Buffer, and a Uint8Array from another realm, are their bytes", async () => {
  const { runInNewContext } = await import("node:vm");
  assert.equal(new StateCodec({ key: Buffer.from(KEY2), now: () => T0 }).seal(1), new StateCodec({ key: KEY2, now: () => T0 }).seal(1));
  const foreign = runInNewContext("new Uint8Array(32).fill(7)");
  assert.equal(foreign instanceof Uint8Array, false);
  assert.equal(new StateCodec({ key: foreign, now: () => T0 }).seal(1), new StateCodec({ key: new Uint8Array(32).fill(7), now: () => T0 }).seal(1));
});

const nodeEntry = pathToFileURL(resolvePackage()).href;
/** Run a snippet in a fresh Node process (fresh module state) with `env`. */
async function child(source, env) {
  const script = `import * as m from ${JSON.stringify(nodeEntry)};\n${source}`;
  const cleanEnv = { ...process.env };
  delete cleanEnv.NODE_ENV;
  delete cleanEnv.NODE_OPTIONS;
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ["--input-type=module", "-e", script], { env: { ...cleanEnv, ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test("a missing key with NODE_ENV=production (child process): construction throws", async () => {
  const r = await child(`try { new m.StateCodec(); console.log("constructed"); } catch (e) { console.log(e.constructor.name + ": " + e.message); process.exit(3); }`, { NODE_ENV: "production" });
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(r.stdout, /^RangeError: mcp-sealed-state: no key configured, and production mode refuses/);
  assert.equal(r.stderr, "");
  // An explicit production: false wins over NODE_ENV.
  const dev = await child(`new m.StateCodec({ production: false }); console.log("ok");`, { NODE_ENV: "production" });
  assert.equal(dev.code, 0, dev.stderr);
  assert.equal(dev.stdout.trim(), "ok");
});

// One development key per process: a codec built per request must open the
// tokens of the previous request's codec.
test("no key in development (child process): one development key per process, drawn at first use; the warning logged once", async () => {
  const r = await child(
    `const a = new m.StateCodec(), b = new m.StateCodec(), c = new m.StateCodec({ key: ${JSON.stringify(KEY)} });
     console.error("built");
     const t = a.seal({ n: 1 });
     console.log(JSON.stringify(a.open(t)));
     try { console.log("b opened " + JSON.stringify(b.open(t))); } catch (e) { console.log("b: " + e.reason); }
     try { c.open(t); console.log("c opened"); } catch (e) { console.log("c: " + e.reason); }
     const d = new m.StateCodec({ ttlSeconds: 60 });
     console.log(JSON.stringify(d.openWithSecret(b.seal(3, { secret: "s" }))));`,
    {},
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split("\n"), ['{"n":1}', 'b opened {"n":1}', "c: mac", '{"payload":3,"secret":"s"}']);
  const warnings = r.stderr.split("\n").filter((l) => l.includes("no key configured"));
  assert.equal(warnings.length, 1, r.stderr);
  // Drawn (and warned about) at the first seal, not at construction.
  assert.ok(r.stderr.indexOf("built") < r.stderr.indexOf("no key configured"), r.stderr);
  // What the key is good for, and how to make a missing key fatal.
  assert.match(warnings[0], /once per process \(once per isolate on Cloudflare Workers\)/);
  assert.match(warnings[0], /NODE_ENV=production/);
  assert.match(warnings[0], /new StateCodec\(\{ env \}\)/);
  assert.match(r.stderr, /at least 32 bytes/);
});

test("huge tokens (10 MB, 100 MB) are refused before they are copied into wasm", async () => {
  const codec = at(T0);
  // Linear memory only grows, and a string copied into wasm needs at least its
  // length in bytes: growth under 1 MiB means the 10 MB token never reached it.
  const memory = await edgeWasmMemory();
  assert.ok(memory instanceof WebAssembly.Memory);
  const before = memory.buffer.byteLength;
  for (const mb of [10, 100]) {
    const body = "A".repeat(mb * 1_000_000);
    for (const token of [`v1.${body}.${"A".repeat(43)}`, body]) {
      refused(() => codec.open(token), "malformed");
      refused(() => codec.openRequestState(token, "move"), "malformed");
      refused(() => codec.verify(token), "malformed");
      stillWorks(codec);
    }
  }
  assert.ok(memory.buffer.byteLength - before < 1 << 20, `wasm memory grew by ${memory.buffer.byteLength - before} B`);
});

test("under a large maxTokenBytes a 10 MB forgery reaches wasm, which refuses it without a trap", () => {
  const roomy = at(T0, { maxTokenBytes: 20_000_000 });
  refused(() => roomy.open(`v1.${"A".repeat(10_000_000)}.${"A".repeat(43)}`), "mac");
  refused(() => roomy.open(`v1.${"é".repeat(1_000_000)}.${"A".repeat(43)}`), "malformed");
  stillWorks(roomy);
});

test("non-JSON-serializable payloads: a TypeError from every sealer that names JSON.stringify's reason", () => {
  const codec = at(T0);
  const cycle = { a: 1 };
  cycle.self = cycle;
  const bads = [
    [1n, /BigInt/],
    [{ nested: [2n] }, /BigInt/],
    [cycle, /circular/i],
    [undefined, /undefined, a function or a symbol/],
    [() => 1, /undefined, a function or a symbol/],
    [Symbol("s"), /undefined, a function or a symbol/],
    [
      {
        toJSON() {
          throw new Error("boom");
        },
      },
      /boom/,
    ],
  ];
  for (const [payload, why] of bads) {
    for (const seal of [(p) => codec.seal(p), (p) => codec.sealRequestState(p, "move"), (p) => codec.mint(p), (p) => codec.seal(p, { bind: "u" })]) {
      const e = clearError(() => seal(payload), TypeError, /payload is not JSON-serializable/);
      assert.match(e.message, why);
      stillWorks(codec);
    }
  }
  // What JSON.stringify accepts is sealed as it writes it.
  assert.deepEqual(codec.open(codec.seal({ a: undefined, b: [undefined, () => 1], c: new Date(T0), d: NaN })), {
    b: [null, null],
    c: new Date(T0).toISOString(),
    d: null,
  });
});
