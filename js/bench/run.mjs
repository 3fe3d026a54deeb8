// `npm --prefix js run bench`: builds both wasm files, packs the npm package,
// installs the tarball into js/out/consumer and benchmarks THAT (speed, sizes,
// cold start) against @modelcontextprotocol/server's codec, node:crypto and
// jose. Prints the tables and writes them to js/bench/RESULTS.md.
//
//   node js/bench/run.mjs [--no-build] [--only=speed,widgetspeed,sizes,node,workerd,chromium,widget]
//                         [--quick] [--json=FILE] [--write]
//
// --no-build benchmarks the package already installed in js/out/consumer.
// --quick    a before/after check on one change, under 30 s after the build:
//            the small and large payloads, seal and open of ours against the
//            SDK codec and node:crypto (unbound), shorter batches and fewer
//            rounds (harness QUICK), and Node's cold start in 10 rounds.
// --json=F   also writes this run's figures to F, for compare.mjs (two runs side by side).
// --write    rewrites js/bench/RESULTS.md and the README's figures even with
//            --only or --quick (a full run without them always does).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH = dirname(fileURLToPath(import.meta.url));
const JS = join(BENCH, "..");
const ROOT = join(JS, "..");

const args = process.argv.slice(2);
const noBuild = args.includes("--no-build");
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
const quick = args.includes("--quick");
const jsonOut = args.find((a) => a.startsWith("--json="))?.slice(7);
const QUICK_PARTS = ["speed", "sizes", "node"];
const want = (part) => (only ? only.includes(part) : !quick || QUICK_PARTS.includes(part));
const write = args.includes("--write") || (!only && !quick);
const log = (...xs) => console.error(...xs);

const started = performance.now();
if (!process.version.startsWith("v20.")) log(`note: the issue asks for Node 20; this is ${process.version}`);

if (!noBuild) {
  log("== build (npm --prefix js run build) and pack (node js/pack.mjs)");
  execFileSync("npm", ["--prefix", JS, "run", "-s", "build"], { cwd: ROOT, stdio: ["ignore", 2, 2] });
  execFileSync(process.execPath, [join(JS, "pack.mjs")], { cwd: ROOT, stdio: ["ignore", 2, 2] });
}

// Imported after the pack: support.mjs refuses to load without the consumer install.
const { PAYLOADS: ALL_PAYLOADS } = await import("./payloads.mjs");
const PAYLOADS = quick ? ALL_PAYLOADS.filter((p) => p.name !== "medium") : ALL_PAYLOADS;
const { QUICK } = await import("./harness.mjs");
const { makeCodecs, checkInterop } = await import("./codecs.mjs");
const { measureSpeed, measureHash } = await import("./speed.mjs");
const { measureSizes } = await import("./sizes.mjs");
const { machine, load, withRatios, targets, markdown, readmeSummary } = await import("./report.mjs");
const loadAtStart = load();

const codecs = await makeCodecs();
let checks = 0;
log("== interop checks");
for (const p of PAYLOADS) checks += await checkInterop(codecs, p.value);
log(`  ${checks} checks passed`);

let results = [];
let hash;
if (want("speed")) {
  log("== speed");
  results = withRatios(await measureSpeed(codecs, PAYLOADS, log, quick ? { quick, timing: QUICK } : {}));
  if (!quick) hash = await measureHash(codecs);
}
let widgetSpeed;
if (want("widgetspeed")) {
  log("== widget API speed: wasm and the JS twin");
  widgetSpeed = await (await import("./widget-speed.mjs")).measureWidgetSpeed(codecs.ours, PAYLOADS, log);
}

const sizes = want("sizes") ? measureSizes() : undefined;

const cold = {};
if (want("node")) {
  log("== cold start: Node");
  const { coldNode, QUICK_COLD } = await import("./cold-node.mjs");
  cold.node = coldNode(log, quick ? QUICK_COLD : {});
  // npm's Node 22 (what wrangler runs on), 24 and 26 (js/package.json): the loader differs, the package does not.
  for (const [name, dir] of [
    ["node22", "node"],
    ["node24", "node24"],
    ["node26", "node26"],
  ]) {
    const bin = join(JS, "node_modules", dir, "bin/node");
    if (existsSync(bin)) cold[name] = coldNode(log, { ...(quick ? QUICK_COLD : {}), node: bin });
  }
}
if (want("workerd")) {
  log("== cold start: workerd");
  cold.workerd = await (await import("./cold-workerd.mjs")).coldWorkerd(log);
}
if (want("chromium")) {
  log("== cold start: Chromium");
  cold.chromium = await (await import("./cold-chromium.mjs")).coldChromium(log, sizes);
}

if (want("widget")) {
  log("== widget in one-file Views: Chromium");
  cold.widget = await (await import("./widget-chromium.mjs")).widgetChromium(log);
}

const elapsedS = (performance.now() - started) / 1000;
const targetRows = targets({ results, sizes, cold });
const machineLine = machine();
const md = markdown({
  results,
  hash,
  widgetSpeed,
  sizes,
  cold,
  targetRows,
  machineLine,
  loadLine: `1-minute load average ${loadAtStart.toFixed(2)} at the start, ${load().toFixed(2)} at the end (on ${(await import("node:os")).cpus().length} cores; other work on the machine skews the figures)`,
  checks,
  command: `npm --prefix js run bench${args.length ? ` -- ${args.join(" ")}` : ""}`,
  quick,
  elapsedS,
  payloads: PAYLOADS,
});
console.log(md);
if (jsonOut) {
  // What compare.mjs reads: every row, the targets, the sizes, Node's cold start.
  const node =
    cold.node &&
    Object.fromEntries(
      ["bare", "esm", "onePackage", "importOnly", "ours", "sdk"].map((k) => [
        k,
        { label: cold.node[k].label, median: cold.node[k].median, min: cold.node[k].min, cpuMedian: cold.node[k].cpuMedian, overBare: cold.node[k].overBare },
      ]),
    );
  const run = { machine: machineLine, command: process.argv.slice(1).join(" "), quick, elapsedS, results, targets: targetRows, sizes, coldNode: node && { ...node, steps: cold.node.steps } };
  writeFileSync(jsonOut, `${JSON.stringify(run, null, 1)}\n`);
  log(`wrote ${jsonOut}`);
}
if (write) {
  // The "Decisions" section is written by hand: a new run keeps it.
  const resultsFile = join(BENCH, "RESULTS.md");
  const previous = existsSync(resultsFile) ? readFileSync(resultsFile, "utf8") : "";
  const decisions = previous.indexOf("\n## Decisions");
  writeFileSync(resultsFile, decisions === -1 ? md : `${md.trimEnd()}\n${previous.slice(decisions)}`);
  log(`wrote ${join(BENCH, "RESULTS.md")}`);
  // The README's figures are this run's too: rewrite the table between its markers.
  const readme = join(BENCH, "../../README.md");
  const text = readFileSync(readme, "utf8");
  const marked = /(<!-- bench:start -->\n)[\s\S]*?(\n<!-- bench:end -->)/;
  if (marked.test(text)) {
    writeFileSync(
      readme,
      text.replace(marked, (_, start, end) => `${start}${readmeSummary({ targetRows, machineLine })}${end}`),
    );
    log(`updated the figures in ${readme}`);
  }
} else {
  log("(--only or --quick: RESULTS.md and the README not rewritten; --write rewrites them)");
}
