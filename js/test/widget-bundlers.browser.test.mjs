// `mcp-sealed-state/widget` in one-file Views: built from the packed tarball,
// in a project of its own, by Vite 8 + vite-plugin-singlefile, esbuild,
// webpack 5 and bun, each with its defaults; then run in headless Chromium in
// a sandboxed srcdoc iframe under connect-src 'none', with and without
// 'wasm-unsafe-eval' (js/bundlers.mjs).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { BUNDLERS, POLICIES, buildView, launchChromium, makeProject, runInSrcdoc, srcdocFor } from "../bundlers.mjs";
import { PACKAGE_DIR } from "./support.mjs";
import { atClock } from "../lib/clock.mjs";

const KEY = "a-test-key-that-is-at-least-32-bytes-long!";
const NOW_MS = Date.UTC(2026, 6, 28, 12, 0, 0, 250);
const PAYLOAD = { board: [0, 1, 2], note: "café ☕ 😀" };

/** A view token minted by the SDK's codec at NOW_MS (it reads Date.now() for exp). */
async function sdkToken() {
  const codec = createRequestStateCodec({ key: KEY });
  return atClock(NOW_MS, () => codec.mint({ p: "v", d: PAYLOAD }));
}

// The wasm's hex as the package ships it: it must appear in each bundle exactly once.
const inline = readFileSync(join(PACKAGE_DIR, "widget/wasm-inline.js"), "utf8");
const WASM_HEX = /"([0-9a-f]{1000,})"/.exec(inline)?.[1];

let browser;
let token;
before(async () => {
  assert.ok(WASM_HEX, "widget/wasm-inline.js holds the wasm as hex");
  makeProject();
  token = await sdkToken();
  browser = await launchChromium();
});
after(() => browser?.close());

for (const name of BUNDLERS) {
  describe(`${name}`, () => {
    let view;
    before(async () => {
      view = await buildView(name);
    });

    test("one output file, no .wasm asset, the wasm bytes inside once, nothing that fetches them", () => {
      assert.deepEqual(view.files, [name === "vite" ? "main.html" : "main.js"]);
      const text = view.html;
      assert.equal(text.split(WASM_HEX.slice(100, 164)).length - 1, 1, "the hex appears once");
      assert.doesNotMatch(text, /data:application\/wasm/);
      assert.doesNotMatch(text, /_bg\.wasm/);
    });

    for (const policy of Object.keys(POLICIES)) {
      test(`runs in a sandboxed srcdoc iframe, ${policy === "wasm" ? "with" : "without"} 'wasm-unsafe-eval': backend "${policy === "wasm" ? "wasm" : "js"}", same results`, async () => {
        const run = await runInSrcdoc(browser, srcdocFor(view.html, policy, { token, nowMs: NOW_MS }));
        const { result, messages } = run;
        assert.ok(result, `the View reported: ${JSON.stringify(messages)}`);
        assert.deepEqual(
          messages.filter((m) => m.type === "error"),
          [],
          "no error and no unhandled rejection in the View",
        );
        assert.deepEqual(run.pageErrors, []);
        assert.deepEqual(run.requests, [], "the View fetched nothing");
        const violations = messages.filter((m) => m.type === "csp");
        const expected = policy === "wasm" ? "wasm" : "js";
        if (policy === "wasm") {
          assert.deepEqual(violations, [], "no CSP violation");
        } else {
          // Trying WebAssembly is the only thing the policy refuses; the page goes on.
          assert.ok(violations.length <= 1, JSON.stringify(violations));
          for (const v of violations) assert.equal(v.directive, "script-src", JSON.stringify(v));
        }
        assert.equal(result.atImport, "js", "the JS twin serves the first call, before the wasm is ready");
        assert.equal(result.settled, expected);
        assert.equal(result.now, expected);
        const want = { payload: PAYLOAD, purpose: "view", tool: null, exp: Math.floor(NOW_MS / 1000) + 600, bound: false, hasSecret: false };
        assert.deepEqual(result.firstView, want);
        assert.deepEqual(result.view, want);
        assert.equal(result.left, 601);
        assert.equal(result.adopted, true);
        assert.equal(result.expired, true);
        assert.equal(result.bytes, 8);
        assert.deepEqual(result.support, { maxBytes: 64, state: { a: 1 } });
        assert.equal(result.malformed, "malformed");
        assert.equal(result.refusedCode, -32602);
      });
    }
  });
}
