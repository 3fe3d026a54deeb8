// The widget API's reader under a wasm memory cap: a token the wasm cannot
// make room for is read by the JS twin (widget/read-js.js), never called
// malformed. The wasm fails two ways, depending on where the cap bites: it
// traps (an allocation it cannot refuse: the twin serves from then on), or it
// refuses cleanly (its body buffer is reserved with try_reserve, and a refusal
// looks like a malformed token). Each run is a fresh Node with
// --wasm-max-mem-pages, over a sweep of caps that reaches both.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { PACKAGE_DIR, resolvePackage } from "./support.mjs";

// 64 KiB pages: 1.25 to 4 MiB, around what a 0.93 MB token and its 0.7 MB body need.
const CAPS = [20, 24, 28, 32, 36, 40, 44, 48, 56, 64];

// The reader is the widget entry's alone (the server entry has none).
const ENTRIES = [{ name: "widget entry (mcp-sealed-state/widget)", entry: resolvePackage("/widget"), glue: "wasm/widget.js", wasm: "wasm/widget_bg.wasm" }];

/** In a fresh Node under `pages`: the entry's reading of a 0.93 MB token, and the same build's bare wasm read of it. */
function underCap(pages, { entry, glue, wasm }) {
  const url = (path) => JSON.stringify(pathToFileURL(path).href);
  const script = `
    const { readFileSync } = await import("node:fs");
    const attempt = (fn) => { try { return fn(); } catch (e) { return e instanceof WebAssembly.RuntimeError ? "trap" : e.constructor.name + " " + (e.reason ?? e.message); } };
    const big = "x".repeat(700000);
    const token = "v1." + Buffer.from(JSON.stringify({ p: { p: "v", d: big }, exp: 5 })).toString("base64url") + "." + "A".repeat(43);
    const small = "v1." + Buffer.from('{"p":{"p":"v","d":[1]},"exp":5}').toString("base64url") + "." + "A".repeat(43);
    // The bare glue, its own instance: which way this build fails under the cap.
    const bare = await import(${url(join(PACKAGE_DIR, glue))});
    bare.initSync({ module: readFileSync(new URL(${url(join(PACKAGE_DIR, wasm))})) });
    const wasm = attempt(() => (bare.readTokenJson(token) === undefined ? "refused" : "read"));
    const { readTokenUnverified, secondsLeft, adoptToken } = await import(${url(entry)});
    console.log(JSON.stringify({
      wasm,
      read: attempt(() => (readTokenUnverified(token).payload === big ? "read" : "wrong payload")),
      left: attempt(() => secondsLeft(token, 0)),
      adopted: attempt(() => adoptToken(null, { _meta: { "ng-mcp-ui/state": token } }) === token),
      small: attempt(() => readTokenUnverified(small).payload),
    }));`;
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
  return JSON.parse(execFileSync(process.execPath, [`--wasm-max-mem-pages=${pages}`, "--input-type=module", "-e", script], { encoding: "utf8", env }));
}

for (const target of ENTRIES) {
  describe(target.name, () => {
    test("a readable 0.93 MB token reads under every cap, whichever way the wasm fails; the reader stays usable", () => {
      const seen = new Set();
      for (const pages of CAPS) {
        const out = underCap(pages, target);
        seen.add(out.wasm);
        assert.deepEqual(out, { wasm: out.wasm, read: "read", left: 6, adopted: true, small: [1] }, `${pages} pages (the bare wasm: ${out.wasm})`);
      }
      // The sweep reaches the clean refusal, the case the twin's second opinion is for.
      assert.ok(seen.has("refused"), `no cap made the bare wasm refuse cleanly: ${[...seen]}`);
    });
  });
}
