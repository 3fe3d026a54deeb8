// The demo View's `/app` entry (connectWithViewState, keepFreshestToken, each
// of VIEW_STATE_STORES) end to end in Firefox ESR and
// WebKit (WebKitGTK, Safari's engine), whose rules for a cross-site frame's
// storage differ from Chromium's. The same demo as demo.test.mjs and
// hosts.test.mjs (which run in Chromium through Playwright): the workerd
// server, the Host page (www/host.html) and its sandbox proxy on a second
// origin, the View in the proxy's srcdoc iframe; driven over plain WebDriver
// (js/lib/webdriver.mjs: geckodriver, WebKitWebDriver under Xvfb).
//
// The Host page is opened on `localhost` and the sandbox proxy served on
// `127.0.0.1`, so the View's frame is cross-site, as on real hosts (ChatGPT's
// Views run on web-sandbox.oaiusercontent.com); the same-site case (both on
// 127.0.0.1, another port) is measured beside it for the "local" store.
//
// Each engine's session is started once; every case starts from empty Host
// storage. Page errors: a listener is put into the Host page, the proxy and
// the View once each has loaded (WebDriver has no script that runs before a
// page's own), and the pages' own error displays are checked; an error before
// that shows as a View that never reaches its state.
//
// Needs the packed package and the one-file View (as demo.test.mjs), and the
// engines (scripts/setup.sh). A missing engine fails, as in js/engines.
//   node --test www/e2e/engines.test.mjs
//   ENGINES=webkit node --test www/e2e/engines.test.mjs   (a subset)
//   ENGINES=chromium node --test www/e2e/engines.test.mjs (the same cases over chromedriver, for comparison)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_MOUNTS, VIEW_HTML, buildWorker, serve, startServer } from "../../js/lib/servers.mjs";
import { PACKED } from "../../js/lib/chromium.mjs";
import { startSession } from "../../js/lib/webdriver.mjs";
import { serveSandbox } from "../lib/sandbox-server.mjs";

const KEY = "engines e2e key: at least thirty-two bytes long";
// The server's deterministic answer (www/server/game.js): X at 0 -> O at 4.
const BOARD_1 = "X...O....";
// In the View's frame: whether localStorage takes a write, or the error it throws.
const STORAGE_PROBE = `try {
  localStorage.setItem("e2e-probe", "1");
  localStorage.removeItem("e2e-probe");
  return "works";
} catch (e) {
  return e.name + ": " + e.message;
}`;
// Where mcp-sealed-state/app's "local" store keeps a View's state: this prefix and the tool result's viewUUID.
const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
const ENGINE_NAMES = { chromium: "Chromium", firefox: "Firefox", webkit: "WebKit" };
const ENGINE_LIST = (process.env.ENGINES ?? "firefox,webkit").split(",").filter(Boolean);
// Generous: a loaded 2-core CI machine, a WebKit process starting under Xvfb.
const WAIT_MS = 60_000;

let web;
let sandbox;
let server;

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  server = await startServer({ key: KEY, instance: "engines", build: await buildWorker(), onLog: () => {} });
  web = await serve({ mounts: { ...DEFAULT_MOUNTS, "/pkg/": PACKED } });
  sandbox = await serveSandbox();
});

after(async () => {
  await web?.close();
  await sandbox?.close();
  await server?.dispose();
});

// Put into a document once it has loaded: its later errors and unhandled rejections, in window.e2eErrors.
const LISTEN_FOR_ERRORS = `
if (!window.e2eErrors) {
  window.e2eErrors = [];
  addEventListener("error", (e) => window.e2eErrors.push("error: " + e.message));
  addEventListener("unhandledrejection", (e) => window.e2eErrors.push("unhandled rejection: " + (e.reason?.stack ?? e.reason)));
}
return true;`;

/**
 * The demo Host in `session`, from empty storage, with these query options;
 * `site: "cross"` opens it on localhost (the proxy stays on 127.0.0.1).
 * Returns helpers that switch into the Host page, the proxy or the View.
 */
async function openHost(session, options, { site = "cross" } = {}) {
  const origin = site === "cross" ? web.url.replace("//127.0.0.1:", "//localhost:") : web.url;
  assert.notEqual(new URL(origin).origin, new URL(sandbox.url).origin);
  // Empty storage for the Host: no stored calls re-rendered from an earlier case.
  await session.switchToFrame(null);
  await session.navigate(`${origin}www/host.html`);
  await session.execute("localStorage.clear(); return true");
  const query = new URLSearchParams({ servers: server.mcpUrl.href, user: "e2e", sandbox: new URL(sandbox.url).origin, ...options });
  await session.navigate(`${origin}www/host.html?${query}`);

  const host = {
    /** Into the Host page (the top). */
    async top() {
      await session.switchToFrame(null);
    },
    /** Into the newest call's sandbox proxy frame, once it has loaded. */
    async proxy() {
      await session.switchToFrame(null);
      const frame = await session.waitFor('return document.querySelector(".call[data-call-id] iframe")', [], { timeoutMs: WAIT_MS, what: "the View's proxy frame" });
      await session.switchToFrame(frame);
      await session.waitFor("return document.readyState === 'complete' && location.pathname === '/sandbox.html'", [], { timeoutMs: WAIT_MS, what: "the proxy page" });
    },
    /** Into the newest call's View (the proxy's srcdoc iframe), once it shows its store. */
    async view() {
      await host.proxy();
      const frame = await session.waitFor('return document.querySelector("iframe")', [], { timeoutMs: WAIT_MS, what: "the View's frame in the proxy" });
      await session.switchToFrame(frame);
      await until("return document.body?.dataset.store", "the View's store");
    },
    /** What the View shows: read in its frame (the current one). */
    state: () =>
      session.execute(`const b = document.body.dataset;
return {
  phase: b.phase, busy: b.busy, backend: b.backend, store: b.store, writeThrough: b.writeThrough, source: b.source, tab: b.tab,
  board: [...document.querySelectorAll(".cell")].map((c) => c.dataset.mark).join(""),
  token: document.getElementById("token").dataset.token,
  vsStatus: document.getElementById("vs-status").textContent,
  expired: !document.getElementById("expired-banner").hidden,
  message: document.getElementById("game-message").hidden ? null : document.getElementById("game-message").textContent,
};`),
    /** Listen for errors in the Host page, the proxy and the View (once they have loaded); ends in the View. */
    async listen() {
      for (const into of [host.top, host.proxy, host.view]) {
        await into();
        await session.execute(LISTEN_FOR_ERRORS);
      }
    },
    /** No error in any of the three documents since `listen`, and none shown by the Host or the View. */
    async assertNoErrors() {
      const seen = {};
      for (const [name, into] of Object.entries({ host: host.top, proxy: host.proxy, view: host.view })) {
        await into();
        seen[name] = await session.execute("return window.e2eErrors ?? ['no listener']");
      }
      await host.top();
      seen.hostShown = await session.execute('const e = document.getElementById("conn-error"); return e.hidden ? [] : [e.textContent]');
      assert.deepEqual(seen, { host: [], proxy: [], view: [], hostShown: [] });
      await host.view();
      const s = await host.state();
      assert.equal(s.expired, false, "no expired banner");
      assert.equal(s.message, null, "no game message");
    },
    /** "New game" in the Host; ends in the new View, once it is playing, with error listeners in all three documents. */
    async newGame() {
      await host.top();
      await until('return document.querySelector("#conn-status")?.dataset.status === "connected"', "the Host connected to the server");
      await session.execute(LISTEN_FOR_ERRORS); // in the Host page before the View comes
      await session.click(await session.findElement("#new-game"));
      await until('return document.querySelector(".call[data-ready=true]")', "the Host rendered the View");
      await host.view();
      await until('return document.body.dataset.phase === "playing" && document.body.dataset.busy === "false"', "the View playing");
      await host.listen();
    },
    /** Click cell `cell` in the View (the current frame) and wait for `board`, the server's answer included. */
    async move(cell, board) {
      const button = await session.waitFor(`return document.querySelector('.cell[data-cell="${cell}"]:not(:disabled)')`, [], { timeoutMs: WAIT_MS, what: `cell ${cell} enabled` });
      await session.click(button);
      await until(`return document.body.dataset.busy === "false" && [...document.querySelectorAll(".cell")].map((c) => c.dataset.mark).join("") === arguments[0]`, `the board ${board}`, board);
    },
    /** Select a details tab in the View (its UI state). */
    async tab(name) {
      await session.click(await session.findElement(`[role=tab][data-tab="${name}"]`));
      await until("return document.body.dataset.tab === arguments[0]", `tab ${name}`, name);
    },
    /** Reload the Host page; ends in the re-rendered View, once it is playing, with error listeners in all three documents. */
    async reload() {
      await host.top();
      await session.refresh();
      await until('return document.documentElement.dataset.ready === "true" && document.querySelector(".call[data-ready=true]")', "the Host re-rendered the stored call");
      await host.view();
      await until('return document.body.dataset.phase === "playing"', "the View playing after the reload");
      await host.listen();
    },
  };
  const until = (script, what, ...args) => session.waitFor(script, args, { timeoutMs: WAIT_MS, what });
  host.until = until;
  return host;
}

for (const engine of ENGINE_LIST) {
  describe(engine, () => {
    let session;
    before(async () => {
      session = await startSession(engine); // fails when the engine is not installed
    });
    after(() => session?.close());

    test("wasm policy, the Host offers ui/set-view-state: backend wasm, store host, a move through the server; the page reloaded: board, token and tab restored", async (t) => {
      const h = await openHost(session, { policy: "wasm" });
      await h.newGame();
      await h.until('return document.body.dataset.backend === "wasm"', "backend wasm");
      let s = await h.state();
      t.diagnostic(`${session.capabilities.browserName} ${session.capabilities.browserVersion}: store ${s.store}, backend ${s.backend}, source ${s.source}`);
      assert.equal(s.store, "host");
      assert.equal(s.source, "_meta");
      await h.move(0, BOARD_1);
      await h.tab("claims");
      const token = (await h.state()).token;
      assert.match(token, /^v1\.[\w-]+\.[\w-]{43}$/);
      // Saved in the Host's storage (ui/set-view-state) before the reload.
      await h.top();
      await h.until(
        `const k = Object.keys(localStorage).find((n) => n.includes(":view-state:"));
const v = k && JSON.parse(localStorage.getItem(k));
return v?.token === arguments[0] && v.tab === "claims";`,
        "the Host stored the View's state",
        token,
      );
      await h.assertNoErrors();

      await h.reload();
      s = await h.state();
      assert.equal(s.board, BOARD_1, "the board came back");
      assert.equal(s.token, token, "the token of the move came back, not the replayed start's");
      assert.equal(s.tab, "claims", "the selected tab came back");
      assert.match(s.vsStatus, /restored/);
      assert.equal(s.store, "host");
      await h.assertNoErrors();
    });

    test("spec policy (no 'wasm-unsafe-eval'): backend js, a move plays, no error", async (t) => {
      const h = await openHost(session, { policy: "spec" });
      await h.newGame();
      await h.until("return document.body.dataset.backend", "the backend settled");
      const s = await h.state();
      t.diagnostic(`store ${s.store}, backend ${s.backend}, source ${s.source}`);
      assert.equal(s.backend, "js");
      assert.equal(s.store, "host");
      await h.move(0, BOARD_1);
      await h.assertNoErrors();
    });

    test("no ui/set-view-state (viewstate=off), an opaque View frame (the proxy's default sandbox): localStorage throws SecurityError, store memory, a move plays, no error", async (t) => {
      const h = await openHost(session, { viewstate: "off" });
      await h.newGame();
      const probe = await session.execute(STORAGE_PROBE);
      const s = await h.state();
      t.diagnostic(`store ${s.store}, backend ${s.backend}, source ${s.source}; localStorage in the View: ${probe}`);
      assert.equal(await session.execute("return window.origin"), "null", "an opaque origin");
      assert.match(probe, /^SecurityError: /);
      assert.equal(s.store, "memory");
      assert.equal(s.backend, "wasm");
      assert.equal(s.source, "_meta");
      await h.move(0, BOARD_1);
      assert.match((await h.state()).vsStatus, /kept in this View only/);
      await h.assertNoErrors();
    });

    test(`no ui/set-view-state (viewstate=off), frame=storage, the View's frame cross-site: ${ENGINE_NAMES[engine]} gives it storage partitioned by the top-level site: store local, restored after a reload; no error`, async (t) => {
      const h = await openHost(session, { viewstate: "off", frame: "storage" }, { site: "cross" });
      await h.newGame();
      const probe = await session.execute(STORAGE_PROBE);
      let s = await h.state();
      t.diagnostic(`store ${s.store}, backend ${s.backend}, source ${s.source}; localStorage in the View: ${probe}`);
      assert.equal(await session.execute("return window.origin"), new URL(sandbox.url).origin, "the proxy's origin");
      assert.equal(probe, "works");
      assert.equal(s.store, "local");
      assert.equal(s.source, "_meta");
      await session.execute('localStorage.setItem("e2e-partition", "written under a localhost top"); return true');
      await h.move(0, BOARD_1);
      await h.tab("raw");
      const token = (await h.state()).token;
      // Saved under the result's viewUUID in the View's (the proxy origin's) storage.
      await h.top();
      const key = LOCAL_KEY_PREFIX + (await session.execute("return window.demoHost.calls()[0].result._meta.viewUUID"));
      await h.view();
      await h.until(
        `const v = JSON.parse(localStorage.getItem(arguments[0]) ?? "null");
return v?.token === arguments[1] && v.tab === "raw";`,
        "the View's local store holds its state",
        key,
        token,
      );
      await h.assertNoErrors();

      await h.reload();
      s = await h.state();
      assert.deepEqual({ store: s.store, board: s.board, token: s.token, tab: s.tab }, { store: "local", board: BOARD_1, token, tab: "raw" }, "restored from local");
      assert.match(s.vsStatus, /restored/);
      await h.assertNoErrors();

      // The same proxy origin under a same-site top (127.0.0.1): local too, and the key written under
      // the localhost top is not there: the storage is partitioned by the top-level site.
      const same = await openHost(session, { viewstate: "off", frame: "storage" }, { site: "same" });
      await same.newGame();
      const seen = await session.execute('return localStorage.getItem("e2e-partition")');
      t.diagnostic(`same-site top: store ${(await same.state()).store}; the key written under the cross-site top: ${JSON.stringify(seen)}`);
      assert.equal((await same.state()).store, "local");
      assert.equal(seen, null, "partitioned by the top-level site");
      await same.assertNoErrors();
    });

    test("ChatGPT's surface (a stand-in of its documented window.openai: surface=chatgpt&meta=drop): token from toolResponseMetadata, store openai written through to local, a move plays, no error", async (t) => {
      const h = await openHost(session, { viewstate: "off", frame: "storage", surface: "chatgpt", meta: "drop" });
      await h.newGame();
      let s = await h.state();
      t.diagnostic(`store ${s.store}, writeThrough ${s.writeThrough}, backend ${s.backend}, source ${s.source}`);
      assert.equal(s.source, "toolResponseMetadata");
      assert.equal(s.store, "openai");
      assert.equal(s.writeThrough, "local");
      assert.equal(s.backend, "wasm");
      const first = s.token;
      await h.move(0, BOARD_1);
      s = await h.state();
      assert.notEqual(s.token, first);
      assert.equal(s.source, "toolResponseMetadata", "the move's token came by openai:set_globals");
      // The View's state went to the page's widget state (setWidgetState), in privateContent.
      await h.top();
      await h.until(
        `const id = window.demoHost.calls()[0].id;
return window.demoHost.widgetState(id)?.privateContent?.token === arguments[0];`,
        "setWidgetState got the View's state",
        s.token,
      );
      await h.assertNoErrors();

      // The page reloaded: the Host injects the saved widget state; the View restores from it first.
      const token = s.token;
      await h.reload();
      s = await h.state();
      const restoredFrom = await session.execute("return window.gameView.ui.viewState.restoredFrom");
      t.diagnostic(`after a reload: store ${s.store}, restored from ${restoredFrom}, source ${s.source}`);
      assert.deepEqual({ store: s.store, restoredFrom, board: s.board, token: s.token, source: s.source }, { store: "openai", restoredFrom: "openai", board: BOARD_1, token, source: "viewState" });
      await h.assertNoErrors();
    });
  });
}
