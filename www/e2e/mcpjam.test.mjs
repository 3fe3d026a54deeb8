// The demo in the MCPJam Inspector (npm @mcpjam/inspector 1.0.24, installed in
// www/third-party; its web UI in headless Chromium, loopback only): a host of
// the Apps SDK model only. It connects to the workerd demo server on its own
// (MCP_CONFIG_DATA), and its Tools tab renders a tool's
// `_meta["openai/outputTemplate"]` (the View's `text/html+skybridge` resource)
// in a same-origin iframe (sandbox allow-scripts allow-same-origin ...) whose
// document is the View's HTML behind a script that defines `window.openai`:
// `toolResponseMetadata` = the result's `_meta`, `toolOutput` = its
// `structuredContent`, `setWidgetState` kept in the page's localStorage per
// tool call (and restored into `widgetState` when that widget loads again),
// `callTool` through its parent page, whose results come back with
// `_meta: null`. It answers no `ui/initialize` (no ext-apps bridge at all).
//
// So the View must decide its store without the bridge ("openai", written
// through to "local"), play through `window.openai.callTool`, and take each
// later token from the result's structuredContent: the server runs with the
// mirror on (MIRROR_TO_STRUCTURED_CONTENT), the only way a move's token
// reaches a View there. The first token comes from `toolResponseMetadata`.
//
// MCPJam listens on 0.0.0.0 and reports to Sentry and PostHog with no switch:
// its server runs under js/lib/loopback-guard.mjs (js/lib/mcpjam.mjs), and its
// page's telemetry requests are answered here, never sent.
//
// Every wait on the View is bounded (VIEW_WAIT_MS): a View that waits for a
// bridge that never answers fails at that step, not after a minute.
// Needs the packed package, the one-file View and scripts/setup.sh's www/third-party.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { REPO_ROOT } from "../../js/lib/servers.mjs";
import { PACKED, failOnPageProblems, keepOnLoopback, launchChromium } from "../../js/lib/chromium.mjs";
import { VIEW_HTML, startServer } from "../../js/lib/servers.mjs";
import { startMcpJam } from "../../js/lib/mcpjam.mjs";

const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const KEY = "mcpjam e2e key: at least thirty-two bytes long";
const STATE_META_KEY = "ng-mcp-ui/state";
const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
const BOARD_AFTER_FIRST_MOVE = "X...O...."; // the server's answer to X at 0 (www/server/game.js)
const UI_WAIT_MS = 60_000; // MCPJam's React app on two busy cores; never a sleep
const VIEW_WAIT_MS = 10_000; // each step of the View: bounded, so a View that waits for a bridge fails fast
// MCPJam's page reports to these: answered with an empty 204 here.
const TELEMETRY = [/(^|\.)sentry\.io$/, /(^|\.)posthog\.com$/];
// The frame MCPJam renders the start result's template in (Tools tab).
const WIDGET = 'iframe[title="OpenAI Component: start"]';
// The members MCPJam's window.openai has (dist/server/index.js, widget-content).
const OPENAI_MEMBERS = [
  "callTool",
  "displayMode",
  "locale",
  "maxHeight",
  "openExternal",
  "requestDisplayMode",
  "safeArea",
  "sendFollowUpMessage",
  "sendFollowupTurn",
  "setWidgetState",
  "theme",
  "toolInput",
  "toolOutput",
  "toolResponseMetadata",
  "userAgent",
  "widgetState",
];

let server;
let jam;
let browser;

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  mkdirSync(ARTIFACTS, { recursive: true });
  const launching = launchChromium();
  server = await startServer({ key: KEY, instance: "mcpjam", mirror: true, onLog: () => {} });
  jam = await startMcpJam({ servers: { demo: server.mcpUrl }, onLog: () => {} });
  browser = await launching;
});

after(async () => {
  await browser?.close();
  await jam?.dispose();
  await server?.dispose();
});

/** The board as the View draws it: one character per cell, "." for empty. */
const boardOf = (view) => view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark ?? ".").join(""));

/** Wait (bounded) until the widget frame's View has decided its store; resolves the frame's clock then (ms since the frame's navigation began). */
async function storeDecided(frame) {
  try {
    const handle = await frame.waitForFunction(() => document.body?.dataset.store && performance.now(), null, { timeout: VIEW_WAIT_MS, polling: 20 });
    return await handle.jsonValue();
  } catch (error) {
    const data = await frame.evaluate(() => ({ ...document.body?.dataset })).catch(() => null);
    throw new Error(`the View decided no store within ${VIEW_WAIT_MS / 1000} s of its load (its body's data: ${JSON.stringify(data)})`, { cause: error });
  }
}

test("MCPJam Inspector 1.0.24 (window.openai only, no bridge): the View decides its store without a handshake (openai, written through to local), plays through window.openai.callTool, and its UI state and token come back when the widget is loaded again", async (t) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_WAIT_MS);
  const problems = failOnPageProblems(t, page, () => context.close());
  const silenced = await keepOnLoopback(context, problems, { silence: TELEMETRY });
  // What reaches MCPJam's page from the widget: its window.openai posts { type: "openai:callTool", toolName }.
  await page.addInitScript(() => {
    window.__widgetCalls = [];
    window.addEventListener("message", (e) => e.data?.type === "openai:callTool" && window.__widgetCalls.push(e.data.toolName));
  });
  const executed = []; // the tool calls MCPJam's page asked its server for
  page.on("request", (req) => {
    if (req.method() === "POST" && new URL(req.url()).pathname === "/api/mcp/tools/execute") executed.push(JSON.parse(req.postData() ?? "{}").toolName);
  });
  t.after(() => {
    t.diagnostic(`MCPJam's page telemetry answered here, never sent: ${silenced.length} requests (${[...new Set(silenced.map((u) => new URL(u).hostname))].join(", ")})`);
    t.diagnostic(`kept on loopback in MCPJam's server by the guard: ${jam.refused.length ? jam.refused.join(", ") : "nothing asked"}`);
  });

  // Its UI: a guest, the demo server connected from MCP_CONFIG_DATA, the Tools tab, `start`.
  await page.goto(jam.url.href);
  await page.getByText("Or continue as guest").click();
  await page.getByText("Connected", { exact: true }).first().waitFor();
  await page.getByRole("button", { name: "Tools", exact: true }).first().click();
  await page.getByText("start", { exact: true }).first().click();
  await page.getByRole("button", { name: "Execute" }).click();
  const iframe = page.locator(WIDGET);
  await iframe.waitFor();
  const frame = await (await iframe.elementHandle()).contentFrame();
  const view = page.frameLocator(WIDGET);
  const body = view.locator("body");

  // The host it is: same origin as MCPJam's page, window.openai with the result's _meta and structuredContent, no CSP.
  assert.equal(await iframe.getAttribute("sandbox"), "allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox");
  await frame.waitForFunction(() => window.openai && window.gameView, null, { timeout: VIEW_WAIT_MS });
  const host = await frame.evaluate(() => ({
    origin: window.origin,
    members: Object.keys(window.openai).sort(),
    metadataKeys: Object.keys(window.openai.toolResponseMetadata ?? {}).sort(),
    outputKeys: Object.keys(window.openai.toolOutput ?? {}).sort(),
    cspMeta: document.querySelectorAll('meta[http-equiv="Content-Security-Policy"]').length,
  }));
  assert.equal(host.origin, new URL(page.url()).origin, "the widget runs on MCPJam's own origin");
  assert.deepEqual(host.members, OPENAI_MEMBERS);
  assert.deepEqual(host.metadataKeys, [STATE_META_KEY, "viewUUID"], "toolResponseMetadata: the result's _meta");
  assert.ok(host.outputKeys.includes("board") && host.outputKeys.includes(STATE_META_KEY), `toolOutput: the structuredContent, with the mirror: ${host.outputKeys}`);
  assert.equal(host.cspMeta, 0);

  // The View: the token from toolResponseMetadata, the board drawn, and its store decided with no bridge.
  await view.locator("body[data-phase=playing]").waitFor({ timeout: VIEW_WAIT_MS });
  assert.equal(await body.getAttribute("data-source"), "toolResponseMetadata");
  const firstToken = await view.locator("#token").getAttribute("data-token");
  assert.equal(firstToken, await frame.evaluate((k) => window.openai.toolResponseMetadata[k], STATE_META_KEY));
  const decidedMs = await storeDecided(frame);
  t.diagnostic(`store decided ${Math.round(decidedMs)} ms after the widget frame's navigation began`);
  assert.equal(await body.getAttribute("data-store"), "openai");
  assert.equal(await body.getAttribute("data-write-through"), "local");

  // A move, and a piece of UI state: the selected tab.
  await view.locator('[role=tab][data-tab="claims"]').click({ timeout: VIEW_WAIT_MS });
  await view.locator('.cell[data-cell="0"]:not(:disabled)').click({ timeout: VIEW_WAIT_MS });
  await view.locator('.cell[data-cell="4"][data-mark="O"]').waitFor({ timeout: VIEW_WAIT_MS });
  await view.locator("body[data-busy=false]").waitFor({ timeout: VIEW_WAIT_MS });
  assert.equal(await boardOf(view), BOARD_AFTER_FIRST_MOVE);
  assert.deepEqual(await page.evaluate(() => window.__widgetCalls), ["move"], "the move went through window.openai.callTool");
  assert.deepEqual(executed, ["start", "move"], "MCPJam's page ran start (Execute) and the widget's move");
  const token = await view.locator("#token").getAttribute("data-token");
  assert.match(token, /^v1\.[\w-]+\.[\w-]{43}$/);
  assert.notEqual(token, firstToken, "the move's token (from its structuredContent: MCPJam's callTool result has _meta: null)");
  // Saved to both: window.openai's widgetState (MCPJam keeps it in localStorage per tool call) and the View's "local" store.
  await frame.waitForFunction(
    ([prefix, want]) => {
      const key = Object.keys(localStorage).find((k) => k.startsWith(prefix));
      const local = key && JSON.parse(localStorage.getItem(key));
      const kept = window.openai.widgetState?.privateContent;
      return local?.token === want && local.tab === "claims" && kept?.token === want && kept.tab === "claims";
    },
    [LOCAL_KEY_PREFIX, token],
    { timeout: VIEW_WAIT_MS },
  );
  await page.screenshot({ path: join(ARTIFACTS, "mcpjam.png") });

  // The widget loaded again: its iframe navigated to its src once more (its document's own URL is
  // MCPJam's "/", so location.reload() would load MCPJam itself). window.openai comes back with the
  // start result and the widgetState MCPJam kept for this tool call.
  await frame.evaluate(() => (window.__before = true));
  await iframe.evaluate((f) => (f.src = f.getAttribute("src")));
  await frame.waitForFunction(() => !window.__before && window.gameView && document.body?.dataset.phase === "playing", null, { timeout: VIEW_WAIT_MS });
  const decidedAgainMs = await storeDecided(frame);
  t.diagnostic(`after the reload: store decided ${Math.round(decidedAgainMs)} ms after the widget frame's navigation began`);
  const restored = await frame.evaluate(() => ({ store: window.gameView.ui.viewState?.store, from: window.gameView.ui.viewState?.restoredFrom }));
  t.diagnostic(`restored from: ${restored.from}`);
  assert.equal(restored.store, "openai");
  assert.equal(await body.getAttribute("data-tab"), "claims", "the selected tab came back");
  assert.equal(await view.locator("#token").getAttribute("data-token"), token, "and the game's token");
  assert.equal(await boardOf(view), BOARD_AFTER_FIRST_MOVE);
  assert.deepEqual([...problems], [], "no page error, console error, failed request or request off loopback so far");
});
