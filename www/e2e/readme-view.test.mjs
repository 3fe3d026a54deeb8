// The README's counter MCP App as a newcomer builds it: server.js and view.js
// from README.md, vite.config.js and view.html from docs/views.md (their code
// blocks, read here at run time, never copied), the packed tarball installed
// with npm, the View built by Vite into dist/view.html, `node server.js` on
// loopback. Then the View, unchanged, in the MCP Inspector 2.12 and in the
// demo Host (www/host.html, `?tool=count`) on its two stores:
//
// - two clicks of "Add one" send two fresh tokens: the display goes count
//   0 -> 1 -> 2 (a View that sent its first token again would stay at 1);
// - after a reload, the UI state (the colour, `document.body.style.color`) and
//   the token (the count) come back where the store keeps them: the Host's
//   ui/set-view-state ("host"), the frame's localStorage under the result's
//   viewUUID ("local": `viewstate=off&frame=storage`); where nothing is kept
//   (the Inspector: an opaque srcdoc frame, memory, and no result replayed)
//   the View shows "Start over";
// - a forged token (a genuine one with its count changed, its MAC kept) gives
//   "Expired: start over": run through the Inspector's tool form, or put into
//   the stored view state before a reload;
// - every wait is bounded (STEP_TIMEOUT_MS), so nothing hangs.
//
// One project, one server, one browser for all of it. Needs the packed
// tarball: `npm --prefix js run build && node js/pack.mjs`.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { PACKED, failOnPageProblems, keepOnLoopback, launchChromium } from "../../js/lib/chromium.mjs";
import { stopper } from "../../js/lib/child-server.mjs";
import { corsFront } from "../../js/lib/cors-front.mjs";
import { codeBlocks, fileBlock } from "../../js/lib/markdown-blocks.mjs";
import { connectClient, tokenOf } from "../../js/lib/mcp-client.mjs";
import { connectInspector, startInspector } from "../../js/lib/mcp-inspector.mjs";
import { DEFAULT_MOUNTS, REPO_ROOT, freePort, serve } from "../../js/lib/servers.mjs";
import { serveSandbox } from "../lib/sandbox-server.mjs";

const execFileP = promisify(execFile);
const OUT = join(REPO_ROOT, "js/out");
const PROJECT = join(OUT, "readme-view");
const VITE = join(REPO_ROOT, "js/node_modules/vite/bin/vite.js");
const KEY = "readme view e2e key: at least thirty-two bytes";
// Bounded waits: a step that does not happen fails the test, never hangs it.
const STEP_TIMEOUT_MS = 30_000;
const TEST_TIMEOUT_MS = 240_000;
/** Where the keeper keeps the token in the view state (`persist: true`), and the "local" store's key prefix. */
const TOKEN_MEMBER = "ng-mcp-ui/state";
const LOCAL_KEY_PREFIX = "mcp-sealed-state/view/";
const HOST_VIEW_STATE = ":view-state:"; // the demo Host's localStorage key of a call's view state contains this
// What the View shows (README.md's view.js).
const START_OVER = "Start over";
const EXPIRED = "Expired: start over";
const FORGED_COUNT = 41;

let server; // { url, dispose }
let front; // the CORS front of the server, for the Host page
let web;
let sandbox;
let browser;
let inspector;

/** The README's project: its files from the docs, the tarball installed, the View built. */
async function makeProject() {
  const tarball = readdirSync(OUT).find((f) => /^mcp-sealed-state-.*\.tgz$/.test(f));
  if (tarball === undefined || !existsSync(PACKED)) throw new Error("no packed tarball in js/out: run `npm --prefix js run build && node js/pack.mjs` first");
  rmSync(PROJECT, { recursive: true, force: true });
  mkdirSync(PROJECT, { recursive: true });
  const readme = codeBlocks(readFileSync(join(REPO_ROOT, "README.md"), "utf8"));
  const views = codeBlocks(readFileSync(join(REPO_ROOT, "docs/views.md"), "utf8"));
  for (const [blocks, source, file] of [
    [readme, "README.md", "server.js"],
    [readme, "README.md", "view.js"],
    [views, "docs/views.md", "vite.config.js"],
    [views, "docs/views.md", "view.html"],
  ]) {
    writeFileSync(join(PROJECT, file), fileBlock(blocks, file, source));
  }
  writeFileSync(join(PROJECT, "package.json"), `${JSON.stringify({ name: "counter", private: true, type: "module" }, null, 2)}\n`);
  cpSync(join(OUT, tarball), join(PROJECT, tarball));
  // As a user installs it; the other packages (the SDK, ext-apps, Vite) are js/node_modules', found by walking up.
  await execFileP("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `./${tarball}`], { cwd: PROJECT });
  await execFileP(process.execPath, [VITE, "build", "--logLevel", "warn"], { cwd: PROJECT });
  assert.ok(existsSync(join(PROJECT, "dist/view.html")), "vite build wrote dist/view.html");
}

/** `node server.js` with PORT and STATE_KEY in its environment, answered once (bounded). */
async function startServer() {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), STATE_KEY: KEY };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ["server.js"], { cwd: PROJECT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const dispose = stopper(child, exited);
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 150; i++) {
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 100))]);
    if (code !== undefined) throw new Error(`node server.js exited ${code} before answering:\n${output}`);
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return { url, dispose, output: () => output };
  }
  await dispose();
  throw new Error(`node server.js did not answer on ${url} within 15 s:\n${output}`);
}

before(async () => {
  await makeProject();
  server = await startServer();
  const started = await Promise.allSettled([
    launchChromium(),
    startInspector({ serverUrl: server.url, onLog: () => {} }),
    corsFront(server.url),
    serve({ mounts: { ...DEFAULT_MOUNTS, "/pkg/": PACKED } }),
    serveSandbox(),
  ]);
  [browser, inspector, front, web, sandbox] = started.map((s) => (s.status === "fulfilled" ? s.value : undefined));
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
});

after(async () => {
  await browser?.close();
  await Promise.allSettled([inspector?.dispose(), front?.close(), web?.close(), sandbox?.close(), server?.dispose()]);
});

/** A genuine token from the server (its count 0 sealed), its count changed to FORGED_COUNT, its MAC kept. */
async function forgedToken() {
  const { client, close } = await connectClient(server.url);
  try {
    const token = tokenOf(await client.callTool({ name: "count", arguments: {} }));
    const [v, body, mac] = token.split(".");
    const envelope = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    assert.equal(envelope.p.d.count, 0);
    envelope.p.d.count = FORGED_COUNT;
    return `${v}.${Buffer.from(JSON.stringify(envelope)).toString("base64url")}.${mac}`;
  } finally {
    await close();
  }
}

/** The count a token claims (unverified), or undefined. */
function countOf(token) {
  if (typeof token !== "string") return undefined;
  return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")).p.d.count;
}

/** In the page: the JSON under the localStorage key that contains `part`, or null. */
function readStorage(part) {
  const key = Object.keys(localStorage).find((k) => k.includes(part));
  return key === undefined ? null : JSON.parse(localStorage.getItem(key));
}

/** In the page: merge `patch` into the JSON under the localStorage key that contains `part`. */
function patchStorage([part, patch]) {
  const key = Object.keys(localStorage).find((k) => k.includes(part));
  localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key)), ...patch }));
}

/** What the View shows: the #count text and the body's colour. */
const shown = (view) => view.locator("body").evaluate(() => ({ count: document.getElementById("count").textContent, color: document.body.style.color }));

/** Wait (bounded) until #count reads `text`; on a timeout, fail saying what it read and `why`. */
async function countReads(view, text, why) {
  const read = view.locator("#count", { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) });
  await read.waitFor({ timeout: STEP_TIMEOUT_MS }).catch(async () => {
    assert.fail(`#count should read "${text}" (${why}); it reads "${await view.locator("#count").textContent()}"`);
  });
}

/** Click "Add one" twice from count 0: the display goes 0 -> 1 -> 2, which only fresh tokens give. */
async function twoClicks(view) {
  await countReads(view, "count 0", "the tool's first result");
  await view.locator("#add").click();
  await countReads(view, "count 1", "the first click sent the count-0 token");
  await view.locator("#add").click();
  await countReads(view, "count 2", "the second click must send the first click's token: a View that sends its first token again stays at 1");
}

/** Click the colour button: teal -> orange. */
async function chooseOrange(view) {
  assert.equal((await shown(view)).color, "teal", "the View's default colour");
  await view.locator("#color").click();
  await view.locator("body[style*='orange']").waitFor({ timeout: STEP_TIMEOUT_MS });
}

/** Click "Add one" on the forged token: the server refuses it, the View says so; once more starts over at 0. */
async function refusedThenStartOver(view) {
  await view.locator("#add").click();
  await countReads(view, EXPIRED, "the server refused the forged token");
  await view.locator("#add").click();
  await countReads(view, "count 0", "Add one after the refusal starts over");
}

describe("the README's counter App, built from its code blocks", { timeout: TEST_TIMEOUT_MS * 3 }, () => {
  test(
    'MCP Inspector 2.12: two clicks count 0 -> 1 -> 2; a reload of the View keeps nothing: "Start over", the default colour; a forged token from the tool form: "Expired: start over"',
    { timeout: TEST_TIMEOUT_MS },
    async (t) => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      // Teardown cuts the Inspector's own event streams mid-chunk: the problems are checked once it has played.
      const stopCollecting = () => {
        for (const event of ["console", "requestfailed", "response", "pageerror"]) page.removeAllListeners(event);
      };
      const problems = failOnPageProblems(t, page, () => (stopCollecting(), context.close()));
      await keepOnLoopback(context, problems);

      await page.goto(inspector.url);
      await page.getByText(server.url).first().waitFor();
      await connectInspector(page);
      await page.getByText("Apps", { exact: true }).click();
      await page.getByRole("button", { name: /Count one more/ }).click();
      await page.getByRole("button", { name: "Open App" }).click();
      const view = page.frameLocator('iframe[src*="/sandbox"]').frameLocator("iframe");
      assert.equal(await view.locator("body").evaluate(() => window.origin), "null", "the Inspector's View frame is opaque: no storage");

      await twoClicks(view);
      await chooseOrange(view);

      // A reload of the View: the Inspector answers its second ui/initialize and replays no result.
      await view.locator("body").evaluate(() => location.reload());
      await countReads(view, START_OVER, "after a reload the Inspector replays nothing and keeps no state: keeper status none");
      assert.deepEqual(await shown(view), { count: START_OVER, color: "teal" }, "nothing kept: the default colour");
      await view.locator("#add").click();
      await countReads(view, "count 0", "Add one from Start over calls the tool without a token");

      // The tool form: the tool run with a forged state; the Inspector gives the View the refusal.
      await page.getByText("Back to Input").click();
      await page.getByLabel("state", { exact: true }).fill(await forgedToken());
      await page.getByRole("button", { name: "Open App" }).click();
      await countReads(view, EXPIRED, "the tool's result refused the forged token");
      await view.locator("#add").click();
      await countReads(view, "count 0", "Add one after the refusal starts over");

      assert.deepEqual([...problems], [], "no page error, console error or failed request");
      stopCollecting();
    },
  );

  for (const store of ["host", "local"]) {
    test(
      `demo Host, store "${store}": two clicks count 0 -> 1 -> 2, each sending the previous result's token; a reload of the page and of the View brings back colour and count; a forged token in the stored state: "Expired: start over"`,
      { timeout: TEST_TIMEOUT_MS },
      async (t) => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
        const page = await context.newPage();
        page.setDefaultTimeout(STEP_TIMEOUT_MS);
        const problems = failOnPageProblems(t, page, () => context.close());
        const sent = []; // the `state` of each tools/call count the page sent
        page.on("request", (req) => {
          if (req.method() !== "POST") return;
          const body = JSON.parse(req.postData() ?? "null");
          if (body?.method === "tools/call" && body.params?.name === "count") sent.push(body.params.arguments?.state);
        });
        const options = store === "local" ? "&viewstate=off&frame=storage" : "";
        await page.goto(`${web.url}www/host.html?servers=${front.url}&tool=count&sandbox=${new URL(sandbox.url).origin}${options}`);
        await page.waitForSelector("#conn-status[data-status=connected]");
        const view = page.frameLocator(".call iframe").first().frameLocator("iframe");
        const rendered = async () => {
          await page.waitForSelector("html[data-ready=true]");
          await page.waitForSelector(".call[data-ready=true]");
        };
        await page.click("#new-game");
        await rendered();

        await twoClicks(view);
        assert.deepEqual(sent.map(countOf), [undefined, 0, 1], "the Host's call, then each click with the token of the result before it");
        await chooseOrange(view);

        // The view state where the store keeps it: the Host's localStorage ("host"), the View frame's under the result's viewUUID ("local").
        const storageFrame = () => (store === "host" ? page : page.frames().find((f) => f.parentFrame()?.url().includes("/sandbox.html")));
        const keyPart = async () => (store === "host" ? HOST_VIEW_STATE : LOCAL_KEY_PREFIX + (await page.evaluate(() => window.demoHost.calls()))[0].result._meta.viewUUID);
        const stored = async () => storageFrame().evaluate(readStorage, await keyPart());
        // Saved where this store keeps it: the colour, and the token the View shows.
        const saved = await (async () => {
          for (let i = 0; i < 100; i++) {
            const state = await stored();
            if (state?.color === "orange" && countOf(state?.[TOKEN_MEMBER]) === 2) return state;
            await new Promise((r) => setTimeout(r, 100));
          }
          assert.fail(`the ${store} store does not hold the colour and the count-2 token: ${JSON.stringify(await stored())}`);
        })();
        assert.deepEqual(Object.keys(saved).sort(), ["color", TOKEN_MEMBER].sort(), "the View's state and the kept token, nothing else");
        if (store === "local") assert.equal(await page.evaluate(readStorage, HOST_VIEW_STATE), null, "nothing in the Host's storage");

        for (const reload of ["page", "View"]) {
          if (reload === "page") await page.reload();
          else await page.locator(".call .call-reload").click();
          await rendered();
          if (reload === "View") await page.waitForSelector('.call[data-renders="2"][data-ready=true]');
          await countReads(view, "count 2", `after a reload of the ${reload} the token comes back from the ${store} store, ahead of the Host's replayed count-0 result`);
          assert.deepEqual(await shown(view), { count: "count 2", color: "orange" }, `the colour comes back after a reload of the ${reload}`);
        }
        assert.equal(await page.evaluate(() => window.demoHost.stats.toolCalls.count ?? 0), 0, "no tool called by the reloads");

        // A forged token in the stored state: shown (the View cannot verify), refused by the server.
        const forged = await forgedToken();
        await storageFrame().evaluate(patchStorage, [await keyPart(), { [TOKEN_MEMBER]: forged }]);
        await page.reload();
        await rendered();
        await countReads(view, `count ${FORGED_COUNT}`, "the View shows the restored token's (unverified) claim");
        await refusedThenStartOver(view);
        assert.equal(sent.at(-2), forged, "the View sent the forged token");

        assert.deepEqual([...problems], [], "no page error, console error or failed request");
      },
    );
  }
});
