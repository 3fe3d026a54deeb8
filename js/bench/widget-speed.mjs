// The widget API's throughput on each backend (the View's cost):
// readTokenUnverified and adoptToken served by the widget .wasm and by its
// JS twin (widget/read-js.js, what a View gets under a CSP without
// 'wasm-unsafe-eval'), side by side in one process, round robin, CPU time.
// Both are the packed package's own files, put together as its entries do
// (tokenApi over { backend, read }), so the rows differ only in the reader.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_DIR } from "../test/support.mjs";
import { timeRows } from "./harness.mjs";

const file = (rel) => pathToFileURL(join(PACKAGE_DIR, rel)).href;

/** The two widget APIs: { wasm, js }. */
async function widgetApis() {
  const { tokenApi } = await import(file("widget/token.js"));
  const { readTokenJsonJs } = await import(file("widget/read-js.js"));
  const wasm = await import(file("wasm/widget.js"));
  wasm.initSync({ module: readFileSync(join(PACKAGE_DIR, "wasm/widget_bg.wasm")) });
  return {
    wasm: tokenApi({ backend: "wasm", read: wasm.readTokenJson }),
    js: tokenApi({ backend: "js", read: readTokenJsonJs }),
  };
}

/**
 * Rows { payload, operation, backend, usPerOp, opsPerSec, ... } for every
 * payload: a view token read, and a tool result adopted over a current token
 * (two reads: the candidate's exp and the current one's).
 */
export async function measureWidgetSpeed(codec, payloads, log = () => {}) {
  const apis = await widgetApis();
  const results = [];
  for (const p of payloads) {
    const current = codec.seal(p.value);
    const result = { content: [], structuredContent: {}, _meta: { "ng-mcp-ui/state": codec.seal(p.value) } };
    // Both backends must read the same thing before anything is timed.
    const [a, b] = [apis.wasm, apis.js].map((api) => JSON.stringify([api.readTokenUnverified(current), api.adoptToken(current, result)]));
    if (a !== b) throw new Error(`widget backends disagree on the ${p.name} token`);
    const ops = [
      ["readTokenUnverified", (api) => () => api.readTokenUnverified(current)],
      ["adoptToken", (api) => () => api.adoptToken(current, result)],
    ];
    const rows = [];
    for (const [operation, make] of ops) {
      for (const backend of ["wasm", "js"]) rows.push({ operation, backend, sync: make(apis[backend]) });
    }
    log(`  widget ${p.name}: ${rows.length} rows`);
    const timed = await timeRows(rows);
    rows.forEach(({ operation, backend }, i) => results.push({ payload: p.name, operation, backend, ...timed[i] }));
  }
  return results;
}

/** The markdown table: each operation's JS-twin rate against the wasm one. */
export function widgetSpeedTable(results) {
  const lines = ["| payload | operation | wasm µs/op (CPU) | JS twin µs/op (CPU) | JS twin / wasm speed |", "|---|---|---:|---:|---:|"];
  for (const r of results.filter((x) => x.backend === "wasm")) {
    const twin = results.find((x) => x.payload === r.payload && x.operation === r.operation && x.backend === "js");
    lines.push(`| ${r.payload} | ${r.operation} | ${r.usPerOp.toFixed(2)} | ${twin.usPerOp.toFixed(2)} | ${(r.usPerOp / twin.usPerOp).toFixed(2)}× |`);
  }
  return lines.join("\n");
}
