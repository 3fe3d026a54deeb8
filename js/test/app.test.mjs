// mcp-sealed-state/app (View) and mcp-sealed-state/app-bridge (Host), imported
// from the packed tarball, over the REAL @modelcontextprotocol/ext-apps 2.0.4
// App and AppBridge, linked in memory (InMemoryTransport of the MCP client SDK).
// The same adapters in Chromium, over postMessage and reloads:
// app.browser.test.mjs. Tokens are minted by the real SDK codec.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { importPackage, importPackedConstants, PACKAGE_DIR } from "./support.mjs";
import { atClock } from "../lib/clock.mjs";

const CONSTANTS = await importPackedConstants();

const { App } = await import("@modelcontextprotocol/ext-apps");
const { AppBridge } = await import("@modelcontextprotocol/ext-apps/app-bridge");
const { ViewState, connectWithViewState, keepFreshestToken, trackViewState } = await importPackage("/app");
// The app entry's internal plumbing (the React hooks import it by relative path), the same module instance.
const { onViewState, viewStateOf } = await import(pathToFileURL(join(PACKAGE_DIR, "app/tracking.js")).href);
const { DEFAULT_VIEW_STATE_MAX_BYTES, DEFAULT_STORE_TIMEOUT_MS, SET_VIEW_STATE_METHOD, ViewStateAppBridge } = await importPackage("/app-bridge");
const { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, ViewStateError } = await importPackage("/widget");

const KEY = "an app adapter test key of at least 32 bytes";
const HOST_INFO = { name: "test-host", version: "1.0.0" };
const HOST_CAPS = { serverTools: {}, logging: {} };
const HOST_OPTIONS = { hostContext: { theme: "light", displayMode: "inline", platform: "web" } };
const never = () => new Promise(() => {});
const SHORT_TIMEOUT_MS = 50; // the hung-store tests: a store that never answers counts as failed after this

/** A store over a plain variable, recording every call. */
function memoryStore(initial = null) {
  const store = {
    value: initial,
    loads: 0,
    saves: [],
    load: async () => {
      store.loads++;
      return store.value;
    },
    save: async (state) => {
      store.saves.push(state);
      store.value = state;
    },
  };
  return store;
}

/** A Host (ViewStateAppBridge, or a plain AppBridge) and a View (App) linked in memory. */
async function pair({ storage = memoryStore(), plain = false, beforeConnect, ...viewStateOptions } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const inbound = [];
  const send = viewSide.send.bind(viewSide);
  viewSide.send = (message, options) => {
    inbound.push(message);
    return send(message, options);
  };
  const bridge = plain ? new AppBridge(null, HOST_INFO, HOST_CAPS, HOST_OPTIONS) : new ViewStateAppBridge(null, HOST_INFO, HOST_CAPS, HOST_OPTIONS, { storage, ...viewStateOptions });
  let calls = 0;
  bridge.oncalltool = async (params) => ({ content: [{ type: "text", text: `pong ${params.name} #${++calls}` }] });
  await bridge.connect(hostSide);
  const app = new App({ name: "test-view", version: "1.0.0" }, {}, { autoResize: false });
  const before = beforeConnect?.(app);
  const viewState = await connectWithViewState(app, viewSide);
  return {
    before,
    bridge,
    app,
    viewState,
    storage,
    setViewStateRequests: () => inbound.filter((m) => m.method === SET_VIEW_STATE_METHOD).length,
    /** Send ui/set-view-state as given, past every View-side check. */
    forceSave: (state) => app.request({ method: SET_VIEW_STATE_METHOD, params: { state } }, { "~standard": { version: 1, vendor: "t", validate: (value) => ({ value }) } }),
    /** The View still works: a tools/call round trip. */
    ping: async () => (await app.callServerTool({ name: "ping", arguments: {} })).content[0].text,
  };
}

async function mint(payload, { ttlSeconds = 600, nowMs = Date.now() } = {}) {
  const codec = createRequestStateCodec({ key: KEY, ttlSeconds });
  return atClock(nowMs, () => codec.mint({ p: "v", d: payload }));
}
const result = (token) => ({ content: [{ type: "text", text: "ok" }], ...(token !== undefined && { _meta: { [STATE_META_KEY]: token } }) });

describe("mcp-sealed-state/app + app-bridge over ext-apps 2.0.4 (in memory)", () => {
  test("restored state and maxBytes come from the raw ui/initialize; saves reach the store; a new bridge reads it back", async () => {
    const storage = memoryStore();
    const h = await pair({ storage, maxBytes: 1024 });
    assert.ok(h.viewState instanceof ViewState);
    assert.equal(h.viewState.offered, true);
    assert.equal(h.viewState.maxBytes, 1024);
    assert.equal(h.viewState.restored, null);
    assert.deepEqual(h.viewState.rawInitializeResult.hostCapabilities.viewState, { maxBytes: 1024 });
    assert.equal(h.app.getHostCapabilities().viewState, undefined, "ext-apps' App drops the key: the raw result is needed");
    assert.equal(await viewStateOf(h.app), h.viewState);

    const saved = { tab: "details", note: "é😀" };
    assert.equal(await h.viewState.save(saved), true);
    assert.deepEqual(storage.value, saved);
    assert.deepEqual(h.viewState.state, saved);
    assert.deepEqual(h.bridge.viewState, saved);
    assert.equal(h.bridge.viewStateOffered, true);

    const again = await pair({ storage });
    assert.deepEqual(again.viewState.restored, saved, "a reload of the Host page: a new bridge reads the store");
    assert.equal(storage.loads, 2);
  });

  test("a state over maxBytes is refused in the View (never sent) and by the Host (-32602)", async () => {
    const h = await pair({ maxBytes: 64 });
    const big = { blob: "x".repeat(100) };
    await assert.rejects(h.viewState.save(big), (e) => e instanceof ViewStateError && e.code === -32602);
    assert.equal(h.setViewStateRequests(), 0);
    await assert.rejects(h.forceSave(big), (e) => e.code === -32602);
    await assert.rejects(h.forceSave([1, 2]), (e) => e.code === -32602);
    assert.deepEqual(h.storage.saves, []);
  });

  test("a Host without the capability: save() sends nothing and resolves false", async () => {
    const h = await pair({ plain: true });
    assert.equal(h.viewState.offered, false);
    assert.equal(h.viewState.maxBytes, 65536, "no Host limit: the View-side stores' 64 KiB");
    assert.equal(h.viewState.restored, null);
    assert.equal(await h.viewState.save({ a: 1 }), false);
    assert.equal(await h.viewState.save(null), false);
    assert.match(await h.ping(), /pong ping/);
    assert.equal(h.setViewStateRequests(), 0);
  });

  const unreadable = {
    "load() throws": () => ({
      load: () => {
        throw new Error("disk on fire");
      },
      save: async () => {},
    }),
    "load() rejects": () => ({
      load: async () => {
        throw new Error("store down");
      },
      save: async () => {},
    }),
    "load() hangs": () => ({ load: never, save: async () => {} }),
    "an array is stored": () => ({ load: async () => [1, 2], save: async () => {} }),
    "a string is stored": () => ({ load: () => "text", save: async () => {} }),
    "a number is stored": () => ({ load: async () => 5, save: async () => {} }),
  };
  for (const [name, make] of Object.entries(unreadable)) {
    test(`an unreadable store (${name}): no capability, no restored state, forced saves -32603, the View keeps working`, async () => {
      const storage = make();
      const saves = [];
      const save = storage.save;
      storage.save = (s) => (saves.push(s), save(s));
      const unavailable = [];
      const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
      const bridge = new ViewStateAppBridge(null, HOST_INFO, HOST_CAPS, HOST_OPTIONS, { storage, storeTimeoutMs: SHORT_TIMEOUT_MS });
      bridge.onviewstateunavailable = (e) => unavailable.push(e);
      bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
      await bridge.connect(hostSide);
      const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
      const vs = await connectWithViewState(app, viewSide);
      assert.equal(vs.rawInitializeResult.hostCapabilities.viewState, undefined);
      assert.equal(Object.hasOwn(vs.rawInitializeResult.hostContext, "viewState"), false);
      assert.equal(vs.offered, false);
      assert.equal(bridge.viewStateOffered, false);
      assert.equal(unavailable.length, 1);
      if (name === "load() hangs") assert.match(unavailable[0].message, new RegExp(`longer than ${SHORT_TIMEOUT_MS} ms`));
      assert.equal(await vs.save({ a: 1 }), false, "nothing sent");
      await assert.rejects(
        app.request({ method: SET_VIEW_STATE_METHOD, params: { state: { a: 1 } } }, { "~standard": { version: 1, vendor: "t", validate: (value) => ({ value }) } }),
        (e) => e.code === -32603,
      );
      assert.deepEqual(saves, [], "state the Host has not read is never overwritten");
      assert.equal((await app.callServerTool({ name: "x", arguments: {} })).content[0].text, "pong");
    });
  }

  test("a store whose save() throws or hangs: -32603, the last state is kept, the next save works once the hung call settles", async () => {
    const storage = memoryStore({ n: 0 });
    let mode = "ok";
    let settleHung = () => {};
    const save = storage.save;
    storage.save = (state) => {
      if (mode === "throw") throw new Error("quota exceeded");
      if (mode === "hang") return new Promise((resolve) => (settleHung = resolve));
      return save(state);
    };
    const h = await pair({ storage, storeTimeoutMs: SHORT_TIMEOUT_MS });
    assert.deepEqual(h.viewState.restored, { n: 0 });
    let kept = { n: 0 };
    for (const failing of ["throw", "hang"]) {
      mode = failing;
      await assert.rejects(h.viewState.save({ n: failing }), (e) => e instanceof ViewStateError && e.code === -32603, failing);
      assert.deepEqual(h.viewState.state, kept, `${failing}: the View's record is unchanged`);
      assert.deepEqual(h.bridge.viewState, kept, `${failing}: the Host's lastSaved is unchanged`);
      assert.match(await h.ping(), /pong/);
      settleHung(); // the timed-out call holds the store until it settles
      mode = "ok";
      kept = { n: `after ${failing}` };
      assert.equal(await h.viewState.save(kept), true);
      assert.deepEqual(storage.value, kept);
    }
    // The packed entry exports the one definition (rendered from tests/constants.rs).
    assert.equal(DEFAULT_STORE_TIMEOUT_MS, CONSTANTS.DEFAULT_STORE_TIMEOUT_MS);
    assert.equal(DEFAULT_VIEW_STATE_MAX_BYTES, CONSTANTS.DEFAULT_VIEW_STATE_MAX_BYTES);
  });

  test("a save() that never settles does not wedge the next render: its ui/initialize is answered, without the capability", async () => {
    const storage = memoryStore({ n: 0 });
    storage.save = never;
    const unavailable = [];
    const h = await pair({ storage, storeTimeoutMs: SHORT_TIMEOUT_MS });
    h.bridge.onviewstateunavailable = (e) => unavailable.push(e);
    await assert.rejects(h.viewState.save({ n: 1 }), (e) => e instanceof ViewStateError && e.code === -32603);
    // A reload of the View's document: a second ui/initialize on the same bridge.
    const passThrough = { "~standard": { version: 1, vendor: "t", validate: (value) => ({ value }) } };
    const params = { appInfo: { name: "v", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" };
    // The request's own timeout only turns "never answered" into a failure; the Host answers after storeTimeoutMs.
    const again = await h.app.request({ method: "ui/initialize", params }, passThrough, { timeout: 20 * SHORT_TIMEOUT_MS });
    assert.equal(again.hostCapabilities.viewState, undefined, "the store's state is unknown while a save is in flight: not offered");
    assert.equal(Object.hasOwn(again.hostContext, "viewState"), false);
    assert.equal(h.bridge.viewStateOffered, false);
    assert.equal(unavailable.length, 1);
    await assert.rejects(h.forceSave({ n: 2 }), (e) => e.code === -32603);
  });

  test("a Host callback that throws does not turn a stored state into a failed save", async () => {
    const h = await pair();
    const errors = [];
    h.bridge.onerror = (e) => errors.push(e.message);
    h.bridge.onviewstatesaved = () => {
      throw new Error("the Host's UI broke");
    };
    assert.equal(await h.viewState.save({ a: 1 }), true);
    assert.deepEqual(h.storage.value, { a: 1 });
    assert.deepEqual(errors, ["the Host's UI broke"]);
  });

  test("viewState is never sent in host-context-changed", async () => {
    const h = await pair({ storage: memoryStore({ kept: true }) });
    const changes = [];
    h.app.addEventListener("hostcontextchanged", (p) => changes.push(p));
    h.bridge.setHostContext({ theme: "dark", displayMode: "inline", platform: "web", viewState: { echoed: true } });
    await h.bridge.sendHostContextChange({ theme: "light", viewState: { echoed: true } });
    await h.ping(); // everything the Host sent before this round trip has arrived
    assert.ok(changes.length >= 1);
    for (const c of changes) assert.equal(Object.hasOwn(c, "viewState"), false, JSON.stringify(c));
  });

  test("trackViewState captures a connect made by someone else (as ext-apps' useApp does)", async () => {
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const bridge = new ViewStateAppBridge(null, HOST_INFO, HOST_CAPS, HOST_OPTIONS, { storage: memoryStore({ from: "store" }) });
    await bridge.connect(hostSide);
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    assert.equal(trackViewState(app), undefined, "connectWithViewState is the one public way to hold a ViewState");
    await app.connect(viewSide);
    const vs = await viewStateOf(app); // what the React hooks find
    assert.deepEqual(vs.restored, { from: "store" });
  });

  test("a view-state listener that throws does not fail the connect; the App's onerror hears of it", async () => {
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const bridge = new ViewStateAppBridge(null, HOST_INFO, HOST_CAPS, HOST_OPTIONS, { storage: memoryStore() });
    bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
    await bridge.connect(hostSide);
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    const errors = [];
    app.onerror = (e) => errors.push(e.message);
    const seen = [];
    onViewState(app, () => {
      throw new Error("listener broke");
    });
    onViewState(app, (vs) => seen.push(vs));
    const vs = await connectWithViewState(app, viewSide);
    assert.deepEqual(errors, ["listener broke"]);
    assert.deepEqual(seen, [vs], "the other listeners still run");
    assert.equal((await app.callServerTool({ name: "x", arguments: {} })).content[0].text, "pong");
  });
});

describe("keepFreshestToken", () => {
  test("a token over the read limit is reported, not thrown into the dispatch: later toolresult listeners still get the result", async () => {
    const errors = [];
    const seen = [];
    const h = await pair({
      beforeConnect: (app) => {
        const keeper = keepFreshestToken(app, { onerror: (e) => errors.push(e) });
        app.addEventListener("toolresult", (params) => seen.push(params));
        return keeper;
      },
    });
    const huge = "v1." + "A".repeat(1024 * 1024 + 16);
    await h.bridge.sendToolResult(result(huge));
    await h.ping();
    assert.equal(seen.length, 1, "the listener after the keeper got the result");
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof RangeError);
    assert.equal(h.before.error, errors[0]);
    assert.equal(h.before.token, null);
  });

  test("adopts the freshest token of every tool result, reports expired, and recovers with a new token", async () => {
    const changes = [];
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { onchange: (t, prev) => changes.push([t, prev]) }) });
    const keeper = h.before;
    let notified = 0;
    keeper.subscribe(() => notified++);
    const now = Date.now();
    const newer = await mint({ move: 2 }, { nowMs: now });
    const older = await mint({ move: 1 }, { ttlSeconds: 60, nowMs: now });

    await h.bridge.sendToolResult(result(older));
    await h.ping();
    assert.equal(keeper.token, older);
    await h.bridge.sendToolResult(result(newer));
    await h.bridge.sendToolResult(result(undefined));
    await h.bridge.sendToolResult(result("not-a-token"));
    await h.bridge.sendToolResult(result(newer));
    await h.ping();
    assert.equal(keeper.token, newer, "none, junk or the same token again: the latest one is kept");
    assert.deepEqual(changes, [
      [older, null],
      [newer, older],
    ]);
    assert.equal(keeper.expired, false);

    // The server refusing the token: SEALED_STATE_INVALID_MESSAGE, or ng-mcp-ui's.
    let held = newer;
    for (const [i, text] of [SEALED_STATE_INVALID_MESSAGE, "ng-mcp-ui: sealed state is invalid or expired"].entries()) {
      keeper.adopt({ isError: true, content: [{ type: "text", text }] });
      assert.equal(keeper.expired, true, text);
      assert.equal(keeper.token, held, "the refused token is still what the View holds");
      const fresh = (held = await mint({ move: 0, text }, { ttlSeconds: 900 + i }));
      assert.equal(keeper.adopt(result(fresh)), fresh);
      assert.equal(keeper.expired, false, "a new token: no longer expired");
    }
    for (const text of [`echo: ${SEALED_STATE_INVALID_MESSAGE}`, `${SEALED_STATE_INVALID_MESSAGE} (cell 9)`, `no such cell "ng-mcp-ui: sealed state is invalid or expired"`]) {
      keeper.adopt({ isError: true, content: [{ type: "text", text }] });
      assert.equal(keeper.expired, false, `an error text that only contains the message is not a refusal: ${text}`);
    }
    assert.equal(keeper.offer(42), keeper.token, "offer() ignores what is not a string");
    assert.ok(notified >= 5);
    keeper.reset();
    assert.equal(keeper.token, null);
    keeper.dispose();
    await h.bridge.sendToolResult(result(newer));
    await h.ping();
    assert.equal(keeper.token, null, "disposed: no longer listening");
  });

  test("the latest tool result wins whatever its exp: a same-second replay or a forged far-future token cannot pin the keeper", async () => {
    const changes = [];
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { onchange: (t) => changes.push(t) }) });
    const keeper = h.before;
    const now = Date.now();
    const start = await mint({ game: "start" }, { nowMs: now });
    const move = await mint({ game: "after a move" }, { nowMs: now }); // the same second: the same exp
    // Forged: another key, and an exp ten years out; the widget cannot tell it from a genuine token.
    const forged = await atClock(now + 10 * 365 * 86400e3, () => createRequestStateCodec({ key: "a forger's key of at least 32 bytes!!" }).mint({ p: "v", d: { game: "forged" } }));

    await h.bridge.sendToolResult(result(start)); // the render's result
    await h.ping();
    assert.equal(keeper.adopt(result(move)), move, "your own call's result replaces the render's");
    await h.bridge.sendToolResult(result(start)); // the Host replays the render's result
    await h.ping();
    assert.equal(keeper.token, move, "a replay of the render's result does not replace your move");
    assert.equal(keeper.offer(start), move, "nor does a token from elsewhere");
    assert.equal(keeper.adopt(result(move)), move);
    assert.deepEqual(changes, [start, move], "the identical token changes nothing");

    assert.equal(keeper.adopt(result(forged)), forged, "a far-future token in your own call's result is kept (arrival order)");
    const next = await mint({ game: "the next move" }, { nowMs: now });
    assert.equal(keeper.adopt(result(next)), next, "...and the next result replaces it: no pin");
    await h.bridge.sendToolResult(result(forged));
    await h.ping();
    assert.equal(keeper.token, next, "a notified far-future token does not replace your own call's");

    const expired = await mint({ game: "old" }, { ttlSeconds: 60, nowMs: now - 3600e3 });
    assert.equal(keeper.adopt(result(expired)), next, "an expired token is never kept");

    keeper.reset();
    await h.bridge.sendToolResult(result(forged));
    await h.bridge.sendToolResult(result(start));
    await h.ping();
    assert.equal(keeper.token, start, "without a call of your own, notified results count in arrival order too");
    assert.equal(keeper.offer(move), move, "and a token offered later (the restored one) replaces the replayed result");
  });

  test("expiry is judged by now(); an expired or malformed initial token is not kept", async () => {
    const t0 = Date.parse("2030-01-01T00:00:00Z");
    const token = await mint({ a: 1 }, { ttlSeconds: 60, nowMs: t0 });
    let clock = t0 + 61e3;
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { initial: token, now: () => clock }) });
    assert.equal(h.before.token, null, "expired by now(): not kept");
    clock = t0;
    assert.equal(h.before.offer(token), token);
    const bare = await pair({ beforeConnect: (app) => keepFreshestToken(app, { initial: "not-a-token" }) });
    assert.equal(bare.before.token, null);
    assert.throws(() => keepFreshestToken(h.app, { now: 5 }), TypeError);
  });

  test("a callback that throws reaches the caller and leaves the keeper consistent", async () => {
    const h = await pair({
      beforeConnect: (app) =>
        keepFreshestToken(app, {
          onchange: () => {
            throw new Error("render failed");
          },
        }),
    });
    const keeper = h.before;
    const token = await mint({ a: 1 });
    assert.throws(() => keeper.adopt(result(token)), /render failed/);
    assert.equal(keeper.token, token);
    assert.equal(keeper.adopt(result(token)), token, "still usable");
  });
});

test("mcp-sealed-state/widget needs neither ext-apps nor React; the adapters say what is missing", () => {
  // A copy of the installed package with no peers beside it (the consumer links them).
  const dir = mkdtempSync(join(tmpdir(), "mss-no-peers-"));
  try {
    cpSync(PACKAGE_DIR, join(dir, "node_modules/mcp-sealed-state"), { recursive: true, dereference: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "no-peers", private: true, type: "module" }));
    const script = `
      const w = await import("mcp-sealed-state/widget");
      const out = { widget: typeof w.readTokenUnverified === "function" && typeof w.ViewStateSaveQueue === "function" };
      for (const entry of ["app", "app-bridge", "react"]) {
        try { await import("mcp-sealed-state/" + entry); out[entry] = "loaded"; }
        catch (e) { out[entry] = e.code + " " + e.message; }
      }
      console.log(JSON.stringify(out));`;
    const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" }));
    assert.equal(out.widget, true);
    assert.match(out.app, /ERR_MODULE_NOT_FOUND.*@modelcontextprotocol\/ext-apps/);
    assert.match(out["app-bridge"], /ERR_MODULE_NOT_FOUND.*@modelcontextprotocol\/ext-apps/);
    assert.match(out.react, /ERR_MODULE_NOT_FOUND.*'react'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
