// Ratios, targets and the Markdown written to RESULTS.md (also printed).
import { cpus, loadavg } from "node:os";
import { readFileSync } from "node:fs";
import { widgetSpeedTable } from "./widget-speed.mjs";

const fmtUs = (us) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));
const fmtOps = (ops) => (ops >= 1e6 ? `${(ops / 1e6).toFixed(2)} M` : ops >= 1e3 ? `${(ops / 1e3).toFixed(1)} k` : ops.toFixed(0));
const fmtX = (x) => (x === undefined || Number.isNaN(x) ? "" : x >= 10 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`);
const fmtMs = (ms) => (ms === undefined || Number.isNaN(ms) ? "n/a" : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
const kib = (b) => `${(b / 1024).toFixed(2)} KiB`;
const metText = (met) => (met === undefined ? "—" : met ? "yes" : "**no**");

export function machine() {
  const cpu = cpus();
  let model = cpu[0]?.model ?? "unknown CPU";
  try {
    // In a VM the kernel's model string can be bare ("AMD EPYC"); add family/model.
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const field = (k) => info.match(new RegExp(`^${k}\\s*:\\s*(.*)$`, "m"))?.[1];
    const flags = field("flags") ?? "";
    model = `${model} (family ${field("cpu family")}, model ${field("model")}${flags.includes("sha_ni") ? ", SHA-NI" : ""})`;
  } catch {}
  return `${model}, ${cpu.length} cores, Node ${process.version}, ${process.platform}-${process.arch}, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The 1-minute load average: the machine is shared, and other work skews every figure. */
export function load() {
  return loadavg()[0];
}

/**
 * Attach × SDK (sequential, same kind and binding; for our rows with calls in
 * flight, the SDK's row with as many in flight) and × node:crypto (the faster
 * of the two node rows for the same op and binding).
 */
export function withRatios(results) {
  const key = (r, ...xs) => [r.payload, r.bound, ...xs].join("|");
  const sdk = new Map();
  const sdk32 = new Map();
  const node = new Map();
  for (const r of results) {
    if (r.sdkRef) sdk.set(key(r, r.kind), r);
    if (r.sdkRef32) sdk32.set(key(r, r.kind), r);
    if (r.nodeRef) {
      const k = key(r, r.family);
      if (!node.has(k) || node.get(k).opsPerSec < r.opsPerSec) node.set(k, r);
    }
  }
  // jose has no bound rows: compare it with the unbound references.
  return results.map((r) => ({
    ...r,
    xSdk: r.opsPerSec / (r.inFlight > 1 && !r.sdkRef32 ? sdk32 : sdk).get(key(r, r.kind))?.opsPerSec,
    xNode: r.opsPerSec / node.get(key(r, r.family))?.opsPerSec,
    nodeRefGroup: node.get(key(r, r.family))?.group,
  }));
}

function find(results, payload, group, op, bound = false) {
  return results.find((r) => r.payload === payload && r.group === group && r.op === op && r.bound === bound);
}

export function targets({ results, sizes, cold }) {
  const t = [];
  const row = (name, measured, ratio, need, met, note = "") => t.push({ name, measured, ratio, need, met, note });
  for (const [payload, sdkNeed, nodeNeed] of [
    ["small", 20, 1.5],
    ["large", 1.0, 0.4],
  ]) {
    for (const op of ["seal", "open"]) {
      for (const bound of [false, true]) {
        const r = find(results, payload, "ours", op, bound);
        if (!r) continue;
        const what = `${payload} ${op}${bound ? " (bound)" : ""}`;
        row(`${what} vs SDK codec`, `${fmtOps(r.opsPerSec)} ops/s`, r.xSdk, `≥ ${sdkNeed}×`, r.xSdk >= sdkNeed);
        row(`${what} vs node:crypto`, `${fmtOps(r.opsPerSec)} ops/s`, r.xNode, `≥ ${nodeNeed}×`, r.xNode >= nodeNeed, `vs ${r.nodeRefGroup}`);
      }
    }
  }
  // No target in the issue: the figure that keeps "× SDK" honest for servers that overlap requests.
  for (const payload of ["small", "large"]) {
    for (const op of ["mint", "verify"]) {
      const r = find(results, payload, "ours createRequestStateCodec (async), 32 in flight", op);
      if (r) row(`${payload} ${op}, 32 in flight: our drop-in vs SDK codec, both 32 in flight`, `${fmtOps(r.opsPerSec)} ops/s`, r.xSdk, "(no target)", undefined);
    }
  }
  if (sizes) {
    const w = sizes.wasm.find((s) => s.name === "widget");
    const e = sizes.wasm.find((s) => s.name === "edge");
    row("widget .wasm gzipped", kib(w.gzip), w.gzip / (12 * 1024), "≤ 12 KiB (ratio = size / budget)", w.gzip <= 12 * 1024);
    row("edge .wasm gzipped", kib(e.gzip), e.gzip / (40 * 1024), "≤ 40 KiB (ratio = size / budget)", e.gzip <= 40 * 1024);
  }
  for (const n of [cold?.node, cold?.node22, cold?.node24, cold?.node26].filter(Boolean)) {
    const d = n.ours.overBare;
    const cpu = n.ours.cpuOverBare !== undefined ? `; CPU ${n.ours.cpuOverBare.toFixed(0)} ms` : "";
    row(
      `Node ${n.version}: import + first seal − bare \`node -e 0\` (wall, median of paired rounds)`,
      fmtMs(d),
      d / 10,
      "≤ 10 ms (ratio = delta / 10 ms)",
      d <= 10,
      `of which Node's own ${fmtMs(n.onePackage.overBare)} (an empty .mjs ${fmtMs(n.esm.overBare)}, then importing a one-line package)${cpu}`,
    );
    // No target of its own: the part of the row above that this package can change.
    row(
      `Node ${n.version}: what the package adds, import + first seal − an .mjs importing a one-line package (wall, median of paired rounds)`,
      fmtMs(n.ours.overOnePackage),
      undefined,
      "(no target)",
      undefined,
    );
    // What a user of the SDK's codec pays for it already, on the same measure.
    row(
      `Node ${n.version}: the SDK's import + createRequestStateCodec + first mint − an .mjs importing a one-line package (wall, median of paired rounds)`,
      fmtMs(n.sdk.overOnePackage),
      undefined,
      "(no target)",
      undefined,
      `ours − the SDK's: ${fmtMs(n.ours.overOnePackage - n.sdk.overOnePackage)}`,
    );
  }
  if (cold?.widget) {
    const w = cold.widget;
    const vite = w.bundles.find((b) => b.name === "vite");
    const worst = w.bundles.reduce((a, b) => (b.added.gzip > a.added.gzip ? b : a));
    row(
      "widget entry added to a one-file View (Vite + singlefile), gzip",
      kib(vite.added.gzip),
      vite.added.gzip / (20 * 1024),
      "≤ 20 KiB (ratio = size / budget)",
      vite.added.gzip <= 20 * 1024,
      `${vite.added.raw} B raw; largest: ${worst.name} ${kib(worst.added.gzip)}`,
    );
    for (const [name, ms, note] of [
      ["js", w.first.js, "the JS twin serves the first call on every page"],
      ["wasm", w.first.wasm, "a View whose first call waits for init(), with 'wasm-unsafe-eval'"],
    ]) {
      row(`Chromium View: module start to first readTokenUnverified (${name} backend)`, fmtMs(ms), ms / 5, "≤ 5 ms (ratio = time / 5 ms)", ms <= 5, note);
    }
  }
  if (cold?.workerd?.firstSealMs !== undefined) {
    const d = cold.workerd.firstSealMs;
    row("workerd: first seal in a fresh isolate", fmtMs(d), d / 5, "≤ 5 ms (ratio = time / 5 ms)", d <= 5);
  }
  return t;
}

/** The short table README.md carries between its bench markers. */
export function readmeSummary({ targetRows, machineLine }) {
  const out = [`Measured by \`npm --prefix js run bench\` on ${machineLine} (CPU time per op; full tables in [js/bench/RESULTS.md](js/bench/RESULTS.md)):`, ""];
  out.push("| target | measured | ratio | needed | met |");
  out.push("|---|---:|---:|---|:-:|");
  for (const t of targetRows.filter((t) => !t.name.includes("(bound)"))) {
    out.push(`| ${t.name} | ${t.measured} | ${fmtX(t.ratio)} | ${t.need} | ${metText(t.met)} |`);
  }
  return out.join("\n");
}

export function markdown({ results, hash, widgetSpeed, sizes, cold, targetRows, machineLine, loadLine, checks, command, elapsedS, payloads, quick = false }) {
  const out = [];
  out.push("# Benchmark results");
  out.push("");
  out.push(`Machine: ${machineLine}.`);
  if (loadLine) out.push(`Load: ${loadLine}.`);
  out.push(`Command: \`${command}\` (${elapsedS.toFixed(0)} s). Regenerated by every run; do not edit by hand.`);
  out.push("");
  out.push(
    `Method: each row is warmed up (~${quick ? 60 : 120} ms, which also sizes its batches to ~${quick ? 25 : 40} ms of CPU), then the rows of a payload are timed round robin, one batch each per round, ${results[0]?.reps ?? 7} rounds; a row's figure is the median of its batches${quick ? " (--quick: the key rows only, shorter batches, fewer rounds; a before/after check, not the published figures)" : ""}. ` +
      "**Figures are CPU time** of the benchmark process (`process.cpuUsage()`, user + system over all its threads, so WebCrypto's thread pool and GC helpers count): what a Worker is billed for, and steady on a shared machine where wall time swings with other load; ops/s = 1 / CPU time per op. The wall-clock median is in its own column. " +
      "× SDK divides by the `@modelcontextprotocol/server@2.4.0` codec's sequential mint (make rows) or verify (open rows) with the same binding; our drop-in's rows with 32 calls in flight divide by the SDK codec's row with 32 in flight (the SDK's own 32-in-flight row, by its sequential one); " +
      "× node:crypto divides by the faster of the two node:crypto implementations (js/bench/node-codec.mjs) doing the same operation with the same binding. " +
      `Before timing, ${checks} interop checks passed: every codec opens every other's tokens, raw tokens are byte-identical across ours, the SDK and node:crypto, and tampered / mis-bound / wrong-purpose tokens are refused by all.`,
  );
  out.push("");
  out.push(`Payloads: ${payloads.map((p) => `${p.name} ${p.bytes} B`).join(", ")} of JSON (ASCII). Bound rows use \`bind: "${"user-42"}"\`.`);
  out.push("");
  out.push("## Targets");
  out.push("");
  out.push("| target | measured | ratio | needed | met |");
  out.push("|---|---:|---:|---|:-:|");
  for (const t of targetRows) out.push(`| ${t.name}${t.note ? ` (${t.note})` : ""} | ${t.measured} | ${fmtX(t.ratio)} | ${t.need} | ${metText(t.met)} |`);
  out.push("");
  out.push("## Speed");
  for (const p of payloads) {
    out.push("");
    out.push(`### ${p.label}: ${p.bytes} B of payload JSON`);
    out.push("");
    out.push("| codec | operation | CPU µs/op | ops/s (CPU) | × SDK | × node:crypto | wall µs/op |");
    out.push("|---|---|---:|---:|---:|---:|---:|");
    for (const r of results.filter((r) => r.payload === p.name)) {
      out.push(`| ${r.group} | ${r.op}${r.bound ? " (bound)" : ""} | ${fmtUs(r.usPerOp)} | ${fmtOps(r.opsPerSec)} | ${fmtX(r.xSdk)} | ${fmtX(r.xNode)} | ${fmtUs(r.wallUsPerOp)} |`);
    }
  }
  if (hash) {
    out.push("");
    out.push("### SHA-256 throughput");
    out.push("");
    out.push("| what | MB/s |");
    out.push("|---|---:|");
    out.push(
      `| ours, in wasm: HMAC-SHA256 of a ${hash.bytes} B bind value (seal with it − seal with a 1 B one = ${fmtUs(hash.oursDeltaUs)} µs; includes copying it into wasm and its UTF-8 check, so a lower bound for SHA-256 itself) | ${hash.oursMBs.toFixed(0)} |`,
    );
    out.push(`| node:crypto createHash("sha256") over ${hash.bytes} B (OpenSSL${machineLine.includes("SHA-NI") ? ", SHA-NI" : ""}) | ${hash.nodeSha256MBs.toFixed(0)} |`);
    out.push(`| node:crypto createHmac("sha256") over a ${hash.bytes}-char string | ${hash.nodeHmacMBs.toFixed(0)} |`);
  }
  if (widgetSpeed) {
    out.push("");
    out.push("### Widget API: the wasm reader and its JS twin");
    out.push("");
    out.push(
      "The widget entry's `readTokenUnverified` and `adoptToken` (a tool result's token adopted over the current one: two reads), served by the widget .wasm and by the JS twin that serves a View without 'wasm-unsafe-eval' (js/bench/widget-speed.mjs, Node, same rounds):",
    );
    out.push("");
    out.push(widgetSpeedTable(widgetSpeed));
  }
  if (sizes) {
    out.push("");
    out.push("## Sizes");
    out.push("");
    out.push("| file | raw | gzip -9 |");
    out.push("|---|---:|---:|");
    for (const s of sizes.wasm) out.push(`| pkg/wasm/${s.name}_bg.wasm | ${s.raw} B | ${s.gzip} B (${kib(s.gzip)}) |`);
    out.push(`| ${sizes.tarball.name} (npm pack; a .tgz is gzipped already) | ${sizes.tarball.raw} B | |`);
  }
  if (cold) {
    out.push("");
    out.push("## Cold start");
    for (const n of [cold.node, cold.node22, cold.node24, cold.node26].filter(Boolean)) {
      out.push("");
      out.push(
        `Node ${n.version}, whole process, ${n.runs} rounds of every command (${n.tool}); "− bare node" is the median over the rounds of the command's time minus bare node's in the same round:`,
      );
      out.push("");
      out.push("| process | wall, median | − bare node | wall, fastest run | CPU user+sys, median | − bare node |");
      out.push("|---|---:|---:|---:|---:|---:|");
      const cpu = (c) => (c.cpuMedian === undefined ? "n/a" : `${c.cpuMedian.toFixed(0)} ms`);
      for (const c of n.commands) {
        const bare = c === n.bare;
        const cpuDelta = bare ? "" : c.cpuOverBare === undefined ? "n/a" : `${c.cpuOverBare.toFixed(0)} ms`;
        out.push(`| ${c.label} | ${fmtMs(c.median)} | ${bare ? "" : fmtMs(c.overBare)} | ${fmtMs(c.min)} | ${cpu(c)} | ${cpuDelta} |`);
      }
      if (n.steps) {
        const st = n.steps;
        out.push("");
        out.push(
          `Where it goes, in-process (\`performance.now()\` around each step of a fresh process, median of ${n.runs}): \`await import("mcp-sealed-state")\` ${fmtMs(st.import)} (resolve, read and compile its modules, read, compile and instantiate the edge .wasm), \`new StateCodec\` ${fmtMs(st.construct)}, first seal ${fmtMs(st.firstSeal)}, second seal ${fmtMs(st.secondSeal)} (the first calls compile the wasm functions they reach: V8 compiles wasm lazily).`,
        );
      }
    }
    if (cold.workerd) {
      const w = cold.workerd;
      out.push("");
      out.push(`workerd (Miniflare ${w.miniflareVersion}), ${w.runs} fresh workerd processes, ${w.isolates} fresh isolates:`);
      out.push("");
      for (const line of w.lines) out.push(`- ${line}`);
    }
    if (cold.widget) {
      const w = cold.widget;
      out.push("");
      out.push(
        `Chromium ${w.version} (headless): \`mcp-sealed-state/widget\` in one-file Views built from the packed tarball (js/bundlers.mjs), run in a sandboxed srcdoc iframe under \`connect-src 'none'\`. Bytes the widget adds: the View's one file minus the same View without the widget.`,
      );
      out.push("");
      out.push("| bundler | one-file View, raw | gzip -9 | added by the widget, raw | gzip -9 |");
      out.push("|---|---:|---:|---:|---:|");
      for (const b of w.bundles) out.push(`| ${b.name} | ${b.view.raw} B | ${b.view.gzip} B | ${b.added.raw} B | ${b.added.gzip} B (${kib(b.added.gzip)}) |`);
      out.push("");
      out.push(`Module start to the first \`readTokenUnverified\` (Vite View), median of ${w.runs} fresh browser contexts:`);
      out.push("");
      out.push("| backend | policy | time |");
      out.push("|---|---|---:|");
      out.push(`| js (first call: the JS twin serves until the wasm is ready) | with 'wasm-unsafe-eval' | ${fmtMs(w.first.js)} |`);
      out.push(`| wasm (the first call of a View that waits for \`init()\`) | with 'wasm-unsafe-eval' | ${fmtMs(w.first.wasm)} |`);
      out.push(`| js | without 'wasm-unsafe-eval' (MCP Apps default) | ${fmtMs(w.first.jsNoWasm)} |`);
    }
    if (cold.chromium) {
      const c = cold.chromium;
      out.push("");
      out.push(`Chromium ${c.version} (headless), the packed package served from 127.0.0.1, each figure the median of ${c.runs} fresh browser contexts (own HTTP and code cache):`);
      out.push("");
      out.push(
        "| build | wasm-bindgen `init()` given the bytes (compile + instantiate) | `init()` given the URL (fetch + streaming compile + instantiate) | `import()` of the browser entry, then `await init()` (its JS modules, then the wasm ready) |",
      );
      out.push("|---|---:|---:|---:|");
      for (const r of c.rows) out.push(`| ${r.name} (${kib(r.gzip)} gz) | ${fmtMs(r.instantiateMs)} | ${fmtMs(r.initMs)} | ${fmtMs(r.entryMs)} |`);
    }
  }
  out.push("");
  return out.join("\n");
}
