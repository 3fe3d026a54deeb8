// The edge entry's StateCodec surface, imported from the packed tarball the way
// a consumer gets it (js/out/consumer, Node's "node" export condition).
// Interop with @modelcontextprotocol/server lives in interop.test.mjs.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { CONSUMER, PACKAGE_DIR, importPackage, importPackageWithWasmMemory, resolvePackage } from "./support.mjs";

// With the memory of the entry's own wasm instance (see "huge tokens" below).
const { entry: edge, memory } = await importPackageWithWasmMemory();
const { StateCodec, SealedStateError, SEALED_STATE_INVALID_MESSAGE, STATE_META_KEY } = edge;

const KEY = "edge-test-key: at least thirty-two bytes long, surely";
const KEY2 = new Uint8Array(32).map((_, i) => i * 7 + 1);
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250); // ms, not on a second boundary
const S0 = Math.floor(T0 / 1000);
const TOKEN = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;
const PAYLOAD = { board: [0, 1, 2, null], turn: 2, name: "Zoë 🎲", nested: { ok: true, n: -1.5e-7 } };

const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });
const envelope = (token) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8"));
const execFileP = promisify(execFile);
/** A token with a VALID MAC (node:crypto) around any body bytes: reaches the body checks. */
const signed = (body, key = KEY) => {
  const b = Buffer.from(body).toString("base64url");
  return `v1.${b}.${createHmac("sha256", key).update(`v1.${b}`).digest("base64url")}`;
};

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

test("exports: the constants, the error class, the same module under . and ./edge", async () => {
  assert.equal(STATE_META_KEY, "ng-mcp-ui/state");
  assert.equal(typeof SEALED_STATE_INVALID_MESSAGE, "string");
  assert.ok(SEALED_STATE_INVALID_MESSAGE.length > 0);
  const sub = await importPackage("/edge");
  assert.equal(sub.StateCodec, StateCodec);
  assert.equal(sub.SealedStateError, SealedStateError);
  const widget = await importPackage("/widget");
  assert.equal(widget.SEALED_STATE_INVALID_MESSAGE, SEALED_STATE_INVALID_MESSAGE);
  assert.equal(typeof edge.createRequestStateCodec, "function");
});

test("one SealedStateError and one ViewStateError class across every bundled entry a program imports, each carrying its own copy", async () => {
  // The edge's browser entry fetches its .wasm, which Node cannot do from a file: URL.
  const entries = [await importPackage("/widget"), await import(pathToFileURL(join(PACKAGE_DIR, "widget/browser.js")).href)];
  for (const entry of entries) {
    assert.equal(entry.SealedStateError, SealedStateError);
    assert.equal(entry.ViewStateError, edge.ViewStateError);
  }
  for (const entry of [edge, ...entries]) {
    assert.throws(
      () => entry.checkViewState({ big: "x".repeat(100) }, 10),
      (e) => e instanceof edge.ViewStateError && e.name === "ViewStateError" && e.constructor.name === "ViewStateError" && e.code === -32602,
    );
  }
  for (const entry of [edge, ...entries]) {
    assert.throws(
      () => entry.readTokenUnverified("v1.x.y"),
      (e) => e instanceof SealedStateError && e.name === "SealedStateError" && e.constructor.name === "SealedStateError" && e.reason === "malformed",
    );
  }
  // The class is registered once, and a later script cannot swap it.
  const { version } = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));
  for (const cls of [SealedStateError, edge.ViewStateError]) {
    const key = Symbol.for(`mcp-sealed-state@${version} ${cls.name}`);
    assert.equal(globalThis[key], cls);
    // Modules are strict code: assigning to the non-writable property throws.
    assert.throws(() => {
      globalThis[key] = class extends Error {};
    }, TypeError);
    assert.equal(globalThis[key], cls);
  }
});

test("under a frozen globalThis (SES-style lockdown) every entry still works, each with its own class", async () => {
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
  assert.deepEqual(JSON.parse(stdout), { opened: { x: 1 }, edge: "malformed", widget: "malformed", same: false });
});

describe("the three carriers, with and without bind", () => {
  const codec = at(T0);
  const carriers = [
    { name: "seal/open", seal: (p, o) => codec.seal(p, o), open: (t, o) => codec.open(t, o), inner: (d) => ({ p: "v", d }) },
    {
      name: "sealRequestState/openRequestState",
      seal: (p, o) => codec.sealRequestState(p, "move", o),
      open: (t, o) => codec.openRequestState(t, "move", o),
      inner: (d) => ({ p: "r", d, o: "move" }),
    },
    { name: "mint/verify", seal: (p, o) => codec.mint(p, o), open: (t, o) => codec.verify(t, o), inner: (d) => d },
  ];
  for (const c of carriers) {
    for (const bind of [undefined, "user-42"]) {
      const opts = bind === undefined ? undefined : { bind };
      test(`${c.name} ${bind ? "bound" : "unbound"}`, () => {
        for (const payload of [PAYLOAD, null, 0, "text", [1, [2]], true, { "": "\u2028\ud83d\ude00" }]) {
          const token = c.seal(payload, opts);
          assert.match(token, TOKEN);
          assert.deepEqual(c.open(token, opts), payload);
          const env = envelope(token);
          assert.deepEqual(env.p, c.inner(payload));
          assert.equal(env.exp, S0 + 600);
          // Keys in SPEC order, as JSON.stringify writes them.
          assert.deepEqual(Object.keys(env), bind ? ["p", "exp", "b"] : ["p", "exp"]);
          if (bind) assert.match(env.b, /^[A-Za-z0-9_-]{22}$/);
        }
        // Binding fails closed both ways, and on another value.
        const token = c.seal(PAYLOAD, opts);
        if (bind) {
          refused(() => c.open(token), "bind");
          refused(() => c.open(token, { bind: "user-43" }), "bind");
          refused(() => c.open(token, { bind: "" }), "bind");
        } else {
          refused(() => c.open(token, { bind: "user-42" }), "bind");
        }
      });
    }
  }

  test("purposes never mix; requestState opens only for its tool", () => {
    const view = codec.seal(PAYLOAD);
    const rs = codec.sealRequestState(PAYLOAD, "move");
    const raw = codec.mint(PAYLOAD);
    refused(() => codec.openRequestState(view, "move"), "purpose");
    refused(() => codec.open(rs), "purpose");
    refused(() => codec.openRequestState(rs, "start"), "purpose");
    refused(() => codec.openRequestState(rs, "Move"), "purpose");
    refused(() => codec.open(raw), "purpose");
    refused(() => codec.openRequestState(raw, "move"), "purpose");
    // A raw payload that merely looks like an envelope is still raw: the SDK's verify sees it all.
    assert.deepEqual(codec.verify(view), { p: "v", d: PAYLOAD });
    assert.deepEqual(codec.verify(rs), { p: "r", d: PAYLOAD, o: "move" });
  });

  test("the same input at the same clock gives the same token; re-sealing later restarts the lifetime", () => {
    assert.equal(codec.seal(PAYLOAD, { bind: "u" }), at(T0).seal(PAYLOAD, { bind: "u" }));
    const later = at(T0 + 5000).seal(PAYLOAD);
    assert.equal(envelope(later).exp, S0 + 5 + 600);
  });
});

describe("SealedStateError, one per reason", () => {
  const codec = at(T0);
  const token = codec.seal(PAYLOAD, { bind: "u" });
  const cases = {
    malformed: [
      "not a token",
      "v1.",
      "v1.abc",
      "v1.a.b.c",
      "v2.e30.AAAA",
      "v1.e30=.AAAA",
      // Correct MAC, bad body: the body is checked after the MAC.
      signed("not json"),
      signed("[1,2]"),
      signed('{"exp":9999999999}'),
      signed(`{"p":{"p":"v","d":1},"exp":${S0 + 60}.5}`),
      signed(`{"p":{"p":"v","d":1},"exp":"${S0 + 60}"}`),
      signed(Buffer.from([0x7b, 0xff, 0x7d])),
      signed(`{"p":{"p":"v","d":1},"exp":${S0 + 60}`),
    ],
    mac: [
      token.slice(0, -2) + (token.endsWith("AA") ? "BA" : "AA"),
      token.replace(/\.(.)/, (_, ch) => `.${ch === "e" ? "f" : "e"}`),
      new StateCodec({ key: KEY2, now: () => T0 }).seal(PAYLOAD, { bind: "u" }),
    ],
    expired: [at(T0 - 601_000).seal(PAYLOAD, { bind: "u" })],
    bind: [codec.seal(PAYLOAD, { bind: "v" }), codec.seal(PAYLOAD)],
    purpose: [codec.sealRequestState(PAYLOAD, "move", { bind: "u" }), codec.mint(PAYLOAD, { bind: "u" })],
  };
  for (const [reason, tokens] of Object.entries(cases)) {
    test(reason, () => {
      for (const t of tokens) {
        const e = refused(() => codec.open(t, { bind: "u" }), reason);
        // The reason is for logs only: the message and its string form never say it.
        assert.ok(!String(e).includes(reason) || SEALED_STATE_INVALID_MESSAGE.includes(reason));
      }
      stillWorks(codec);
    });
  }
  test("the good token opens; the message is the same for every reason", () => {
    assert.deepEqual(codec.open(token, { bind: "u" }), PAYLOAD);
    const messages = new Set(
      Object.entries(cases).map(([, ts]) => {
        try {
          codec.open(ts[0], { bind: "u" });
        } catch (e) {
          return e.message;
        }
      }),
    );
    assert.deepEqual([...messages], [SEALED_STATE_INVALID_MESSAGE]);
    const e = new SealedStateError("mac");
    assert.equal(e.message, SEALED_STATE_INVALID_MESSAGE);
    assert.equal(e.reason, "mac");
  });
});

describe("key rotation: the first key seals, every key opens", () => {
  const oldCodec = new StateCodec({ key: KEY, now: () => T0 });
  const rotated = new StateCodec({ key: [KEY2, KEY], now: () => T0 });
  const newOnly = new StateCodec({ key: KEY2, now: () => T0 });

  test("old tokens open after rotation (bound too); new tokens are sealed with the new key", () => {
    for (const bind of [undefined, "user-42"]) {
      const opts = bind && { bind };
      const old = oldCodec.seal(PAYLOAD, opts);
      assert.deepEqual(rotated.open(old, opts), PAYLOAD);
      assert.deepEqual(rotated.openRequestState(oldCodec.sealRequestState(PAYLOAD, "t", opts), "t", opts), PAYLOAD);
      assert.deepEqual(rotated.verify(oldCodec.mint(PAYLOAD, opts), opts), PAYLOAD);
      const fresh = rotated.seal(PAYLOAD, opts);
      assert.equal(fresh, newOnly.seal(PAYLOAD, opts), "the first key seals");
      assert.deepEqual(newOnly.open(fresh, opts), PAYLOAD);
      refused(() => oldCodec.open(fresh, opts), "mac");
    }
  });

  test("the bind tag is checked with the key whose MAC matched", () => {
    // A token sealed by KEY carries KEY's bind tag; opening it under [KEY2, KEY]
    // must not compare against KEY2's tag for the same value.
    const old = oldCodec.seal(PAYLOAD, { bind: "alice" });
    assert.deepEqual(rotated.open(old, { bind: "alice" }), PAYLOAD);
    refused(() => rotated.open(old, { bind: "bob" }), "bind");
  });

  test("three keys, and a short key anywhere in the list is refused by index", () => {
    const three = new StateCodec({ key: [KEY2, "k".repeat(40), KEY], now: () => T0 });
    assert.deepEqual(three.open(oldCodec.seal(1)), 1);
    clearError(() => new StateCodec({ key: [KEY, "short"] }), RangeError, /key #1 is 5 bytes/);
  });
});

describe("the clock: now() in ms, exp in seconds, expiry and leeway", () => {
  test("exp = floor(now / 1000) + ttl", () => {
    for (const [now, ttl] of [
      [T0, 600],
      [T0, 30],
      [S0 * 1000, 1],
      [S0 * 1000 + 999, 0],
      [T0, -5],
    ]) {
      const c = at(now, { ttlSeconds: ttl });
      for (const t of [c.seal(1), c.sealRequestState(1, "x"), c.mint(1)]) assert.equal(envelope(t).exp, Math.floor(now / 1000) + ttl);
    }
  });

  test("a token opens through its exp second and is expired from the next", () => {
    const token = at(T0, { ttlSeconds: 30 }).seal(PAYLOAD);
    const exp = S0 + 30;
    assert.deepEqual(at(exp * 1000 + 999).open(token), PAYLOAD);
    refused(() => at((exp + 1) * 1000).open(token), "expired");
    // ttl 0: good for the rest of the current second.
    const zero = at(T0, { ttlSeconds: 0 }).seal(PAYLOAD);
    assert.deepEqual(at(S0 * 1000 + 999).open(zero), PAYLOAD);
    refused(() => at((S0 + 1) * 1000).open(zero), "expired");
    // A negative ttl is born expired.
    refused(() => at(T0).open(at(T0, { ttlSeconds: -1 }).seal(1)), "expired");
  });

  test("leewaySeconds extends the acceptance window, not exp", () => {
    const token = at(T0, { ttlSeconds: 30 }).seal(PAYLOAD);
    assert.equal(envelope(at(T0, { ttlSeconds: 30, leewaySeconds: 5 }).seal(PAYLOAD)).exp, S0 + 30);
    const exp = S0 + 30;
    assert.deepEqual(at((exp + 5) * 1000 + 999, { leewaySeconds: 5 }).open(token), PAYLOAD);
    refused(() => at((exp + 6) * 1000, { leewaySeconds: 5 }).open(token), "expired");
    refused(() => at((exp + 1) * 1000).verify(at(T0, { ttlSeconds: 30 }).mint(1)), "expired");
  });

  test("now() is read on every call", () => {
    let now = T0;
    const c = new StateCodec({ key: KEY, ttlSeconds: 10, now: () => now });
    const t = c.seal(1);
    now += 11_000;
    refused(() => c.open(t), "expired");
    assert.equal(envelope(c.seal(1)).exp, S0 + 11 + 10);
  });

  test("a clock that is not a finite number is refused, not read as the epoch", () => {
    const token = at(T0).seal(1);
    for (const bad of [NaN, Infinity, undefined, "1796032481000", 1n, new Date(T0)]) {
      const c = new StateCodec({ key: KEY, now: () => bad });
      clearError(() => c.open(token), TypeError, /now\(\) must return finite milliseconds/);
      clearError(() => c.seal(1), TypeError, /now\(\) must return finite milliseconds/);
    }
    clearError(() => new StateCodec({ key: KEY, now: 5 }), TypeError, /now must be a function/);
    stillWorks(at(T0));
  });
});

describe("construction errors are clear", () => {
  test("keys shorter than 32 bytes, counted in UTF-8 bytes", () => {
    clearError(() => new StateCodec({ key: "k".repeat(31) }), RangeError, /key #0 is 31 bytes; keys must be at least 32 bytes/);
    clearError(() => new StateCodec({ key: new Uint8Array(31) }), RangeError, /31 bytes/);
    clearError(() => new StateCodec({ key: "" }), RangeError, /0 bytes/);
    // The length that counts is UTF-8 bytes, not String.length (UTF-16 units).
    // Note: a string whose UTF-16 length is >= 32 always has >= 32 UTF-8
    // bytes (every code unit encodes to 1-3 bytes, a pair to 4, a lone
    // surrogate to the 3-byte U+FFFD), so the case that can bite is the
    // other way round: fewer than 32 code units but 32+ bytes.
    const short = "é".repeat(15) + "a"; // 16 units, 31 bytes
    const exact = "é".repeat(16); // 16 units, 32 bytes
    const emoji = "😀".repeat(8); // 16 units, 32 bytes
    const emojiShort = "😀".repeat(7) + "abc"; // 17 units, 31 bytes
    const lone = "\ud800".repeat(11); // 11 units, 33 bytes (U+FFFD each)
    for (const [key, units, bytes] of [
      [short, 16, 31],
      [exact, 16, 32],
      [emoji, 16, 32],
      [emojiShort, 17, 31],
      [lone, 11, 33],
    ]) {
      assert.equal(key.length, units);
      assert.equal(new TextEncoder().encode(key).length, bytes);
      if (bytes < 32) clearError(() => new StateCodec({ key }), RangeError, new RegExp(`is ${bytes} bytes`));
      else stillWorks(new StateCodec({ key }));
    }
    // A string key and its UTF-8 bytes are the same key.
    const t = new StateCodec({ key: exact, now: () => T0 }).seal(1);
    assert.equal(new StateCodec({ key: new TextEncoder().encode(exact), now: () => T0 }).open(t), 1);
  });

  test("key types", async () => {
    for (const key of [42, {}, [KEY, 7], true, null]) clearError(() => new StateCodec({ key: [key] }), TypeError, /must be a string or a Uint8Array/);
    // Typed arrays other than Uint8Array are refused, not reinterpreted: their elements are not bytes.
    for (const Kind of [Uint16Array, Int8Array, Uint8ClampedArray, Int32Array, Float32Array, Float64Array, BigUint64Array]) {
      clearError(() => new StateCodec({ key: new Kind(64) }), TypeError, new RegExp(`must be a string or a Uint8Array, not a ${Kind.name} \\(its elements are not bytes`));
      clearError(() => new StateCodec({ key: [KEY, new Kind(64)] }), TypeError, /key #1 must be/);
    }
    // A Buffer is a Uint8Array; a Uint8Array from another realm is one too.
    const { runInNewContext } = await import("node:vm");
    assert.equal(new StateCodec({ key: Buffer.from(KEY2), now: () => T0 }).seal(1), new StateCodec({ key: KEY2, now: () => T0 }).seal(1));
    const foreign = runInNewContext("new Uint8Array(32).fill(7)");
    assert.equal(foreign instanceof Uint8Array, false);
    assert.equal(new StateCodec({ key: foreign, now: () => T0 }).seal(1), new StateCodec({ key: new Uint8Array(32).fill(7), now: () => T0 }).seal(1));
    // ArrayBuffer and DataView are read as their bytes.
    const buf = new ArrayBuffer(32);
    new Uint8Array(buf).set(KEY2);
    const viaBuffer = new StateCodec({ key: buf, now: () => T0 });
    const viaView = new StateCodec({ key: new DataView(buf), now: () => T0 });
    assert.equal(viaBuffer.seal(1), new StateCodec({ key: KEY2, now: () => T0 }).seal(1));
    assert.equal(viaView.seal(1), viaBuffer.seal(1));
  });

  test("the key bytes are copied at construction", () => {
    const key = new Uint8Array(KEY2);
    const c = new StateCodec({ key, now: () => T0 });
    const before = c.seal(1);
    key.fill(0);
    assert.equal(c.seal(1), before);
  });

  test("ttlSeconds, leewaySeconds, maxTokenBytes", () => {
    for (const ttl of [NaN, Infinity, -Infinity, "600", {}]) {
      clearError(() => new StateCodec({ key: KEY, ttlSeconds: ttl }), RangeError, /ttlSeconds must be a finite number/);
    }
    clearError(() => new StateCodec({ key: KEY, ttlSeconds: 1.5 }), RangeError, /ttlSeconds must be a safe integer$/);
    clearError(() => new StateCodec({ key: KEY, leewaySeconds: -1 }), RangeError, /leewaySeconds must be a safe integer >= 0$/);
    clearError(() => new StateCodec({ key: KEY, leewaySeconds: NaN }), RangeError, /leewaySeconds must be a finite number/);
    clearError(() => new StateCodec({ key: KEY, maxTokenBytes: 0 }), RangeError, /maxTokenBytes/);
    // null and undefined mean the default, as in the SDK (ttlSeconds ?? 600).
    assert.equal(envelope(new StateCodec({ key: KEY, ttlSeconds: null, now: () => T0 }).seal(1)).exp, S0 + 600);
  });

  test("a missing key with production: true", () => {
    for (const key of [undefined, null, []]) {
      clearError(() => new StateCodec({ key, production: true }), RangeError, /no key configured, and production mode refuses the ephemeral development key/);
    }
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

  test("no key in development (child process): an ephemeral key, the warning logged once", async () => {
    const r = await child(
      `const a = new m.StateCodec(), b = new m.StateCodec(), c = new m.StateCodec({ key: ${JSON.stringify(KEY)} });
       const t = a.seal({ n: 1 });
       console.log(JSON.stringify(a.open(t)));
       try { b.open(t); console.log("b opened"); } catch (e) { console.log("b: " + e.reason); }
       console.log(c.open(c.seal(2)));`,
      {},
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split("\n"), ['{"n":1}', "b: mac", "2"]); // each ephemeral codec draws its own key
    const warnings = r.stderr.split("\n").filter((l) => l.includes("no key configured; using an ephemeral random key"));
    assert.equal(warnings.length, 1, r.stderr);
    assert.match(r.stderr, /at least 32 bytes/);
  });
});

// `memory` is the wasm linear memory of the entry's own instance. Linear
// memory only grows, and copying a string into wasm needs at least its
// length in bytes, so a 10 MB token that reached wasm would leave memory
// >= 10 MB larger. Growth under 1 MiB therefore proves it was refused
// before the copy.

describe("bad input: a clear error, never a trap, and the codec still works after each", () => {
  const codec = at(T0);
  const good = codec.seal(PAYLOAD);

  test("non-string tokens: SealedStateError(malformed) from every opener", () => {
    for (const token of [42, null, undefined, {}, [], { toString: () => good }, new String(good), Symbol("t"), 1n]) {
      refused(() => codec.open(token), "malformed");
      stillWorks(codec);
      refused(() => codec.openRequestState(token, "move"), "malformed");
      stillWorks(codec);
      refused(() => codec.verify(token), "malformed");
      stillWorks(codec);
    }
  });

  test("huge tokens (10 MB, 100 MB) are refused before they are copied into wasm", () => {
    assert.ok(memory instanceof WebAssembly.Memory);
    const before = memory.buffer.byteLength;
    for (const mb of [10, 100]) {
      const body = "A".repeat(mb * 1_000_000);
      for (const token of [`v1.${body}.${"A".repeat(43)}`, body]) {
        const t0 = performance.now();
        refused(() => codec.open(token), "malformed");
        refused(() => codec.openRequestState(token, "move"), "malformed");
        refused(() => codec.verify(token), "malformed");
        assert.ok(performance.now() - t0 < 1000, "refused without scanning");
        stillWorks(codec);
      }
    }
    assert.ok(memory.buffer.byteLength - before < 1 << 20, `wasm memory grew by ${memory.buffer.byteLength - before} B`);
  });

  test("a token just over maxTokenBytes is refused; one that fits reaches wasm and fails cleanly", () => {
    const small = at(T0, { maxTokenBytes: 200 });
    // Sealing refuses a token this codec could not open again...
    assert.throws(
      () => small.seal("x".repeat(300)),
      (e) => e instanceof RangeError && /over maxTokenBytes \(200\)/.test(e.message),
    );
    // ...and opening refuses one made elsewhere, before any hashing.
    const big = at(T0).seal("x".repeat(300));
    refused(() => small.open(big), "malformed");
    assert.equal(at(T0).open(big), "x".repeat(300));
    // A large limit lets a 10 MB forgery through to wasm, which refuses it without trapping.
    const roomy = at(T0, { maxTokenBytes: 20_000_000 });
    refused(() => roomy.open(`v1.${"A".repeat(10_000_000)}.${"A".repeat(43)}`), "mac");
    refused(() => roomy.open(`v1.${"é".repeat(1_000_000)}.${"A".repeat(43)}`), "malformed");
    stillWorks(roomy);
    stillWorks(codec);
  });

  test("non-JSON-serializable payloads: a TypeError from every sealer", () => {
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

  test("a missing or empty tool name", () => {
    const rs = codec.sealRequestState(1, "move");
    for (const tool of [undefined, "", null, 42, {}]) {
      clearError(() => codec.sealRequestState(1, tool), TypeError, /needs the tool name/);
      stillWorks(codec);
      clearError(() => codec.openRequestState(rs, tool), TypeError, /needs the tool name/);
      stillWorks(codec);
    }
  });

  test("a bind that is not a string", () => {
    for (const bind of [42, null, {}, ["a"]]) {
      clearError(() => codec.seal(1, { bind }), TypeError, /bind must be a string/);
      clearError(() => codec.open(good, { bind }), TypeError, /bind must be a string/);
      stillWorks(codec);
    }
  });

  test("junk of every shape opens as malformed or mac, never traps", () => {
    const junk = [
      "",
      ".",
      "..",
      "v1",
      "v1.",
      "v1..",
      "V1.e30.x",
      "v1.e30.",
      "v1..AAAA",
      "v1.e30.AAAA.AAAA",
      "v1.e3.AAAA",
      "v1.\u0000.AAAA",
      "v1.e30+.AAAA",
      "v1.e30/.AAAA",
      "v1.é.AAAA",
      "v1.\ud800.AAAA",
      `v1.e30.${"A".repeat(44)}`,
      `v1.e30.${"A".repeat(42)}`,
      good.slice(0, -1),
      good + "A",
      good + ".",
      `v1.${good.split(".")[1]}=.${good.split(".")[2]}`,
    ];
    for (const t of junk) {
      let error;
      try {
        codec.open(t);
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof SealedStateError, `${JSON.stringify(t)}: ${error}`);
      assert.ok(["malformed", "mac"].includes(error.reason), `${JSON.stringify(t)}: ${error.reason}`);
      stillWorks(codec);
    }
  });
});
