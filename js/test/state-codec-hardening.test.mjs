// StateCodec under hostile conditions, from the packed tarball as a consumer
// installs it: capped wasm memory, re-entrant and out-of-range clocks, odd
// options, a platform without crypto or process, workerd without
// nodejs_compat. Nothing falls open, no call poisons the instance, every
// failure is a clear error.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { EDGE_GLUE_URL, importPackage, resolvePackage } from "./support.mjs";
import { COMPATIBILITY_DATE, bundleForWorkerd, importTool } from "../lib/workerd.mjs";

const { StateCodec, SealedStateError } = await importPackage();

const KEY = "edge-hardening-key: at least thirty-two bytes long";
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250);
const PAYLOAD = { board: [0, 1, 2], name: "Zoë" };
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });
const execFileP = promisify(execFile);

/** The error `fn` throws (fails when it throws nothing, or traps). */
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `a wasm trap: ${e}`);
    return e;
  }
  assert.fail("expected an error, nothing was thrown");
}

/** Every carrier still seals and opens. */
function stillWorks(codec) {
  const bind = { bind: "still-works" };
  assert.deepEqual(codec.open(codec.seal(PAYLOAD, bind), bind), PAYLOAD);
  assert.deepEqual(codec.openRequestState(codec.sealRequestState(PAYLOAD, "tool", bind), "tool", bind), PAYLOAD);
  assert.deepEqual(codec.verify(codec.mint(PAYLOAD)), PAYLOAD);
}

const nodeEntry = pathToFileURL(resolvePackage()).href;

/** Run an ES module snippet in a fresh Node (fresh wasm instance); its stdout lines. */
async function child(source, { env = {}, flags = [] } = {}) {
  const cleanEnv = { ...process.env };
  delete cleanEnv.NODE_ENV;
  delete cleanEnv.NODE_OPTIONS;
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [...flags, "--input-type=module", "-e", source], {
      env: { ...cleanEnv, ...env },
      maxBuffer: 1 << 24,
    });
    return { code: 0, lines: stdout.trim().split("\n"), stderr };
  } catch (e) {
    return { code: e.code, lines: String(e.stdout).trim().split("\n"), stderr: e.stderr };
  }
}

describe("a failed allocation never poisons the instance (wasm memory capped at 100 MiB)", () => {
  // 1600 pages of 64 KiB: 100 MiB. Every line the child prints is checked below.
  const script = `
    const { StateCodec } = await import(${JSON.stringify(nodeEntry)});
    const { memory } = (await import(${JSON.stringify(EDGE_GLUE_URL)})).initSync();
    const mib = () => (memory.buffer.byteLength / 2 ** 20).toFixed(1);
    const KEY = ${JSON.stringify(KEY)};
    const say = (label, fn) => {
      try { console.log(label, "ok", JSON.stringify(fn())); }
      catch (e) { console.log(label, e.constructor.name, e instanceof WebAssembly.RuntimeError ? "TRAP" : "", e.reason ?? "", e.message); }
    };
    const big = new StateCodec({ key: KEY, maxTokenBytes: 4 * 2 ** 20 });
    const other = new StateCodec({ key: KEY });
    const start = mib();
    say("seal40M", () => big.seal("x".repeat(40_000_000)).length);
    say("seal20M", () => big.seal("x".repeat(20_000_000)).length);
    console.log("grew", (mib() - start).toFixed(1));
    // A bind value has no size limit (only its tag is sealed): 40 M chars need
    // more input buffer than the capped memory holds.
    say("bind40M", () => big.seal(1, { bind: "b".repeat(40_000_000) }).length);
    // A client's 3 MB forgery reaches wasm (under maxTokenBytes) and fails cleanly.
    say("open3MB", () => big.open("v1." + "A".repeat(3_000_000) + "." + "A".repeat(43)));
    say("roundtrip", () => big.open(big.seal({ a: 1 }, { bind: "u" }), { bind: "u" }));
    say("other", () => other.open(other.seal([1, 2])));
    say("new", () => new StateCodec({ key: KEY }).verify(other.mint("fresh")));
    say("big3MB", () => big.open(big.seal("y".repeat(2_500_000))).length);
  `;

  test("too large to ever fit: refused before the copy; out of memory: a RangeError; everything works after", async () => {
    const r = await child(script, { flags: ["--wasm-max-mem-pages=1600"] });
    assert.equal(r.code, 0, r.stderr);
    const out = Object.fromEntries(r.lines.map((l) => [l.split(" ")[0], l.slice(l.indexOf(" ") + 1)]));
    assert.match(out.seal40M, /^RangeError +mcp-sealed-state: the sealed token would be at least \d+ bytes, over maxTokenBytes \(4194304\)/);
    assert.match(out.seal20M, /^RangeError +mcp-sealed-state: the sealed token would be at least/);
    assert.ok(Number(out.grew) < 1, `wasm memory grew by ${out.grew} MiB for refused seals`);
    assert.match(out.bind40M, /^RangeError +mcp-sealed-state: out of memory/);
    assert.match(out.open3MB, /^SealedStateError +mac /);
    assert.equal(out.roundtrip, 'ok {"a":1}');
    assert.equal(out.other, "ok [1,2]");
    assert.equal(out.new, 'ok "fresh"');
    assert.equal(out.big3MB, "ok 2500000");
  });
});

describe("production is a boolean or undefined", () => {
  test('production: "true" (or any non-boolean) is a TypeError, even with NODE_ENV=production', async () => {
    for (const production of ["true", "false", 1, 0, null, {}]) {
      const e = thrown(() => new StateCodec({ key: KEY, production }));
      assert.ok(e instanceof TypeError, `${production}: ${e}`);
      assert.match(e.message, /^mcp-sealed-state: production must be true, false or undefined/);
    }
    const r = await child(
      `import { StateCodec } from ${JSON.stringify(nodeEntry)};
       try { new StateCodec({ production: "true" }); console.log("constructed"); } catch (e) { console.log(e.constructor.name); }
       try { new StateCodec(); console.log("constructed"); } catch (e) { console.log(e.constructor.name); }`,
      { env: { NODE_ENV: "production" } },
    );
    assert.deepEqual(r.lines, ["TypeError", "RangeError"], r.stderr);
  });
});

describe("a re-entrant now() cannot corrupt the input buffer", () => {
  test("now() that seals and opens with the same codec", () => {
    let depth = 0;
    const codec = new StateCodec({
      key: KEY,
      now: () => {
        // One level deep. Long enough to move the input buffer, and unlike the outer call's text.
        if (depth === 0) {
          depth++;
          try {
            codec.open(codec.seal({ other: "é".repeat(5000) }));
          } finally {
            depth--;
          }
        }
        return T0;
      },
    });
    const token = codec.seal(PAYLOAD, { bind: "u" });
    assert.deepEqual(at(T0).open(token, { bind: "u" }), PAYLOAD);
    assert.deepEqual(codec.open(token, { bind: "u" }), PAYLOAD);
    assert.deepEqual(codec.openRequestState(codec.sealRequestState(PAYLOAD, "move"), "move"), PAYLOAD);
    assert.deepEqual(codec.verify(codec.mint(PAYLOAD)), PAYLOAD);
  });

  test("a now() that throws: its error, and the codec works after", () => {
    let fail = true;
    const codec = new StateCodec({
      key: KEY,
      now: () => {
        if (fail) throw new Error("clock down");
        return T0;
      },
    });
    const token = at(T0).seal(PAYLOAD);
    assert.throws(() => codec.seal(PAYLOAD), /clock down/);
    assert.throws(() => codec.open(token), /clock down/);
    fail = false;
    assert.deepEqual(codec.open(token), PAYLOAD);
    stillWorks(codec);
  });
});

describe("a clock outside a Date's range is refused, never read as some other time", () => {
  test("-1e300, 1e300, ±(8.64e15 + 1) ms", () => {
    const expired = at(T0 - 610_000).seal(PAYLOAD); // 600 s of ttl, 10 s ago
    for (const ms of [-1e300, 1e300, 8.64e15 + 1, -8.64e15 - 1, -Number.MAX_VALUE]) {
      const c = at(ms);
      const e = thrown(() => c.open(expired));
      assert.ok(e instanceof TypeError, `${ms}: ${e}`);
      assert.match(e.message, /now\(\) must return finite milliseconds/);
      assert.ok(thrown(() => c.seal(1)) instanceof TypeError);
    }
    // The edges of a Date's range are clocks like any other.
    assert.throws(
      () => at(8.64e15).open(expired),
      (e) => e instanceof SealedStateError && e.reason === "expired",
    );
    assert.throws(
      () => at(-8.64e15 + 2000).open(at(-8.64e15, { ttlSeconds: 1 }).seal(1)),
      (e) => e.reason === "expired",
    );
  });
});

describe("clear errors", () => {
  test("whatever a toJSON throws, sealing gives a TypeError that says so", () => {
    const codec = at(T0);
    const noProto = Object.create(null);
    const badMessage = {
      get message() {
        throw new Error("no");
      },
    };
    const cases = [
      [null, /\(null\)/],
      [undefined, /\(undefined\)/],
      [Symbol("s"), /\(Symbol\(s\)\)/],
      [noProto, /\(a thrown value that cannot be shown as text\)/],
      [badMessage, /\(a thrown value that cannot be shown as text\)/],
      [42, /\(42\)/],
      [new RangeError("deep"), /\(deep\)/],
    ];
    for (const [value, why] of cases) {
      for (const seal of [(p) => codec.seal(p), (p) => codec.sealRequestState(p, "t"), (p) => codec.mint(p)]) {
        const e = thrown(() =>
          seal({
            toJSON() {
              throw value;
            },
          }),
        );
        assert.ok(e instanceof TypeError, `${String(e)}`);
        assert.match(e.message, /^mcp-sealed-state: payload is not JSON-serializable /);
        assert.match(e.message, why);
        assert.equal(e.cause, value);
      }
    }
    stillWorks(codec);
  });

  test("option RangeErrors name a range a reader can use (never -Infinity)", () => {
    const messages = [];
    for (const options of [{ ttlSeconds: 1.5 }, { ttlSeconds: 2 ** 60 }, { leewaySeconds: -1 }, { maxTokenBytes: 0 }, { maxTokenBytes: 2 ** 40 }]) {
      const e = thrown(() => new StateCodec({ key: KEY, ...options }));
      assert.ok(e instanceof RangeError);
      messages.push(e.message);
    }
    assert.deepEqual(messages, [
      "mcp-sealed-state: ttlSeconds must be a safe integer (positive) (got 1.5)",
      "mcp-sealed-state: ttlSeconds must be a safe integer (positive) (got 1152921504606847000)",
      "mcp-sealed-state: leewaySeconds must be a safe integer >= 0 (got -1)",
      "mcp-sealed-state: maxTokenBytes must be a safe integer from 1 to 2147483647 (got 0)",
      "mcp-sealed-state: maxTokenBytes must be a safe integer from 1 to 2147483647 (got 1099511627776)",
    ]);
  });
});

describe("the platform: no crypto, no process", () => {
  // The development key is drawn at the first call, not at construction (workerd refuses random values at global scope).
  test("no crypto.getRandomValues: constructed, then a clear error at the first call without a key, never a trap; keyed codecs work", async () => {
    const r = await child(`
      Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
      const { StateCodec } = await import(${JSON.stringify(nodeEntry)});
      const dev = new StateCodec(); console.log("constructed");
      try { dev.seal(1); console.log("sealed"); }
      catch (e) { console.log(e.constructor.name, e instanceof WebAssembly.RuntimeError, e.message); }
      const c = new StateCodec({ key: ${JSON.stringify(KEY)} });
      console.log(JSON.stringify(c.open(c.seal({ ok: 1 }))));
    `);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.lines, [
      "constructed",
      "Error false mcp-sealed-state: no random values here to draw the development key (workerd refuses them at global scope, outside a request): build or use the codec inside fetch, or give it a key",
      '{"ok":1}',
    ]);
  });

  test("no process, or a NODE_ENV that throws: not production (an ephemeral key and the warning)", async () => {
    // Each hides NODE_ENV while the codec is built, and gives it back (console.log reads the env).
    for (const [hide, restore] of [
      ["const saved = globalThis.process; globalThis.process = undefined;", "globalThis.process = saved;"],
      [
        `const saved = Object.getOwnPropertyDescriptor(process, "env");
         Object.defineProperty(process, "env", { configurable: true, get() { throw new Error("denied"); } });`,
        `Object.defineProperty(process, "env", saved);`,
      ],
    ]) {
      const r = await child(
        `const { StateCodec } = await import(${JSON.stringify(nodeEntry)});
         const warn = console.warn; let warned = 0; console.warn = () => warned++;
         ${hide}
         const c = new StateCodec();
         ${restore}
         console.log(c.verify(c.mint("dev")), warned);`,
        { env: { NODE_ENV: "production" } },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.lines, ["dev 1"], hide);
    }
  });
});

describe("real workerd (no nodejs_compat): production comes from the env binding, or from the bundler", () => {
  const source = `
    import { StateCodec } from "mcp-sealed-state";
    const attempt = (options) => { try { const c = new StateCodec(options); return c.verify(c.mint(1)) === 1 ? "ephemeral" : "?"; } catch (e) { return e.constructor.name + ": " + e.message; } };
    export default {
      fetch(request, env) {
        return Response.json({
          typeofProcess: typeof process,
          explicit: attempt({ production: env.NODE_ENV === "production" }),
          implicit: attempt({}),
          emptyList: attempt({ key: [] }),
        });
      },
    };`;

  async function run(define) {
    const { Miniflare } = await importTool("miniflare");
    const built = await bundleForWorkerd({ source, define });
    const mf = new Miniflare({ modules: built.modules, modulesRoot: "/", compatibilityDate: COMPATIBILITY_DATE, bindings: { NODE_ENV: "production" }, cf: false });
    try {
      return await (await mf.dispatchFetch("http://worker/")).json();
    } finally {
      await mf.dispose();
    }
  }

  test("NODE_ENV as an env binding: passed explicitly, construction without a key throws", async () => {
    const r = await run({});
    assert.equal(r.typeofProcess, "undefined");
    assert.match(r.explicit, /^RangeError: mcp-sealed-state: no key configured, and production mode refuses/);
    // Without it the Worker cannot know: the README says to pass it.
    assert.equal(r.implicit, "ephemeral");
    // An empty key list is a configuration error, never the ephemeral key (docs/format.md, "Keys").
    assert.match(r.emptyList, /^RangeError: mcp-sealed-state: the key list is empty/);
  });

  test('a bundle built with define { "process.env.NODE_ENV": "\\"production\\"" } is production', async () => {
    const r = await run({ "process.env.NODE_ENV": '"production"' });
    assert.match(r.implicit, /^RangeError: mcp-sealed-state: no key configured, and production mode refuses/);
  });
});

describe("a codec whose wasm half is gone gives a clear error, and others are unaffected", () => {
  test("after free(), every call throws an Error that says to make a new StateCodec", () => {
    const freed = at(T0);
    const token = freed.seal(PAYLOAD);
    freed.free();
    for (const call of [() => freed.seal(1), () => freed.open(token), () => freed.verify(token), () => freed.mint(1)]) {
      const e = thrown(call);
      assert.ok(!(e instanceof SealedStateError), String(e));
      assert.match(e.message, /^mcp-sealed-state: .*make a new StateCodec/);
    }
    stillWorks(at(T0));
    assert.deepEqual(at(T0).open(token), PAYLOAD);
  });
});

// Review: `key: null` (which the types allow, and which every other option
// reads as left out) hid env.STATE_KEY: the codec sealed with the
// development key, or, in production, threw "set the Worker secret
// STATE_KEY" with that secret set.
test("key: null is no key: env.STATE_KEY is the key, in development and in production", () => {
  const token = at(T0).seal(PAYLOAD);
  for (const NODE_ENV of ["development", "production"]) {
    const codec = new StateCodec({ key: null, env: { STATE_KEY: KEY, NODE_ENV }, now: () => T0 });
    assert.deepEqual(codec.open(token), PAYLOAD, NODE_ENV);
  }
});

// NODE_ENV read by one rule, for env.NODE_ENV and process.env alike (and by
// rust-server): "production" or "prod", any ASCII case, JSON whitespace
// around it. "Production" or " production" ran on the development key.
const NODE_ENV_CASES = JSON.parse(readFileSync(new URL("../../tests/vectors/node-env.json", import.meta.url), "utf8")).cases;

describe("NODE_ENV that reads as production fails closed (tests/vectors/node-env.json)", () => {
  const NO_KEY = /no key configured, and production mode refuses the ephemeral development key/;
  test("env.NODE_ENV", () => {
    assert.ok(NODE_ENV_CASES.length >= 10);
    for (const { value, production } of NODE_ENV_CASES) {
      const build = () => new StateCodec({ env: { NODE_ENV: value } });
      if (production) assert.throws(build, NO_KEY, JSON.stringify(value));
      else assert.doesNotThrow(build, JSON.stringify(value));
    }
  });

  test("process.env.NODE_ENV", async () => {
    const r = await child(`
      const { StateCodec } = await import(${JSON.stringify(nodeEntry)});
      console.warn = () => {};
      for (const { value } of ${JSON.stringify(NODE_ENV_CASES)}) {
        process.env.NODE_ENV = value;
        let production = false;
        try { new StateCodec(); } catch (e) { production = /production mode/.test(e.message); }
        console.log(JSON.stringify([value, production]));
      }`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.lines.map((l) => JSON.parse(l)),
      NODE_ENV_CASES.map(({ value, production }) => [value, production]),
    );
  });
});

describe("env.STATE_KEY is taken as key takes it", () => {
  const bytes = new TextEncoder().encode(KEY);
  const sealed = at(T0).seal(PAYLOAD);
  for (const [kind, key] of [
    ["a Uint8Array", bytes],
    ["an ArrayBuffer", bytes.slice().buffer],
    ["a DataView", new DataView(bytes.slice().buffer)],
    ["a list", [KEY]],
  ]) {
    test(kind, () => {
      const codec = new StateCodec({ env: { STATE_KEY: key }, now: () => T0 });
      assert.equal(codec.seal(PAYLOAD), sealed);
    });
  }

  test("anything else is refused, named with its article", () => {
    assert.throws(() => new StateCodec({ env: { STATE_KEY: 7 } }), /env\.STATE_KEY must be a string \(a Worker secret\), a Uint8Array or an ArrayBuffer, as key is, not a number$/);
    assert.throws(() => new StateCodec({ env: { STATE_KEY: new Float64Array(4) } }), /not a Float64Array \(its elements are not bytes/);
    assert.throws(() => new StateCodec({ key: KEY, now: new ArrayBuffer(1) }), /not an ArrayBuffer$/);
    assert.throws(() => new StateCodec({ key: KEY, now: new Uint8Array(1) }), /not a Uint8Array$/);
  });
});
