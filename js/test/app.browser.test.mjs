// mcp-sealed-state/app and mcp-sealed-state/app-bridge in Chromium: a real
// ext-apps 2.0.4 View (`App`, in a sandboxed iframe) with the package's
// connectWithViewState and keepFreshestToken, against a real Host (the
// package's ViewStateAppBridge, over ext-apps' AppBridge, in the parent page),
// over postMessage, with reloads of the iframe and of the Host page. The same
// adapters in memory, with failing stores: app.test.mjs.
//
// Serves the repo with js/lib/servers.mjs, with /pkg/ mounted on the PACKED
// package (js/out/consumer/node_modules/mcp-sealed-state), so the browser gets
// exactly what `npm install` gives a user, and the pages of js/fixtures/app (outside js/test: node --test runs every .js under a test/ directory).
// Run `npm --prefix js run build && node js/pack.mjs` first.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runInNewContext } from "node:vm";
import { DEFAULT_MOUNTS, REPO_ROOT, serve } from "../lib/servers.mjs";
import { PACKED, failOnPageProblems, launchChromium } from "../lib/chromium.mjs";
import { atClock } from "../lib/clock.mjs";

const require = createRequire(join(REPO_ROOT, "js/package.json"));
const KEY = "e2e key that is at least thirty-two bytes";
const STATE_META_KEY = "ng-mcp-ui/state";

let server;
let browser;
let context; // one for the suite, so the HTTP cache serves the module graph after the first page

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) {
    throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  }
  server = await serve({ mounts: { ...DEFAULT_MOUNTS, "/pkg/": PACKED, "/fixtures/": "js/fixtures" }, cacheControl: "max-age=600" });
  browser = await launchChromium();
  context = await browser.newContext();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Tokens minted by the real @modelcontextprotocol/server codec, ng-mcp-ui's view envelope, at a pinned clock. */
async function mintView(d, { ttlSeconds, nowMs = Date.now() }) {
  const { createRequestStateCodec } = require("@modelcontextprotocol/server");
  const codec = createRequestStateCodec({ key: KEY, ttlSeconds });
  return atClock(nowMs, () => codec.mint({ p: "v", d }));
}

const toolResult = (token, text = "ok") => ({
  content: [{ type: "text", text }],
  structuredContent: { text },
  ...(token !== undefined && { _meta: { [STATE_META_KEY]: token } }),
});

/**
 * A new page with the Host (each test keys its stored state by its own `call`
 * id); resolves once the View has connected. Fails the test on any page error,
 * console error or failed request.
 */
async function openHost(t, query = "") {
  const page = await context.newPage();
  const problems = failOnPageProblems(t, page, () => page.close());
  let frame;
  try {
    await page.goto(`${server.url}fixtures/app/host.html${query}`);
    frame = await (await page.waitForSelector("iframe", { timeout: 10_000 })).contentFrame();
    await frame.waitForFunction(() => window.view?.ready === true, null, { timeout: 10_000 });
  } catch (error) {
    error.message += `\npage problems: ${JSON.stringify(problems, null, 1)}`;
    throw error;
  }
  return {
    page,
    frame,
    host: (fn, arg) => page.evaluate(fn, arg),
    view: (fn, arg) => frame.evaluate(fn, arg),
    /** Reload the iframe only (same bridge) and wait for the NEW document's View to connect. */
    async reloadView({ wait = true } = {}) {
      const docId = await frame.evaluate(() => window.view.docId);
      await page.evaluate(() => window.host.reloadIframe());
      if (wait) await frame.waitForFunction((id) => window.view?.ready === true && window.view.docId !== id, docId);
      return docId;
    },
  };
}

describe("mcp-sealed-state/app View <-> mcp-sealed-state/app-bridge Host over ext-apps 2.0.4, in Chromium", () => {
  test("the View reads the restored state after a reload of the iframe (and of the Host page)", async (t) => {
    const h = await openHost(t, "?call=restore");
    const first = await h.view(() => ({
      supported: window.view.supported,
      maxBytes: window.view.maxBytes,
      restored: window.view.restored,
      raw: window.view.rawInitializeResult,
      sdkCaps: window.view.sdkHostCapabilities,
    }));
    assert.equal(first.supported, true);
    assert.equal(first.maxBytes, 65536);
    assert.equal(first.restored, null, "a new tool call starts with null");
    assert.deepEqual(first.raw.hostCapabilities.viewState, { maxBytes: 65536 });
    assert.equal(first.raw.hostContext.viewState, null);
    assert.equal(first.sdkCaps.viewState, undefined, "ext-apps 2.0.4's App drops the capability: the raw result is needed");

    const saved = { version: 1, tab: "details", note: "é😀" };
    assert.deepEqual(await h.view((s) => window.view.save(s), saved), { ok: true, value: true });
    assert.deepEqual(await h.host(() => window.host.stored()), saved, "stored in localStorage before the View hears success");

    await h.reloadView();
    assert.deepEqual(await h.view(() => window.view.restored), saved, "restored after the iframe reload");
    assert.equal(await h.host(() => window.host.inits), 2);

    // Saves are not echoed in host-context-changed, even when the Host passes viewState.
    await h.host(() => window.host.setHostContext({ theme: "dark", displayMode: "inline", platform: "web", viewState: { echoed: true } }));
    await h.frame.waitForFunction(() => window.view.contextChanges.length === 1);
    const changed = await h.view(() => window.view.contextChanges[0]);
    assert.equal(changed.theme, "dark");
    assert.equal(Object.hasOwn(changed, "viewState"), false, JSON.stringify(changed));

    // A reload of the Host page: a new bridge reads the store (localStorage) again.
    await h.page.reload();
    const frame2 = await (await h.page.waitForSelector("iframe")).contentFrame();
    await frame2.waitForFunction(() => window.view?.ready === true);
    assert.deepEqual(await frame2.evaluate(() => window.view.restored), saved, "restored after the Host page reload");
    assert.equal(await h.page.evaluate(() => window.host.storage.loads), 1);
  });

  test("a Host without the capability never receives a save: the View sends nothing", async (t) => {
    for (const mode of ["off", "unreadable"]) {
      const h = await openHost(t, `?viewstate=${mode}&call=none-${mode}`);
      const raw = await h.view(() => window.view.rawInitializeResult);
      assert.equal(raw.hostCapabilities.viewState, undefined, mode);
      assert.equal(Object.hasOwn(raw.hostContext, "viewState"), false, `${mode}: no hostContext.viewState either`);
      assert.equal(await h.view(() => window.view.supported), false, mode);
      assert.deepEqual(await h.view(() => window.view.save({ tab: "details" })), { ok: true, value: false }, `${mode}: nothing sent`);
      assert.deepEqual(await h.view(() => window.view.save(null)), { ok: true, value: false });
      // The View adopts tokens but must not try to persist them either.
      await h.host((r) => window.host.sendToolResult(r), toolResult(await mintView({ n: 1 }, { ttlSeconds: 600 })));
      await h.frame.waitForFunction(() => window.view.results.length === 1);
      assert.equal(await h.view(() => window.view.saves.length), 0);
      // Everything the View posted before this round trip has reached the Host.
      assert.equal((await h.view(() => window.view.probe())).ok, true);
      const methods = await h.host(() => window.host.inbound.map((m) => m.method));
      assert.ok(methods.includes("tools/call"), methods.join());
      assert.equal(await h.host(() => window.host.setViewStateRequests), 0, `${mode}: ${methods.join()}`);
      assert.deepEqual(await h.host(() => window.host.storage.saves), []);
      if (mode === "unreadable") {
        // A View that sends anyway cannot overwrite state the Host has not read.
        const forced = await h.view(() => window.view.forceSave({ x: 1 }));
        assert.equal(forced.code, -32603, JSON.stringify(forced));
        assert.deepEqual(await h.host(() => window.host.storage.saves), []);
      }
    }
  });

  test("an oversize save is refused with -32602 and the last state is kept", async (t) => {
    const h = await openHost(t, "?maxBytes=256&call=oversize");
    assert.equal(await h.view(() => window.view.maxBytes), 256);
    const kept = { tab: "summary", page: 3 };
    assert.deepEqual(await h.view((s) => window.view.save(s), kept), { ok: true, value: true });

    const big = { blob: "é".repeat(200) }; // 211 characters of JSON, 411 bytes
    // Through the helper: refused in the View, never sent.
    const local = await h.view((s) => window.view.save(s), big);
    assert.equal(local.ok, false);
    assert.equal(local.name, "ViewStateError");
    assert.equal(local.code, -32602);
    assert.match(local.message, /411 bytes.*256/);
    assert.equal(await h.host(() => window.host.setViewStateRequests), 1, "the oversize state was not sent");
    // Sent anyway, bypassing the View's check: the Host refuses it.
    const remote = await h.view((s) => window.view.forceSave(s), big);
    assert.equal(remote.ok, false);
    assert.equal(remote.code, -32602, JSON.stringify(remote));
    assert.match(remote.message, /411 bytes/);
    for (const notAnObject of [[1, 2], "text", 5]) {
      const r = await h.view((s) => window.view.forceSave(s), notAnObject);
      assert.equal(r.code, -32602, JSON.stringify(r));
    }
    assert.equal((await h.view(() => window.view.forceSave(undefined))).code, -32602, "state missing");
    // A failing store: -32603, last state kept.
    await h.host(() => window.host.failNextSave("quota exceeded"));
    const failed = await h.view(() => window.view.save({ tab: "other" }));
    assert.equal(failed.code, -32603, JSON.stringify(failed));
    assert.deepEqual(await h.view(() => window.view.state), kept, "the View's own record is unchanged");

    assert.deepEqual(await h.host(() => window.host.storage.saves), [kept, { tab: "other" }], "the store never saw a refused state");
    assert.deepEqual(await h.host(() => window.host.stored()), kept);
    assert.deepEqual(await h.host(() => window.host.bridge.viewState), kept);
    assert.deepEqual(await h.host(() => window.host.savedEvents), [kept], "onviewstatesaved: successful saves only");
    await h.reloadView();
    assert.deepEqual(await h.view(() => window.view.restored), kept, "the next render restores the last good state");
  });

  test("the token of the latest ui/notifications/tool-result is adopted, whatever its exp", async (t) => {
    const h = await openHost(t, "?call=tokens");
    const now = Date.now();
    const newer = await mintView({ move: 2 }, { ttlSeconds: 600, nowMs: now });
    const older = await mintView({ move: 1 }, { ttlSeconds: 60, nowMs: now });
    const exp = (tok) => JSON.parse(Buffer.from(tok.split(".")[1], "base64url")).exp;
    assert.ok(exp(newer) > exp(older));

    await h.host((r) => window.host.sendToolResult(r), toolResult(newer, "newer"));
    await h.frame.waitForFunction(() => window.view.results.length === 1);
    assert.equal(await h.view(() => window.view.token), newer);
    await h.host((r) => window.host.sendToolResult(r), toolResult(older, "older"));
    await h.frame.waitForFunction(() => window.view.results.length === 2);
    assert.equal(await h.view(() => window.view.token), older, "the later result wins, though its exp is earlier (arrival order, not exp)");
    await h.host((r) => window.host.sendToolResult(r), toolResult(undefined, "no token"));
    await h.host((r) => window.host.sendToolResult(r), toolResult("not-a-sealed-token", "junk"));
    await h.host((r) => window.host.sendToolResult(r), toolResult(newer, "newer again"));
    await h.host((r) => window.host.sendToolResult(r), toolResult(newer, "the same token"));
    await h.frame.waitForFunction(() => window.view.results.length === 6);
    assert.equal(await h.view(() => window.view.token), newer);
    assert.equal(await h.view(() => window.view.tokenExp), exp(newer));
    // The results reached the View with _meta intact, as CallToolResults.
    assert.equal(await h.view((k) => window.view.results[1]._meta[k], STATE_META_KEY), older);

    // The View persisted each adopted token (the identical one changed nothing).
    const saves = await h.view(() => window.view.settleSaves());
    assert.deepEqual(saves, [
      { ok: true, value: true },
      { ok: true, value: true },
      { ok: true, value: true },
    ]);
    assert.deepEqual(await h.host(() => window.host.stored()), { token: newer });
    await h.reloadView();
    assert.equal(await h.view(() => window.view.token), newer, "the remounted View starts from the saved token");
    // A result refusing the token (ng-mcp-ui's message) is recognized as expiry.
    await h.host((r) => window.host.sendToolResult(r), { isError: true, content: [{ type: "text", text: "ng-mcp-ui: sealed state is invalid or expired" }] });
    await h.frame.waitForFunction(() => window.view.results.length === 1);
    assert.equal(await h.view(() => window.view.expired), true);
    assert.equal(await h.view(() => window.view.token), newer);
  });

  test("saves through the bridge are stored one at a time and coalesced", async (t) => {
    const h = await openHost(t, "?call=coalesce");
    await h.host(() => window.host.holdSaves());
    await h.view(() => {
      window.outcomes = [1, 2, 3, 4].map((n) => window.view.save({ n }));
    });
    await h.page.waitForFunction(() => window.host.storage.saves.length === 1);
    // Everything posted before the probe has reached the Host: 2, 3, 4 are queued behind 1.
    assert.equal((await h.view(() => window.view.probe())).ok, true);
    assert.equal(await h.host(() => window.host.setViewStateRequests), 4);
    await h.host(() => window.host.releaseSaves());
    assert.deepEqual(await h.view(() => Promise.all(window.outcomes)), Array(4).fill({ ok: true, value: true }));
    assert.deepEqual(await h.host(() => window.host.storage.saves), [{ n: 1 }, { n: 4 }], "only the first and the newest were stored");
    assert.deepEqual(await h.host(() => window.host.savedEvents), [{ n: 1 }, { n: 4 }]);
    assert.deepEqual(await h.view(() => window.view.state), { n: 4 });
  });

  test("reload during an in-flight save: the new document sees that save and gets no stale response", async (t) => {
    const h = await openHost(t, "?call=guard");
    await h.host(() => window.host.holdSaves());
    await h.view(() => {
      window.view.save({ gen: "old" }); // not awaited: the document goes away
    });
    await h.page.waitForFunction(() => window.host.storage.saves.length === 1);
    await h.reloadView({ wait: false });
    // The new document's ui/initialize waits for the held save.
    await h.page.waitForFunction(() => window.host.inbound.filter((m) => m.method === "ui/initialize").length === 2);
    await h.host(() => window.host.releaseSaves());
    await h.frame.waitForFunction(() => window.view?.ready === true && window.view.restored !== null);
    assert.deepEqual(await h.view(() => window.view.restored), { gen: "old" });

    // Its own save (same request id as the old document's) is answered only once stored.
    await h.host(() => window.host.holdSaves());
    await h.view(() => {
      window.pending = window.view.save({ gen: "new" }).then((r) => (window.pendingOutcome = r));
    });
    await h.page.waitForFunction(() => window.host.storage.saves.length === 2);
    assert.equal((await h.view(() => window.view.probe())).ok, true);
    assert.equal(await h.view(() => window.pendingOutcome), undefined, "no stale response from the old document's save");
    await h.host(() => window.host.releaseSaves());
    assert.deepEqual(await h.view(() => window.pending), { ok: true, value: true });
    assert.deepEqual(await h.host(() => window.host.stored()), { gen: "new" });
  });

  test("reload during another in-flight request: its late answer never reaches the new document", async (t) => {
    const h = await openHost(t, "?call=guard-calls");
    await h.host(() => window.host.holdCalls());
    await h.view(() => {
      window.view.callTool("slow"); // not awaited: the document goes away
    });
    await h.page.waitForFunction(() => window.host.calls === 1);
    await h.reloadView();
    await h.view(() => {
      window.answer = window.view.callTool("slow");
    });
    await h.page.waitForFunction(() => window.host.calls === 2);
    const ids = await h.host(() => window.host.inbound.filter((m) => m.method === "tools/call").map((m) => m.id));
    assert.equal(ids[0], ids[1], "both documents numbered their call the same (the hazard)");
    await h.host(() => window.host.releaseCalls()); // the old document's call is answered first
    assert.deepEqual(await h.view(() => window.answer), { ok: true, value: "pong slow #2" });
  });
});

// A stand-in of ChatGPT's documented window.openai, injected before the View's
// scripts as ChatGPT does (toolResponseMetadata is the tool result's _meta,
// which ChatGPT strips from ui/notifications/tool-result), with a keeper over
// a real ext-apps App, on a real window: its openai:set_globals events are
// CustomEvents dispatched on window, as ChatGPT fires them.
const openaiPage = (setup) => `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script>${setup}</script>
<script src="/www/lib/importmap.js"></script>
<script type="module">
  import { App } from "@modelcontextprotocol/ext-apps";
  import { keepFreshestToken } from "mcp-sealed-state/app";
  const app = new App({ name: "openai-keeper", version: "1" }, {}, { autoResize: false });
  const changes = [];
  const keeper = keepFreshestToken(app, { onchange: (token) => changes.push(token) });
  // As ChatGPT announces a change of its globals: a CustomEvent on window naming what changed.
  const fire = (globals) => window.dispatchEvent(new CustomEvent("openai:set_globals", { detail: { globals } }));
  window.view = { keeper, changes, fire, ready: true };
</script></head><body></body></html>`;

describe("keepFreshestToken on ChatGPT's window.openai (a stand-in of its documented API), in Chromium", () => {
  async function openPage(t, setup) {
    const page = await context.newPage();
    failOnPageProblems(t, page, () => page.close());
    const url = `${server.url}openai-keeper-${Math.random().toString(36).slice(2)}.html`;
    await page.route(url, (route) => route.fulfill({ contentType: "text/html; charset=utf-8", body: openaiPage(setup) }));
    await page.goto(url);
    await page.waitForFunction(() => window.view?.ready === true, null, { timeout: 10_000 });
    return page;
  }
  test("the render's token from toolResponseMetadata, a new one on openai:set_globals, and the same token again (theme, display mode) changes nothing", async (t) => {
    const [render, next, restored] = await Promise.all([mintView({ n: 0 }, {}), mintView({ n: 1 }, {}), mintView({ n: 2 }, {})]);
    const page = await openPage(
      t,
      `window.openai = { toolResponseMetadata: { ${JSON.stringify(STATE_META_KEY)}: ${JSON.stringify(render)}, viewUUID: "v-1" }, toolOutput: {}, theme: "light", widgetState: null, setWidgetState: async () => {} };`,
    );
    const kept = () => page.evaluate(() => [window.view.keeper.token, window.view.keeper.source]);
    assert.deepEqual(await kept(), [render, "toolResponseMetadata"], "read when the keeper starts");
    assert.deepEqual(await page.evaluate(() => window.view.changes), [render], "onchange ran for it");

    await page.evaluate(
      ([key, token]) => {
        window.openai.toolResponseMetadata = { [key]: token };
        window.view.fire({ toolResponseMetadata: window.openai.toolResponseMetadata });
      },
      [STATE_META_KEY, next],
    );
    assert.deepEqual(await kept(), [next, "toolResponseMetadata"], "openai:set_globals with a new result's _meta");

    assert.equal(await page.evaluate((tok) => window.view.keeper.offer(tok), restored), restored);
    await page.evaluate(() => {
      window.openai.theme = "dark";
      window.view.fire({ theme: "dark" });
      window.view.fire({ displayMode: "fullscreen", toolResponseMetadata: window.openai.toolResponseMetadata });
      window.dispatchEvent(new CustomEvent("openai:set_globals")); // no detail: window.openai is read again
    });
    assert.deepEqual(await kept(), [restored, "offer"], "the same token read again changes nothing");
    assert.deepEqual(await page.evaluate(() => window.view.changes), [render, next, restored]);
  });

  test("a window.openai whose getters throw, or whose toolResponseMetadata is not an object: nothing read, no error on the page", async (t) => {
    const token = await mintView({ n: 0 }, {});
    for (const setup of [
      `Object.defineProperty(window, "openai", { configurable: true, get() { throw new Error("openai getter"); } });`,
      `window.openai = { get toolResponseMetadata() { throw new Error("metadata getter"); } };`,
      `window.openai = { toolResponseMetadata: ${JSON.stringify(JSON.stringify({ [STATE_META_KEY]: token }))} };`,
      `window.openai = { toolResponseMetadata: [${JSON.stringify({ [STATE_META_KEY]: token })}] };`,
    ]) {
      const page = await openPage(t, setup);
      assert.equal(await page.evaluate(() => window.view.keeper.token), null, setup);
      await page.evaluate(() => window.dispatchEvent(new CustomEvent("openai:set_globals", { detail: { globals: { toolResponseMetadata: "not an object" } } })));
      assert.equal(await page.evaluate(() => window.view.keeper.token), null, setup);
      // The keeper still takes what the View's own call returns.
      assert.equal(await page.evaluate(([key, tok]) => window.view.keeper.adopt({ structuredContent: { [key]: tok } }), [STATE_META_KEY, token]), token, setup);
    }
  });
});

// The "local" store in Chromium's own localStorage, with its real quota and
// its real QuotaExceededError: a Host (ext-apps' AppBridge) and a View (App
// with connectWithViewState) in one page, linked in memory.
const localStorePage = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script src="/www/lib/importmap.js"></script>
<script type="module">
  import { InMemoryTransport } from "@modelcontextprotocol/client";
  import { App } from "@modelcontextprotocol/ext-apps";
  import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
  import { connectWithViewState } from "mcp-sealed-state/app";
  /** Render a View of the tool result naming viewUUID, save a state of chars characters; how long the save took. */
  async function renderAndSave(viewUUID, chars) {
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const bridge = new AppBridge(null, { name: "h", version: "1" }, {}, {});
    await bridge.connect(hostSide);
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    const viewState = await connectWithViewState(app, viewSide, { stores: ["local"] });
    await bridge.sendToolResult({ content: [], _meta: { viewUUID } });
    await viewState.ready;
    const started = performance.now();
    const saved = await viewState.save({ blob: "x".repeat(chars) });
    const ms = performance.now() - started;
    await app.close();
    await bridge.close();
    return { store: viewState.store, saved, ms };
  }
  window.view = { renderAndSave, ready: true };
</script></head><body></body></html>`;

test('"local" in Chromium: 250 Views of 60 KB each on one origin all save, the least recently used are reclaimed under the real quota', async (t) => {
  const page = await context.newPage();
  failOnPageProblems(t, page, () => page.close());
  const url = `${server.url}local-store.html`;
  await page.route(url, (route) => route.fulfill({ contentType: "text/html; charset=utf-8", body: localStorePage }));
  await page.goto(url);
  await page.waitForFunction(() => window.view?.ready === true, null, { timeout: 10_000 });
  await page.evaluate(() => localStorage.clear());
  const VIEWS = 250;
  const outcomes = await page.evaluate(async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await window.view.renderAndSave(`view-${i}`, 60_000));
    return out;
  }, VIEWS);
  const stored = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("mcp-sealed-state/view/")).length);
  assert.ok(
    outcomes.every((o) => o.store === "local" && o.saved === true),
    `every save took: ${outcomes.filter((o) => !o.saved).length} of ${VIEWS} refused`,
  );
  assert.ok(stored < VIEWS, `the quota held ${stored} of ${VIEWS} views: some were reclaimed`);
  const present = await page.evaluate(() => ["view-0", "view-249", "view-248"].map((u) => localStorage.getItem(`mcp-sealed-state/view/${u}`) !== null));
  assert.deepEqual(present, [false, true, true], "the oldest went, the newest stayed");
  const index = await page.evaluate(() => JSON.parse(localStorage.getItem("mcp-sealed-state/views")));
  assert.equal(index.length, stored, "the index lists exactly the views stored");
  const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  t.diagnostic(`Chromium localStorage held ${stored} views of 60,000 characters; save: median ${ms[VIEWS >> 1].toFixed(2)} ms, max ${ms.at(-1).toFixed(2)} ms`);
  await page.evaluate(() => localStorage.clear());
});

test("www/lib/importmap.js maps exactly the bare imports of the packed app and app-bridge entries, to files that exist", async () => {
  const sandbox = {};
  runInNewContext(readFileSync(join(REPO_ROOT, "www/lib/importmap.js"), "utf8"), sandbox);
  const { imports } = sandbox.MCP_SEALED_STATE_IMPORT_MAP;
  const esbuild = require("esbuild");
  const needed = new Map();
  for (const entry of ["app-bridge/index.js", "app/index.js"]) {
    const { metafile } = await esbuild.build({
      entryPoints: [join(PACKED, entry)],
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      metafile: true,
      logLevel: "silent",
      absWorkingDir: REPO_ROOT,
      nodePaths: [join(REPO_ROOT, "js/node_modules")],
      external: ["mcp-sealed-state/widget", "@modelcontextprotocol/ext-apps"],
    });
    for (const input of Object.values(metafile.inputs)) {
      for (const imp of input.imports) {
        if (imp.original && !imp.original.startsWith(".") && !imp.original.startsWith("/")) needed.set(imp.original, imp.external ? null : imp.path);
      }
    }
  }
  for (const [specifier, path] of needed) {
    assert.ok(imports[specifier], `import map lacks ${specifier}`);
    if (path) assert.equal(join(REPO_ROOT, path), join(REPO_ROOT, "js/node_modules", imports[specifier].slice("/node_modules/".length)), specifier);
  }
  for (const [specifier, url] of Object.entries(imports)) {
    const [prefix, dir] = Object.entries({ ...DEFAULT_MOUNTS, "/pkg/": PACKED }).find(([p]) => url.startsWith(p));
    const file = join(dir.startsWith("/") ? dir : join(REPO_ROOT, dir), url.slice(prefix.length));
    assert.ok(existsSync(file), `${specifier} -> ${url}: ${file} is missing`);
  }
});
