// The demo in the official MCP Inspector (npm @modelcontextprotocol/inspector
// 2.12, its web UI, headless Chromium, loopback only): the Inspector connects
// to a demo server (workerd, then rmcp) over Streamable HTTP, opens the `start` tool
// as an MCP App (its "Apps" tab calls the tool and renders the `ui://` View),
// and the View plays a move through the Inspector and the server.
//
// The Inspector renders a View in an opaque-origin `about:srcdoc` frame (its
// sandbox proxy on a second port, the inner frame without allow-same-origin)
// under `default-src 'none'; connect-src 'none'; script-src 'unsafe-inline'`:
// no WebAssembly, no network, and localStorage throws. So the widget must
// report backend "js" and the View's state store "memory", and nothing may
// break: no page error, no console error, no refused request, no error shown.
//
// Needs what demo.test.mjs needs: `npm --prefix js run build && node js/pack.mjs
// && node www/game/build.mjs && cargo build --manifest-path rust-server/Cargo.toml`. Screenshots go to www/artifacts/ (git-ignored).
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { REPO_ROOT, VIEW_HTML, startRustServer, startServer } from "../../js/lib/servers.mjs";
import { PACKED, failOnPageProblems, keepOnLoopback, launchChromium } from "../../js/lib/chromium.mjs";
import { connectInspector, startInspector } from "../../js/lib/mcp-inspector.mjs";
import { VIEW_DECLARATION } from "../server/view-meta.js";

const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const KEY = "inspector e2e key: at least thirty-two bytes long";
// The Inspector's UI is a React app that connects, lists and renders in the
// background; on two busy cores a step can take a while. Generous, never a sleep.
const STEP_TIMEOUT_MS = 90_000;
// The server's deterministic answer to X in cell 0 (www/server/game.js): O in the centre.
const BOARD_AFTER_FIRST_MOVE = "X...O....";
// If this Chromium logs the refused compile of the widget's wasm, that is the
// one console error the View may cause (as under the demo Host's "spec" policy).
const WASM_REFUSED = /WebAssembly.*(violates|Content Security Policy)|Content Security Policy.*WebAssembly|wasm-unsafe-eval/i;

const servers = {}; // workerd, rust: the two demo servers, same View
let browser;

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) {
    throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  }
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  mkdirSync(ARTIFACTS, { recursive: true });
  const quiet = () => {};
  const started = await Promise.allSettled([
    launchChromium(),
    startServer({ key: KEY, instance: "workerd", onLog: quiet }),
    startRustServer({ key: KEY, instance: "rust", onLog: quiet, viewHtml: VIEW_HTML, ...VIEW_DECLARATION }),
  ]);
  const [chromium, ...demos] = started;
  if (chromium.status === "fulfilled") browser = chromium.value;
  for (const s of demos) if (s.status === "fulfilled") servers[s.value.instance] = s.value;
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
});

after(async () => {
  await browser?.close();
  await Promise.allSettled(Object.values(servers).map((s) => s.dispose()));
});

async function screenshot(page, name) {
  const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const frame of page.frames()) await frame.evaluate(twoFrames).catch(() => {});
  await page.screenshot({ path: join(ARTIFACTS, name) });
}

describe("the demo in the MCP Inspector 2.12 (web UI, Chromium)", () => {
  for (const name of ["workerd", "rust"]) {
    test(`${name} server: connect over Streamable HTTP, open \`start\` as an App, play a move through the server: backend "js", store "memory", no error`, async (t) => {
      const server = servers[name];
      const inspector = await startInspector({ serverUrl: server.mcpUrl, onLog: () => {} });
      t.after(() => inspector.dispose());
      const context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      // Teardown (the Inspector stopped, the page closed) cuts the Inspector's
      // own event streams (/api/*/events) mid-chunk; the test checks the
      // problems once it has played, then stops collecting.
      const stopCollecting = () => {
        for (const event of ["console", "requestfailed", "response", "pageerror"]) page.removeAllListeners(event);
      };
      const problems = failOnPageProblems(t, page, () => (stopCollecting(), context.close()), { expected: [WASM_REFUSED] });
      await keepOnLoopback(context, problems); // its Google Fonts stylesheet: an empty one; anything else off loopback fails the test

      await page.goto(inspector.url);
      // Its one server, as given on the command line: Streamable HTTP to the demo in workerd.
      await page.getByText("Streamable HTTP").first().waitFor();
      await page.getByText(server.mcpUrl.href).first().waitFor();
      await connectInspector(page);
      await page.getByText("mcp-sealed-state-tic-tac-toe").first().waitFor(); // serverInfo.name, in the header

      // The Apps tab lists the tools that have a `ui://` View; opening `start` calls it and renders its View.
      await page.getByText("Apps", { exact: true }).click();
      await page.getByRole("button", { name: /New tic-tac-toe game/ }).click();
      const proxyFrame = page.frameLocator('iframe[src*="/sandbox"]');
      const view = proxyFrame.frameLocator("iframe");
      await view.locator("body[data-phase=playing][data-busy=false]").waitFor();

      // Where it runs: the Inspector's sandbox proxy on its own port, the View in an opaque-origin srcdoc frame under its CSP.
      const proxy = page.frames().find((f) => f.url().startsWith(inspector.sandboxUrl));
      assert.ok(proxy, `the Inspector's sandbox proxy frame: ${page.frames().map((f) => f.url())}`);
      assert.notEqual(new URL(proxy.url()).origin, new URL(page.url()).origin, "the proxy is on a second origin");
      const inner = await proxy.locator("iframe").evaluate((f) => ({ sandbox: f.getAttribute("sandbox"), srcdoc: f.srcdoc }));
      assert.ok(!inner.sandbox.split(/\s+/).includes("allow-same-origin"), `an opaque origin: sandbox="${inner.sandbox}"`);
      const csp = inner.srcdoc.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1].replaceAll("&#39;", "'");
      assert.ok(csp, "the Inspector puts its CSP into the View's HTML");
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /connect-src 'none'/);
      assert.doesNotMatch(csp, /wasm-unsafe-eval|'unsafe-eval'/, "no WebAssembly for Views");
      assert.equal(await view.locator("body").evaluate(() => window.origin), "null");

      // The View reports its widget backend: in its page, and to the Inspector (the App logs panel shows notifications/message).
      await view.locator("body[data-backend=js]").waitFor();
      assert.match(await view.locator("#backend").textContent(), /^js /);
      await page.getByText('{"backend":"js"}').first().waitFor();

      // The View's state store (mcp-sealed-state/app): an opaque origin has no
      // localStorage, the Inspector offers no ui/set-view-state and is not
      // ChatGPT, so only memory is left, even with the result's viewUUID; the
      // View says so, in its page and to the Inspector.
      await view.locator("body[data-store]").waitFor();
      assert.equal(await view.locator("body").getAttribute("data-store"), "memory");
      t.diagnostic(`store decided ${await view.locator("body").evaluate(() => window.gameView.decidedAtMs)} ms after the View's document started`);
      assert.match(await view.locator("#store").textContent(), /^memory /);
      await page.getByText('{"store":"memory"}').first().waitFor();

      // A move: the View calls `move` through the Inspector, the server answers with its O.
      const before = await view.locator("#token").getAttribute("data-token");
      assert.match(before, /^v1\./);
      await view.locator('.cell[data-cell="0"]:not(:disabled)').click();
      await view.locator(`.cell[data-cell="4"][data-mark="O"]`).waitFor();
      await view.locator("body[data-phase=playing][data-busy=false]").waitFor();
      assert.equal(await view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark).join("")), BOARD_AFTER_FIRST_MOVE);
      const after = await view.locator("#token").getAttribute("data-token");
      assert.notEqual(after, before, "the View adopted the server's new token");
      assert.match(await view.locator("#payload").textContent(), /"board": "X\.\.\.O\.\.\.\."/);
      // The Inspector's message log shows the move it forwarded, answered OK: one entry with all three.
      await page
        .locator("div")
        .filter({ has: page.getByText(/^tools\/call$/i) }) // shown in capitals by CSS
        .filter({ has: page.getByText("move", { exact: true }) })
        .filter({ has: page.getByText("OK", { exact: true }) })
        .last()
        .waitFor();

      // No error shown: not the View's "expired, start over" banner, not a game message.
      assert.equal(await view.locator("#expired-banner").isHidden(), true);
      assert.equal(await view.locator("#game-message").isHidden(), true);
      await screenshot(page, `inspector-app-${name}.png`);

      assert.deepEqual([...problems], [], "no page error, console error or failed request");
      stopCollecting();
    });
  }
});
