// The whole demo in Chromium, served the way MCP Apps hosts serve a View: the
// stateless tic-tac-toe MCP server in real workerd (Miniflare) registers the
// game View as a `ui://` resource (ONE HTML file, built by Vite +
// vite-plugin-singlefile from www/game); the Host page (www/host.html: MCP
// client over Streamable HTTP, mcp-sealed-state/app-bridge, ui/set-view-state
// in localStorage) reads it with resources/read and renders it through the
// sandbox proxy on a second origin (www/lib/sandbox-server.mjs), in an inner
// srcdoc iframe, under a CSP built from the resource's `_meta.ui.csp`: with
// 'wasm-unsafe-eval' ("wasm" policy) and as the spec's default, which refuses
// WebAssembly ("spec" policy). And the token inspector.
//
// /pkg/ is mounted on the PACKED package (js/out/consumer), and the worker and
// the View are bundled against it too. Run `npm --prefix js run build && node
// js/pack.mjs && node www/game/build.mjs` first.
// Screenshots go to www/artifacts/ (git-ignored).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_MOUNTS, REPO_ROOT, VIEW_HTML, buildWorker, serve, startRustServer, startServer } from "../../js/lib/servers.mjs";
import { PACKED, failOnPageProblems, launchChromium } from "../../js/lib/chromium.mjs";
import { serveSandbox } from "../lib/sandbox-server.mjs";
import { SPEC_DEFAULT_CSP, buildViewCsp } from "../lib/view-csp.js";
import { HTTP_NAMES } from "../../js/lib/http-names.mjs";
import { connectClient } from "../../js/lib/mcp-client.mjs";
import { VIEW_DECLARATION } from "../server/view-meta.js";
// What the servers must declare (www/server/view-meta.js; both serve it).
const VIEW_URI = "ui://tic-tac-toe/game.html";
const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
const VIEW_CSP = { connectDomains: [], resourceDomains: [] };

const require = createRequire(join(REPO_ROOT, "js/package.json"));
const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const KEY = "demo e2e key: at least thirty-two bytes long";
const USER = "e2e-user";
// Three moves that leave the game running, and the board they give
// (the server's replies are deterministic: www/server/game.js).
const MOVES = [0, 2, 7];
const BOARD_AFTER = "XOX.O.OX.";
// Under the spec's policy the widget's attempt to compile its wasm is refused
// (and reported) once per View document; it then runs on its JS backend. That
// refusal is the only console error such a page may have.
const WASM_REFUSED = /WebAssembly.*(violates|Content Security Policy)|Content Security Policy.*WebAssembly|wasm-unsafe-eval/i;
const POLICIES = ["wasm", "spec"];
const BACKEND = { wasm: "wasm", spec: "js" };
// Where mcp-sealed-state/app's "local" store keeps a View's state: this prefix and the tool result's viewUUID.
const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";

let web;
let sandbox;
let browser;
const servers = {}; // a, b: same key; ttl: same key, 2 s tokens; rust: the rmcp server, same key

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) {
    throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  }
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first");
  mkdirSync(ARTIFACTS, { recursive: true });
  const launching = launchChromium();
  const build = await buildWorker();
  const quiet = () => {}; // refused tokens are logged as warnings by design
  const started = await Promise.allSettled([
    startServer({ key: KEY, instance: "a", build, onLog: quiet }),
    startServer({ key: KEY, instance: "b", build, onLog: quiet }),
    startServer({ key: KEY, instance: "ttl", ttlSeconds: 2, build, onLog: quiet }),
    // The same one-file View, URI and _meta as workerd: the Host reads the View from either.
    startRustServer({ key: KEY, instance: "rust", onLog: quiet, viewHtml: VIEW_HTML, ...VIEW_DECLARATION }),
  ]);
  for (const s of started) if (s.status === "fulfilled") servers[s.value.instance] = s.value;
  const launched = await Promise.allSettled([launching]);
  if (launched[0].status === "fulfilled") browser = launched[0].value;
  const failed = [...started, ...launched].find((s) => s.status === "rejected");
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

/** The tools/call requests the page sent, by tool name and port (seen by the browser); `calls.rpc`: every JSON-RPC method sent; `calls.urls`: every URL requested. */
function watchToolCalls(page) {
  const calls = [];
  calls.rpc = [];
  calls.urls = [];
  calls.ports = []; // the port of every POST to an MCP endpoint, in order
  page.on("request", (req) => {
    calls.urls.push(req.url());
    if (req.method() !== "POST") return;
    let body;
    try {
      body = JSON.parse(req.postData() ?? "null");
    } catch {
      return;
    }
    if (typeof body?.method === "string") calls.rpc.push(body.method);
    if (new URL(req.url()).pathname === HTTP_NAMES.mcpPath) calls.ports.push(Number(new URL(req.url()).port));
    if (body?.method === "tools/call") calls.push({ name: body.params?.name, port: Number(new URL(req.url()).port) });
  });
  return calls;
}

/**
 * A fresh context (own localStorage) with the Host page on `endpoints` (or at
 * a given Host page URL), its Views under `policy`. `viewState: "off"`: the
 * Host offers no ui/set-view-state; `frame: "storage"`: the View's frame has
 * the sandbox origin's storage (allow-same-origin). Fails the test on page
 * errors, console errors (in any frame; under the "spec" policy, bar the
 * refusal of WebAssembly) and failed or refused requests.
 */
async function openHost(t, endpoints, { policy = "wasm", viewState = "host", frame = "opaque" } = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  // In every document, the View's srcdoc one included: each CSP violation, from the start.
  await ctx.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
  });
  const page = await ctx.newPage();
  const problems = failOnPageProblems(t, page, () => ctx.close(), { expected: policy === "spec" ? [WASM_REFUSED] : [] });
  const toolCalls = watchToolCalls(page);
  const proxies = []; // responses for the sandbox proxy page
  page.on("response", (r) => new URL(r.url()).pathname === "/sandbox.html" && proxies.push(r));
  const list = () => endpoints.map((s) => s.mcpUrl.href).join(",");
  const sandboxOrigin = new URL(sandbox.url).origin;
  const options = `${viewState === "off" ? "&viewstate=off" : ""}${frame === "storage" ? "&frame=storage" : ""}`;
  await page.goto(typeof endpoints === "string" ? endpoints : `${web.url}www/host.html?servers=${list()}&user=${USER}&sandbox=${sandboxOrigin}&policy=${policy}${options}`);
  await page.waitForSelector("html[data-ready=true]");
  await page.waitForSelector("#conn-status[data-status=connected]");
  // The sandbox proxy (outer iframe, second origin), and the View inside it (srcdoc).
  const view = page.frameLocator(".call iframe").first().frameLocator("iframe");
  const callIds = () => page.evaluate(() => window.demoHost.calls().map((c) => c.id)); // newest first
  const proxyOf = async (callId) => (await page.locator(`.call[data-call-id="${callId ?? (await callIds())[0]}"] iframe`).elementHandle()).contentFrame();
  /** The sandbox origin's localStorage key of a call's View (the "local" store): the prefix and its result's viewUUID. */
  const localKey = async (callId) => {
    const calls = await page.evaluate(() => window.demoHost.calls());
    const call = callId ? calls.find((c) => c.id === callId) : calls[0];
    assert.equal(typeof call?.result?._meta?.viewUUID, "string", "the server put a viewUUID into the result");
    return LOCAL_KEY_PREFIX + call.result._meta.viewUUID;
  };
  return {
    page,
    view,
    toolCalls,
    problems,
    proxies,
    policy,
    starts: () => toolCalls.filter((c) => c.name === "start").length,
    async newGame() {
      // The previous View may be playing already: wait for the new call's View, not for any.
      const before = (await callIds()).length;
      await page.click("#new-game");
      await page.waitForFunction((n) => window.demoHost.calls().length > n, before);
      const [id] = await callIds();
      await page.waitForSelector(`.call[data-call-id="${id}"][data-ready=true]`);
      await view.locator("body[data-phase=playing][data-busy=false]").waitFor();
    },
    callIds,
    proxyOf,
    localKey,
    /** The View of a call (the newest by default). */
    viewOf: (callId) => (callId ? page.frameLocator(`.call[data-call-id="${callId}"] iframe`).frameLocator("iframe") : view),
    token: () => view.locator("#token").getAttribute("data-token"),
    tab: () => view.locator("body").getAttribute("data-tab"),
    store: () => view.locator("body").getAttribute("data-store"),
    /** The state a call's View saved in the sandbox origin's localStorage (the "local" store), or null. */
    async localState(callId) {
      const [proxy, key] = await Promise.all([proxyOf(callId), localKey(callId)]);
      return proxy.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? "null"), key);
    },
    board: () => view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark).join("")),
    /** Click a cell and wait for the View to settle and its view state to hold the token it shows. */
    async move(cell) {
      const before = await this.token();
      await view.locator(`.cell[data-cell="${cell}"]:not(:disabled)`).click();
      await view.locator("body[data-busy=false]").waitFor();
      const after = await this.token();
      if (after !== before) await this.waitSaved({ token: after });
    },
    /**
     * Wait until the View's store for the newest call holds these fields:
     * the Host's storage (store "host"), or the sandbox origin's localStorage (store "local", viewState "off").
     */
    async waitSaved(fields) {
      const holds = ([key, want]) => {
        const k = key ?? Object.keys(localStorage).find((name) => name.includes(":view-state:"));
        const state = k === undefined ? null : JSON.parse(localStorage.getItem(k) ?? "null");
        return state !== null && Object.entries(want).every(([name, value]) => state[name] === value);
      };
      if (viewState === "off") await (await proxyOf()).waitForFunction(holds, [await localKey(), fields]);
      else await page.waitForFunction(holds, [null, fields]);
    },
  };
}

const expiredBanner = (view) => view.locator("#expired-banner");

/** A screenshot of the viewport once the page and the View's iframe have painted. */
async function screenshot(page, name, { fullPage = false } = {}) {
  const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const frame of page.frames()) await frame.evaluate(twoFrames).catch(() => {});
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage });
}

/**
 * The View came the way MCP Apps hosts serve it: read with resources/read
 * (never from this Host's files), rendered by the sandbox proxy on the second
 * origin under the policy's CSP (as a header), in an inner srcdoc iframe; the
 * widget's backend is the one the policy allows, in the View and at the Host;
 * under the spec's policy, the only console error was the refusal of wasm.
 */
async function assertServedAsHostsServeIt(h) {
  const backend = BACKEND[h.policy];
  await h.view.locator(`body[data-backend=${backend}]`).waitFor();
  await h.page.waitForSelector(`.call[data-backend=${backend}]`);
  assert.match(await h.view.locator("#backend").textContent(), new RegExp(`^${backend} `));
  assert.ok(h.toolCalls.rpc.includes("resources/read"), `the Host read the View: ${h.toolCalls.rpc.join()}`);
  assert.deepEqual(
    h.toolCalls.urls.filter((u) => u.includes("/www/game/")),
    [],
    "the Host never serves the View from its files",
  );
  const proxy = h.page.frames().find((f) => f.parentFrame() === h.page.mainFrame() && f.url().includes("/sandbox.html"));
  assert.ok(
    proxy,
    `the sandbox proxy frame: ${h.page
      .frames()
      .map((f) => f.url())
      .join(", ")}`,
  );
  assert.equal(new URL(proxy.url()).origin, new URL(sandbox.url).origin, "the proxy runs on the sandbox origin");
  assert.notEqual(new URL(proxy.url()).origin, new URL(h.page.url()).origin, "a second origin, not the Host's");
  assert.deepEqual(
    proxy.childFrames().map((f) => f.url()),
    ["about:srcdoc"],
    "the View is an inner srcdoc iframe",
  );
  assert.deepEqual(await proxy.evaluate(() => window.cspViolations), [], "the proxy page itself breaks no rule of the View's CSP");
  const expectedCsp = buildViewCsp(VIEW_CSP, h.policy);
  if (h.policy === "spec") assert.equal(expectedCsp, SPEC_DEFAULT_CSP);
  assert.ok(h.proxies.length > 0);
  for (const r of h.proxies) assert.equal(r.headers()["content-security-policy"], expectedCsp);
  const violations = await h.view.locator("body").evaluate(() => window.cspViolations);
  if (h.policy === "spec") {
    assert.ok(h.problems.expected.length <= h.proxies.length, `one refusal of WebAssembly per View document at most: ${h.problems.expected.join("\n")}`);
    // The widget's one refused compile of its wasm, caught; nothing else (ext-apps' zod probe is off: www/game/zod-jitless.js).
    assert.ok(violations.length <= 1, JSON.stringify(violations));
    for (const v of violations) assert.deepEqual(v, { directive: "script-src", blocked: "wasm-eval" }, "only the refused compile");
  } else {
    assert.deepEqual(h.problems.expected, []);
    assert.deepEqual(violations, [], "no CSP violation under the wasm policy");
  }
  assert.deepEqual([...h.problems], [], "no other page error, console error or failed request");
}

describe("the demo: workerd server, Host page, game View, inspector", () => {
  test("the server declares the View for both host models: tool _meta, a ui:// resource of one HTML file for MCP Apps and the same as the Apps SDK's skybridge template, their CSP", async () => {
    const { client } = await connectClient(servers.a.mcpUrl, { name: "e2e" });
    // The Apps SDK's template (ChatGPT, MCPJam): its own URI and MIME type, the same HTML and _meta.
    const TEMPLATE_URI = "ui://tic-tac-toe/game.skybridge.html";
    const TEMPLATE_MIME_TYPE = "text/html+skybridge";
    try {
      const { tools } = await client.listTools();
      for (const name of ["start", "move"]) {
        const meta = tools.find((tool) => tool.name === name)?._meta;
        assert.equal(meta?.ui?.resourceUri, VIEW_URI, name);
        assert.equal(meta["openai/outputTemplate"], TEMPLATE_URI, name);
      }
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => [r.uri, r.mimeType]),
        [
          [VIEW_URI, VIEW_MIME_TYPE],
          [TEMPLATE_URI, TEMPLATE_MIME_TYPE],
        ],
      );
      const template = await client.readResource({ uri: TEMPLATE_URI });
      const { contents } = await client.readResource({ uri: VIEW_URI });
      assert.equal(contents.length, 1);
      const [view] = contents;
      assert.equal(view.mimeType, VIEW_MIME_TYPE);
      assert.deepEqual(template.contents, [{ ...view, uri: TEMPLATE_URI, mimeType: TEMPLATE_MIME_TYPE }], "the template: the same HTML and _meta");
      assert.deepEqual(view._meta.ui.csp, VIEW_CSP, "no network for the View");
      assert.deepEqual(view._meta["openai/widgetCSP"], { connect_domains: [], resource_domains: [] });
      assert.equal(view.text, readFileSync(VIEW_HTML, "utf8"), "the one-file build, as built");
      // One file: every script and style inlined, nothing to fetch.
      assert.doesNotMatch(view.text, /<script[^>]+src=/);
      assert.doesNotMatch(view.text, /<link[^>]+rel="?stylesheet/);
      assert.doesNotMatch(view.text, /\.wasm["'`]/, "no sibling .wasm file named");
      assert.match(view.text, /<script type="module"/);
    } finally {
      await client.close();
    }
  });

  for (const policy of POLICIES) {
    test(`${policy} policy: the ui:// View through the sandbox proxy, backend "${BACKEND[policy]}"; three moves, a reload of the whole page and of the View: same board and token, no new start; the inspect link verifies it`, async (t) => {
      const h = await openHost(t, [servers.a], { policy });
      await h.newGame();
      await assertServedAsHostsServeIt(h);
      assert.equal(h.starts(), 1);
      for (const cell of MOVES) await h.move(cell);
      assert.equal(await h.board(), BOARD_AFTER);
      const token = await h.token();
      assert.match(token, /^v1\.[\w-]+\.[\w-]{43}$/);
      assert.match(await h.view.locator("#payload").textContent(), /"board": "XOX\.O\.OX\."/);
      assert.match(await h.view.locator("#expires").textContent(), /^expires in \d+ s$/);
      // The View's store: the Host's ui/set-view-state, shown beside the backend and reported to the Host.
      assert.equal(await h.store(), "host");
      t.diagnostic(`store decided ${await h.view.locator("body").evaluate(() => window.gameView.decidedAtMs)} ms after the View's document started`);
      assert.match(await h.view.locator("#store").textContent(), /^host /);
      await h.page.waitForSelector(".call[data-store=host]");
      // A piece of UI state a person sees survive: the selected details tab.
      assert.equal(await h.tab(), "payload");
      await h.view.locator('[role=tab][data-tab="claims"]').click();
      await h.view.locator("#panel-claims").waitFor();
      assert.equal(await h.view.locator("#panel-payload").isHidden(), true);
      await h.waitSaved({ tab: "claims", token });
      await screenshot(h.page, `game-${policy}.png`);

      await h.page.reload();
      await h.page.waitForSelector("html[data-ready=true]");
      await h.page.waitForSelector(".call[data-ready=true]");
      await h.view.locator("body[data-phase=playing]").waitFor();
      assert.equal(await h.board(), BOARD_AFTER, "the board came back");
      assert.equal(await h.token(), token, "the token came back (from view state, not from the replayed start result)");
      assert.match(await h.view.locator("#vs-status").textContent(), /restored/);
      assert.equal(await h.tab(), "claims", "the selected tab came back");
      assert.equal(await h.view.locator("#panel-claims").isVisible(), true);
      assert.equal(await h.view.locator('[role=tab][data-tab="claims"]').getAttribute("aria-selected"), "true");
      assert.equal(h.starts(), 1, "no new start after the reload");
      await assertServedAsHostsServeIt(h);

      // "Reload View": a new proxy document, announced again, given the HTML again: a second render on the same bridge.
      const proxiesBefore = h.proxies.length;
      await h.page.locator(".call .call-reload").click();
      await h.page.waitForSelector('.call[data-renders="2"][data-ready=true]');
      await h.view.locator("body[data-phase=playing]").waitFor();
      assert.equal(await h.board(), BOARD_AFTER, "the board came back after a reload of the View alone");
      assert.equal(await h.token(), token);
      assert.equal(await h.tab(), "claims", "and the tab");
      assert.equal(h.proxies.length, proxiesBefore + 1, "the proxy page was loaded again");
      assert.equal(h.starts(), 1);
      await assertServedAsHostsServeIt(h);
      assert.deepEqual(
        h.toolCalls.map((c) => c.name),
        ["start", "move", "move", "move"],
      );

      // It keeps playing with the restored token.
      const free = BOARD_AFTER.indexOf(".");
      await h.move(free);
      assert.equal((await h.board())[free], "X");
      assert.notEqual(await h.token(), token);
      assert.equal(h.starts(), 1);

      // The Host's "Inspect token" link: the freshest token, in the URL fragment; the inspector
      // verifies it with the server's key and the principal it is bound to (the principal header).
      const latest = await h.token();
      const href = await h.page.locator(".call .call-inspect").getAttribute("href");
      assert.equal(decodeURIComponent(href.split("#token=")[1]), latest);
      const page = await h.page.context().newPage();
      await page.goto(new URL(href, web.url).href);
      await page.waitForSelector("#claims[data-status=ok]");
      assert.match(await page.locator("#claim-purpose").textContent(), /view/);
      await page.fill("#key", KEY);
      await page.waitForSelector("#verify-result[data-status=fail]");
      assert.equal(await page.locator("#verify-reason").textContent(), "bind", "game tokens are bound to the principal header");
      await page.fill("#bind", USER);
      await page.waitForSelector("#verify-result[data-status=ok]");
      assert.equal(JSON.parse(await page.locator("#verified-payload").textContent()).board, await h.board());
    });
  }

  test("per-view storage: no ui/set-view-state, the View's frame has storage: tab and game kept under the result's viewUUID; the same result rendered again restores them, another result starts fresh; a state over the limit is refused and nothing is stored", async (t) => {
    const h = await openHost(t, [servers.a], { viewState: "off", frame: "storage" });
    await h.newGame();
    await assertServedAsHostsServeIt(h);
    const [first] = await h.callIds();
    // The frame: the sandbox origin (allow-same-origin), not opaque; the Host offers no view state.
    const proxy = await h.proxyOf(first);
    assert.equal(await proxy.locator("iframe").getAttribute("sandbox"), "allow-scripts allow-same-origin");
    assert.equal(await h.view.locator("body").evaluate(() => window.origin), new URL(sandbox.url).origin);
    assert.match(await h.page.locator(".call .call-vs").textContent(), /not offered/);
    assert.equal(await h.store(), "local");
    assert.match(await h.view.locator("#store").textContent(), /^local /);
    await h.page.waitForSelector(".call[data-store=local]");
    assert.equal(await h.view.locator("body").evaluate(() => window.gameView.ui.viewState.restored), null, "a new result: nothing saved yet");

    await h.view.locator('[role=tab][data-tab="raw"]').click();
    for (const cell of MOVES) await h.move(cell);
    const token = await h.token();
    await h.waitSaved({ tab: "raw", token });
    const saved = await h.localState(first);
    assert.deepEqual(saved, { token, tab: "raw" }, 'the View\'s tab, and the token its keeper keeps there (persist: "token")');
    assert.deepEqual(await h.page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes(":view-state:"))), [], "nothing in the Host's storage");
    await screenshot(h.page, "game-local.png");

    // The same result rendered again (the View alone, then the whole page): the tab and the game come back.
    await h.page.locator(".call .call-reload").click();
    await h.page.waitForSelector('.call[data-renders="2"][data-ready=true]');
    await h.view.locator("body[data-phase=playing]").waitFor();
    for (const step of ["View reloaded", "page reloaded"]) {
      assert.equal(await h.store(), "local", step);
      assert.equal(await h.tab(), "raw", step);
      assert.equal(await h.view.locator("#panel-raw").isVisible(), true, step);
      assert.equal(await h.board(), BOARD_AFTER, step);
      assert.equal(await h.token(), token, step);
      assert.match(await h.view.locator("#vs-status").textContent(), /restored/, step);
      if (step === "View reloaded") {
        await h.page.reload();
        await h.page.waitForSelector("html[data-ready=true]");
        await h.page.waitForSelector(".call[data-ready=true]");
        await h.view.locator("body[data-phase=playing]").waitFor();
      }
    }
    assert.equal(h.starts(), 1, "no new start");

    // Another result (a new game, a new viewUUID) starts fresh, and leaves the first one's state alone.
    await h.newGame();
    const [second] = await h.callIds();
    assert.notEqual(second, first);
    assert.notEqual(await h.localKey(second), await h.localKey(first));
    assert.equal(await h.view.locator("body").evaluate(() => window.gameView.ui.viewState.restored), null);
    assert.equal(await h.store(), "local");
    assert.equal(await h.tab(), "payload");
    assert.equal(await h.board(), ".........");
    await h.waitSaved({ token: await h.token() }); // the keeper saves the token; the tab is saved once it changes
    assert.deepEqual(await h.localState(first), saved);

    // A state over the limit (64 KiB without a Host's maxBytes) is refused, and the store keeps what it had.
    const firstView = h.viewOf(first);
    const refused = await firstView.locator("body").evaluate(async () => {
      try {
        return { saved: await window.gameView.ui.viewState.save({ pad: "x".repeat(70_000) }) };
      } catch (e) {
        return { name: e.name, code: e.code };
      }
    });
    assert.deepEqual(refused, { name: "ViewStateError", code: -32602 });
    assert.deepEqual(await h.localState(first), saved, "nothing stored");
    const keys = await (await h.proxyOf(first)).evaluate(() => Object.keys(localStorage).sort());
    // The two Views' states, and the index of the views that keep state there (the "local" store reclaims by it).
    assert.deepEqual(keys, [await h.localKey(first), await h.localKey(second), "mcp-sealed-state/views"].sort(), "only the two Views' states and their index");
    // And that View keeps playing.
    const free = BOARD_AFTER.indexOf(".");
    await firstView.locator(`.cell[data-cell="${free}"]:not(:disabled)`).click();
    await firstView.locator(`.cell[data-cell="${free}"][data-mark="X"]`).waitFor();
    await firstView.locator("body[data-busy=false]").waitFor();
    assert.equal(h.starts(), 2);
  });

  test("a tampered stored token: the View shows what it claims, the server refuses it: expired, start over", async (t) => {
    const h = await openHost(t, [servers.a]);
    await h.newGame();
    await h.move(0);
    const token = await h.token();
    // Forge the claim (take back the server's O), keep the signature.
    const [, body, mac] = token.split(".");
    const envelope = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    assert.equal(envelope.p.d.board, "X...O....");
    envelope.p.d.board = "X........";
    const forged = `v1.${Buffer.from(JSON.stringify(envelope)).toString("base64url")}.${mac}`;
    await h.page.evaluate((tok) => {
      const key = Object.keys(localStorage).find((k) => k.includes(":view-state:"));
      localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key)), token: tok }));
    }, forged);

    await h.page.reload();
    await h.page.waitForSelector(".call[data-ready=true]");
    await h.view.locator("body[data-phase=playing]").waitFor();
    assert.equal(await h.token(), forged);
    assert.equal(await h.board(), "X........", "the View displays the (unverified) forged claim");
    assert.equal(await expiredBanner(h.view).isHidden(), true);

    await h.view.locator('.cell[data-cell="4"]').click();
    await expiredBanner(h.view).waitFor({ state: "visible" });
    assert.match(await expiredBanner(h.view).textContent(), /expired, start over/i);
    assert.equal(await h.view.locator("body").getAttribute("data-phase"), "expired");
    assert.equal(await h.board(), "X........", "the server did not play on a forged board");
    await screenshot(h.page, "game-expired.png");

    // Start over, from the View: a fresh token replaces the refused one.
    await h.view.locator("#start-over").click();
    await h.view.locator("body[data-phase=playing][data-busy=false]").waitFor();
    assert.equal(await expiredBanner(h.view).isHidden(), true);
    assert.equal(await h.board(), ".........");
    assert.equal(h.starts(), 2, "the Host's start, then the View's start over");

    // Closing the call forgets it and deletes its view state.
    await h.page.locator(".call .call-close").click();
    await h.page.locator(".call").waitFor({ state: "detached" });
    assert.deepEqual(await h.page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes(":view-state:"))), []);
    assert.deepEqual(await h.page.evaluate(() => window.demoHost.calls()), []);
    assert.equal(await h.page.locator("#no-calls").isVisible(), true);
  });

  for (const policy of POLICIES) {
    test(`${policy} policy: a 2-second ttl: once the token has expired, the next move shows expired, start over`, async (t) => {
      const h = await openHost(t, [servers.ttl], { policy });
      await h.newGame();
      await h.move(0);
      assert.equal((await h.board())[0], "X", "a move within the lifetime works");
      // The ttl wait: the View's countdown (secondsLeft) says when the token has expired.
      await h.view.locator("#expires", { hasText: /^expired$/ }).waitFor({ timeout: 10_000 });
      await h.view.locator('.cell[data-cell="8"]').click();
      await expiredBanner(h.view).waitFor({ state: "visible" });
      assert.match(await expiredBanner(h.view).textContent(), /expired, start over/i);
      assert.equal((await h.board())[8], ".", "the server refused the move");
      await assertServedAsHostsServeIt(h);
    });
  }

  test("two workerd instances taken in turns play one game: no session affinity", async (t) => {
    const h = await openHost(t, [servers.a, servers.b]);
    await h.newGame();
    for (const cell of MOVES) await h.move(cell);
    assert.equal(await h.board(), BOARD_AFTER);
    assert.equal(await expiredBanner(h.view).isHidden(), true);
    const ports = h.toolCalls.map((c) => c.port);
    const { a, b } = { a: Number(servers.a.url.port), b: Number(servers.b.url.port) };
    assert.deepEqual(new Set(ports), new Set([a, b]), `both instances served tool calls: ${JSON.stringify(h.toolCalls)}`);
    // Every request in turn (resources/read of the View sits between start and the first move).
    const posts = h.toolCalls.ports;
    for (let i = 1; i < posts.length; i++) assert.notEqual(posts[i], posts[i - 1], `consecutive requests went to different instances: ${posts}`);
    // The Host's request log shows the same.
    const used = await h.page.locator("#traffic li").evaluateAll((lis) => new Set(lis.map((li) => li.dataset.server)).size);
    assert.equal(used, 2);
  });

  test("a workerd instance and the Rust (rmcp) server taken in turns play one game", async (t) => {
    const h = await openHost(t, [servers.a, servers.rust]);
    await h.newGame();
    for (const cell of MOVES) await h.move(cell);
    assert.equal(await h.board(), BOARD_AFTER);
    assert.equal(await expiredBanner(h.view).isHidden(), true);
    const ports = h.toolCalls.map((c) => c.port);
    const { a, rust } = { a: Number(servers.a.url.port), rust: Number(servers.rust.url.port) };
    assert.deepEqual(new Set(ports), new Set([a, rust]), `both servers served tool calls: ${JSON.stringify(h.toolCalls)}`);
    // Every request in turn (resources/read of the View sits between start and the first move).
    const posts = h.toolCalls.ports;
    for (let i = 1; i < posts.length; i++) assert.notEqual(posts[i], posts[i - 1], `consecutive requests went to different servers: ${posts}`);
    await assertServedAsHostsServeIt(h);
  });

  test("the inspector reads a token minted by @modelcontextprotocol/server and verifies it in the page", async (t) => {
    const { createRequestStateCodec } = require("@modelcontextprotocol/server");
    const sdkKey = "the SDK's key, at least thirty-two bytes";
    const payload = { board: "X...O....", turn: 2, minted: "by @modelcontextprotocol/server" };
    const token = await createRequestStateCodec({ key: sdkKey, ttlSeconds: 600 }).mint(payload);
    const bound = await createRequestStateCodec({ key: sdkKey, bind: (ctx) => ctx.user }).mint({ n: 1 }, { user: "alice" });

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    t.after(() => ctx.close());
    const page = await ctx.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(`${web.url}www/inspector.html`);
    await page.waitForSelector("html[data-ready=true]");
    assert.match(await page.locator("#key-banner").textContent(), /key never leaves this page/i);
    const requests = [];
    page.on("request", (r) => requests.push(r.url()));

    await page.fill("#token", token);
    await page.waitForSelector("#claims[data-status=ok]");
    assert.deepEqual(JSON.parse(await page.locator("#claim-payload").textContent()), payload);
    assert.match(await page.locator("#claim-purpose").textContent(), /none/);
    assert.match(await page.locator("#claim-bound").textContent(), /not bound/);
    assert.match(await page.locator("#claim-left").textContent(), /min/);
    const exp = JSON.parse(Buffer.from(token.split(".")[1], "base64url")).exp;
    assert.match(await page.locator("#claim-exp").textContent(), new RegExp(`exp ${exp}`));

    await page.fill("#key", sdkKey);
    await page.waitForSelector("#verify-result[data-status=ok]");
    assert.deepEqual(JSON.parse(await page.locator("#verified-payload").textContent()), payload);
    assert.match(await page.locator("#verify-result").textContent(), /verify\(token\)/);
    await screenshot(page, "inspector.png", { fullPage: true }); // no iframe on this page

    await page.fill("#key", "a wrong key, also at least thirty-two bytes");
    await page.waitForSelector("#verify-result[data-status=fail]");
    assert.equal(await page.locator("#verify-reason").textContent(), "mac");
    await screenshot(page, "inspector-rejected.png", { fullPage: true });

    await page.fill("#key", "short");
    await page.waitForSelector("#verify-result[data-status=key-error]");

    // A bound SDK token: refused without the principal, accepted with it.
    await page.fill("#token", bound);
    await page.fill("#key", sdkKey);
    await page.waitForSelector("#claims[data-status=ok]");
    assert.match(await page.locator("#claim-bound").textContent(), /^bound/);
    await page.waitForSelector("#verify-result[data-status=fail]");
    assert.equal(await page.locator("#verify-reason").textContent(), "bind");
    await page.fill("#bind", "bob");
    assert.equal(await page.locator("#verify-reason").textContent(), "bind");
    await page.fill("#bind", "alice");
    await page.waitForSelector("#verify-result[data-status=ok]");

    assert.deepEqual(requests, [], "the page made no request while the key was in it");
    assert.ok(!page.url().includes(encodeURIComponent(sdkKey).slice(0, 10)), "the key is not in the URL");
    assert.deepEqual(problems, []);
  });

  test("the demo command: two workerd instances on one dev key, the pages, a game across both, a clean stop on SIGINT", async (t) => {
    const env = { ...process.env };
    delete env.STATE_KEY;
    delete env.TTL_SECONDS;
    const child = spawn(process.execPath, [join(REPO_ROOT, "www/demo.mjs"), "--port", "0", "--mcp-port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the demo did not start in time:\n${out}\n${err}`)), 60_000).unref();
      const check = () => /Ctrl-C to stop/.test(out) && (clearTimeout(timer), resolve());
      child.stdout.on("data", check);
      child.once("exit", (code) => reject(new Error(`the demo exited (${code}):\n${out}\n${err}`)));
      check();
    });
    assert.match(err, /STATE_KEY is not set.*ephemeral development key/s, "the dev-key warning is printed");
    const hostUrl = out.match(/Host page\s+(\S+)/)[1];
    const inspectorUrl = out.match(/Token inspector\s+(\S+)/)[1];
    const devKey = out.match(/dev key\s+(\S+)/)[1];
    const mcp = [...out.matchAll(/MCP server \w\s+(\S+)/g)].map((m) => m[1]);
    assert.equal(mcp.length, 2);
    assert.equal(new URL(hostUrl).searchParams.get("servers"), mcp.join(","));

    // What a newcomer does: open the printed URL, play; both instances open the other's tokens.
    const h = await openHost(t, hostUrl);
    await h.newGame();
    for (const cell of MOVES) await h.move(cell);
    assert.equal(await h.board(), BOARD_AFTER);
    assert.equal(new Set(h.toolCalls.map((c) => c.port)).size, 2);
    // The printed dev key verifies the game's token in the inspector (bound to the Host's default user).
    const page = await h.page.context().newPage();
    await page.goto(`${inspectorUrl}#token=${encodeURIComponent(await h.token())}`);
    await page.waitForSelector("#claims[data-status=ok]");
    await page.fill("#key", devKey);
    await page.fill("#bind", "demo-user");
    await page.waitForSelector("#verify-result[data-status=ok]");
    await h.page.context().close();

    child.kill("SIGINT");
    const [code] = await once(child, "exit", { signal: AbortSignal.timeout(15_000) }); // rejects if it hangs
    assert.equal(code, 0);
    await assert.rejects(fetch(new URL(HTTP_NAMES.healthPath, mcp[0])), "workerd is gone");
    await assert.rejects(fetch(inspectorUrl), "the static server is gone");
  });
});
