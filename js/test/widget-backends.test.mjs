// The widget's two backends give the same results. Pages whose CSP refuses
// WebAssembly get widget/read-js.js, a JS port of the wasm reader's one
// export, readTokenJson; everything above it is the same JS for both. So
// equal text out of the two readTokenJson, for every input, means equal
// results from every widget function. Both come from the packed package:
//   - the SDK vector file (tests/vectors/sdk-v1.json), which both read;
//   - every token of the opening tables (tests/vectors/hostile.json, reasons.json);
//   - fast-check: random strings, and tokens built from random envelopes with
//     hostile mutations (duplicates, escapes, odd exps, broken UTF-8, ...);
//   - the widget API's tests (WIDGET_TEST_FILES) again under node --jitless,
//     where the widget entry has no WebAssembly and serves from the JS twin;
//   - a wasm trap (out of memory) handing over to the JS twin.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { JS_DIR, PACKAGE_DIR, ROOT, resolvePackage } from "./support.mjs";
import { WIDGET_TEST_FILES } from "./widget-support.mjs";
import { loadTable } from "../suite/table.js";

const glue = await import(pathToFileURL(join(PACKAGE_DIR, "wasm/widget.js")).href);
glue.initSync({ module: readFileSync(join(PACKAGE_DIR, "wasm/widget_bg.wasm")) });
const { readTokenJsonJs } = await import(pathToFileURL(join(PACKAGE_DIR, "widget/read-js.js")).href);
const wasmRead = glue.readTokenJson;
const { hexBytes, hexBytesPortable } = await import(pathToFileURL(join(PACKAGE_DIR, "widget/hex.js")).href);

const MAC = "A".repeat(43);
const b64 = (bytes) => Buffer.from(bytes).toString("base64url");
const token = (bodyText, mac = MAC) => `v1.${b64(Buffer.from(bodyText, "utf8"))}.${mac}`;
const tokenOfBytes = (bytes, mac = MAC) => `v1.${b64(bytes)}.${mac}`;
const FUTURE = 4_000_000_000;

/** Both backends on one input: the same text, or both undefined. Returns it. */
function same(input, label = String(input).slice(0, 80)) {
  const w = wasmRead(input);
  const j = readTokenJsonJs(input);
  // Compare without printing megabytes on failure.
  if (w !== j) assert.fail(`${label}: wasm ${JSON.stringify(w?.slice(0, 200))} vs js ${JSON.stringify(j?.slice(0, 200))}`);
  return w;
}

describe("the SDK vector file", () => {
  const { vectors } = JSON.parse(readFileSync(join(ROOT, "tests/vectors/sdk-v1.json"), "utf8"));

  test(`both backends read all ${vectors.length} vectors to the same text, with the SDK's payload`, () => {
    assert.ok(vectors.length >= 40);
    for (const v of vectors) {
      const text = same(v.token, v.name);
      assert.ok(text !== undefined, v.name);
      assert.ok(text.startsWith(`{"payload":${v.payloadJson},`), v.name);
      const view = JSON.parse(text);
      assert.equal(view.exp, v.exp, v.name);
      assert.equal(view.bound, v.bind !== null, v.name);
      assert.equal(view.tool, v.tool, v.name);
      assert.equal(view.purpose, v.kind === "raw" ? null : v.kind, v.name);
    }
  });

  test("and the same for every prefix and every one-character change of a vector", () => {
    const v = vectors.find((x) => x.name === "view-tictactoe") ?? vectors[0];
    for (let i = 0; i <= v.token.length; i++) same(v.token.slice(0, i), `prefix ${i}`);
    for (let i = 0; i < v.token.length; i++) {
      for (const c of ["A", "_", "-", ".", "=", "+", " "]) same(v.token.slice(0, i) + c + v.token.slice(i + 1), `change ${i} to ${c}`);
    }
  });
});

describe("the opening tables (tests/vectors/hostile.json, reasons.json)", () => {
  for (const name of ["hostile.json", "reasons.json"]) {
    test(`both backends read every token of ${name} to the same text, and refuse the ones the table says the reader refuses`, async () => {
      const file = JSON.parse(readFileSync(join(ROOT, "tests/vectors", name), "utf8"));
      const edge = await import(pathToFileURL(join(PACKAGE_DIR, "edge/node.js")).href);
      const table = loadTable(file, edge);
      let read = 0;
      for (const c of file.cases.filter((x) => x.only === undefined || x.only === "js")) {
        for (const [i, spec] of c.tokens.entries()) {
          const text = same(await table.token(spec), `${c.name} #${i}`);
          if (c.shape || c.reader === "malformed") assert.equal(text, undefined, `${c.name} #${i}`);
          else if (c.reader !== undefined) assert.notEqual(text, undefined, `${c.name} #${i}`);
          read++;
        }
      }
      assert.ok(read >= 35, `${read} tokens`);
    });
  }
});

describe("fast-check: both backends agree on random and hostile input", () => {
  const runs = { numRuns: 3000 };
  // UTF-16 code units, lone surrogates included.
  const anyUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 }).map((u) => String.fromCharCode(...u));
  // Mostly whitespace JSON allows; now and then some it does not.
  const ws = fc.oneof({ weight: 39, arbitrary: fc.constantFrom("", "", " ", "\n", "\t", "\r", " \n ") }, { weight: 1, arbitrary: fc.constantFrom("\u00a0", "\ufeff", "\u000b") });
  const jsonText = fc.oneof(
    { weight: 4, arbitrary: fc.json() },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v, null, 1)) },
    { weight: 2, arbitrary: anyUnits.map((s) => JSON.stringify(s)) },
    { weight: 1, arbitrary: fc.constantFrom("1e3", "-0", "0.5e-7", "01", "1.", "[1,]", "{}", "[]", '"\\ud800"', '"\\u00zz"', "tru", "nul", '{"a":1,"a":2}') },
  );
  const expText = fc.oneof(
    { weight: 6, arbitrary: fc.integer().map(String) },
    { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom("-0", "1.0", "1e3", '"5"', "null", "01", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "true", "[1]") },
  );
  // A key as written: plain, or with its first letter as a \u escape (the same key to JSON.parse).
  const keyOf = (name) => fc.oneof({ weight: 4, arbitrary: fc.constant(`"${name}"`) }, { weight: 1, arbitrary: fc.constant(`"\\u00${name.charCodeAt(0).toString(16)}${name.slice(1)}"`) });
  const member = (name, value) => fc.tuple(ws, keyOf(name), ws, ws, value, ws).map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`);
  // All the members in any order, now and then with some left out.
  const object = (members) =>
    fc.oneof({ weight: 4, arbitrary: fc.shuffledSubarray(members, { minLength: members.length }) }, { weight: 1, arbitrary: fc.shuffledSubarray(members) }).map((ms) => `{${ms.join(",")}}`);
  const purpose = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('"v"', '"r"') }, { weight: 1, arbitrary: fc.constantFrom('"x"', "1", '"\\u0076"', '"\\u0072"', "null") });
  const tool = fc.oneof({ weight: 5, arbitrary: anyUnits.map((s) => JSON.stringify(s)) }, { weight: 1, arbitrary: jsonText });
  const inner = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(member("p", purpose), member("d", jsonText), member("o", tool)).chain((ms) => object(ms)) },
    { weight: 1, arbitrary: fc.tuple(member("p", purpose), member("d", jsonText), member("o", tool), member("p", purpose)).chain((ms) => object(ms)) },
    { weight: 2, arbitrary: jsonText },
  );
  const envelopeText = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(member("p", inner), member("exp", expText)).chain((ms) => object(ms)) },
    { weight: 3, arbitrary: fc.tuple(member("p", inner), member("exp", expText), member("b", fc.oneof(fc.constant('"tag"'), jsonText))).chain((ms) => object(ms)) },
    { weight: 2, arbitrary: fc.tuple(member("p", inner), member("exp", expText), member("x", jsonText)).chain((ms) => object(ms)) },
    { weight: 1, arbitrary: fc.tuple(member("p", inner), member("exp", expText), member("exp", expText)).chain((ms) => object(ms)) },
  );
  // Mutations at the character level, after the envelope is written.
  const mutated = fc.tuple(envelopeText, fc.nat(), fc.constantFrom("", "}", "{", '"', "\\", ",", ":", "\u0000", " ", "\ud800", "é", "1")).map(([text, at, ch]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + ch + text.slice(i + 1);
  });
  const macOf = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{43}$/) }, { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{42,44}$/) });

  test("random strings, v1-shaped or not", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.stringMatching(/^v1\.[A-Za-z0-9_=+/. -]{0,80}\.[A-Za-z0-9_-]{40,46}$/)), (s) => {
        same(s);
      }),
      runs,
    );
  });

  test("tokens around random envelopes (UTF-8 bodies); most of them read", () => {
    let read = 0;
    fc.assert(
      fc.property(envelopeText, macOf, (text, mac) => {
        if (same(token(text, mac), text) !== undefined) read++;
      }),
      runs,
    );
    // The generator must reach the reader's output, not only its refusals.
    assert.ok(read > runs.numRuns / 4, `only ${read} of ${runs.numRuns} read`);
  });

  test("tokens around mutated envelopes", () => {
    fc.assert(
      fc.property(mutated, (text) => {
        same(token(text), text);
      }),
      runs,
    );
  });

  test("tokens around random bytes, and envelopes with bytes changed (broken UTF-8)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        same(tokenOfBytes(bytes));
      }),
      runs,
    );
    fc.assert(
      fc.property(envelopeText, fc.nat(), fc.integer({ min: 0x80, max: 0xff }), (text, at, byte) => {
        const bytes = Buffer.from(text, "utf8");
        if (bytes.length > 0) bytes[at % bytes.length] = byte;
        same(tokenOfBytes(bytes), text);
      }),
      runs,
    );
  });

  test("bodies with a character changed after encoding (non-canonical bits, impossible lengths)", () => {
    fc.assert(
      fc.property(envelopeText, fc.nat(), fc.constantFrom("", "A", "B", "Q", "_", "-", "="), (text, at, ch) => {
        const body = b64(Buffer.from(text, "utf8"));
        const i = at % (body.length + 1);
        same(`v1.${body.slice(0, i)}${ch}${body.slice(i + 1)}.${MAC}`, text);
      }),
      runs,
    );
  });
});

test("a wasm trap (allocation failure under a memory cap) hands over to the JS twin: the same result, no error, still usable", () => {
  // node --wasm-max-mem-pages=20 caps wasm memory at 1.25 MiB: reading a 0.95 MB token cannot allocate.
  const entry = pathToFileURL(resolvePackage("/widget")).href;
  const script = `
    const { backend, readTokenUnverified, secondsLeft } = await import(${JSON.stringify(entry)});
    const big = "x".repeat(700000);
    const token = "v1." + Buffer.from(JSON.stringify({ p: { p: "v", d: big }, exp: 5 })).toString("base64url") + "." + "A".repeat(43);
    const before = backend();
    const view = readTokenUnverified(token);
    console.log(JSON.stringify({ before, after: backend(), same: view.payload === big && view.exp === 5, left: secondsLeft(token, 0) }));`;
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const out = execFileSync(process.execPath, ["--wasm-max-mem-pages=20", "--input-type=module", "-e", script], { encoding: "utf8", env });
  assert.deepEqual(JSON.parse(out), { before: "wasm", after: "js", same: true, left: 6 });
});

test("the browser entry (wasm inlined): the wasm serves once import() resolves; without WebAssembly at all it imports without throwing and the JS twin serves", () => {
  const entry = pathToFileURL(join(PACKAGE_DIR, "widget/browser.js")).href;
  const token = `v1.${b64(Buffer.from('{"p":{"p":"v","d":[1]},"exp":5}'))}.${MAC}`;
  const script = `const w = await import(${JSON.stringify(entry)});
    const atImport = w.backend();
    console.log(JSON.stringify({ atImport, settled: await w.init(), payload: w.readTokenUnverified(${JSON.stringify(token)}).payload }));`;
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = (flags) => JSON.parse(execFileSync(process.execPath, [...flags, "--input-type=module", "-e", script], { encoding: "utf8", env, stdio: ["ignore", "pipe", "ignore"] }));
  // The attempt is a microtask queued as the entry evaluates, so it has run before
  // `await import()` resumes (a module of the same graph sees the JS twin: widget-bundlers).
  assert.deepEqual(run([]), { atImport: "wasm", settled: "wasm", payload: [1] }, "Node 20 compiles the inlined wasm (its hex decoded without Uint8Array.fromHex)");
  assert.deepEqual(run(["--jitless"]), { atImport: "js", settled: "js", payload: [1] }, "no WebAssembly");
});

test("the whole widget suite passes on the JS twin (node --jitless: no WebAssembly)", () => {
  // Throws, with the suite's output, if any test fails. Without NODE_TEST_CONTEXT,
  // which would make the child report to this runner instead of printing TAP.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const files = WIDGET_TEST_FILES.map((f) => join(JS_DIR, "test", f));
  const out = execFileSync(process.execPath, ["--jitless", "--test", "--test-concurrency=1", "--test-reporter=tap", ...files], {
    encoding: "utf8",
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  assert.match(out, /^# fail 0$/m);
  assert.match(out, /backend\(\) is "js" here/);
  const passed = Number(/^# pass (\d+)$/m.exec(out)?.[1]);
  assert.ok(passed > 80, `only ${passed} tests ran`);
});

test("the inlined hex decodes to the package's widget .wasm, with and without Uint8Array.fromHex", () => {
  const wasm = readFileSync(join(PACKAGE_DIR, "wasm/widget_bg.wasm"));
  const hex = /"([0-9a-f]+)"/.exec(readFileSync(join(PACKAGE_DIR, "widget/wasm-inline.js"), "utf8"))?.[1];
  assert.equal(hex, wasm.toString("hex"));
  assert.deepEqual(Buffer.from(hexBytesPortable(hex)), wasm);
  assert.deepEqual(Buffer.from(hexBytes(hex)), wasm);
  const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  assert.deepEqual(Buffer.from(hexBytesPortable(every.toString("hex"))), every);
  assert.deepEqual(hexBytesPortable(""), new Uint8Array(0));
});
