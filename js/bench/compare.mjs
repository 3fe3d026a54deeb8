// Before/after: the packed package (js/out/consumer) against another build of
// the package (a pkg/ directory, e.g. one assembled from an older commit),
// same process, round robin, with the SDK codec and node:crypto as anchors.
//
//   node js/bench/compare.mjs /path/to/other/pkg [label]
//
// e.g. git worktree add /tmp/before <commit> && (cd /tmp/before && ln -s
// "$PWD/js/node_modules" js/node_modules && node js/build.mjs), then
// node js/bench/compare.mjs /tmp/before/pkg before
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { PAYLOADS } from "./payloads.mjs";
import { BIND, makeCodecs } from "./codecs.mjs";
import { timeRows } from "./harness.mjs";

const [dir, label = "other"] = process.argv.slice(2);
if (!dir) throw new Error("usage: node js/bench/compare.mjs <other pkg dir> [label]");
const other = await import(pathToFileURL(join(resolve(dir), "edge/node.js")).href);
const c = await makeCodecs();
const codecs = { [label]: new other.StateCodec({ key: (await import("./codecs.mjs")).KEY }), now: c.ours };

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
    const f = (x) => x.toFixed(x < 10 ? 2 : 0);
    lines.push(`| ${p.name} | seal${bound ? " (bound)" : ""} | ${f(t[0])} | ${f(t[1])} | ${(t[0] / t[1]).toFixed(2)}× | ${f(t[4])} | ${f(t[6])} |`);
    lines.push(`| ${p.name} | open${bound ? " (bound)" : ""} | ${f(t[2])} | ${f(t[3])} | ${(t[2] / t[3]).toFixed(2)}× | ${f(t[5])} | ${f(t[7])} |`);
  }
}
console.log(lines.join("\n"));
