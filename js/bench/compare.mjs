// Before/after, two ways.
//
// 1. Two runs: the figures two `run.mjs --json=FILE` runs saved, side by side
//    (every row both have, the targets, Node's cold start). The runs were
//    separate processes, maybe hours apart: load on a shared machine moves
//    both, so read the SDK and node:crypto rows as the yardstick of each run.
//
//      node js/bench/run.mjs --quick --json=/tmp/before.json     # on the old commit
//      node js/bench/run.mjs --quick --json=/tmp/after.json      # after the change
//      node js/bench/compare.mjs /tmp/before.json /tmp/after.json [before] [after]
//
// 2. Two builds in one process: the packed package (js/out/consumer) against
//    another build of the package (a pkg/ directory, e.g. one assembled from
//    an older commit), timed round robin, with the SDK codec and node:crypto
//    as anchors: steadier than two runs when the machine is busy.
//
//      node js/bench/compare.mjs /path/to/other/pkg [label]
//
//    e.g. git worktree add /tmp/before <commit> && (cd /tmp/before && ln -s
//    "$PWD/js/node_modules" js/node_modules && node js/build.mjs), then
//    node js/bench/compare.mjs /tmp/before/pkg before
//
// Figures are CPU time per operation (harness.mjs); a ratio > 1 means the second is faster.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const f = (x) => (x === undefined || Number.isNaN(x) ? "" : x.toFixed(x < 10 ? 2 : x < 100 ? 1 : 0));
const ratio = (a, b) => (a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : "");

/** The Markdown comparing two saved runs (the objects run.mjs --json writes). */
export function compareRuns(a, b, labelA = "before", labelB = "after") {
  const out = [`${labelA}: ${a.machine}${a.quick ? " (--quick)" : ""}`, `${labelB}: ${b.machine}${b.quick ? " (--quick)" : ""}`, ""];
  const key = (r) => `${r.payload}|${r.group}|${r.op}|${r.bound}`;
  const other = new Map(b.results.map((r) => [key(r), r]));
  out.push(`| payload | codec | operation | ${labelA} CPU µs/op | ${labelB} CPU µs/op | ${labelB} speed / ${labelA} | ${labelA} × SDK | ${labelB} × SDK |`, "|---|---|---|---:|---:|---:|---:|---:|");
  for (const r of a.results) {
    const s = other.get(key(r));
    if (!s) continue;
    out.push(`| ${r.payload} | ${r.group} | ${r.op}${r.bound ? " (bound)" : ""} | ${f(r.usPerOp)} | ${f(s.usPerOp)} | ${ratio(r.usPerOp, s.usPerOp)} | ${f(r.xSdk)} | ${f(s.xSdk)} |`);
  }
  if (a.coldNode && b.coldNode) {
    out.push("", `| Node cold start (wall, median − bare node) | ${labelA} | ${labelB} |`, "|---|---:|---:|");
    // onePackage is missing from runs saved before it was measured.
    for (const k of ["esm", "onePackage", "importOnly", "ours", "sdk"].filter((k) => a.coldNode[k] && b.coldNode[k])) {
      // Paired rounds where the run has them (overBare), else the medians' difference.
      const d = (run) => run.coldNode[k].overBare ?? run.coldNode[k].median - run.coldNode.bare.median;
      out.push(`| ${a.coldNode[k].label} | ${f(d(a))} ms | ${f(d(b))} ms |`);
    }
  }
  const targets = new Map(b.targets.map((t) => [t.name, t]));
  out.push("", `| target | ${labelA} | ${labelB} | needed |`, "|---|---:|---:|---|");
  for (const t of a.targets) {
    const u = targets.get(t.name);
    if (u) out.push(`| ${t.name} | ${t.measured} (${f(t.ratio)}) | ${u.measured} (${f(u.ratio)}) | ${t.need} |`);
  }
  return out.join("\n");
}

async function compareBuilds(dir, label) {
  const { PAYLOADS } = await import("./payloads.mjs");
  const { BIND, KEY, makeCodecs } = await import("./codecs.mjs");
  const { timeRows } = await import("./harness.mjs");
  const otherPkg = await import(pathToFileURL(join(resolve(dir), "edge/node.js")).href);
  const c = await makeCodecs();
  const codecs = { [label]: new otherPkg.StateCodec({ key: KEY }), now: c.ours };
  const lines = [`| payload | operation | ${label} µs/op | now µs/op | now / ${label} speed | SDK µs/op | node:crypto µs/op |`, "|---|---|---:|---:|---:|---:|---:|"];
  for (const p of PAYLOADS) {
    for (const bound of [false, true]) {
      const o = bound ? { bind: BIND } : undefined;
      const v = c.ours.seal(p.value, o);
      const m = c.ours.mint(p.value, o);
      const sdk = bound ? c.sdkBound : c.sdk;
      const rows = [
        { sync: () => codecs[label].seal(p.value, o) },
        { sync: () => codecs.now.seal(p.value, o) },
        { sync: () => codecs[label].open(v, o) },
        { sync: () => codecs.now.open(v, o) },
        { async: () => sdk.mint(p.value, { user: BIND }) },
        { async: () => sdk.verify(m, { user: BIND }) },
        { sync: () => c.nodeHmac.seal(p.value, o) },
        { sync: () => c.nodeHmac.open(v, o) },
      ];
      const t = (await timeRows(rows)).map((r) => r.usPerOp);
      lines.push(`| ${p.name} | seal${bound ? " (bound)" : ""} | ${f(t[0])} | ${f(t[1])} | ${ratio(t[0], t[1])} | ${f(t[4])} | ${f(t[6])} |`);
      lines.push(`| ${p.name} | open${bound ? " (bound)" : ""} | ${f(t[2])} | ${f(t[3])} | ${ratio(t[2], t[3])} | ${f(t[5])} | ${f(t[7])} |`);
    }
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [first, second, ...labels] = process.argv.slice(2);
  if (!first) throw new Error("usage: node js/bench/compare.mjs <before.json> <after.json> [labelA] [labelB] | <other pkg dir> [label]");
  if (first.endsWith(".json")) {
    if (!second?.endsWith(".json")) throw new Error("two runs: give two files written by run.mjs --json=FILE");
    const read = (file) => JSON.parse(readFileSync(file, "utf8"));
    console.log(compareRuns(read(first), read(second), ...labels));
  } else {
    console.log(await compareBuilds(first, second ?? "other"));
  }
}
