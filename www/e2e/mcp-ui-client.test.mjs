// The demo's View in @mcp-ui/client's AppRenderer (npm @mcp-ui/client 7.1.1,
// the renderer goose and others embed; installed in www/third-party), in
// headless Chromium: a tiny Host page (www/third-party/mcp-ui-host, bundled
// here with esbuild from js/node_modules) connects with the MCP SDK 1.x
// client, calls `start`, and AppRenderer reads the `ui://` View, renders it
// through a sandbox proxy (@mcp-ui/client ships none: the demo's own,
// www/sandbox, on a second origin) and forwards the View's tools/call.
// AppRenderer bridges with ext-apps 1.x (its AppBridge), the View runs ext-apps 2.x.
//
// Needs the packed package, the one-file View and scripts/setup.sh's www/third-party.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { REPO_ROOT, VIEW_HTML, serve, startServer } from "../../js/lib/servers.mjs";
import { PACKED, failOnPageProblems, launchChromium } from "../../js/lib/chromium.mjs";
import { serveSandbox } from "../lib/sandbox-server.mjs";

const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const HOST_SRC = join(REPO_ROOT, "www/third-party/mcp-ui-host");
const HOST_OUT = join(REPO_ROOT, "build/mcp-ui-host");
const KEY = "mcp-ui e2e key: at least thirty-two bytes long";
const STATE_META_KEY = "ng-mcp-ui/state";

let server;
let sandbox;
let web;
let browser;

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  if (!existsSync(join(REPO_ROOT, "www/third-party/node_modules/@mcp-ui/client"))) throw new Error("@mcp-ui/client is missing: run scripts/setup.sh (npm ci in www/third-party)");
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(HOST_OUT, { recursive: true });
  const esbuild = createRequire(join(REPO_ROOT, "js/package.json"))("esbuild");
  await esbuild.build({
    entryPoints: [join(HOST_SRC, "host.js")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    outfile: join(HOST_OUT, "host.bundle.js"),
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "warning",
  });
  copyFileSync(join(HOST_SRC, "index.html"), join(HOST_OUT, "index.html"));
  const started = await Promise.allSettled([launchChromium(), startServer({ key: KEY, instance: "mcp-ui", onLog: () => {} })]);
  if (started[0].status === "fulfilled") browser = started[0].value;
  if (started[1].status === "fulfilled") server = started[1].value;
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  web = await serve({ mounts: { "/mcp-ui/": HOST_OUT } });
  sandbox = await serveSandbox();
});

after(async () => {
  await browser?.close();
  await web?.close();
  await sandbox?.close();
  await server?.dispose();
});

test("@mcp-ui/client AppRenderer: the View renders through our sandbox proxy, the token arrives in _meta, a move plays; the store it gets is reported", async (t) => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await ctx.newPage();
  const problems = failOnPageProblems(t, page, () => ctx.close());
  const query = new URLSearchParams({ server: server.mcpUrl.href, sandbox: new URL("sandbox.html", sandbox.url).href });
  await page.goto(`${web.url}mcp-ui/index.html?${query}`);
  await page.waitForSelector("html[data-ready=true]");
  const view = page.frameLocator("iframe").frameLocator("iframe");
  const body = view.locator("body");
  await view.locator("body[data-phase=playing][data-busy=false]").waitFor();
  await view.locator("body[data-store]").waitFor();
  await view.locator("body[data-backend]").waitFor();

  // The token arrives as the Host called it: in the result's _meta.
  const toolResult = await page.evaluate(() => window.mcpUiHost.toolResult);
  assert.equal(await view.locator("#token").getAttribute("data-token"), toolResult._meta[STATE_META_KEY]);
  assert.equal(await body.getAttribute("data-source"), "_meta");

  // What the View was given and made of it (reported, and pinned so a change shows).
  const seen = await body.evaluate(() => {
    const { app, ui } = window.gameView;
    return {
      store: ui.viewState.store,
      offered: ui.viewState.offered,
      backend: document.body.dataset.backend,
      host: app.getHostVersion(),
      hostCapabilities: app.getHostCapabilities(),
      protocolVersion: ui.viewState.rawInitializeResult?.protocolVersion ?? null,
      openai: typeof window.openai,
      origin: window.origin,
      decidedAtMs: window.gameView.decidedAtMs,
    };
  });
  t.diagnostic(`View in AppRenderer: ${JSON.stringify(seen)}`);
  assert.equal(seen.host?.name, "mcp-ui AppRenderer host (e2e)");
  assert.equal(seen.offered, false, "no ui/set-view-state in ext-apps 1.x's AppBridge");
  assert.equal(seen.openai, "undefined");
  // The demo's proxy renders the View without allow-same-origin (an opaque origin: no storage), so "memory".
  assert.equal(seen.origin, "null");
  assert.equal(seen.store, "memory");
  assert.equal(seen.backend, "wasm", "the demo proxy's default policy allows 'wasm-unsafe-eval'");

  // A move, forwarded by AppRenderer to the server.
  await view.locator('.cell[data-cell="0"]:not(:disabled)').click();
  await view.locator('.cell[data-cell="4"][data-mark="O"]').waitFor();
  await view.locator("body[data-busy=false]").waitFor();
  assert.notEqual(await view.locator("#token").getAttribute("data-token"), toolResult._meta[STATE_META_KEY]);
  assert.equal(await body.getAttribute("data-source"), "_meta");
  assert.equal(await view.locator("#expired-banner").isHidden(), true);
  // The View's logs reach the Host (ext-apps 2.x App -> 1.x AppBridge): its backend and store.
  await page.waitForFunction(() => window.mcpUiHost.logs.some((d) => d?.store) && window.mcpUiHost.logs.some((d) => d?.backend));
  assert.deepEqual(await page.evaluate(() => window.mcpUiHost.errors), []);
  await page.screenshot({ path: join(ARTIFACTS, "mcp-ui-app-renderer.png") });
  // The SDK 1.x client's GET for a server-to-client stream, which the stateless server answers 405
  // (as the spec allows), and the requests it aborts on the way: its own, not the View's.
  const mcp = server.mcpUrl.href;
  const benign = [`HTTP 405: ${mcp}`, `request failed: ${mcp} net::ERR_ABORTED`, "console.error: Failed to load resource: the server responded with a status of 405 (Method Not Allowed)"];
  for (let i = problems.length - 1; i >= 0; i--) if (benign.includes(problems[i])) problems.splice(i, 1);
  assert.deepEqual([...problems], []);
});
