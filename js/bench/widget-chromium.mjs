// Chromium (headless): the widget entry in one-file MCP App Views, as hosts
// run them (js/bundlers.mjs: built from the packed tarball, sandboxed srcdoc
// iframe, connect-src 'none').
//   bytes added   the View's one file minus the same View without the
//                 widget, per bundler (raw, gzip -9)
//   first call    module start (the page's script just before the bundle) to
//                 the first readTokenUnverified, per backend: "js" is the first
//                 call (the JS twin serves at once), "wasm" the first call of a
//                 View that waits for init() (its token comes later, with a tool
//                 result) under a policy with 'wasm-unsafe-eval'
// Each timing is the median of REPEATS fresh browser contexts (and the range).
import { gzipSync } from "node:zlib";
import { BUNDLERS, buildView, launchChromium, makeProject, runInSrcdoc, srcdocFor } from "../bundlers.mjs";
import { median } from "./harness.mjs";

const REPEATS = 10;
// Any v1 token reads; this one is what the SDK's codec mints for a small game.
const TOKEN = "v1.eyJwIjp7InAiOiJ2IiwiZCI6eyJib2FyZCI6WzAsMCwwLDAsMCwwLDAsMCwwXSwidHVybiI6MX19LCJleHAiOjE3NjQ1MDA2MDB9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const sizes = (text) => ({ raw: Buffer.byteLength(text), gzip: gzipSync(text, { level: 9 }).length });

export async function widgetChromium(log) {
  makeProject();
  const bundles = [];
  for (const name of BUNDLERS) {
    const view = await buildView(name);
    const base = await buildView(name, "baseline");
    const v = sizes(view.html);
    const b = sizes(base.html);
    bundles.push({ name, view: v, added: { raw: v.raw - b.raw, gzip: v.gzip - b.gzip } });
    log(`  ${name}: one-file View ${v.raw} B (${v.gzip} B gz), of which the widget ${v.raw - b.raw} B (${v.gzip - b.gzip} B gz)`);
  }
  const vite = await buildView("vite");
  const browser = await launchChromium();
  try {
    const once = async (policy, wait = false) => (await runInSrcdoc(browser, srcdocFor(vite.html, policy, { token: TOKEN, nowMs: 0, wait }))).result;
    await once("wasm"); // the browser's own first-use costs are not the widget's
    const t = { js: [], wasm: [], jsNoWasm: [] };
    for (let i = 0; i < REPEATS; i++) {
      const a = await once("wasm");
      if (a.settled !== "wasm") throw new Error("the wasm backend did not take over under 'wasm-unsafe-eval'");
      t.js.push(a.firstReadMs);
      // The wasm's first call in a View that makes none before init() resolved
      // (its first token comes with a tool result): the JS twin never runs there.
      const w = await once("wasm", true);
      if (w.settled !== "wasm") throw new Error("the wasm backend did not take over under 'wasm-unsafe-eval'");
      t.wasm.push(w.viewMs);
      const b = await once("no-wasm");
      if (b.settled !== "js") throw new Error("the JS backend did not serve without 'wasm-unsafe-eval'");
      t.jsNoWasm.push(b.firstReadMs);
    }
    const first = { js: median(t.js), wasm: median(t.wasm), jsNoWasm: median(t.jsNoWasm) };
    const range = Object.fromEntries(Object.entries(t).map(([k, xs]) => [k, [Math.min(...xs), Math.max(...xs)]]));
    const say = (k) => `${first[k].toFixed(2)} ms (${range[k].map((x) => x.toFixed(2)).join("-")})`;
    log(`  module start to first readTokenUnverified: js ${say("js")}, wasm ${say("wasm")}, js under a policy without WebAssembly ${say("jsNoWasm")}`);
    return { version: browser.version(), runs: REPEATS, bundles, first, range };
  } finally {
    await browser.close();
  }
}
