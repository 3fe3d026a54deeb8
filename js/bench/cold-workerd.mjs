// workerd (through Miniflare): the first seal in a fresh isolate.
//
// Each run starts a fresh workerd process with four workers, each its own
// isolate: "warm" (only warms the Node -> workerd HTTP path), "base" (answers
// without sealing), "seal" (imports mcp-sealed-state statically; its first
// request builds a StateCodec and seals once) and "lazy" (imports it with
// import() inside its first request, so that request also pays for
// evaluating the glue and instantiating the wasm). Every worker answers with
// the same small JSON.
//
// The bundle is esbuild's, against the PACKED package: the "workerd" export
// condition picks edge/workerd.js, whose `import wasm from "../wasm/edge_bg.wasm"`
// stays external and is served to Miniflare as a CompiledWasm module (workerd
// refuses to compile wasm from bytes at run time).
//
// Timing: workerd's clocks (Date.now, performance.now) are Spectre-mitigated
// and do not advance while a request runs without I/O. The workers check it
// (a busy loop between two performance.now() reads) and report the in-worker
// reading; when it is frozen, the figure is taken from Node instead: the
// latency of the first request to "seal" minus that of the first request to
// "base", in the same workerd process, median over the runs.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./harness.mjs";
import { COMPATIBILITY_DATE, bundleForWorkerd, importTool } from "../lib/workerd.mjs";
import { KEY } from "./codecs.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const JS = join(BENCH, "..");
const requireTool = createRequire(join(JS, "package.json"));
const RUNS = 10;
const PER_RUN = 4; // isolates of each kind per workerd process: base0..3, seal0..3, lazy0..3

const SOURCES = {
  warm: `export default { fetch() { return new Response("{}", { headers: { "content-type": "application/json" } }); } };`,
  // Does the clock move across pure computation (no I/O)? And in what steps?
  clock: `export default { fetch() {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < 3e6; i++) x = (x + i * 7) % 1000003;
  const t1 = performance.now();
  const steps = new Set();
  for (let i = 0, prev = performance.now(); i < 1e5; i++) { const t = performance.now(); if (t !== prev) steps.add(t - prev); prev = t; }
  return Response.json({ clockMovedMs: t1 - t0, x, smallestStepMs: Math.min(...steps) });
} };`,
  base: `export default { fetch() {
  const t0 = performance.now();
  return Response.json({ inWorkerMs: performance.now() - t0, token: 0 });
} };`,
  seal: `import { StateCodec } from "mcp-sealed-state";
let codec;
export default { fetch() {
  const t0 = performance.now();
  codec ??= new StateCodec({ key: ${JSON.stringify(KEY)} });
  const token = codec.seal({ board: [0, 0, 0, 0, 0, 0, 0, 0, 0], turn: 1 });
  return Response.json({ inWorkerMs: performance.now() - t0, token: token.length });
} };`,
  lazy: `let codec;
export default { async fetch() {
  const t0 = performance.now();
  if (!codec) {
    const { StateCodec } = await import("mcp-sealed-state");
    codec = new StateCodec({ key: ${JSON.stringify(KEY)} });
  }
  const token = codec.seal({ board: [0, 0, 0, 0, 0, 0, 0, 0, 0], turn: 1 });
  return Response.json({ inWorkerMs: performance.now() - t0, token: token.length });
} };`,
};

function bundle(name) {
  // Module names only: nothing is written under bench/workerd/.
  return bundleForWorkerd({ source: SOURCES[name], sourcefile: `${name}.mjs`, resolveDir: BENCH, moduleDir: join(BENCH, "workerd", name) });
}

async function timedFetch(mf, name) {
  const t0 = performance.now();
  const res = await mf.dispatchFetch(`http://${name}.bench/`);
  const body = await res.json();
  return { ms: performance.now() - t0, ...body };
}

export async function coldWorkerd(log) {
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const miniflareVersion = JSON.parse(readFileSync(requireTool.resolve("miniflare/package.json"), "utf8")).version;
  const built = {};
  for (const name of Object.keys(SOURCES)) built[name] = await bundle(name);

  const workers = [
    ["warm", "warm"],
    ["clock", "clock"],
  ];
  for (let i = 0; i < PER_RUN; i++) for (const kind of ["base", "seal", "lazy"]) workers.push([`${kind}${i}`, kind]);
  const runs = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const mf = new Miniflare({
      host: "127.0.0.1",
      port: 0,
      cf: false,
      log: new Log(LogLevel.WARN),
      workers: workers.map(([name, kind]) => ({
        name,
        modulesRoot: join(BENCH, "workerd", kind),
        modules: built[kind].modules,
        compatibilityDate: COMPATIBILITY_DATE,
        routes: [`${name}.bench/*`],
      })),
    });
    try {
      await mf.ready;
      const readyMs = performance.now() - t0;
      await timedFetch(mf, "warm");
      await timedFetch(mf, "warm");
      const clock = await timedFetch(mf, "clock");
      for (let i = 0; i < PER_RUN; i++) {
        // Each isolate's first request; rotate the order so no kind always goes first.
        // Isolate 0's "seal" goes first: it is the first to run the wasm in this
        // process (V8 shares compiled wasm code between the isolates of a process).
        const kinds = ["seal", "base", "lazy"];
        const order = [...kinds.slice(i % 3), ...kinds.slice(0, i % 3)];
        const first = {};
        for (const kind of order) first[kind] = await timedFetch(mf, `${kind}${i}`);
        const second = { seal: await timedFetch(mf, `seal${i}`), base: await timedFetch(mf, `base${i}`) };
        runs.push({ index: i, readyMs, first, second, clock });
      }
      const last = runs.slice(-PER_RUN);
      log(
        `  run ${run + 1}: first requests base ${last.map((r) => r.first.base.ms.toFixed(1)).join("/")} ms, seal ${last.map((r) => r.first.seal.ms.toFixed(1)).join("/")} ms ` +
          `(in worker ${last.map((r) => r.first.seal.inWorkerMs).join("/")}), lazy in worker ${last.map((r) => r.first.lazy.inWorkerMs).join("/")}; clock moved ${clock.clockMovedMs} ms, step ${clock.smallestStepMs} ms`,
      );
    } finally {
      await mf.dispose();
    }
  }
  const firsts = runs.filter((r) => r.index === 0); // the first isolate of each fresh workerd process
  const later = runs.filter((r) => r.index > 0);
  const m = (f, rs = firsts) => median(rs.map(f));
  // Readings are whole milliseconds; averaged over many isolates they resolve
  // finer (trimmed: the top and bottom 10% dropped, for load spikes).
  const trimmedMean = (f, rs) => {
    const xs = rs.map(f).sort((a, b) => a - b);
    const cut = Math.floor(xs.length / 10);
    const kept = xs.slice(cut, xs.length - cut);
    return kept.reduce((a, b) => a + b, 0) / kept.length;
  };
  const frozen = runs.every((r) => r.clock.clockMovedMs === 0);
  const nodeSideMs = m((r) => r.first.seal.ms - r.first.base.ms);
  const inWorkerMs = m((r) => r.first.seal.inWorkerMs);
  // The target's figure: in-worker when the clock moves, else Node-side.
  const firstSealMs = frozen ? nodeSideMs : inWorkerMs;
  const fmt = (x) => `${x.toFixed(2)} ms`;
  const lines = [
    frozen
      ? "clock check: performance.now() did not move across a busy loop (frozen without I/O), so the figures are Node-side: first request to a sealing worker minus first request to a worker that does not seal, same workerd process"
      : `clock check: performance.now() moved ${fmt(m((r) => r.clock.clockMovedMs))} across a busy loop with no I/O (in steps of ${m((r) => r.clock.smallestStepMs)} ms), so this workerd (Miniflare's local build) does not freeze it: the figures are read inside the worker, in whole milliseconds`,
    `**first seal** in the first isolate of a fresh workerd process (static import; the request builds a StateCodec and seals 38 B): median of ${firsts.length} processes **${fmt(firstSealMs)}**` +
      (frozen
        ? ""
        : ` in the worker (readings ${firsts.map((r) => r.first.seal.inWorkerMs).join(", ")} ms); cross-check from Node, that request − the first request to a worker that does not seal: median ${fmt(nodeSideMs)}`),
    `later fresh isolates in the same process (V8 shares the compiled wasm code): first seal ${frozen ? "n/a" : fmt(trimmedMean((r) => r.first.seal.inWorkerMs, later))}, and with \`await import("mcp-sealed-state")\` inside the request (glue evaluation + wasm instantiation + codec + seal) ${frozen ? "n/a" : fmt(trimmedMean((r) => r.first.lazy.inWorkerMs, later))} (trimmed means of ${later.length} whole-ms readings)`,
    `for scale: the first request to a fresh isolate that does not seal takes ${fmt(m((r) => r.first.base.ms))} from Node and back; the second seal in a warm isolate reads ${fmt(m((r) => r.second.seal.inWorkerMs, runs))} in the worker`,
    `workerd process start to ready (${workers.length} workers; seal bundle ${built.seal.bytes} B + ${built.seal.modules[1].contents.length} B wasm): ${m((r) => r.readyMs).toFixed(0)} ms`,
  ];
  return { miniflareVersion, runs: RUNS, isolates: runs.length, firstSealMs, nodeSideMs, inWorkerMs, frozen, lines };
}
