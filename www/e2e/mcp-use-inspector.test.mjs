// The demo in the mcp-use Inspector (npm @mcp-use/inspector 20.3.10, its web
// UI, headless Chromium, loopback only; installed in www/third-party): it
// auto-connects to the workerd demo server (--url), runs `start`, renders the
// `ui://` View ("Component (MCP Apps)") in its sandbox proxy on a second
// origin (localhost <-> 127.0.0.1), in a srcdoc frame with allow-same-origin
// under the CSP it derives from the View's declared `_meta.ui.csp`, and
// injects a `window.openai` whose `setWidgetState` keeps state in memory only.
//
// So the View's store is "openai" with its write-through to "local" (the
// frame's localStorage, per viewUUID): a move plays, and when the View's
// document is loaded again (window.openai comes back empty) its UI state (the
// selected tab and the game) comes back from localStorage.
//
// Chromium runs with a regular profile (launchPersistentContext, third-party
// cookies allowed as Chrome's default is): Playwright's contexts are
// incognito, which blocks the storage of the cross-site sandbox frame.
// Needs the packed package, the one-file View and scripts/setup.sh's www/third-party.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { REPO_ROOT, VIEW_HTML, startServer } from "../../js/lib/servers.mjs";
import { CHROMIUM_ARGS, PACKED, keepOnLoopback } from "../../js/lib/chromium.mjs";
import { startMcpUseInspector } from "../../js/lib/mcp-use-inspector.mjs";

const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const KEY = "mcp-use e2e key: at least thirty-two bytes long";
const STEP_TIMEOUT_MS = 90_000; // a React app on two busy cores; never a sleep
const BOARD_AFTER_FIRST_MOVE = "X...O....";
const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
// The refused compile of the widget's wasm under the Inspector's CSP, if Chromium logs it as an error.
const WASM_REFUSED = /WebAssembly.*(violates|Content Security Policy)|Content Security Policy.*WebAssembly|wasm-unsafe-eval/i;

let server;
let inspector;

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer({ key: KEY, instance: "mcp-use", onLog: () => {} });
  inspector = await startMcpUseInspector({ serverUrl: server.mcpUrl, onLog: () => {} });
});

after(async () => {
  await inspector?.dispose();
  await server?.dispose();
});

/** Chromium with a regular (not incognito) profile in a temporary directory. */
async function launchRegularProfile(t) {
  const { chromium } = createRequire(join(REPO_ROOT, "js/package.json"))("playwright-core");
  const dir = mkdtempSync(join(tmpdir(), "mcp-use-e2e-"));
  mkdirSync(join(dir, "Default"));
  // 0: third-party cookies (and so a cross-site frame's storage) allowed, as in Chrome's default profile.
  writeFileSync(join(dir, "Default/Preferences"), JSON.stringify({ profile: { cookie_controls_mode: 0 } }));
  const context = await chromium.launchPersistentContext(dir, { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS, viewport: { width: 1400, height: 1000 } });
  t.after(async () => {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return context;
}

test("mcp-use Inspector: the View renders, a move plays, store openai written through to local; its UI state survives a reload of the View although window.openai keeps state in memory only", async (t) => {
  const context = await launchRegularProfile(t);
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const where = m.location().url ?? "";
    // The Inspector probes the server for OAuth metadata (it has none): 404s it logs itself.
    if (where.includes("/inspector/api/oauth/") || /oauth-protected-resource|oauth-authorization-server/.test(m.text())) return;
    // Its client's GET for a server-to-client stream, which a stateless server answers 405 (as the spec allows).
    if (where === server.mcpUrl.href && /status of 405/.test(m.text())) return;
    if (!WASM_REFUSED.test(m.text()) && !/Failed to load resource: the server responded with a status of 404/.test(m.text())) problems.push(`console.error: ${m.text()} (${where})`);
  });
  await keepOnLoopback(context, problems); // its Google Fonts stylesheet: an empty one; anything else off loopback fails the test

  // 127.0.0.1 for the UI: its sandbox proxy then runs on localhost, a second origin.
  const ui = new URL(inspector.url);
  ui.hostname = "127.0.0.1";
  await page.goto(ui.href);
  await page.getByText(server.mcpUrl.host).first().waitFor(); // auto-connected to --url
  await page.getByText("start", { exact: true }).first().click();
  await page.getByRole("button", { name: /Execute/ }).click();
  const view = page.frameLocator('iframe[src*="/inspector/sandbox"]').frameLocator("iframe");
  const body = view.locator("body");
  await view.locator("body[data-phase=playing][data-busy=false]").waitFor();
  await view.locator("body[data-store]").waitFor();

  // Where it runs: a second origin, a srcdoc frame with allow-same-origin, window.openai injected.
  const proxy = page.frames().find((f) => f.url().includes("/inspector/sandbox"));
  assert.notEqual(new URL(proxy.url()).origin, new URL(page.url()).origin, "the sandbox proxy is on a second origin");
  assert.match(await proxy.locator("iframe").getAttribute("sandbox"), /allow-same-origin/);
  const seen = await body.evaluate(() => ({
    origin: window.origin,
    openai: typeof window.openai?.setWidgetState,
    csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? null,
    metadataKeys: Object.keys(window.openai.toolResponseMetadata ?? {}),
    outputKeys: Object.keys(window.openai.toolOutput ?? {}),
  }));
  t.diagnostic(`window.openai.toolResponseMetadata keys: ${seen.metadataKeys}; toolOutput keys: ${seen.outputKeys}`);
  // Unlike ChatGPT's (the result's _meta), its toolResponseMetadata is the whole result: the View
  // reads the token and the viewUUID one level down, in its _meta.
  assert.deepEqual(seen.metadataKeys.sort(), ["_meta", "content", "structuredContent"]);
  assert.deepEqual(seen.outputKeys.sort(), ["board", "lastMove", "line", "status", "turn", "winner", "you"]);
  assert.equal(seen.origin, new URL(proxy.url()).origin);
  assert.equal(seen.openai, "function", "the Inspector injects window.openai");
  t.diagnostic(`View CSP: ${seen.csp}`);

  // What the View made of it: the token from window.openai (there when the View starts; the
  // notification's _meta brings the same token), store "openai" written through to "local", and the
  // backend the Inspector's CSP allows.
  assert.equal(await body.getAttribute("data-source"), "toolResponseMetadata");
  assert.equal(await body.getAttribute("data-store"), "openai");
  assert.equal(await body.getAttribute("data-write-through"), "local");
  await view.locator("body[data-backend]").waitFor();
  const backend = await body.getAttribute("data-backend");
  assert.equal(backend, /wasm-unsafe-eval/.test(seen.csp ?? "") ? "wasm" : "js", `the backend follows the CSP: ${seen.csp}`);
  t.diagnostic(`backend: ${backend}`);

  // A move through the Inspector, and a piece of UI state: the selected tab.
  const before = await view.locator("#token").getAttribute("data-token");
  await view.locator('[role=tab][data-tab="claims"]').click();
  await view.locator('.cell[data-cell="0"]:not(:disabled)').click();
  await view.locator('.cell[data-cell="4"][data-mark="O"]').waitFor();
  await view.locator("body[data-busy=false]").waitFor();
  assert.equal(await view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark).join("")), BOARD_AFTER_FIRST_MOVE);
  const token = await view.locator("#token").getAttribute("data-token");
  assert.notEqual(token, before);
  const viewFrame = () => page.frames().find((f) => f.parentFrame() === proxy);
  // Saved to both: window.openai's widgetState.privateContent, and localStorage under the viewUUID.
  await viewFrame().waitForFunction(
    ([prefix, want]) => {
      const key = Object.keys(localStorage).find((k) => k.startsWith(prefix));
      const local = key && JSON.parse(localStorage.getItem(key));
      const kept = window.openai.widgetState?.privateContent;
      return local?.token === want && local.tab === "claims" && kept?.token === want && kept.tab === "claims";
    },
    [LOCAL_KEY_PREFIX, token],
  );
  await page.screenshot({ path: join(ARTIFACTS, "mcp-use-inspector.png") });

  // The View's document loaded again (the same srcdoc, so window.openai is injected afresh: empty).
  await viewFrame().evaluate(() => location.reload());
  await view.locator("body[data-phase=playing][data-busy=false]").waitFor();
  await view.locator("body[data-store]").waitFor();
  const after = await body.evaluate(() => ({
    widgetState: window.openai.widgetState ?? null,
    restoredFrom: window.gameView.ui.viewState.restoredFrom,
    store: window.gameView.ui.viewState.store,
    decidedAtMs: window.gameView.decidedAtMs,
  }));
  t.diagnostic(`after the reload: store decided ${after.decidedAtMs} ms after the View's document started`);
  assert.equal(after.widgetState, null, "window.openai kept nothing: memory only");
  assert.equal(after.store, "openai");
  assert.equal(after.restoredFrom, "local", "restored from the write-through");
  assert.equal(await body.getAttribute("data-tab"), "claims", "the selected tab came back");
  assert.equal(await view.locator("#token").getAttribute("data-token"), token, "and the game");
  assert.equal(await view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark).join("")), BOARD_AFTER_FIRST_MOVE);

  // It keeps playing with the restored token.
  await view.locator('.cell[data-cell="2"]:not(:disabled)').click();
  await view.locator('.cell[data-cell="2"][data-mark="X"]').waitFor();
  await view.locator("body[data-busy=false]").waitFor();
  assert.equal(await view.locator("#expired-banner").isHidden(), true);
  assert.deepEqual(problems, [], "no page error, console error (bar the Inspector's own OAuth probes) or request off loopback");
});
