// The demo View where the Host does not hand it the tool result's `_meta`
// (docs/hosts.md, "Where the token and the viewUUID reach the View"), in headless
// Chromium, through the demo Host page (www/host.html) and its sandbox proxy:
//
// - ChatGPT's surface, as a STAND-IN of its documented Apps SDK API
//   (www/host/openai-surface.js; not ChatGPT itself): `_meta` stripped from
//   what the View is given, `window.openai` injected into the View's document
//   with `toolResponseMetadata`, `toolOutput`, a structured `widgetState` and
//   `setWidgetState`, and `openai:set_globals` fired on each later result;
// - a Host that passes only `content` and `structuredContent` in the
//   tool-result notification, as ext-apps' basic-host does (ext-apps issue
//   646): the server's mirror in structuredContent (MIRROR_TO_STRUCTURED_CONTENT) plays.
//
// Needs the packed package and the one-file View, as demo.test.mjs does.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_MOUNTS, REPO_ROOT, VIEW_HTML, buildWorker, serve, startRustServer, startServer } from "../../js/lib/servers.mjs";
import { PACKED, failOnPageProblems, launchChromium } from "../../js/lib/chromium.mjs";
import { serveSandbox } from "../lib/sandbox-server.mjs";
import { VIEW_DECLARATION } from "../server/view-meta.js";

const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const KEY = "hosts e2e key: at least thirty-two bytes long";
const STATE_META_KEY = "ng-mcp-ui/state";
const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
// The server's deterministic answers (www/server/game.js): X at 0 -> O at 4; X at 2 -> O at 1.
const BOARD_1 = "X...O....";
const BOARD_2 = "XOX.O....";

let web;
let sandbox;
let browser;
const servers = {}; // plain: _meta only; mirror, rust-mirror: MIRROR_TO_STRUCTURED_CONTENT=1 (workerd, rmcp)

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  mkdirSync(ARTIFACTS, { recursive: true });
  const build = await buildWorker();
  const quiet = () => {};
  const started = await Promise.allSettled([
    launchChromium(),
    startServer({ key: KEY, instance: "plain", build, onLog: quiet }),
    startServer({ key: KEY, instance: "mirror", mirror: true, build, onLog: quiet }),
    startRustServer({ key: KEY, instance: "rust-mirror", mirror: true, onLog: quiet, viewHtml: VIEW_HTML, ...VIEW_DECLARATION }),
  ]);
  const [chromium, ...demos] = started;
  if (chromium.status === "fulfilled") browser = chromium.value;
  for (const s of demos) if (s.status === "fulfilled") servers[s.value.instance] = s.value;
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  web = await serve({ mounts: { ...DEFAULT_MOUNTS, "/pkg/": PACKED } });
  sandbox = await serveSandbox();
});

after(async () => {
  await browser?.close();
  await web?.close();
  await sandbox?.close();
  await Promise.allSettled(Object.values(servers).map((s) => s.dispose()));
});

/** The demo Host on `server` with these query options, in a fresh context; fails the test on any page problem. */
async function openHost(t, server, options) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await ctx.newPage();
  const problems = failOnPageProblems(t, page, () => ctx.close());
  const query = new URLSearchParams({ servers: server.mcpUrl.href, user: "e2e", sandbox: new URL(sandbox.url).origin, viewstate: "off", frame: "storage", ...options });
  await page.goto(`${web.url}www/host.html?${query}`);
  await page.waitForSelector("#conn-status[data-status=connected]");
  const view = page.frameLocator(".call iframe").first().frameLocator("iframe");
  const body = view.locator("body");
  const proxy = async () => (await page.locator(".call iframe").first().elementHandle()).contentFrame();
  return {
    page,
    view,
    problems,
    proxy,
    calls: () => page.evaluate(() => window.demoHost.calls()),
    token: () => view.locator("#token").getAttribute("data-token"),
    source: () => body.getAttribute("data-source"),
    board: () => view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark).join("")),
    async newGame() {
      await page.click("#new-game");
      await page.waitForSelector(".call[data-ready=true]");
    },
    /** Click a cell; resolves once the View shows `board` (the server's O included), from the token it keeps. */
    async move(cell, board) {
      await view.locator(`.cell[data-cell="${cell}"]:not(:disabled)`).click();
      await view.locator("body[data-busy=false]").waitFor();
      await body.evaluate(
        (el, want) =>
          new Promise((resolve) => {
            const done = () => [...el.querySelectorAll(".cell")].map((c) => c.dataset.mark).join("") === want;
            if (done()) return resolve();
            new MutationObserver((_, o) => done() && (o.disconnect(), resolve())).observe(el, { subtree: true, attributes: true });
          }),
        board,
      );
    },
    async reloadView() {
      const renders = Number((await page.locator(".call").first().getAttribute("data-renders")) ?? 0);
      await page.locator(".call .call-reload").click();
      await page.waitForSelector(`.call[data-renders="${renders + 1}"][data-ready=true]`);
      await view.locator("body[data-store]").waitFor();
    },
  };
}

describe("an Apps SDK host: window.openai and no MCP Apps bridge", () => {
  test("the stand-in's surface=apps-sdk (no bridge at all): store decided without the bridge, token from toolResponseMetadata, a move through window.openai.callTool, tab and token restored after a reload", async (t) => {
    const h = await openHost(t, servers.plain, { surface: "apps-sdk" });
    await h.newGame();
    const [call] = await h.calls();
    const first = call.result._meta[STATE_META_KEY];
    await h.view.locator("body[data-phase=playing][data-busy=false][data-store]").waitFor();
    const seen = await h.view
      .locator("body")
      .evaluate((b) => ({ model: b.dataset.hostModel, store: b.dataset.store, through: b.dataset.writeThrough, decidedAtMs: window.gameView.decidedAtMs, callTool: typeof window.openai.callTool }));
    t.diagnostic(`store decided ${seen.decidedAtMs} ms after the View's document started`);
    assert.deepEqual({ ...seen, decidedAtMs: undefined }, { model: "apps-sdk", store: "openai", through: "local", decidedAtMs: undefined, callTool: "function" });
    assert.equal(await h.token(), first);
    assert.equal(await h.source(), "toolResponseMetadata");

    // A move: through window.openai.callTool (the Host answers `_meta: null`, then set_globals).
    await h.move(0, BOARD_1);
    const token1 = await h.token();
    assert.notEqual(token1, first);
    assert.equal(await h.source(), "toolResponseMetadata");
    assert.equal(await h.page.evaluate(() => window.demoHost.stats.toolCalls.move), 1);
    await h.view.locator('[role=tab][data-tab="claims"]').click();
    await h.page.waitForFunction(
      ([id, token]) => window.demoHost.widgetState(id)?.privateContent?.token === token && window.demoHost.widgetState(id).privateContent.tab === "claims",
      [call.id, token1],
    );

    // Reloaded: the latest globals and the saved widget state come back; restored from widgetState first.
    await (await h.proxy()).evaluate(() => localStorage.clear());
    await h.reloadView();
    await h.view.locator("body[data-phase=playing]").waitFor();
    assert.equal(await h.token(), token1);
    assert.equal(await h.board(), BOARD_1);
    assert.equal(await h.view.locator("body").getAttribute("data-tab"), "claims");
    assert.equal(await h.view.locator("body").evaluate(() => window.gameView.ui.viewState.restoredFrom), "openai");
    await h.move(2, BOARD_2);
    assert.deepEqual([...h.problems], []);
  });
});

describe("Views where the Host drops the tool result's _meta", () => {
  test("ChatGPT's surface (a stand-in of its documented window.openai API): token and viewUUID from toolResponseMetadata, a move adopted from openai:set_globals, state in widgetState.privateContent with modelContent kept, restored on re-render", async (t) => {
    const h = await openHost(t, servers.plain, { surface: "chatgpt" });
    await h.newGame();
    const [call] = await h.calls();
    const result = call.result;
    assert.equal(typeof result._meta[STATE_META_KEY], "string");
    assert.equal(result.structuredContent[STATE_META_KEY], undefined, "the server does not mirror");
    await h.view.locator("body[data-phase=playing][data-busy=false]").waitFor();

    // What the View was given: no _meta, and window.openai with the result's _meta.
    const seen = await h.view.locator("body").evaluate(() => ({
      openai: Object.keys(window.openai).sort(),
      metadata: window.openai.toolResponseMetadata,
      output: window.openai.toolOutput,
      widgetState: window.openai.widgetState,
    }));
    assert.deepEqual(seen.openai, ["displayMode", "locale", "setWidgetState", "theme", "toolInput", "toolOutput", "toolResponseMetadata", "widgetState"]);
    assert.deepEqual(seen.metadata, result._meta);
    assert.deepEqual(seen.output, result.structuredContent);
    // A structured widget state, as the page set it (the Host's first one); the View may have saved its privateContent already.
    const { modelContent, imageIds } = seen.widgetState;
    assert.deepEqual({ modelContent, imageIds }, { modelContent: { note: "set by the page: the model sees this" }, imageIds: ["file-stand-in-1"] });
    assert.deepEqual(
      Object.keys(seen.widgetState).filter((k) => !["modelContent", "imageIds", "privateContent"].includes(k)),
      [],
      "nothing at the top level",
    );

    // The token: adopted from toolResponseMetadata; the viewUUID too (the write-through to local keys by it).
    assert.equal(await h.token(), result._meta[STATE_META_KEY]);
    assert.equal(await h.source(), "toolResponseMetadata");
    assert.match(await h.view.locator("#source").textContent(), /window\.openai\.toolResponseMetadata/);
    assert.equal(await h.view.locator("body").getAttribute("data-store"), "openai");
    assert.equal(await h.view.locator("body").getAttribute("data-write-through"), "local");

    // A move: the View's call comes back without _meta; the token arrives by openai:set_globals.
    await h.move(0, BOARD_1);
    const token1 = await h.token();
    assert.notEqual(token1, result._meta[STATE_META_KEY]);
    assert.equal(await h.source(), "toolResponseMetadata", "adopted from the later set_globals");
    assert.equal(await h.view.locator("body").evaluate(() => window.openai.toolResponseMetadata["ng-mcp-ui/state"]), token1);

    // ChatGPT fires openai:set_globals for every global (theme, display mode), with the same
    // toolResponseMetadata: that changes nothing.
    await h.page.evaluate(
      ([id, metadata]) =>
        window.demoHost.views
          .get(id)
          .iframe.contentWindow.postMessage({ jsonrpc: "2.0", method: "openai-stand-in/set_globals", params: { globals: { theme: "dark", toolResponseMetadata: metadata } } }, "*"),
      [call.id, await h.view.locator("body").evaluate(() => window.openai.toolResponseMetadata)],
    );
    await h.view.locator("body").evaluate(() => new Promise((resolve) => (window.openai.theme === "dark" ? resolve() : window.addEventListener("openai:set_globals", resolve, { once: true }))));
    assert.equal(await h.token(), token1);
    assert.equal(await h.source(), "toolResponseMetadata");

    // Saved: privateContent holds the View's state, modelContent and imageIds kept, nothing at the top level.
    await h.view.locator('[role=tab][data-tab="claims"]').click();
    await h.page.waitForFunction(
      ([id, token]) => {
        const state = window.demoHost.widgetState(id);
        return state?.privateContent?.token === token && state.privateContent.tab === "claims";
      },
      [call.id, token1],
    );
    const saved = await h.page.evaluate((id) => window.demoHost.widgetState(id), call.id);
    assert.deepEqual(saved, { modelContent, imageIds, privateContent: { token: token1, tab: "claims" } });
    // Written through to this frame's localStorage under the viewUUID of toolResponseMetadata.
    const local = await (await h.proxy()).evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "null"), LOCAL_KEY_PREFIX + result._meta.viewUUID);
    assert.deepEqual(local, saved.privateContent);

    // Re-rendered (the same result, the saved widget state injected): restored from window.openai first.
    await (await h.proxy()).evaluate(() => localStorage.clear()); // so only widgetState can restore it
    await h.reloadView();
    await h.view.locator("body[data-phase=playing]").waitFor();
    assert.equal(await h.token(), token1, "the token of the move, not the render's");
    assert.equal(await h.board(), BOARD_1);
    assert.equal(await h.view.locator("body").getAttribute("data-tab"), "claims");
    assert.equal(await h.view.locator("body").evaluate(() => window.gameView.ui.viewState.restoredFrom), "openai");
    assert.equal(await h.source(), "viewState", "the restored token");
    assert.match(await h.view.locator("#vs-status").textContent(), /restored/);

    // And it plays on.
    await h.move(2, BOARD_2);
    assert.equal(await h.source(), "toolResponseMetadata");
    await h.page.screenshot({ path: join(ARTIFACTS, "host-chatgpt-stand-in.png") });
    assert.deepEqual([...h.problems], []);
  });

  test("a Host that passes only content and structuredContent (as ext-apps' basic-host): the rmcp server's mirror plays", async (t) => {
    const h = await openHost(t, servers["rust-mirror"], { meta: "drop" });
    await h.newGame();
    const [call] = await h.calls();
    await h.view.locator("body[data-phase=playing][data-busy=false]").waitFor();
    assert.equal(await h.token(), call.result.structuredContent[STATE_META_KEY]);
    assert.equal(await h.source(), "structuredContent");
    assert.equal(await h.view.locator("body").getAttribute("data-store"), "local");
    await h.move(0, BOARD_1);
    assert.equal(await h.source(), "_meta");
  });

  test("a Host that passes only content and structuredContent (as ext-apps' basic-host): the server's mirror plays; without it the View waits", async (t) => {
    const h = await openHost(t, servers.mirror, { meta: "drop" });
    await h.newGame();
    const [call] = await h.calls();
    const token0 = call.result.structuredContent[STATE_META_KEY];
    assert.equal(token0, call.result._meta[STATE_META_KEY], "the mirror is the same token");
    await h.view.locator("body[data-phase=playing][data-busy=false]").waitFor();
    assert.equal(await h.token(), token0);
    assert.equal(await h.source(), "structuredContent");
    assert.match(await h.view.locator("#source").textContent(), /structuredContent/);
    // The viewUUID from structuredContent: the "local" store keys by it.
    assert.equal(await h.view.locator("body").getAttribute("data-store"), "local");
    await h.move(0, BOARD_1);
    assert.notEqual(await h.token(), token0);
    assert.equal(await h.source(), "_meta", "the View's own call comes back whole");
    const key = LOCAL_KEY_PREFIX + call.result.structuredContent.viewUUID;
    await (await h.proxy()).waitForFunction(([k, token]) => JSON.parse(localStorage.getItem(k) ?? "null")?.token === token, [key, await h.token()]);
    await h.page.screenshot({ path: join(ARTIFACTS, "host-meta-dropped.png") });

    // The same Host on a server without the mirror: no token reaches the View, nothing to play with.
    const plain = await openHost(t, servers.plain, { meta: "drop" });
    await plain.newGame();
    await plain.view.locator("body[data-store]").waitFor();
    assert.equal(await plain.view.locator("body").getAttribute("data-store"), "memory", "no viewUUID either");
    assert.equal(await plain.view.locator("body").getAttribute("data-phase"), "waiting");
    assert.equal(await plain.token(), "");
  });
});
