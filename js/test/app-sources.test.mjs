// Where the token and the viewUUID reach the View, and ChatGPT's structured
// widget state (docs/hosts.md, "Where the token and the viewUUID reach the
// View" and "View state on every host"), from the packed
// tarball over the REAL ext-apps 2.0.4 App and AppBridge linked in memory.
//
// `window.openai` here is a stand-in of ChatGPT's documented Apps SDK globals
// (toolResponseMetadata: the tool result's `_meta`, which ChatGPT strips from
// ui/notifications/tool-result; widgetState `{ modelContent, privateContent,
// imageIds }`; setWidgetState; the `openai:set_globals` event on window),
// named so. The same event path on a real window, in Chromium: app.browser.test.mjs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { importPackage } from "./support.mjs";
import { QuotaStorage, setGlobal, setGlobalGetter } from "./frame-globals.mjs";
import { atClock } from "../lib/clock.mjs";

const { App } = await import("@modelcontextprotocol/ext-apps");
const { AppBridge } = await import("@modelcontextprotocol/ext-apps/app-bridge");
const { LOCAL_KEY_PREFIX, connectWithViewState, keepFreshestToken } = await importPackage("/app");
const { STATE_META_KEY, adoptToken } = await importPackage("/widget");

const KEY = "an app sources test key of at least 32 bytes";
const HOST_INFO = { name: "test-host", version: "1.0.0" };
const SET_GLOBALS = "openai:set_globals";

async function mint(payload, { ttlSeconds = 600, nowMs = Date.now(), key = KEY } = {}) {
  const codec = createRequestStateCodec({ key, ttlSeconds });
  return atClock(nowMs, () => codec.mint({ p: "v", d: payload }));
}
const meta = (token, extra = {}) => ({ [STATE_META_KEY]: token, ...extra });
const text = [{ type: "text", text: "ok" }];

/** A Host (plain AppBridge, as most hosts are) and a View linked in memory; `beforeConnect(app)` runs before connect. */
async function pair({ beforeConnect, stores } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const bridge = new AppBridge(null, HOST_INFO, {}, {});
  bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
  await bridge.connect(hostSide);
  const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
  const before = beforeConnect?.(app);
  const viewState = await connectWithViewState(app, viewSide, stores === undefined ? undefined : { stores });
  return {
    bridge,
    app,
    before,
    viewState,
    /** The View still works: a tools/call round trip (everything the Host sent before it has arrived). */
    ping: async () => (await app.callServerTool({ name: "ping", arguments: {} })).content[0].text,
  };
}

/** A window stand-in: an EventTarget with ChatGPT's `openai` globals. `fire(globals)` updates them and fires openai:set_globals as ChatGPT does. */
function chatgptWindow(openai = {}) {
  const win = new EventTarget();
  win.openai = openai;
  win.fire = (globals) => {
    Object.assign(win.openai, globals);
    win.dispatchEvent(Object.assign(new Event(SET_GLOBALS), { detail: { globals } }));
  };
  return win;
}

describe("adoptToken: the result's _meta, then its structuredContent", () => {
  test("the first v1 token of _meta and structuredContent; a non-v1 structuredContent token changes nothing", async () => {
    const a = await mint({ a: 1 });
    const b = await mint({ b: 1 }, { ttlSeconds: 900 });
    assert.equal(adoptToken(null, { content: text, structuredContent: meta(a) }), a, "a host that drops _meta: the mirror serves");
    assert.equal(adoptToken(null, { _meta: meta(a), structuredContent: meta(b) }), a, "_meta first, whatever the mirror's exp");
    assert.equal(adoptToken(null, { _meta: meta("junk"), structuredContent: meta(a) }), a, "a _meta value that is not a v1 token: the next source");
    assert.equal(adoptToken(a, { structuredContent: meta("v1.not-a-token") }), a, "a structuredContent token that is not v1 changes nothing");
    assert.equal(adoptToken(a, { structuredContent: [a] }), a);
    assert.equal(adoptToken(null, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { structuredContent: meta(b) } }), b, "inside the notification");
    const throwing = {
      get _meta() {
        throw new Error("getter");
      },
      structuredContent: meta(a),
    };
    assert.equal(adoptToken(null, throwing), a, "a _meta getter that throws reads as none");
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
      },
    );
    assert.equal(adoptToken(b, hostile), b, "a result whose every getter throws: nothing");
  });
});

describe("keepFreshestToken: every source, the same rule", () => {
  test("the order _meta > toolResponseMetadata > structuredContent, and keeper.source", async () => {
    const [t0, t1, t2, t3] = await Promise.all([0, 1, 2, 3].map((n) => mint({ n })));
    const win = chatgptWindow({ toolResponseMetadata: meta(t0) });
    const changes = [];
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win, onchange: (t, prev) => changes.push([t, prev]) }) });
    const keeper = h.before;
    assert.equal(keeper.token, t0, "window.openai.toolResponseMetadata is read when the keeper starts");
    assert.equal(keeper.source, "toolResponseMetadata");
    assert.deepEqual(changes, [[t0, null]], "its onchange ran a microtask later");

    // ChatGPT's notification: _meta stripped, the mirror present; toolResponseMetadata comes first.
    await h.bridge.sendToolResult({ content: text, structuredContent: meta(t1) });
    await h.ping();
    assert.equal(keeper.token, t0, "toolResponseMetadata (unchanged: nothing new) is read before structuredContent");

    await h.bridge.sendToolResult({ content: text, _meta: meta(t1), structuredContent: meta(t2) });
    await h.ping();
    assert.equal([keeper.token, keeper.source].join(), [t1, "_meta"].join(), "the result's own _meta first");

    win.fire({ toolResponseMetadata: meta(t2) });
    assert.equal([keeper.token, keeper.source].join(), [t2, "toolResponseMetadata"].join(), "openai:set_globals with a new token");

    keeper.reset();
    const bare = await pair({ beforeConnect: (app) => keepFreshestToken(app) });
    await bare.bridge.sendToolResult({ content: text, structuredContent: meta(t3) });
    await bare.ping();
    assert.equal([bare.before.token, bare.before.source].join(), [t3, "structuredContent"].join(), "no _meta, no window.openai: the mirror");
    assert.equal(bare.before.offer(t0), t0);
    assert.equal(bare.before.source, "offer");
    bare.before.reset();
    assert.equal(bare.before.source, null);
    assert.equal(bare.before.adopt({ content: text, structuredContent: meta(t1) }), t1, "your own call's mirror");
    assert.equal(bare.before.source, "structuredContent");
  });

  test("a toolResponseMetadata that is the whole tool result (the mcp-use Inspector's): its _meta is read, for the token and the viewUUID", async () => {
    const [t0, t1] = await Promise.all([0, 1].map((n) => mint({ n })));
    const whole = (token, viewUUID) => ({ _meta: meta(token, { viewUUID }), content: text, structuredContent: { board: "........." } });
    const win = chatgptWindow({ toolResponseMetadata: whole(t0, "view-0") });
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win }) });
    assert.equal([h.before.token, h.before.source].join(), [t0, "toolResponseMetadata"].join(), "read one level down when the keeper starts");
    win.fire({ toolResponseMetadata: whole(t1, "view-1") });
    assert.equal(h.before.token, t1, "and on openai:set_globals");
    // An object with a token of its own is ChatGPT's _meta: a `_meta` member beside it is not looked into.
    win.fire({ toolResponseMetadata: { ...meta(t0), _meta: meta(t1) } });
    assert.equal(h.before.token, t0);
    h.before.reset();

    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    setGlobal("openai", { toolResponseMetadata: whole(t0, "whole-result") });
    const v = await pair({ stores: ["local"] });
    assert.equal(v.viewState.store, "local", "the viewUUID inside its _meta, at connect");
    assert.equal(await v.viewState.save({ n: 1 }), true);
    assert.ok(storage.getItem(LOCAL_KEY_PREFIX + "whole-result"));
  });

  test("openai:set_globals with the same token changes nothing (ChatGPT fires it for theme, display mode...), even after an offer", async () => {
    const [render, restored] = await Promise.all([mint({ render: 1 }), mint({ restored: 1 })]);
    const win = chatgptWindow({ toolResponseMetadata: meta(render), theme: "light" });
    const changes = [];
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win, onchange: (t) => changes.push(t) }) });
    const keeper = h.before;
    await h.ping();
    assert.equal(keeper.offer(restored), restored, "after a reload, the restored token is offered");
    win.fire({ theme: "dark" });
    win.fire({ displayMode: "fullscreen", toolResponseMetadata: meta(render) });
    win.dispatchEvent(new Event(SET_GLOBALS)); // no detail at all: window.openai is read again
    await h.bridge.sendToolResult({ content: text }); // ChatGPT's notification of the render's result, _meta stripped
    await h.ping();
    assert.equal(keeper.token, restored, "the render's token read again is no new arrival");
    assert.equal(keeper.source, "offer");
    assert.deepEqual(changes, [render, restored]);
  });

  test("the keeper's rule per source: a replay or a forged far-future token never pins, and toolResponseMetadata never replaces your own call's token", async () => {
    const now = Date.now();
    const render = await mint({ game: "start" }, { nowMs: now });
    const move = await mint({ game: "move" }, { nowMs: now });
    const forged = await atClock(now + 10 * 365 * 86400e3, () => createRequestStateCodec({ key: "a forger's key of at least 32 bytes!!" }).mint({ p: "v", d: { game: "forged" } }));
    const next = await mint({ game: "next" }, { nowMs: now });
    const expired = await mint({ game: "old" }, { ttlSeconds: 60, nowMs: now - 3600e3 });
    const win = chatgptWindow({ toolResponseMetadata: meta(render) });
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win }) });
    const keeper = h.before;
    assert.equal(keeper.adopt({ content: text, structuredContent: meta(move) }), move, "your own call (its mirror)");
    win.fire({ toolResponseMetadata: meta(forged) });
    await h.bridge.sendToolResult({ content: text, _meta: meta(render) });
    await h.bridge.sendToolResult({ content: text, structuredContent: meta(forged) });
    await h.ping();
    assert.equal(keeper.token, move, "no Host source replaces your own call's token");
    assert.equal(keeper.adopt({ content: text, _meta: meta(forged) }), forged, "a forged token in your own call's result is kept (arrival order)...");
    assert.equal(keeper.adopt({ content: text, structuredContent: meta(next) }), next, "...and the next result replaces it: no pin");
    assert.equal(keeper.adopt({ content: text, _meta: meta(expired) }), next, "an expired token is never kept");

    keeper.reset();
    win.fire({ toolResponseMetadata: meta(expired) });
    assert.equal(keeper.token, null, "an expired toolResponseMetadata token is not kept");
    win.fire({ toolResponseMetadata: meta(forged) });
    await h.bridge.sendToolResult({ content: text, structuredContent: meta(render) });
    await h.ping();
    assert.equal(keeper.token, forged, "toolResponseMetadata comes before the mirror of the same notification");
    win.fire({ toolResponseMetadata: meta(next) });
    assert.equal(keeper.token, next, "without a call of your own, the Host's results count in arrival order: the forged one did not pin");
  });

  test("your own call's result carrying the token the Host gave (same payload, same second: the same bytes) makes it your own call's: a Host replay after it changes nothing", async () => {
    const now = Date.now();
    const [older, render] = await Promise.all([mint({ game: "older" }, { nowMs: now - 60e3 }), mint({ game: "start" }, { nowMs: now })]);
    const changes = [];
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { onchange: (t) => changes.push(t) }) });
    const keeper = h.before;
    await h.bridge.sendToolResult({ content: text, _meta: meta(render) });
    await h.ping();
    assert.equal(keeper.adopt({ content: text, _meta: meta(render) }), render, "your own call's result: the same token");
    assert.deepEqual(changes, [render], "an identical token changes nothing visible");
    await h.bridge.sendToolResult({ content: text, _meta: meta(older) });
    await h.ping();
    assert.equal(keeper.token, render, "the Host's replay of an older result does not replace your own call's token");
    keeper.offer(older);
    assert.equal(keeper.token, render, "nor does an offer");
  });

  test("after a reload in ChatGPT, `initial` (the restored token, later than the render's) is not replaced by the render's toolResponseMetadata", async () => {
    const [render, restored] = await Promise.all([mint({ game: "start" }), mint({ game: "after my move" })]);
    const win = chatgptWindow({ toolResponseMetadata: meta(render) });
    const changes = [];
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win, initial: restored, onchange: (t) => changes.push(t) }) });
    const keeper = h.before;
    await h.bridge.sendToolResult({ content: text }); // ChatGPT's notification of the render's result, _meta stripped
    win.fire({ theme: "dark" });
    await h.ping();
    assert.equal(keeper.token, restored, "the restored token is kept, as offer() after the render's result keeps it");
    assert.equal(keeper.source, "offer");
    assert.deepEqual(changes, []);
    win.fire({ toolResponseMetadata: meta(await mint({ game: "a new result" })) });
    assert.notEqual(keeper.token, restored, "a new result from the Host still counts, in arrival order");
  });

  test("bad input: a window.openai whose getters throw, or whose toolResponseMetadata is not an object, gives nothing; the View keeps working", async () => {
    const good = await mint({ good: 1 });
    const throwingOpenai = Object.defineProperty(new EventTarget(), "openai", {
      get() {
        throw new Error("openai getter");
      },
    });
    const throwingMetadata = chatgptWindow(
      Object.defineProperty({}, "toolResponseMetadata", {
        get() {
          throw new Error("toolResponseMetadata getter");
        },
      }),
    );
    const hostileProxy = chatgptWindow(
      new Proxy(
        {},
        {
          get() {
            throw new Error("trap");
          },
        },
      ),
    );
    const tokenGetter = chatgptWindow({
      toolResponseMetadata: Object.defineProperty({}, STATE_META_KEY, {
        enumerable: true,
        get() {
          throw new Error("token getter");
        },
      }),
    });
    const windows = {
      throwingOpenai,
      throwingMetadata,
      hostileProxy,
      tokenGetter,
      string: chatgptWindow({ toolResponseMetadata: JSON.stringify(meta(good)) }),
      array: chatgptWindow({ toolResponseMetadata: [meta(good)] }),
      null: chatgptWindow({ toolResponseMetadata: null }),
      openaiNotObject: Object.assign(new EventTarget(), { openai: "openai" }),
      notv1: chatgptWindow({ toolResponseMetadata: meta("v1.forged.not-a-token") }),
      number: chatgptWindow({ toolResponseMetadata: meta(42) }),
    };
    for (const [name, win] of Object.entries(windows)) {
      const errors = [];
      const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win, onerror: (e) => errors.push(e) }) });
      const keeper = h.before;
      assert.equal(keeper.token, null, name);
      // An event whose detail getter throws, then a notification: nothing from window.openai, the result still serves.
      const event = new Event(SET_GLOBALS);
      Object.defineProperty(event, "detail", {
        get() {
          throw new Error("detail getter");
        },
      });
      win.dispatchEvent(event);
      win.dispatchEvent(Object.assign(new Event(SET_GLOBALS), { detail: { globals: { toolResponseMetadata: "not an object" } } }));
      await h.bridge.sendToolResult({ content: text, structuredContent: meta(good) });
      assert.equal(await h.ping(), "pong", `${name}: the View keeps working`);
      assert.equal(keeper.token, good, `${name}: the other sources still serve`);
      assert.equal(keeper.source, "structuredContent", name);
      assert.deepEqual(errors, [], `${name}: nothing to report`);
      keeper.dispose();
    }
  });

  test("dispose() stops listening to the window too", async () => {
    const [a, b] = await Promise.all([mint({ a: 1 }), mint({ b: 1 })]);
    const win = chatgptWindow({ toolResponseMetadata: meta(a) });
    const h = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win }) });
    h.before.dispose();
    win.fire({ toolResponseMetadata: meta(b) });
    assert.equal(h.before.token, a);
  });
});

// ---- the View's stores: window.openai and localStorage as globals, as in a frame ----

/** ChatGPT's widget state, a stand-in: setWidgetState replaces widgetState. `persist: false` is a development tool's (memory only: a new one per render). */
function openaiStandIn(widgetState = null, { toolResponseMetadata } = {}) {
  const openai = {
    widgetState,
    toolResponseMetadata,
    calls: [],
    setWidgetState(state) {
      openai.calls.push(structuredClone(state));
      openai.widgetState = state;
      return Promise.resolve();
    },
  };
  return openai;
}

describe('the viewUUID from every source ("local" store)', () => {
  test("the result's _meta, then window.openai.toolResponseMetadata, then structuredContent", async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    const cases = [
      [{ _meta: { viewUUID: "from-meta" }, structuredContent: { viewUUID: "from-sc" } }, undefined, "from-meta"],
      [{ structuredContent: { viewUUID: "from-sc" } }, undefined, "from-sc"],
      [{ _meta: { viewUUID: "" }, structuredContent: { viewUUID: "from-sc" } }, undefined, "from-sc"],
      [{ structuredContent: { viewUUID: 42 } }, undefined, null],
      [{ structuredContent: { viewUUID: "x".repeat(129) } }, undefined, null],
    ];
    for (const [result, _, expected] of cases) {
      const h = await pair({ stores: ["local"] });
      await h.bridge.sendToolResult({ content: text, ...result });
      await h.viewState.ready;
      if (expected === null) {
        assert.equal(h.viewState.store, "memory", JSON.stringify(result));
        continue;
      }
      assert.equal(h.viewState.store, "local");
      assert.equal(await h.viewState.save({ from: expected }), true);
      assert.deepEqual(JSON.parse(storage.getItem(LOCAL_KEY_PREFIX + expected)), { from: expected }, JSON.stringify(result));
    }
  });

  test("window.openai.toolResponseMetadata's viewUUID: read before structuredContent, and at once when the View connects", async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    // A window.openai without setWidgetState: not an "openai" store, but its toolResponseMetadata is a source.
    setGlobal("openai", { toolResponseMetadata: { viewUUID: "from-openai" } });
    const h = await pair({ stores: ["local"] });
    assert.equal(h.viewState.store, "local", "decided at connect: no tool result needed");
    assert.equal(await h.viewState.save({ n: 1 }), true);
    assert.ok(storage.getItem(LOCAL_KEY_PREFIX + "from-openai"));

    setGlobal("openai", { toolResponseMetadata: "not an object" });
    const late = await pair({ stores: ["local"] });
    assert.equal(late.viewState.store, "memory", "nothing usable there: waits for the tool result");
    await late.bridge.sendToolResult({ content: text, structuredContent: { viewUUID: "mirror" } });
    await late.viewState.ready;
    assert.equal(late.viewState.store, "local");
    await late.viewState.save({ n: 2 });
    assert.ok(storage.getItem(LOCAL_KEY_PREFIX + "mirror"));
  });
});

describe('"openai": ChatGPT\'s structured widget state, privateContent only', () => {
  test("restored from widgetState.privateContent; a save keeps modelContent and imageIds and never writes the top level", async () => {
    const openai = openaiStandIn({ modelContent: { summary: "the page's" }, privateContent: { tab: "board" }, imageIds: ["img-1"] });
    setGlobal("openai", openai);
    const h = await pair({ stores: ["openai"] });
    assert.equal(h.viewState.store, "openai");
    assert.deepEqual(h.viewState.restored, { tab: "board" });
    assert.equal(h.viewState.restoredFrom, "openai");
    assert.equal(await h.viewState.save({ tab: "history", cells: [1, 2] }), true);
    assert.deepEqual(openai.calls, [{ modelContent: { summary: "the page's" }, privateContent: { tab: "history", cells: [1, 2] }, imageIds: ["img-1"] }]);
    assert.equal(await h.viewState.save(null), true);
    assert.deepEqual(openai.calls[1], { modelContent: { summary: "the page's" }, privateContent: null, imageIds: ["img-1"] });

    const fresh = openaiStandIn(null);
    setGlobal("openai", fresh);
    const first = await pair({ stores: ["openai"] });
    assert.equal(first.viewState.restored, null);
    await first.viewState.save({ a: 1 });
    assert.deepEqual(fresh.calls, [{ privateContent: { a: 1 } }], "nothing at the top level");

    const legacy = openaiStandIn({ tab: "top-level state of another writer" });
    setGlobal("openai", legacy);
    const old = await pair({ stores: ["openai"] });
    assert.equal(old.viewState.restored, null, "the top level is never read as view state");
  });

  test("bad input: widgetState not an object, a privateContent not an object, getters that throw: nothing restored, the View keeps working", async () => {
    const widgetStates = {
      string: "state",
      number: 7,
      array: [{ privateContent: { a: 1 } }],
      privateString: { privateContent: "a" },
      privateArray: { privateContent: [1, 2] },
      privateNumber: { privateContent: 3 },
    };
    for (const [name, widgetState] of Object.entries(widgetStates)) {
      const openai = openaiStandIn(widgetState);
      setGlobal("openai", openai);
      const h = await pair({ stores: ["openai"] });
      assert.equal(h.viewState.store, "openai", name);
      assert.equal(h.viewState.restored, null, name);
      assert.equal(await h.ping(), "pong", name);
    }
    const throwing = openaiStandIn();
    Object.defineProperty(throwing, "widgetState", {
      get() {
        throw new Error("widgetState getter");
      },
    });
    setGlobal("openai", throwing);
    const h = await pair({ stores: ["openai"] });
    assert.equal(h.viewState.restored, null);
    assert.equal(await h.viewState.save({ a: 1 }), false, "a widgetState it cannot read is not overwritten");
    assert.deepEqual(throwing.calls, []);
    assert.equal(await h.ping(), "pong");

    const notObject = openaiStandIn("the page's own state");
    setGlobal("openai", notObject);
    const h2 = await pair({ stores: ["openai"] });
    assert.equal(await h2.viewState.save({ a: 1 }), false, "nor one that is not an object");
    assert.deepEqual(notObject.calls, []);

    setGlobalGetter("openai", () => {
      throw new Error("openai getter");
    });
    const h3 = await pair({ stores: ["openai"] });
    assert.equal(h3.viewState.store, "memory", "a window.openai getter that throws: not a store");
    assert.equal(await h3.ping(), "pong");
  });

  test("a window.openai that does not persist: written through to local, restored from openai first, then local", async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    const uuid = "view-1";
    // A development tool's window.openai: memory only, a new one on each reload, toolResponseMetadata with the viewUUID.
    setGlobal("openai", openaiStandIn(null, { toolResponseMetadata: { viewUUID: uuid } }));
    const first = await pair();
    assert.equal(first.viewState.store, "openai");
    assert.equal(first.viewState.writeThrough, "local");
    assert.equal(first.viewState.restoredFrom, null);
    assert.equal(await first.viewState.save({ moves: 3 }), true);
    assert.deepEqual(first.viewState.lastSave, { openai: true, local: true });
    assert.deepEqual(JSON.parse(storage.getItem(LOCAL_KEY_PREFIX + uuid)), { moves: 3 });

    setGlobal("openai", openaiStandIn(null, { toolResponseMetadata: { viewUUID: uuid } }));
    const reloaded = await pair();
    assert.deepEqual(reloaded.viewState.restored, { moves: 3 }, "the memory-only openai lost it; local had it");
    assert.equal(reloaded.viewState.restoredFrom, "local");
    assert.equal(reloaded.viewState.store, "openai");

    setGlobal("openai", openaiStandIn({ privateContent: { moves: 4 } }, { toolResponseMetadata: { viewUUID: uuid } }));
    const persisted = await pair();
    assert.deepEqual(persisted.viewState.restored, { moves: 4 }, "openai first");
    assert.equal(persisted.viewState.restoredFrom, "openai");

    // The viewUUID from the first tool result (no toolResponseMetadata): ready waits for it.
    setGlobal("openai", openaiStandIn(null));
    const waiting = await pair();
    assert.equal(waiting.viewState.writeThrough, null);
    await waiting.bridge.sendToolResult({ content: text, _meta: { viewUUID: uuid } });
    await waiting.viewState.ready;
    assert.equal(waiting.viewState.store, "openai");
    assert.equal(waiting.viewState.writeThrough, "local");
    assert.deepEqual(waiting.viewState.restored, { moves: 3 });

    // openai restored a state: decided at once; the write-through starts with the tool result, with what was saved before.
    setGlobal("openai", openaiStandIn({ privateContent: { moves: 5 } }));
    const early = await pair();
    assert.equal(early.viewState.store, "openai", "decided at connect");
    assert.deepEqual(early.viewState.restored, { moves: 5 });
    assert.equal(early.viewState.writeThrough, null, "no viewUUID yet");
    assert.equal(await early.viewState.save({ moves: 6 }), true);
    await early.bridge.sendToolResult({ content: text, _meta: { viewUUID: "view-2" } });
    await early.ping();
    assert.equal(early.viewState.writeThrough, "local");
    assert.deepEqual(JSON.parse(storage.getItem(LOCAL_KEY_PREFIX + "view-2")), { moves: 6 }, "the save made before is written through");

    // options.stores without "local": no write-through.
    setGlobal("openai", openaiStandIn(null, { toolResponseMetadata: { viewUUID: uuid } }));
    const only = await pair({ stores: ["openai"] });
    assert.equal(only.viewState.writeThrough, null);
    assert.equal(only.viewState.restored, null);
  });

  test("setWidgetState that throws or rejects: save resolves false for that store, and the write-through still happens", async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    for (const [name, setWidgetState] of [
      [
        "throws",
        () => {
          throw new Error("no");
        },
      ],
      ["rejects", () => Promise.reject(new Error("no"))],
    ]) {
      const uuid = `view-${name}`;
      setGlobal("openai", { widgetState: null, toolResponseMetadata: { viewUUID: uuid }, setWidgetState });
      const h = await pair();
      assert.equal(h.viewState.writeThrough, "local");
      assert.equal(await h.viewState.save({ kept: name }), false, name);
      assert.deepEqual(h.viewState.lastSave, { openai: false, local: true }, name);
      assert.deepEqual(JSON.parse(storage.getItem(LOCAL_KEY_PREFIX + uuid)), { kept: name }, name);
      assert.equal(await h.ping(), "pong");
    }
  });
});

describe("a revoked Proxy in window.openai (Array.isArray throws on one) reads as nothing", () => {
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };

  test("as widgetState or toolResponseMetadata: the View connects, keeps working, and the other sources serve", async () => {
    setGlobal("localStorage", new QuotaStorage());
    const openai = openaiStandIn(revoked(), { toolResponseMetadata: revoked() });
    setGlobal("openai", openai);
    const h = await pair();
    await h.bridge.sendToolResult({ content: text, _meta: { viewUUID: "revoked" } });
    await h.viewState.ready;
    assert.equal(h.viewState.store, "openai");
    assert.equal(h.viewState.writeThrough, "local");
    assert.equal(h.viewState.restored, null);
    assert.equal(await h.viewState.save({ a: 1 }), false, "a widgetState it cannot read is not overwritten");
    assert.deepEqual(openai.calls, []);
    assert.equal(await h.ping(), "pong");

    const good = await mint({ good: 1 });
    const errors = [];
    const win = chatgptWindow({ toolResponseMetadata: revoked() });
    const k = await pair({ beforeConnect: (app) => keepFreshestToken(app, { window: win, onerror: (e) => errors.push(e) }) });
    win.dispatchEvent(new Event(SET_GLOBALS));
    await k.bridge.sendToolResult({ content: text, structuredContent: meta(good) });
    assert.equal(await k.ping(), "pong");
    assert.equal(k.before.token, good, "the mirror still serves");
    assert.equal(k.before.error, null);
    assert.deepEqual(errors, []);
    k.before.dispose();
  });
});
