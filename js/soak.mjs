// Soak in real workerd: seal+open cycles in ONE Miniflare isolate, 1% of the
// opens deliberately bad, errors counted by reason, the wasm memory measured
// at the start and the end, and any error that is not the stable
// SealedStateError (a trap shows up as WebAssembly.RuntimeError) counted.
//
//   npm --prefix js run build && node js/pack.mjs    # the packed package
//   node js/soak.mjs [cycles] [--batch N] [--json]   # default 1,000,000 cycles
//
// Not part of the default test run (1,000,000 cycles take a minute or more).
// Exits non-zero when a trap or another error escaped, a bad token opened, a
// good one did not open to its payload, the module became unusable, or the
// wasm memory grew after the warm-up batch.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPATIBILITY_DATE, bundleForWorkerd, importTool } from "./lib/workerd.mjs";

const JS = dirname(fileURLToPath(import.meta.url));
const CONSUMER = join(JS, "out/consumer/node_modules");
const PKG = join(CONSUMER, "mcp-sealed-state");

function parseArgs(argv) {
  const opts = { cycles: 1_000_000, batch: 10_000, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const whole = (v) => {
      const s = String(v).replace(/_/g, "");
      if (!/^\d+$/.test(s) || Number(s) < 1) throw new Error(`${a}: expected a positive whole number, got ${v}`);
      return Number(s);
    };
    if (a === "--batch") opts.batch = whole(argv[++i]);
    else if (a === "--json") opts.json = true;
    else if (/^[\d_]+$/.test(a)) opts.cycles = whole(a);
    else throw new Error(`unknown argument ${a} (usage: node js/soak.mjs [cycles] [--batch N] [--json])`);
  }
  return opts;
}

// ---- the worker ------------------------------------------------------------

// Runs inside workerd. One module instance = one isolate for the whole soak.
const WORKER = (wasmGlue) => `
import { StateCodec, SealedStateError, SEALED_STATE_INVALID_MESSAGE } from "mcp-sealed-state";
import { initSync } from ${JSON.stringify(wasmGlue)};

// The package's workerd entry has instantiated the wasm already; initSync
// then returns that instance's exports, memory included.
const wasm = initSync();
const memoryBytes = () => wasm.memory.buffer.byteLength;
// (random values are not allowed at global scope in workerd: drawn at first use)
let isolateId;
const isolate = () => (isolateId ??= crypto.randomUUID());
const STARTED_WITH = memoryBytes();

const KEY = "soak key: thirty-two bytes at the very least";
const OTHER_KEY = "another soak key, thirty-two bytes or more!";
let shiftMs = 0; // moves the codec's clock for the expired cases
const now = () => Date.now() + shiftMs;
const codec = new StateCodec({ key: KEY, ttlSeconds: 600, now });
const stranger = new StateCodec({ key: OTHER_KEY, now });

const BAD = ["tampered", "expired", "wrongPurpose", "garbage", "wrongBind", "wrongTool", "wrongKey", "truncated"];
const OVERSIZE = "v1." + "A".repeat(300 * 1024) + "." + "A".repeat(43); // over the 256 KiB default
let garbageN = 0;
function garbage(i) {
  const variants = [
    () => "",
    () => "v1.",
    () => "v1..",
    () => "v2.eyJwIjoxfQ." + "A".repeat(43),
    () => "\\u0000".repeat(50),
    () => "v1.eyJwIjoxfQ.AAAA=",
    () => "v1.\\ud800\\udfff.x",
    () => OVERSIZE,
    () => "v1." + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(40)))).replace(/=+$/, "") + "." + "A".repeat(43),
    () => Array.from(crypto.getRandomValues(new Uint16Array(64)), (c) => String.fromCharCode(c)).join(""),
  ];
  return variants[garbageN++ % variants.length]();
}

function payloadOf(i) {
  return { i, board: [i % 3, 0, 1, 2, 0, 1, 2, 0, i % 2], note: "é😀\\u2028 \\"q\\" \\\\", deep: { a: [i, -i / 7, null, true] } };
}

const stats = {
  cycles: 0, goodOpened: 0, badRefused: 0,
  badByKind: {}, badByReason: {}, goodRefused: {}, badAccepted: {}, mismatches: 0,
  escaped: {}, traps: 0, canaryFailures: 0, transientCodecs: 0,
};
const bump = (obj, k, n = 1) => (obj[k] = (obj[k] ?? 0) + n);

function classify(e) {
  if (e instanceof SealedStateError && e.message === SEALED_STATE_INVALID_MESSAGE) return { reason: e.reason };
  if (e instanceof WebAssembly.RuntimeError) stats.traps++;
  bump(stats.escaped, (e?.name ?? typeof e) + ": " + String(e?.message ?? e).slice(0, 120));
  return { escaped: true };
}

// One cycle: seal, then open; every 100th open is deliberately bad.
function cycle(i) {
  const payload = payloadOf(i);
  const kind = i % 3; // 0 view, 1 requestState, 2 raw (mint/verify)
  const bind = (i + Math.floor(i / 100)) % 2 ? "user-" + (i % 97) : undefined; // bad cycles alternate too
  const opts = bind === undefined ? undefined : { bind };
  const seal = () => (kind === 0 ? codec.seal(payload, opts) : kind === 1 ? codec.sealRequestState(payload, "move", opts) : codec.mint(payload, opts));
  const open = (t, o = opts, tool = "move", c = codec) => (kind === 0 ? c.open(t, o) : kind === 1 ? c.openRequestState(t, tool, o) : c.verify(t, o));
  let token;
  try {
    token = seal();
  } catch (e) {
    classify(e);
    return;
  }
  stats.cycles++;
  if (i % 100 !== 99) {
    try {
      const got = open(token);
      if (JSON.stringify(got) === JSON.stringify(payload)) stats.goodOpened++;
      else stats.mismatches++;
    } catch (e) {
      const r = classify(e);
      if (r.reason) bump(stats.goodRefused, r.reason);
    }
    return;
  }
  const bad = BAD[Math.floor(i / 100) % BAD.length];
  bump(stats.badByKind, bad);
  try {
    let opened;
    switch (bad) {
      case "tampered": {
        const j = 3 + (i % (token.lastIndexOf(".") - 3)); // a body character
        const c = token[j] === "A" ? "B" : "A";
        opened = open(token.slice(0, j) + c + token.slice(j + 1));
        break;
      }
      case "expired":
        shiftMs = 601_000;
        try {
          opened = open(token);
        } finally {
          shiftMs = 0;
        }
        break;
      case "wrongPurpose":
        opened = kind === 0 ? codec.openRequestState(token, "move", opts) : codec.open(token, opts);
        break;
      case "garbage":
        opened = open(garbage(i));
        break;
      case "wrongBind":
        opened = open(token, bind === undefined ? { bind: "intruder" } : {});
        break;
      case "wrongTool":
        opened = kind === 1 ? open(token, opts, "start") : codec.openRequestState(token, "start", opts);
        break;
      case "wrongKey":
        opened = open(token, opts, "move", stranger);
        break;
      case "truncated":
        opened = open(token.slice(0, token.length - 1 - (i % 5)));
        break;
    }
    bump(stats.badAccepted, bad);
    void opened;
  } catch (e) {
    const r = classify(e);
    if (r.reason) {
      stats.badRefused++;
      bump(stats.badByReason, r.reason);
      bump(stats.badByKind, bad + "->" + r.reason);
    }
  }
}

// After every batch: the module must still work.
function canary() {
  try {
    const t = codec.seal({ ok: true });
    if (codec.open(t).ok !== true) stats.canaryFailures++;
  } catch (e) {
    classify(e);
    stats.canaryFailures++;
  }
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/batch") {
      const from = Number(url.searchParams.get("from"));
      const n = Number(url.searchParams.get("n"));
      const t0 = Date.now();
      // A codec made and freed per request, as a handler that builds one per
      // request would (its keyed MAC states live in wasm memory).
      const transient = new StateCodec({ key: KEY, now });
      transient.open(transient.seal({ from }));
      transient.free();
      stats.transientCodecs++;
      for (let i = from; i < from + n; i++) cycle(i);
      canary();
      return Response.json({ isolate: isolate(), memoryBytes: memoryBytes(), ms: Date.now() - t0 });
    }
    if (url.pathname === "/stats") {
      return Response.json({ isolate: isolate(), startedWith: STARTED_WITH, memoryBytes: memoryBytes(), stats });
    }
    return new Response("not found", { status: 404 });
  },
};
`;

async function buildWorker() {
  const built = await bundleForWorkerd({ source: WORKER(join(PKG, "wasm/edge.js")), sourcefile: "soak-worker.js", resolveDir: CONSUMER });
  if (built.wasm.length !== 1) throw new Error(`expected one wasm module, got ${built.wasm}`);
  return { modules: built.modules, wasmFile: built.wasm[0] };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const built = await buildWorker();
  const mf = new Miniflare({
    name: "mcp-sealed-state-soak",
    modulesRoot: JS,
    modules: built.modules,
    compatibilityDate: COMPATIBILITY_DATE,
    cf: false,
    log: new Log(LogLevel.WARN),
  });
  const t0 = performance.now();
  let summary;
  try {
    await mf.ready;
    const get = async (path) => {
      const res = await mf.dispatchFetch(`http://soak${path}`);
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return res.json();
    };
    const first = await get("/stats");
    const memory = [];
    const isolates = new Set([first.isolate]);
    let done = 0;
    let lastReport = 0;
    while (done < opts.cycles) {
      const n = Math.min(opts.batch, opts.cycles - done);
      const r = await get(`/batch?from=${done}&n=${n}`);
      isolates.add(r.isolate);
      memory.push(r.memoryBytes);
      done += n;
      if (!opts.json && performance.now() - lastReport > 5000) {
        lastReport = performance.now();
        process.stderr.write(`  ${done.toLocaleString("en-US")} cycles, wasm memory ${r.memoryBytes} B\n`);
      }
    }
    const end = await get("/stats");
    const seconds = (performance.now() - t0) / 1000;
    const s = end.stats;
    summary = {
      cycles: s.cycles,
      seconds: Number(seconds.toFixed(1)),
      cyclesPerSecond: Math.round(s.cycles / seconds),
      isolates: isolates.size,
      goodOpened: s.goodOpened,
      goodRefused: s.goodRefused,
      mismatches: s.mismatches,
      badOpens: badTotal(s),
      badRefused: s.badRefused,
      badByReason: s.badByReason,
      badByKind: s.badByKind,
      badAccepted: s.badAccepted,
      traps: s.traps,
      escaped: s.escaped,
      canaryFailures: s.canaryFailures,
      transientCodecs: s.transientCodecs,
      wasmMemory: {
        atStart: first.startedWith,
        beforeFirstBatch: first.memoryBytes,
        afterFirstBatch: memory[0],
        max: Math.max(...memory),
        atEnd: end.memoryBytes,
      },
      wasmFile: built.wasmFile,
    };
  } finally {
    await mf.dispose();
  }
  const m = summary.wasmMemory;
  const grewAfterWarmup = m.atEnd > m.afterFirstBatch;
  const failed =
    summary.traps > 0 ||
    Object.keys(summary.escaped).length > 0 ||
    Object.keys(summary.badAccepted).length > 0 ||
    Object.keys(summary.goodRefused).length > 0 ||
    summary.mismatches > 0 ||
    summary.canaryFailures > 0 ||
    summary.isolates !== 1 ||
    grewAfterWarmup;
  if (opts.json) {
    console.log(JSON.stringify({ ...summary, ok: !failed }, null, 2));
  } else {
    const kib = (b) => `${b} B (${(b / 1024).toFixed(0)} KiB)`;
    const fmt = (o) =>
      Object.entries(o)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none";
    console.log(
      `soak: ${summary.cycles.toLocaleString("en-US")} seal+open cycles in one workerd isolate (${summary.isolates} isolate seen), ${summary.seconds} s, ${summary.cyclesPerSecond.toLocaleString("en-US")} cycles/s`,
    );
    console.log(`  good opens:  ${summary.goodOpened.toLocaleString("en-US")} opened to their payload; refused: ${fmt(summary.goodRefused)}; mismatches: ${summary.mismatches}`);
    console.log(`  bad opens:   ${summary.badOpens.toLocaleString("en-US")}, refused ${summary.badRefused.toLocaleString("en-US")} with the stable error; accepted: ${fmt(summary.badAccepted)}`);
    console.log(`    by reason: ${fmt(summary.badByReason)}`);
    console.log(`    by kind:   ${fmt(Object.fromEntries(Object.entries(summary.badByKind).filter(([k]) => k.includes("->"))))}`);
    console.log(`  traps (WebAssembly.RuntimeError): ${summary.traps}; other escaped errors: ${fmt(summary.escaped)}; canary failures: ${summary.canaryFailures}`);
    console.log(
      `  wasm memory: start ${kib(m.atStart)}, after first batch ${kib(m.afterFirstBatch)}, max ${kib(m.max)}, end ${kib(m.atEnd)} -> ${grewAfterWarmup ? "GREW after warm-up" : "flat after warm-up"}`,
    );
    console.log(`  transient codecs made and freed: ${summary.transientCodecs}`);
    console.log(failed ? "FAILED" : "ok");
  }
  process.exitCode = failed ? 1 : 0;
}

function badTotal(s) {
  return Object.entries(s.badByKind)
    .filter(([k]) => !k.includes("->"))
    .reduce((a, [, v]) => a + v, 0);
}

await main();
