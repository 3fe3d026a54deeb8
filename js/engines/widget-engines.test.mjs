// `mcp-sealed-state/widget` in the three browser engines a View meets:
// Chromium (Chrome, Edge, Electron hosts), Firefox ESR (Gecko) and WebKit
// (WebKitGTK here; Safari's engine, which ChatGPT and Claude use on macOS and
// iOS). Each runs the same View the way hosts run Views, a sandboxed srcdoc
// iframe under a CSP with connect-src 'none', once with 'wasm-unsafe-eval'
// (the wasm serves) and once without it (the JS twin serves, with no error);
// in two forms: one file (the packed package bundled by esbuild), and native
// ES modules imported from the packed package on an allowed resource domain.
// The View reads the SDK vectors and hostile inputs before the wasm is ready
// and after init(), and every engine's results must equal Node's and
// Chromium's, text for text. A probe records how each engine refuses
// WebAssembly without 'wasm-unsafe-eval' (they differ: js/bench/RESULTS.md).
//
// Driven over plain WebDriver (js/lib/webdriver.mjs): chromedriver, geckodriver
// (`cargo install`ed by scripts/setup.sh), WebKitGTK's WebKitWebDriver (Xvfb
// when there is no display). Not under js/test: scripts/test runs this file in
// a block of its own, after the engines are installed.
//
// Run `npm --prefix js run build && node js/pack.mjs` first.
//   node --test js/engines/widget-engines.test.mjs
//   ENGINES=firefox node --test js/engines/widget-engines.test.mjs   (a subset)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import * as esbuild from "esbuild";
import { POLICIES, srcdocFor } from "../bundlers.mjs";
import { CONSUMER, JS_DIR, PACKAGE_DIR, ROOT, importPackage } from "../test/support.mjs";
import { startSession } from "../lib/webdriver.mjs";
import { serve } from "../lib/servers.mjs";

const NOW_MS = Date.UTC(2026, 6, 28, 12, 0, 0, 250);
const FUTURE = 4_000_000_000;
const MAC = "A".repeat(43);
const b64 = (bytes) => Buffer.from(bytes).toString("base64url");
const token = (bodyText, mac = MAC) => `v1.${b64(Buffer.from(bodyText, "utf8"))}.${mac}`;
const DEEP = 10_000;

/**
 * The inputs: every SDK vector, then hostile rows. An input is a string, or a
 * recipe the View expands (megabyte strings, and values JSON cannot carry).
 */
function inputs() {
  const { vectors } = JSON.parse(readFileSync(join(ROOT, "tests/vectors/sdk-v1.json"), "utf8"));
  const body = b64(Buffer.from(`{"p":{"p":"v","d":1},"exp":${FUTURE}}`));
  const rows = vectors.map((v) => [`vector ${v.name}`, v.token]);
  const add = (label, ...values) => values.forEach((v, i) => rows.push([`${label} #${i}`, v]));
  add("shape", "", "v1.", "not a token", `v1.${body}`, `v1.${body}.${MAC}.x`, `v2.${body}.${MAC}`, `v1.${body}=.${MAC}`, `v1.${body}+.${MAC}`, `v1.${body}.${MAC.slice(1)}`);
  add("whitespace and non-ASCII", ` v1.${body}.${MAC}`, `v1.${body}.${MAC}\n`, `v1.${body}é.${MAC}`, `v1.${body}.${MAC.slice(1)}😀`, `v1.${body}\0.${MAC}`);
  add("not UTF-8", `v1.${b64([0x7b, 0xff, 0x7d])}.${MAC}`, `v1.${b64([0xed, 0xa0, 0x80])}.${MAC}`, `v1.${b64([0xf4, 0x90, 0x80, 0x80])}.${MAC}`);
  add("not an object, not JSON, a BOM", ...["[1,2]", "null", "{p:1,exp:1}", '{"p":1,"exp":1,}', '{"p":NaN,"exp":1}', '\ufeff{"p":1,"exp":1}'].map((j) => token(j)));
  add("exp", ...["-0", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", `${FUTURE}.0`, "1e300", '"1"', "01"].map((e) => token(`{"p":{"p":"v","d":1},"exp":${e}}`)));
  add(
    "duplicates and escaped keys",
    token(`{"p":1,"p":2,"exp":${FUTURE}}`),
    token(`{"\\u0070":7,"\\u0065xp":${FUTURE}}`),
    token(`{"p":{"p":"v","d":{"a":1,"a":2}},"exp":${FUTURE}}`),
    token(`{"p":{"p":"v","p":"v","d":1},"exp":${FUTURE}}`),
  );
  // What JSON.parse in each engine makes of the payload: prototype keys, -0,
  // numbers past double precision and range, lone surrogates, line separators.
  add(
    "payloads JSON.parse may treat differently",
    ...[
      '{"__proto__":{"polluted":1},"constructor":{"prototype":1}}',
      "[-0,0.1,1e-7,1e21,123456789012345678901234567890,1e400,-1e400,5e-324,2e-324]",
      '["\\ud800","\\udfff\\ud800x","😀\\ud83d\\ude00","\u2028\u2029\u007f","\\u0000\\u001f"]',
      '{"":1,"a\\u0000b":2,"😀":3}',
      "9007199254740993",
    ].map((d) => token(`{"p":{"p":"v","d":${d}},"exp":${FUTURE}}`)),
  );
  add("tools", ...['"mo\\"ve"', '"\\ud800"', '"😀"'].map((o) => token(`{"p":{"p":"r","d":null,"o":${o}},"exp":${FUTURE}}`)));
  add("purposes", ...['{"p":"x","d":1}', '{"p":"v"}', '{"p":"r","d":1}', '{"p":"\\u0076","d":1}'].map((inner) => token(`{"p":${inner},"exp":${FUTURE}}`)));
  add(
    `JSON ${DEEP} deep`,
    token(`{"p":{"p":"v","d":${"[".repeat(DEEP) + "]".repeat(DEEP)}},"exp":${FUTURE}}`),
    token(`{"p":${'{"a":'.repeat(DEEP) + "null" + "}".repeat(DEEP)},"exp":${FUTURE}}`),
    token(`{"p":${"[".repeat(DEEP) + "]".repeat(DEEP - 1)},"exp":1}`),
  );
  add("over 1 MiB and at the limit", { repeat: ["v1.", "A", 1 << 20, `.${MAC}`] }, longestToken());
  add("not strings", { value: "undefined" }, { value: "null" }, { value: "number" }, { value: "object" }, { value: "String object" });
  return rows;
}

/**
 * The longest token the reader reads (1 MiB - 1 characters: a body of 1 MiB - 47
 * has an impossible base64 length), a view token whose payload is a long
 * string, as a recipe: "xxx" is "eHh4" in base64url once aligned on 3 bytes.
 */
function longestToken() {
  const [pre, post] = ['{"p":{"p":"v","d":"', `"},"exp":${FUTURE}}`];
  const bodyBytes = (((1 << 20) - 1 - "v1.".length - 1 - MAC.length) / 4) * 3;
  const head = pre + "x".repeat((3 - (pre.length % 3)) % 3);
  const xs = bodyBytes - head.length - post.length;
  const k = Math.floor(xs / 3);
  return { repeat: [`v1.${b64(Buffer.from(head))}`, "eHh4", k, `${b64(Buffer.from("x".repeat(xs - 3 * k) + post))}.${MAC}`] };
}

// The View's two functions, written once here and put into the View's source
// as text, so Node and every engine run the same code.
function expand(input) {
  if (typeof input === "string") return input;
  if (input.repeat) {
    const [head, unit, count, tail] = input.repeat;
    return head + unit.repeat(count) + tail;
  }
  return { undefined: undefined, null: null, number: 42, object: {}, "String object": new String("v1.x.y") }[input.value];
}
function outcomes(w, values, nowMs) {
  // Text that keeps what a deepEqual across realms would blur (-0, Infinity,
  // key order), written without recursion: JSON.stringify overflows the stack
  // on the 10,000-deep payloads in some engines, and so would deepEqual.
  const text = (root) => {
    const out = [];
    const mark = Symbol("literal");
    const todo = [root];
    const lit = (s) => ({ [mark]: s });
    while (todo.length > 0) {
      const v = todo.pop();
      if (v !== null && typeof v === "object" && mark in v) out.push(v[mark]);
      else if (Array.isArray(v)) {
        todo.push(lit("]"));
        for (let i = v.length - 1; i >= 0; i--) todo.push(v[i], lit(i > 0 ? "," : "["));
        if (v.length === 0) todo.push(lit("["));
      } else if (v !== null && typeof v === "object") {
        const keys = Object.keys(v);
        todo.push(lit("}"));
        for (let i = keys.length - 1; i >= 0; i--) todo.push(v[keys[i]], lit(`${i > 0 ? "," : "{"}${JSON.stringify(keys[i])}:`));
        if (keys.length === 0) todo.push(lit("{"));
      } else if (typeof v === "number") out.push(Object.is(v, -0) ? "-0" : String(v));
      else if (typeof v === "string")
        out.push(JSON.stringify(v)); // lone surrogates as \u escapes
      else out.push(String(v));
    }
    return out.join("");
  };
  return values.map((token) => {
    const r = {};
    try {
      r.view = w.readTokenUnverified(token);
      r.left = w.secondsLeft(token, nowMs);
    } catch (e) {
      r.threw = { name: e?.name, reason: e?.reason, message: e?.message, sealed: e instanceof w.SealedStateError };
    }
    try {
      r.adopted = w.adoptToken(null, { _meta: { [w.STATE_META_KEY]: token } }) === token;
    } catch (e) {
      r.adoptThrew = e?.name;
    }
    return text(r);
  });
}

// A wasm module with one v128.const: validates only where wasm SIMD is supported.
const SIMD_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12, ...new Array(16).fill(0), 11];

const VIEW_SOURCE = `import * as w from "mcp-sealed-state/widget";
const expand = ${expand};
const outcomes = ${outcomes};
const { cases, nowMs } = globalThis.VIEW_INPUT;
const values = cases.map(expand);
const atImport = w.backend();
// Before the wasm can be ready: the JS twin serves.
const first = outcomes(w, values, nowMs);
w.init().then((settled) => {
  const then = outcomes(w, values, nowMs);
  let simd = null;
  try {
    simd = typeof WebAssembly === "object" && WebAssembly.validate(new Uint8Array(${JSON.stringify(SIMD_PROBE)}));
  } catch (e) {
    simd = "validate threw " + e?.name;
  }
  parent.postMessage({ type: "result", atImport, settled, now: w.backend(), first, then, webAssembly: typeof WebAssembly, simd, userAgent: navigator.userAgent }, "*");
});
`;

/** The View as one HTML file: the packed package's browser entry, bundled by esbuild as a View author would. */
async function viewHtml() {
  const out = await esbuild.build({
    stdin: { contents: VIEW_SOURCE, resolveDir: CONSUMER, sourcefile: "view.js" },
    bundle: true,
    write: false,
    platform: "browser",
    format: "iife",
    logLevel: "silent",
  });
  const js = out.outputFiles[0].text;
  assert.doesNotMatch(js, /<\/script/i, "the bundle can be inlined");
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>view</title></head>\n<body><script>${js}</script></body></html>\n`;
}

/**
 * The same View as native ES modules: the packed package's browser entry
 * imported from a resource domain the CSP allows (the server here, with CORS,
 * as the View's opaque origin needs), with no bundler in between.
 */
function moduleSrcdoc(policy, cases) {
  const source = VIEW_SOURCE.replace('from "mcp-sealed-state/widget"', `from "${server.url}pkg/widget/browser.js"`);
  assert.notEqual(source, VIEW_SOURCE);
  const page = `<!doctype html>\n<html><head><meta charset="utf-8"><title>view</title></head>\n<body><script type="module">${source}</script></body></html>\n`;
  const allowed = POLICIES[policy].replace("script-src 'unsafe-inline'", `script-src 'unsafe-inline' ${server.url.slice(0, -1)}`);
  return srcdoc(page, policy, cases).replace(POLICIES[policy], allowed);
}

/** The View's HTML with the host's CSP and reporters (js/bundlers.mjs) and its inputs. */
function srcdoc(html, policy, cases) {
  const input = JSON.stringify({ cases, nowMs: NOW_MS }).replaceAll("<", "\\u003c");
  return srcdocFor(html, policy, { token: null, nowMs: NOW_MS }).replace("<body>", `<body><script>globalThis.VIEW_INPUT = ${input};</script>`);
}

// Runs in the host page: a sandboxed iframe (allow-scripts only, as hosts
// do) with the View as srcdoc; calls back with all it posted, as JSON text,
// once its result arrives, plus the host page's own errors.
const RUN_IN_FRAME = `
const [doc, done] = arguments;
const got = [];
const hostErrors = [];
addEventListener("error", (e) => hostErrors.push(String(e.message)));
const frame = document.createElement("iframe");
frame.sandbox = "allow-scripts";
const finish = () => done(JSON.stringify({ got, hostErrors }));
addEventListener("message", (e) => {
  if (e.source !== frame.contentWindow) return;
  got.push(e.data);
  if (e.data && e.data.type === "result") setTimeout(finish, 200); // late errors and reports still count
});
setTimeout(finish, 40000); // a View that never reports fails on the missing result
frame.srcdoc = doc;
document.body.append(frame);
`;

// What the engine itself does when the CSP refuses WebAssembly, step by step:
// compiling, then instantiating, synchronously and not. The widget relies on
// the synchronous path (new Module, then new Instance in initSync) throwing
// somewhere, after which the JS twin stays.
const REFUSAL_PROBE = `<!doctype html>
<html><head><meta charset="utf-8"><title>probe</title></head>
<body><script>
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
const said = (e) => e.name + ": " + e.message;
const r = { type: "result", validate: WebAssembly.validate(bytes) };
let module;
try {
  module = new WebAssembly.Module(bytes);
  r.module = "compiled";
  new WebAssembly.Instance(module);
  r.instance = "instantiated";
} catch (e) {
  r[module ? "instance" : "module"] = said(e);
}
const settle = (p, ok) => p.then(() => ok, said);
Promise.all([settle(WebAssembly.compile(bytes), "compiled"), settle(WebAssembly.instantiate(bytes), "instantiated")]).then(([compile, instantiate]) =>
  parent.postMessage({ ...r, compile, instantiate }, "*"),
);
</script></body></html>
`;

const ENGINE_LIST = (process.env.ENGINES ?? "chromium,firefox,webkit").split(",").filter(Boolean);
const rows = inputs();
const cases = rows.map(([, input]) => input);
let html;
let server;
let reference; // the packed package's node entry (wasm) on the same inputs
const seen = {}; // engine -> policy -> outcomes after init()

before(async () => {
  html = await viewHtml();
  const dir = join(ROOT, "js/out/engines");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "host.html"), "<!doctype html><html><head><meta charset=utf-8><title>host</title></head><body></body></html>\n");
  server = await serve({ mounts: { "/": dir, "/pkg/": PACKAGE_DIR } });
  const w = await importPackage("/widget");
  await w.init();
  assert.equal(w.backend(), "wasm");
  reference = outcomes(w, cases.map(expand), NOW_MS);
});
after(() => server?.close());

/** Equal outcomes, or the first rows that differ, by name. */
function assertSameOutcomes(actual, expected, what) {
  assert.equal(actual.length, expected.length, what);
  const diff = [];
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) diff.push(`${rows[i][0]}:\n  got  ${actual[i].slice(0, 300)}\n  want ${expected[i].slice(0, 300)}`);
  }
  assert.equal(diff.length, 0, `${what}: ${diff.length} rows differ:\n${diff.slice(0, 5).join("\n")}`);
}

test("the inputs: every SDK vector reads, hostile rows are refused, the megabyte rows sit at the reader's limit", (t) => {
  const names = rows.map(([name]) => name);
  const at = (name) => reference[names.indexOf(name)];
  const vectors = names.filter((n) => n.startsWith("vector "));
  assert.ok(vectors.length >= 40);
  t.diagnostic(`${vectors.length} SDK vectors, ${rows.length - vectors.length} hostile rows`);
  for (const name of vectors) assert.match(at(name), /^\{"view":\{"payload":/, name);
  const refused = reference.filter((r) => r.startsWith('{"threw":{"name":"SealedStateError","reason":"malformed"'));
  assert.ok(refused.length >= 30, `hostile rows refused: ${refused.length}`);
  assert.match(at("over 1 MiB and at the limit #0"), /"reason":"malformed"/);
  assert.equal(expand(cases[names.indexOf("over 1 MiB and at the limit #1")]).length, (1 << 20) - 1);
  assert.ok(at("over 1 MiB and at the limit #1").startsWith(`{"view":{"payload":"${"x".repeat(786_396 - 39)}","purpose":"view"`));
  assert.match(at("not strings #4"), /"reason":"malformed"/);
  assert.ok(at(`JSON ${DEEP} deep #0`).startsWith(`{"view":{"payload":${"[".repeat(DEEP)}${"]".repeat(DEEP)},`), "the deep payload is written out whole");
  assert.ok(at("payloads JSON.parse may treat differently #1").startsWith('{"view":{"payload":[-0,0.1,1e-7,1e+21,1.2345678901234568e+29,Infinity,-Infinity,5e-324,0],'));
});

/**
 * Whether binaryen (npm, the wasm-opt of js/build.mjs) validates a wasm with
 * every feature but SIMD128. In a child process: its validator prints the
 * whole offending function to stdout.
 */
function validatesWithoutSimd(file) {
  const run = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import binaryen from "binaryen";
import { readFileSync } from "node:fs";
const m = binaryen.readBinary(readFileSync(process.argv[1]));
m.setFeatures(binaryen.Features.All & ~binaryen.Features.SIMD128);
process.exitCode = m.validate() ? 0 : 3;`,
      file,
    ],
    { cwd: JS_DIR, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 << 20 },
  );
  assert.ok(run.status === 0 || run.status === 3, `binaryen: ${run.status} ${run.stderr}`);
  return run.status === 0;
}

test("the widget's wasm uses no SIMD (the edge's, built with +simd128, does): it runs in engines without wasm SIMD", () => {
  assert.equal(validatesWithoutSimd(join(PACKAGE_DIR, "wasm/widget_bg.wasm")), true);
  assert.equal(validatesWithoutSimd(join(PACKAGE_DIR, "wasm/edge_bg.wasm")), false, "the check sees SIMD where there is some");
});

for (const engine of ENGINE_LIST) {
  describe(engine, () => {
    let session;
    before(async () => {
      session = await startSession(engine); // fails when the engine is not installed
    });
    after(() => session?.close());

    const forms = { "one file (esbuild)": (policy) => srcdoc(html, policy, cases), "ES modules from a resource domain": (policy) => moduleSrcdoc(policy, cases) };
    for (const [form, page] of Object.entries(forms)) {
      for (const policy of Object.keys(POLICIES)) {
        const wasm = policy === "wasm";
        const key = `${form}, ${policy}`;
        test(`a sandboxed srcdoc View, ${form}, ${wasm ? "with" : "without"} 'wasm-unsafe-eval': backend "${wasm ? "wasm" : "js"}", no error, results equal Node's and Chromium's`, async (t) => {
          await session.navigate(`${server.url}host.html`);
          const { got, hostErrors } = JSON.parse(await session.executeAsync(RUN_IN_FRAME, page(policy)));
          const result = got.find((m) => m.type === "result");
          assert.ok(result, `the View reported: ${JSON.stringify(got).slice(0, 2000)}`);
          t.diagnostic(`${session.capabilities.browserName} ${session.capabilities.browserVersion}: ${result.userAgent}; WebAssembly ${result.webAssembly}, SIMD ${result.simd}`);
          assert.deepEqual(hostErrors, []);
          assert.deepEqual(
            got.filter((m) => m.type === "error"),
            [],
            "no error and no unhandled rejection in the View",
          );
          const violations = got.filter((m) => m.type === "csp");
          t.diagnostic(`CSP violations reported: ${JSON.stringify(violations)}`);
          if (wasm) {
            assert.deepEqual(violations, [], "no CSP violation");
          } else {
            // Compiling WebAssembly is the only thing the policy refuses; the page goes on.
            assert.ok(violations.length <= 1, JSON.stringify(violations));
            for (const v of violations) assert.equal(v.directive, "script-src", JSON.stringify(v));
          }
          assert.equal(result.webAssembly, "object");
          assert.equal(typeof result.simd, "boolean", "WebAssembly.validate answers");
          assert.equal(result.atImport, "js", "the JS twin serves the first call, before the wasm is ready");
          // The widget build has no SIMD: its wasm serves wherever WebAssembly is allowed, SIMD or not.
          assert.equal(result.settled, wasm ? "wasm" : "js");
          assert.equal(result.now, result.settled);
          assertSameOutcomes(result.first, reference, `${engine}, before init (JS twin) vs Node`);
          assertSameOutcomes(result.then, reference, `${engine}, after init (${result.settled}) vs Node`);
          seen[engine] = { ...seen[engine], [key]: result.then };
          if (engine !== "chromium" && seen.chromium?.[key]) assertSameOutcomes(result.then, seen.chromium[key], `${engine} vs Chromium`);
        });
      }
    }

    test("without 'wasm-unsafe-eval' the engine refuses WebAssembly: new Module or new Instance throws, instantiate rejects", async (t) => {
      await session.navigate(`${server.url}host.html`);
      const { got, hostErrors } = JSON.parse(await session.executeAsync(RUN_IN_FRAME, srcdocFor(REFUSAL_PROBE, "no-wasm", { token: null, nowMs: NOW_MS })));
      const result = got.find((m) => m.type === "result");
      assert.ok(result, JSON.stringify(got));
      const violations = got.filter((m) => m.type === "csp");
      t.diagnostic(
        `new WebAssembly.Module: ${result.module}; new WebAssembly.Instance: ${result.instance ?? "(not reached)"}; WebAssembly.compile: ${result.compile}; WebAssembly.instantiate: ${result.instantiate}; validate: ${result.validate}; CSP violations reported: ${JSON.stringify(violations)}`,
      );
      assert.deepEqual(hostErrors, []);
      assert.deepEqual(
        got.filter((m) => m.type === "error"),
        [],
      );
      assert.ok(result.module !== "compiled" || result.instance !== "instantiated", "the synchronous path throws");
      assert.notEqual(result.instantiate, "instantiated", "the asynchronous path rejects");
      assert.equal(result.validate, true, "validating is not compiling: the CSP allows it");
      for (const v of violations) assert.equal(v.directive, "script-src", JSON.stringify(v));
    });
  });
}
