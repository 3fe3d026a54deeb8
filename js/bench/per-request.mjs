// Codecs per request (docs/server.md, "A codec per request"): memory when every
// request builds its own codec, seals and opens a 64 KiB payload and drops
// the codec without free(), as a stateless handler does.
//
//   node js/pack.mjs                                    # the packed package
//   node js/bench/per-request.mjs node [--codecs N]     # one synchronous loop in Node, no FinalizationRegistry
//   node js/bench/per-request.mjs workerd [--requests N] [--date YYYY-MM-DD]
//   ... [--package DIR]                                 # another build's node_modules (e.g. main's)
//
// node: a child Node per kind (StateCodec, drop-in) with
// globalThis.FinalizationRegistry = undefined before the package loads, so
// nothing is ever freed behind the loop's back; reports RSS and wasm memory.
// workerd: one Miniflare isolate per kind and date, a codec built inside each
// fetch(); reports the isolate's wasm memory at 1k, 5k and 10k requests.
// Exits non-zero when memory grew after the first 1k (workerd) or by more
// than 16 MiB after the first 100 codecs (Node).
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { COMPATIBILITY_DATE, CONSUMER_NODE_MODULES, bundleForWorkerd, importTool } from "../lib/workerd.mjs";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");
const KINDS = ["StateCodec", "drop-in"];
const MIB = 1024 * 1024;
const GROWTH_BOUND = 16 * MIB;

function parseArgs(argv) {
  const opts = { mode: argv[0], codecs: 20_000, requests: 10_000, dates: ["2024-06-01", COMPATIBILITY_DATE], packageNodeModules: CONSUMER_NODE_MODULES, json: false };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--codecs") opts.codecs = Number(argv[++i]);
    else if (a === "--requests") opts.requests = Number(argv[++i]);
    else if (a === "--date") opts.dates = [argv[++i]];
    else if (a === "--package") opts.packageNodeModules = resolve(argv[++i]);
    else if (a === "--json") opts.json = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (opts.mode !== "node" && opts.mode !== "workerd") throw new Error("usage: node js/bench/per-request.mjs node|workerd [--codecs N] [--requests N] [--date D] [--package DIR] [--json]");
  return opts;
}

// The body every request runs: build a codec of `kind`, seal and open a 64
// KiB payload, drop it. `KEY` and `PAYLOAD` are in scope where it is pasted.
const REQUEST_BODY = `
async function oneRequest(kind, i) {
  if (kind === "StateCodec") {
    const codec = new StateCodec({ key: KEY });
    const token = codec.seal({ i, data: PAYLOAD });
    if (codec.open(token).i !== i) throw new Error("the token did not open to its payload");
  } else {
    const codec = createRequestStateCodec({ key: KEY });
    const token = await codec.mint({ i, data: PAYLOAD });
    if ((await codec.verify(token)).i !== i) throw new Error("the token did not open to its payload");
  }
}
const KEY = "per-request key: thirty-two bytes at least";
const PAYLOAD = "x".repeat(64 * 1024);
`;

// ---- Node: one synchronous loop in a child process -------------------------

// A synchronous loop: the drop-in's promises settle after it, so its codecs
// are all alive at once, the worst case.
const NODE_CHILD = (packageUrl, codecs, kind) => `
globalThis.FinalizationRegistry = undefined;
const { StateCodec, createRequestStateCodec } = await import(${JSON.stringify(packageUrl)});
const { initSync } = await import(${JSON.stringify(new URL("../wasm/edge.js", packageUrl).href)});
${REQUEST_BODY}
const memory = initSync().memory;
const sample = () => ({ rss: process.memoryUsage.rss(), wasm: memory.buffer.byteLength });
const before = sample();
let after100;
let error = null;
const pending = [];
try {
  for (let i = 0; i < ${codecs}; i++) {
    pending.push(oneRequest(${JSON.stringify(kind)}, i));
    if (i === 99) after100 = sample();
    // Stop well before the 4 GiB trap: past it the machine swaps for many minutes.
    if (memory.buffer.byteLength - before.wasm > 512 * 1024 * 1024) {
      error = "stopped: wasm memory grew past 512 MiB after " + (i + 1) + " codecs";
      break;
    }
  }
} catch (e) {
  error = String(e?.message ?? e).slice(0, 160);
}
const end = sample();
const settled = await Promise.allSettled(pending);
const rejected = settled.find((r) => r.status === "rejected");
if (error === null && rejected) error = String(rejected.reason?.message ?? rejected.reason).slice(0, 160);
console.log(JSON.stringify({ before, after100, end, error }));
`;

function runNode(opts) {
  const packageUrl = pathToFileURL(join(opts.packageNodeModules, "mcp-sealed-state/edge/node.js")).href;
  const rows = [];
  for (const kind of KINDS) {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", NODE_CHILD(packageUrl, opts.codecs, kind)], { encoding: "utf8", maxBuffer: 1 << 20 });
    const line = child.stdout.trim().split("\n").at(-1);
    const r = line?.startsWith("{") ? JSON.parse(line) : { error: `child exited ${child.status}: ${child.stderr.trim().split("\n").slice(-3).join(" ")}` };
    const growth = r.end && r.after100 ? r.end.wasm - r.after100.wasm : Infinity;
    rows.push({ kind, ...r, growth, ok: r.error === null && growth <= GROWTH_BOUND });
  }
  if (opts.json) return (console.log(JSON.stringify(rows, null, 2)), rows);
  const mib = (b) => (b === undefined ? "-" : `${(b / MIB).toFixed(1)} MiB`);
  console.log(`Node ${process.version}, ${opts.codecs.toLocaleString("en-US")} codecs in one synchronous loop, 64 KiB payloads, no FinalizationRegistry (${opts.packageNodeModules})`);
  for (const r of rows) {
    console.log(
      `  ${r.kind.padEnd(10)} RSS ${mib(r.before?.rss)} -> ${mib(r.end?.rss)}; wasm ${mib(r.before?.wasm)} -> after 100 ${mib(r.after100?.wasm)} -> end ${mib(r.end?.wasm)}${r.error ? `; FAILED: ${r.error}` : ""} -> ${r.ok ? "ok" : "NOT FLAT"}`,
    );
  }
  return rows;
}

// ---- workerd: a codec per fetch() in one isolate ---------------------------

const WORKER = (glue) => `
import { StateCodec, createRequestStateCodec } from "mcp-sealed-state";
import { initSync } from ${JSON.stringify(glue)};
${REQUEST_BODY}
const wasm = initSync();
let done = 0;
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/stats") {
      return Response.json({ done, wasm: wasm.memory.buffer.byteLength, finalizationRegistry: typeof FinalizationRegistry });
    }
    try {
      await oneRequest(url.searchParams.get("kind"), done);
    } catch (e) {
      return Response.json({ error: String(e?.message ?? e).slice(0, 160), done, wasm: wasm.memory.buffer.byteLength }, { status: 500 });
    }
    done++;
    return Response.json({ done, wasm: wasm.memory.buffer.byteLength });
  },
};
`;

async function runWorkerd(opts) {
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const consumer = dirname(opts.packageNodeModules);
  const built = await bundleForWorkerd({
    source: WORKER(join(opts.packageNodeModules, "mcp-sealed-state/wasm/edge.js")),
    sourcefile: "per-request-worker.js",
    resolveDir: consumer,
    packageNodeModules: opts.packageNodeModules,
  });
  const marks = [100, 1000, 5000, 10_000].filter((n) => n <= opts.requests);
  const rows = [];
  for (const date of opts.dates) {
    for (const kind of KINDS) {
      const mf = new Miniflare({ name: "per-request", modulesRoot: JS, modules: built.modules, compatibilityDate: date, cf: false, log: new Log(LogLevel.ERROR) });
      const row = { date, kind, at: {}, error: null };
      try {
        await mf.ready;
        row.finalizationRegistry = (await (await mf.dispatchFetch("http://w/stats")).json()).finalizationRegistry;
        row.start = (await (await mf.dispatchFetch("http://w/stats")).json()).wasm;
        for (let i = 1; i <= opts.requests; i++) {
          const res = await mf.dispatchFetch(`http://w/request?kind=${encodeURIComponent(kind)}`);
          const r = await res.json();
          if (!res.ok) {
            row.error = `request ${i}: ${r.error}`;
            row.at[i] = r.wasm;
            break;
          }
          if (marks.includes(i)) row.at[i] = r.wasm;
        }
      } catch (e) {
        row.error = String(e?.message ?? e).slice(0, 160);
      } finally {
        await mf.dispose();
      }
      // Flat: the same from 1k requests on (the first 100 are the warm-up); one mark proves nothing.
      const seen = Object.entries(row.at)
        .filter(([n]) => Number(n) >= 1000)
        .map(([, b]) => b);
      row.ok = row.error === null && seen.length === marks.length - 1 && seen.length >= 2 && seen.every((b) => b === seen[0]);
      rows.push(row);
      if (!opts.json) {
        const mib = (b) => `${(b / MIB).toFixed(2)} MiB`;
        const at = Object.entries(row.at)
          .map(([n, b]) => `${Number(n).toLocaleString("en-US")}: ${mib(b)}`)
          .join(", ");
        console.log(
          `  ${date} ${kind.padEnd(10)} FinalizationRegistry ${row.finalizationRegistry}; wasm at start ${mib(row.start ?? 0)}, ${at}${row.error ? `; FAILED: ${row.error}` : ""} -> ${row.ok ? "flat" : "NOT FLAT"}`,
        );
      }
    }
  }
  if (opts.json) console.log(JSON.stringify(rows, null, 2));
  return rows;
}

const opts = parseArgs(process.argv.slice(2));
if (!opts.json && opts.mode === "workerd")
  console.log(`workerd (Miniflare), ${opts.requests.toLocaleString("en-US")} requests, a codec built in each fetch(), 64 KiB payloads (${opts.packageNodeModules})`);
const rows = opts.mode === "node" ? runNode(opts) : await runWorkerd(opts);
process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
