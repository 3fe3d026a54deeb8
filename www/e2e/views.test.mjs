// The tic-tac-toe View in six frameworks (www/views: React, Vue 3, Svelte 5,
// Solid, Preact, Angular 21, each a one-file Vite build with the framework's
// own plugin, mcp-sealed-state installed from the packed tarball) played in
// the demo Host (www/host.html, its sandbox proxy on a second origin) against
// the demo server in workerd serving that View. ONE case list drives every
// View: in Chromium (Playwright) all six, and the Angular View built on
// ext-apps 1.x; the Vue and Svelte Views also in Firefox ESR and WebKitGTK
// (plain WebDriver, js/lib/webdriver.mjs).
//
// Needs the packed package and the built Views:
//   npm --prefix js run build && node js/pack.mjs && node www/views/build.mjs
//   node --test www/e2e/views.test.mjs
//   VIEWS=vue,svelte ENGINES=firefox,webkit node --test www/e2e/views.test.mjs   (a subset)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { DEFAULT_MOUNTS, buildWorker, serve, startServer } from "../../js/lib/servers.mjs";
import { PACKED, failOnPageProblems, launchChromium } from "../../js/lib/chromium.mjs";
import { startSession } from "../../js/lib/webdriver.mjs";
import { serveSandbox } from "../lib/sandbox-server.mjs";
import { FRAMEWORKS, ON_EXT_APPS_1, viewHtml } from "../views/build.mjs";

const KEY = "views e2e key: at least thirty-two bytes long";
const STATE_META_KEY = "ng-mcp-ui/state";
// The server's deterministic answers (www/server/game.js): X at 0 -> O at 4; X at 2 -> O at 1.
const BOARD_1 = "X...O....";
const BOARD_2 = "XOX.O....";
// Generous: a loaded 2-core machine, a WebKit process starting under Xvfb.
const WAIT_MS = 60_000;
const VIEWS = process.env.VIEWS?.split(",").filter(Boolean) ?? Object.keys(FRAMEWORKS);
const ENGINES = (process.env.ENGINES ?? "chromium,firefox,webkit").split(",").filter(Boolean);
/** The Views that also run in Firefox ESR and WebKitGTK. */
const IN_EVERY_ENGINE = ["vue", "svelte"];

let web;
let sandbox;
let chromium;

before(async () => {
  if (!existsSync(PACKED)) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  for (const file of [...VIEWS.map((f) => viewHtml(f)), viewHtml(ON_EXT_APPS_1, 1)]) {
    if (!existsSync(file)) throw new Error(`${file} is not built: run \`node www/views/build.mjs\` first`);
  }
  web = await serve({ mounts: { ...DEFAULT_MOUNTS, "/pkg/": PACKED } });
  sandbox = await serveSandbox();
});

after(async () => {
  await chromium?.close();
  await web?.close();
  await sandbox?.close();
});

/** The demo server in workerd serving `file` as its View, for the tests of one describe block. */
function serverServing(file, instance) {
  const server = {};
  before(async () => Object.assign(server, await startServer({ key: KEY, instance, build: await buildWorker({ viewHtml: file }), onLog: () => {} })));
  after(() => server.dispose?.());
  return server;
}

// ---- one interface over both drivers ------------------------------------------------
// Scripts are function bodies (with `arguments`), run in the Host page, the
// View's sandbox proxy or the View; both drivers run them outside the pages'
// CSP. `until` polls a script until it returns a truthy value (never a sleep).

/** Playwright: the Host in a fresh context of Chromium. */
async function chromiumDriver(t) {
  const context = await chromium.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const problems = failOnPageProblems(t, page, () => context.close());
  const frameIn = async (frame, selector) => (await frame.locator(selector).first().elementHandle({ timeout: WAIT_MS })).contentFrame();
  const frame = async (where) => {
    if (where === "host") return page.mainFrame();
    const proxy = await frameIn(page.mainFrame(), ".call iframe");
    return where === "proxy" ? proxy : frameIn(proxy, "iframe");
  };
  const run = async (where, script, args) => (await frame(where)).evaluate(`(function () { ${script} }).apply(null, ${JSON.stringify(args)})`);
  return {
    name: "chromium",
    problems,
    open: (url) => page.goto(url),
    run: (where, script, ...args) => run(where, script, args),
    until: (where, script, args, what) => poll(() => run(where, script, args), what),
    click: async (where, selector) => (await frame(where)).click(selector, { timeout: WAIT_MS }),
  };
}

/** WebDriver: the Host in `session` (Firefox ESR or WebKitGTK), from empty storage. */
function webDriver(session) {
  const into = async (where) => {
    await session.switchToFrame(null);
    if (where === "host") return;
    await session.switchToFrame(await session.waitFor('return document.querySelector(".call iframe")', [], { timeoutMs: WAIT_MS, what: "the proxy frame" }));
    if (where === "view") await session.switchToFrame(await session.waitFor('return document.querySelector("iframe")', [], { timeoutMs: WAIT_MS, what: "the View frame" }));
  };
  const run = async (where, script, args) => {
    await into(where);
    return session.execute(script, ...args);
  };
  return {
    name: session.engine,
    problems: [],
    async open(url) {
      await session.switchToFrame(null);
      await session.navigate(url);
      await session.execute("localStorage.clear(); return true");
      await session.navigate(url);
    },
    run: (where, script, ...args) => run(where, script, args),
    until: (where, script, args, what) => poll(() => run(where, script, args), `${session.engine}: ${what}`),
    async click(where, selector) {
      // The View's frame scrolled to the top of the Host page first: a WebDriver click in a nested frame below the fold lands nowhere (Firefox, WebKit).
      if (where !== "host") await run("host", 'document.querySelector(".call iframe").scrollIntoView({ block: "start" }); return true', []);
      await into(where);
      await session.click(await session.waitFor(`return document.querySelector(arguments[0])`, [selector], { timeoutMs: WAIT_MS, what: selector }));
    },
  };
}

async function poll(read, what) {
  const deadline = performance.now() + WAIT_MS;
  let last;
  for (;;) {
    try {
      last = await read();
      if (last) return last;
    } catch (error) {
      last = error; // a frame that is being replaced
    }
    if (performance.now() > deadline) throw new Error(`not within ${WAIT_MS} ms: ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

// ---- the game, through either driver -------------------------------------------------

/** What the View shows: #game's data-* attributes (the same in all six), the board, the tab panel and the store line. */
const VIEW_STATE = `const game = document.getElementById("game");
if (!game) return null;
return {
  ...game.dataset,
  board: [...game.querySelectorAll(".cell")].map((c) => c.dataset.mark).join(""),
  store: game.dataset.store,
  storeText: document.getElementById("store").textContent,
  message: document.getElementById("game-message")?.textContent ?? null,
};`;

function play(d, server) {
  const g = {
    state: () => d.run("view", VIEW_STATE),
    async open(options) {
      const query = new URLSearchParams({ servers: server.mcpUrl.href, user: "e2e", sandbox: new URL(sandbox.url).origin, ...options });
      await d.open(`${web.url}www/host.html?${query}`);
      await d.until("host", 'return document.querySelector("#conn-status")?.dataset.status === "connected"', [], "the Host connected");
    },
    /** "New game" in the Host; resolves with the call once its View plays, with a decided store. */
    async newGame() {
      await d.click("host", "#new-game");
      await d.until("host", 'return document.querySelector(".call[data-ready=true]")', [], "the Host rendered the View");
      await g.playing();
      const [call] = await d.run("host", "return window.demoHost.calls()");
      return call;
    },
    playing: () =>
      d.until(
        "view",
        'const g = document.getElementById("game"); return g?.dataset.phase === "playing" && g.dataset.busy === "false" && g.dataset.store !== ""',
        [],
        "the View playing, its store decided",
      ),
    /** Click `cell`; resolves once the View shows `board` (the server's O included) from the token it keeps. */
    async move(cell, board) {
      await d.click("view", `.cell[data-cell="${cell}"]:not([disabled])`);
      await d.until(
        "view",
        'const g = document.getElementById("game"); return g.dataset.busy === "false" && [...g.querySelectorAll(".cell")].map((c) => c.dataset.mark).join("") === arguments[0]',
        [board],
        `the board ${board}`,
      );
    },
    async tab(name) {
      await d.click("view", `[role=tab][data-tab="${name}"]`);
      await d.until("view", 'return document.getElementById("game").dataset.tab === arguments[0]', [name], `tab ${name}`);
    },
    /** The Host's reload button: a new render of the same call. */
    async reloadView() {
      const renders = Number(await d.run("host", 'return document.querySelector(".call").dataset.renders ?? 0'));
      await d.click("host", ".call .call-reload");
      await d.until(
        "host",
        'return document.querySelector(".call").dataset.renders === arguments[0] && document.querySelector(".call").dataset.ready === "true"',
        [String(renders + 1)],
        "the View rendered again",
      );
      await g.playing();
    },
    /** Until the Host keeps `tab` and `token` for the call: in its view state ("host" store) or, `where: "widgetState"`, in window.openai's privateContent. */
    holds: (callId, { tab, token, where = "viewState" }, what) =>
      d.until(
        "host",
        `const kept = arguments[3] === "widgetState"
  ? window.demoHost.widgetState(arguments[0])?.privateContent
  : JSON.parse(localStorage.getItem("mcp-sealed-state-demo:view-state:" + arguments[0]) ?? "null");
return kept?.tab === arguments[1] && kept[arguments[4]] === arguments[2];`,
        [callId, tab, token, where, STATE_META_KEY],
        what,
      ),
  };
  return g;
}

/** The case list every View passes, in every engine it runs in. */
const CASES = {
  "the Host offers ui/set-view-state: the token from _meta adopted, a move, the tab saved in the Host; the View reloaded: tab, token and board restored, store host reported; it plays on": async (
    d,
    server,
  ) => {
    const g = play(d, server);
    await g.open({});
    const call = await g.newGame();
    let s = await g.state();
    assert.deepEqual(
      { store: s.store, hostModel: s.hostModel, source: s.source, token: s.token, board: s.board },
      { store: "host", hostModel: "mcp-apps", source: "_meta", token: call.result._meta[STATE_META_KEY], board: "........." },
    );
    assert.match(s.storeText, /store: host/, "the View reports its store");
    await g.move(0, BOARD_1);
    const token1 = (await g.state()).token;
    assert.notEqual(token1, s.token, "the move's token is kept");
    await g.tab("claims");
    await g.holds(call.id, { tab: "claims", token: token1 }, "the Host holds the tab and the token");

    await g.reloadView();
    s = await g.state();
    assert.deepEqual(
      { store: s.store, tab: s.tab, token: s.token, board: s.board, source: s.source },
      { store: "host", tab: "claims", token: token1, board: BOARD_1, source: "viewState" },
      "restored from the Host's view state, ahead of the replayed start",
    );
    assert.match(s.storeText, /store: host, restored from host/);
    await g.move(2, BOARD_2);
    assert.equal((await g.state()).message, null);
  },

  "an Apps SDK host (the ChatGPT stand-in: window.openai, _meta stripped, no bridge): the token from toolResponseMetadata, a move through window.openai.callTool, the tab in widgetState; the View reloaded: restored from openai":
    async (d, server) => {
      const g = play(d, server);
      await g.open({ surface: "apps-sdk", viewstate: "off", frame: "storage" });
      const call = await g.newGame();
      let s = await g.state();
      assert.equal(await d.run("view", "return typeof window.openai?.callTool"), "function");
      assert.deepEqual(
        { store: s.store, writeThrough: s.writeThrough, hostModel: s.hostModel, source: s.source, token: s.token },
        { store: "openai", writeThrough: "local", hostModel: "apps-sdk", source: "toolResponseMetadata", token: call.result._meta[STATE_META_KEY] },
      );
      await g.move(0, BOARD_1);
      const token1 = (await g.state()).token;
      assert.notEqual(token1, s.token);
      assert.equal((await g.state()).source, "toolResponseMetadata");
      await g.tab("raw");
      await g.holds(call.id, { tab: "raw", token: token1, where: "widgetState" }, "widgetState holds the tab and the token");

      await d.run("proxy", "localStorage.clear(); return true"); // so that only window.openai's widgetState can restore it
      await g.reloadView();
      s = await g.state();
      assert.deepEqual({ store: s.store, tab: s.tab, token: s.token, board: s.board }, { store: "openai", tab: "raw", token: token1, board: BOARD_1 });
      assert.match(s.storeText, /restored from openai/);
      await g.move(2, BOARD_2);
    },

  "unmount with a pending save: the Host tears the View down right after a tab click and removes its frame; the Host's store holds the tab": async (d, server) => {
    const g = play(d, server);
    await g.open({});
    const call = await g.newGame();
    await g.move(0, BOARD_1);
    const token1 = (await g.state()).token;
    // The click starts the debounced save; the teardown comes before it is due, and with the frame gone no timer can send it.
    // As the Host's close button: a View whose unmount closes its App (useApp, the Angular example's DestroyRef) cannot answer, hence the bound.
    await d.click("view", '[role=tab][data-tab="raw"]');
    await d.run(
      "host",
      `const view = window.demoHost.views.get(arguments[0]);
return Promise.race([view.bridge.teardownResource({}).catch(() => {}), new Promise((ok) => setTimeout(ok, 500))])
  .then(() => view.bridge.close())
  .then(() => { view.iframe.remove(); return true; });`,
      call.id,
    );
    await g.holds(call.id, { tab: "raw", token: token1 }, "the pending save sent at unmount");
    assert.equal(await d.run("host", 'return document.querySelectorAll(".call iframe").length'), 0, "the View's frame is gone");
    // ext-apps' autoResize outlives App.close(): the size change of the unmount is then sent on a closed App, an unhandled
    // "Not connected" in the Views whose unmount closes their App. Only that one is let pass here.
    for (let i = d.problems.length - 1; i >= 0; i--) if (d.problems[i] === "pageerror: Not connected") d.problems.splice(i, 1);
  },
};

function caseList(driver, server) {
  for (const [name, run] of Object.entries(CASES)) {
    test(name, async (t) => {
      const d = await driver(t);
      await run(d, server);
      assert.deepEqual([...d.problems], []);
    });
  }
}

describe("Chromium", { skip: !ENGINES.includes("chromium") }, () => {
  before(async () => {
    chromium = await launchChromium();
  });
  for (const framework of VIEWS) {
    describe(`${framework} (ext-apps 2.x)`, () => caseList(chromiumDriver, serverServing(viewHtml(framework), framework)));
  }
  describe(`${ON_EXT_APPS_1} built on ext-apps 1.x`, () => caseList(chromiumDriver, serverServing(viewHtml(ON_EXT_APPS_1, 1), `${ON_EXT_APPS_1}-1`)));
});

for (const engine of ENGINES.filter((e) => e !== "chromium")) {
  describe(engine, () => {
    let session;
    before(async () => {
      session = await startSession(engine); // fails when the engine is not installed: CI installs them
    });
    after(() => session?.close());
    for (const framework of IN_EVERY_ENGINE.filter((f) => VIEWS.includes(f))) {
      describe(framework, () => caseList(async () => webDriver(session), serverServing(viewHtml(framework), `${framework}-${engine}`)));
    }
  });
}
