// The whole demo in Chromium: the stateless tic-tac-toe MCP server in real
// workerd (Miniflare), the Host page (www/host.html: MCP client over Streamable
// HTTP, AppBridge, ui/set-view-state in localStorage), the game View
// (www/game/, mcp-sealed-state/widget only) and the token inspector.
//
// /pkg/ is mounted on the PACKED package (js/out/consumer), and the worker is
// bundled against it too. Run `npm --prefix js run build && node js/pack.mjs` first.
// Screenshots go to www/artifacts/ (git-ignored).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_MOUNTS, REPO_ROOT, serve } from "../lib/serve.mjs";
import { PACKED, failOnPageProblems, launchChromium } from "../lib/chromium.mjs";
import { buildWorker, startServer } from "../server/miniflare.mjs";
import { startRustServer } from "../server/rust.mjs";

const require = createRequire(join(REPO_ROOT, "js/package.json"));
const ARTIFACTS = join(REPO_ROOT, "www/artifacts");
const KEY = "demo e2e key: at least thirty-two bytes long";
const USER = "e2e-user";
// Three moves that leave the game running, and the board they give
// (the server's replies are deterministic: www/server/game.js).
const MOVES = [0, 2, 7];
const BOARD_AFTER = "XOX.O.OX.";

let web;
let browser;
const servers = {}; // a, b: same key; ttl: same key, 2 s tokens; rust: the rmcp server, same key

before(async () => {
  if (!existsSync(join(PACKED, "widget/browser.js"))) {
    throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const launching = launchChromium();
  const build = await buildWorker();
  const quiet = () => {}; // refused tokens are logged as warnings by design
  const started = await Promise.allSettled([
    startServer({ key: KEY, instance: "a", build, onLog: quiet }),
    startServer({ key: KEY, instance: "b", build, onLog: quiet }),
    startServer({ key: KEY, instance: "ttl", ttlSeconds: 2, build, onLog: quiet }),
    startRustServer({ key: KEY, instance: "rust", onLog: quiet }),
  ]);
  for (const s of started) if (s.status === "fulfilled") servers[s.value.instance] = s.value;
  const launched = await Promise.allSettled([launching]);
  if (launched[0].status === "fulfilled") browser = launched[0].value;
  const failed = [...started, ...launched].find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  web = await serve({ mounts: { ...DEFAULT_MOUNTS, "/pkg/": PACKED } });
});

after(async () => {
  await browser?.close();
  await web?.close();
  await Promise.allSettled(Object.values(servers).map((s) => s.dispose()));
});

/** The tools/call requests the page sent, by tool name and port (seen by the browser). */
function watchToolCalls(page) {
  const calls = [];
  page.on("request", (req) => {
    if (req.method() !== "POST") return;
    let body;
    try {
      body = JSON.parse(req.postData() ?? "null");
    } catch {
      return;
    }
    if (body?.method === "tools/call") calls.push({ name: body.params?.name, port: Number(new URL(req.url()).port) });
  });
  return calls;
}

/**
 * A fresh context (own localStorage) with the Host page on `endpoints` (or at
 * a given Host page URL). Fails
 * the test on page errors, console errors and failed or refused requests.
 */
async function openHost(t, endpoints) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await ctx.newPage();
  failOnPageProblems(t, page, () => ctx.close());
  const toolCalls = watchToolCalls(page);
  const list = () => endpoints.map((s) => s.mcpUrl.href).join(",");
  await page.goto(typeof endpoints === "string" ? endpoints : `${web.url}www/host.html?servers=${list()}&user=${USER}`);
  await page.waitForSelector("html[data-ready=true]");
  await page.waitForSelector("#conn-status[data-status=connected]");
  const view = page.frameLocator(".call iframe").first();
  return {
    page,
    view,
    toolCalls,
    starts: () => toolCalls.filter((c) => c.name === "start").length,
    async newGame() {
      await page.click("#new-game");
      await view.locator("body[data-phase=playing][data-busy=false]").waitFor();
      await page.waitForSelector(".call[data-ready=true]");
    },
    token: () => view.locator("#token").getAttribute("data-token"),
    board: () => view.locator(".cell").evaluateAll((cells) => cells.map((c) => c.dataset.mark).join("")),
    /** Click a cell and wait for the View to settle and its view state to hold the token it shows. */
    async move(cell) {
      const before = await this.token();
      await view.locator(`.cell[data-cell="${cell}"]:not(:disabled)`).click();
      await view.locator("body[data-busy=false]").waitFor();
      const after = await this.token();
      if (after !== before) await this.waitSaved(after);
    },
    /** Wait until the Host's storage for the (only) call holds `token`. */
    async waitSaved(token) {
      await page.waitForFunction((tok) => {
        const key = Object.keys(localStorage).find((k) => k.includes(":view-state:"));
        return key !== undefined && JSON.parse(localStorage.getItem(key)).token === tok;
      }, token);
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

describe("the demo: workerd server, Host page, game View, inspector", () => {
  test("three moves, a reload of the whole page: same board and token, no new start; the inspect link verifies it", async (t) => {
    const h = await openHost(t, [servers.a]);
    await h.newGame();
    assert.equal(h.starts(), 1);
    for (const cell of MOVES) await h.move(cell);
    assert.equal(await h.board(), BOARD_AFTER);
    const token = await h.token();
    assert.match(token, /^v1\.[\w-]+\.[\w-]{43}$/);
    assert.match(await h.view.locator("#payload").textContent(), /"board": "XOX\.O\.OX\."/);
    assert.match(await h.view.locator("#expires").textContent(), /^expires in \d+ s$/);
    await screenshot(h.page, "game.png");

    await h.page.reload();
    await h.page.waitForSelector("html[data-ready=true]");
    await h.page.waitForSelector(".call[data-ready=true]");
    await h.view.locator("body[data-phase=playing]").waitFor();
    assert.equal(await h.board(), BOARD_AFTER, "the board came back");
    assert.equal(await h.token(), token, "the token came back (from view state, not from the replayed start result)");
    assert.match(await h.view.locator("#vs-status").textContent(), /restored/);
    assert.equal(h.starts(), 1, "no new start after the reload");
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
    // verifies it with the server's key and the principal it is bound to (X-Demo-User).
    const latest = await h.token();
    const href = await h.page.locator(".call .call-inspect").getAttribute("href");
    assert.equal(decodeURIComponent(href.split("#token=")[1]), latest);
    const page = await h.page.context().newPage();
    await page.goto(new URL(href, web.url).href);
    await page.waitForSelector("#claims[data-status=ok]");
    assert.match(await page.locator("#claim-purpose").textContent(), /view/);
    await page.fill("#key", KEY);
    await page.waitForSelector("#verify-result[data-status=fail]");
    assert.equal(await page.locator("#verify-reason").textContent(), "bind", "game tokens are bound to the X-Demo-User");
    await page.fill("#bind", USER);
    await page.waitForSelector("#verify-result[data-status=ok]");
    assert.equal(JSON.parse(await page.locator("#verified-payload").textContent()).board, await h.board());
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

  test("a 2-second ttl: once the token has expired, the next move shows expired, start over", async (t) => {
    const h = await openHost(t, [servers.ttl]);
    await h.newGame();
    await h.move(0);
    assert.equal((await h.board())[0], "X", "a move within the lifetime works");
    // The ttl wait: the View's countdown (secondsLeft) says when the token has expired.
    await h.view.locator("#expires", { hasText: /^expired$/ }).waitFor({ timeout: 10_000 });
    await h.view.locator('.cell[data-cell="8"]').click();
    await expiredBanner(h.view).waitFor({ state: "visible" });
    assert.match(await expiredBanner(h.view).textContent(), /expired, start over/i);
    assert.equal((await h.board())[8], ".", "the server refused the move");
  });

  test("two workerd instances taken in turns play one game: no session affinity", async (t) => {
    const h = await openHost(t, [servers.a, servers.b]);
    await h.newGame();
    for (const cell of MOVES) await h.move(cell);
    assert.equal(await h.board(), BOARD_AFTER);
    assert.equal(await expiredBanner(h.view).isHidden(), true);
    const ports = h.toolCalls.map((c) => c.port);
    const { a, b } = { a: Number(servers.a.url.port), b: Number(servers.b.url.port) };
    assert.deepEqual(new Set(ports), new Set([a, b]), `both instances served tool calls: ${JSON.stringify(h.toolCalls)}`);
    for (let i = 1; i < ports.length; i++) assert.notEqual(ports[i], ports[i - 1], "consecutive calls went to different instances");
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
    for (let i = 1; i < ports.length; i++) assert.notEqual(ports[i], ports[i - 1], "consecutive calls went to different servers");
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
    await assert.rejects(fetch(mcp[0].replace(/\/mcp$/, "/health")), "workerd is gone");
    await assert.rejects(fetch(inspectorUrl), "the static server is gone");
  });
});
