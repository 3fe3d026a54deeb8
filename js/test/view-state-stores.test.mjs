// The View's store chain of mcp-sealed-state/app (docs/views.md, "View
// state"; the order is VIEW_STATE_STORES), from the packed tarball, over
// the REAL ext-apps 2.0.4 App and AppBridge linked in memory. The frame's
// globals are stand-ins set per test: `globalThis.openai` is a stand-in of
// ChatGPT's documented Apps SDK API (`window.openai.widgetState`, the saved
// state or null, and `window.openai.setWidgetState(state)`), and
// `globalThis.localStorage` a fake Storage (getItem/setItem/removeItem). The
// openai store's structured widget state and write-through: app-sources.test.mjs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { importPackage, importPackedConstants, PACKAGE_DIR } from "./support.mjs";
import { setGlobal } from "./frame-globals.mjs";

const CONSTANTS = await importPackedConstants();

const { App } = await import("@modelcontextprotocol/ext-apps");
const { AppBridge } = await import("@modelcontextprotocol/ext-apps/app-bridge");
const { LOCAL_KEY_PREFIX, VIEW_STATE_STORES, connectWithViewState, trackViewState } = await importPackage("/app");
const { DEFAULT_VIEW_STATE_MAX_BYTES, ViewStateAppBridge } = await importPackage("/app-bridge");
// The app entry's internal plumbing (the React hooks import it by relative path), the same module instance.
const { viewStateOf } = await import(pathToFileURL(join(PACKAGE_DIR, "app/tracking.js")).href);
const { ViewStateError } = await importPackage("/widget");

const HOST_INFO = { name: "test-host", version: "1.0.0" };
const LIMIT = DEFAULT_VIEW_STATE_MAX_BYTES; // 64 KiB: every store but "host" applies it
const overLimit = () => ({ blob: "x".repeat(LIMIT) });
const isInvalid = (e) => e instanceof ViewStateError && e.code === -32602;

/** A Storage stand-in over a Map; `failWrites` makes setItem throw a QuotaExceededError. */
class FakeStorage {
  map = new Map();
  failWrites = false;
  getItem(key) {
    return this.map.has(key) ? this.map.get(key) : null;
  }
  setItem(key, value) {
    if (this.failWrites) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    this.map.set(key, String(value));
  }
  removeItem(key) {
    this.map.delete(key);
  }
}

/** The documented window.openai surface: widgetState and setWidgetState(state). */
function openaiStandIn(widgetState = null) {
  const openai = {
    widgetState,
    calls: [],
    setWidgetState(state) {
      openai.calls.push(state);
      openai.widgetState = state;
      return Promise.resolve();
    },
  };
  return openai;
}

/** A Host (plain AppBridge, or ViewStateAppBridge with `storage`) and a View linked in memory. */
async function render({ hostStorage, stores, onInitialized } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const bridge = hostStorage ? new ViewStateAppBridge(null, HOST_INFO, {}, {}, { storage: hostStorage }) : new AppBridge(null, HOST_INFO, {}, {});
  bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
  if (onInitialized) bridge.oninitialized = () => onInitialized(bridge);
  await bridge.connect(hostSide);
  const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
  const viewState = await connectWithViewState(app, viewSide, stores === undefined ? undefined : { stores });
  const ping = async () => (await app.callServerTool({ name: "ping", arguments: {} })).content[0].text;
  const toolResult = (meta) => bridge.sendToolResult({ content: [{ type: "text", text: "ok" }], ...(meta !== undefined && { _meta: meta }) });
  return { bridge, app, viewState, ping, toolResult };
}

const hostStore = (value = null) => ({ value, load: async () => value, save: async () => {} });

describe('"local": localStorage under the tool result\'s viewUUID', () => {
  test("save, render the same result again: restored; another viewUUID starts fresh; null clears", async () => {
    const storage = new FakeStorage();
    setGlobal("localStorage", storage);
    const first = await render();
    assert.equal(first.viewState.store, "memory", "undecided until the tool result: nothing is kept yet");
    assert.equal(await first.viewState.save({ early: true }), false, "a save before ready keeps nothing");
    await first.toolResult({ viewUUID: "view-1" });
    assert.equal(await first.viewState.ready, first.viewState);
    assert.equal(first.viewState.store, "local");
    assert.equal(first.viewState.restored, null);
    assert.equal(first.viewState.maxBytes, LIMIT);
    assert.equal(await first.viewState.save({ tab: "moves", note: "é😀" }), true);
    assert.equal(storage.getItem(`${LOCAL_KEY_PREFIX}view-1`), '{"tab":"moves","note":"é😀"}');
    assert.deepEqual(first.viewState.state, { tab: "moves", note: "é😀" });

    const again = await render();
    await again.toolResult({ viewUUID: "view-1" });
    await again.viewState.ready;
    assert.deepEqual(again.viewState.restored, { tab: "moves", note: "é😀" });

    const other = await render();
    await other.toolResult({ viewUUID: "view-2" });
    await other.viewState.ready;
    assert.equal(other.viewState.store, "local");
    assert.equal(other.viewState.restored, null, "another view starts fresh");

    assert.equal(await again.viewState.save(null), true);
    assert.equal(storage.getItem(`${LOCAL_KEY_PREFIX}view-1`), null);
  });

  test("a state over 64 KiB, or not an object, is refused and nothing is stored", async () => {
    const storage = new FakeStorage();
    setGlobal("localStorage", storage);
    const h = await render();
    await h.toolResult({ viewUUID: "v" });
    await h.viewState.ready;
    assert.equal(await h.viewState.save({ kept: 1 }), true);
    await assert.rejects(h.viewState.save(overLimit()), isInvalid);
    await assert.rejects(h.viewState.save([1, 2]), isInvalid);
    await assert.rejects(h.viewState.save("text"), isInvalid);
    assert.equal(storage.getItem(`${LOCAL_KEY_PREFIX}v`), '{"kept":1}');
    assert.deepEqual(h.viewState.state, { kept: 1 });
    const atLimit = { blob: "x".repeat(LIMIT - '{"blob":""}'.length) };
    assert.equal(await h.viewState.save(atLimit), true, "exactly 64 KiB is within the limit");
  });

  test("the tool result may arrive before connectWithViewState returns", async () => {
    setGlobal("localStorage", new FakeStorage());
    const h = await render({ onInitialized: (bridge) => bridge.sendToolResult({ content: [], _meta: { viewUUID: "early" } }) });
    await h.viewState.ready;
    assert.equal(h.viewState.store, "local");
  });

  const badUUIDs = { "a number": 42, "an empty string": "", "129 characters": "u".repeat(129), "an object": { id: "x" }, missing: undefined };
  for (const [name, viewUUID] of Object.entries(badUUIDs)) {
    test(`a viewUUID that is ${name} is ignored: "memory", nothing written`, async () => {
      const storage = new FakeStorage();
      setGlobal("localStorage", storage);
      const h = await render();
      await h.toolResult(viewUUID === undefined ? {} : { viewUUID });
      await h.viewState.ready;
      assert.equal(h.viewState.store, "memory");
      assert.equal(await h.viewState.save({ a: 1 }), false);
      assert.equal(storage.map.size, 0);
      assert.equal(await h.ping(), "pong");
    });
  }

  test("a viewUUID of 128 characters is used", async () => {
    setGlobal("localStorage", new FakeStorage());
    const h = await render();
    await h.toolResult({ viewUUID: "u".repeat(128) });
    await h.viewState.ready;
    assert.equal(h.viewState.store, "local");
  });

  test('the Host cancelling the tool call settles ready on "memory"', async () => {
    setGlobal("localStorage", new FakeStorage());
    const h = await render();
    await h.bridge.sendToolCancelled({ reason: "user" });
    await h.viewState.ready;
    assert.equal(h.viewState.store, "memory");
  });

  test("corrupt JSON (or JSON that is not an object) under our key reads as nothing saved, and the next save overwrites it", async () => {
    const storage = new FakeStorage();
    setGlobal("localStorage", storage);
    for (const text of ["{not json", "[1,2]", "7", "null", '"text"']) {
      storage.map.set(`${LOCAL_KEY_PREFIX}c`, text);
      const h = await render();
      await h.toolResult({ viewUUID: "c" });
      await h.viewState.ready;
      assert.equal(h.viewState.store, "local", text);
      assert.equal(h.viewState.restored, null, text);
      assert.equal(await h.viewState.save({ fixed: text }), true);
      assert.deepEqual(JSON.parse(storage.getItem(`${LOCAL_KEY_PREFIX}c`)), { fixed: text });
    }
  });

  test('localStorage that throws on access (an opaque origin\'s SecurityError): "memory" at once, no tool result needed', async () => {
    Object.defineProperty(globalThis, "localStorage", {
      configurable: true,
      get() {
        throw new DOMException("The document is sandboxed and lacks the 'allow-same-origin' flag.", "SecurityError");
      },
    });
    const h = await render();
    await h.viewState.ready;
    assert.equal(h.viewState.store, "memory");
    assert.equal(await h.viewState.save({ a: 1 }), false);
    assert.equal(await h.ping(), "pong");
  });

  test('storage that refuses writes (disabled, full) fails the probe: "memory"', async () => {
    const storage = new FakeStorage();
    storage.failWrites = true;
    setGlobal("localStorage", storage);
    const h = await render();
    await h.viewState.ready;
    assert.equal(h.viewState.store, "memory");
  });

  test("a quota error on save resolves false; the state stays as it was and the View keeps working", async () => {
    const storage = new FakeStorage();
    setGlobal("localStorage", storage);
    const h = await render();
    await h.toolResult({ viewUUID: "q" });
    await h.viewState.ready;
    assert.equal(await h.viewState.save({ n: 1 }), true);
    storage.failWrites = true;
    assert.equal(await h.viewState.save({ n: 2 }), false);
    assert.deepEqual(h.viewState.state, { n: 1 });
    assert.equal(storage.getItem(`${LOCAL_KEY_PREFIX}q`), '{"n":1}');
    assert.equal(await h.ping(), "pong");
  });

  test("getItem that throws at selection falls to the next store", async () => {
    const storage = new FakeStorage();
    storage.getItem = () => {
      throw new Error("storage broke");
    };
    setGlobal("localStorage", storage);
    const h = await render();
    await h.toolResult({ viewUUID: "g" });
    await h.viewState.ready;
    assert.equal(h.viewState.store, "memory");
  });
});

describe('"openai": a stand-in of ChatGPT\'s documented window.openai (widgetState, setWidgetState)', () => {
  test("restored from widgetState.privateContent (a copy), saved through setWidgetState; over the limit refused and not called", async () => {
    const openai = openaiStandIn({ privateContent: { tab: "moves" } });
    setGlobal("openai", openai);
    setGlobal("localStorage", new FakeStorage());
    const h = await render();
    assert.equal(h.viewState.store, "openai", "decided at connect: ChatGPT's API comes before local storage");
    assert.deepEqual(h.viewState.restored, { tab: "moves" });
    assert.notEqual(h.viewState.restored, openai.widgetState.privateContent, "a copy");
    assert.equal(await h.viewState.save({ tab: "board" }), true);
    assert.deepEqual(openai.calls, [{ privateContent: { tab: "board" } }]);
    await assert.rejects(h.viewState.save(overLimit()), isInvalid);
    assert.equal(openai.calls.length, 1);
    assert.equal(await h.viewState.save(null), true);
    assert.deepEqual(openai.calls, [{ privateContent: { tab: "board" } }, { privateContent: null }]);
  });

  for (const [name, widgetState] of Object.entries({ "a string": "tab", "an array": [1], "a number": 3, null: null, missing: undefined })) {
    test(`widgetState that is ${name} reads as nothing saved`, async () => {
      setGlobal("openai", openaiStandIn(widgetState));
      const h = await render();
      assert.equal(h.viewState.store, "openai");
      assert.equal(h.viewState.restored, null);
    });
  }

  test("a setWidgetState that throws or rejects: save resolves false, the View keeps working", async () => {
    const openai = openaiStandIn();
    setGlobal("openai", openai);
    const h = await render();
    openai.setWidgetState = () => {
      throw new Error("not now");
    };
    assert.equal(await h.viewState.save({ a: 1 }), false);
    openai.setWidgetState = () => Promise.reject(new Error("not now either"));
    assert.equal(await h.viewState.save({ a: 2 }), false);
    assert.equal(h.viewState.state, null);
    assert.equal(await h.ping(), "pong");
  });

  test("window.openai without setWidgetState, or whose getter throws, is not used", async () => {
    setGlobal("openai", { widgetState: { a: 1 } });
    assert.equal((await render()).viewState.store, "memory");
    Object.defineProperty(globalThis, "openai", {
      configurable: true,
      get() {
        throw new Error("no");
      },
    });
    assert.equal((await render()).viewState.store, "memory");
  });
});

describe("the order, options.stores, and memory", () => {
  test("a Host with ui/set-view-state comes first; options.stores reorders or restricts", async () => {
    setGlobal("openai", openaiStandIn({ privateContent: { from: "openai" } }));
    const host = await render({ hostStorage: hostStore({ from: "host" }) });
    assert.equal(host.viewState.store, "host");
    assert.deepEqual(host.viewState.restored, { from: "host" });
    const reordered = await render({ hostStorage: hostStore({ from: "host" }), stores: ["openai", "host"] });
    assert.equal(reordered.viewState.store, "openai");
    assert.deepEqual(reordered.viewState.restored, { from: "openai" });
    assert.equal(reordered.viewState.offered, true, "offered still says what the Host offers");
    const onlyLocal = await render({ hostStorage: hostStore(), stores: ["local"] });
    await onlyLocal.viewState.ready;
    assert.equal(onlyLocal.viewState.store, "memory", "no storage here: memory is always the last resort");
    assert.deepEqual(VIEW_STATE_STORES, CONSTANTS.VIEW_STATE_STORES, "the packed entry exports the one definition");
  });

  test("trackViewState takes options.stores too (for an App that something else connects)", async () => {
    setGlobal("openai", openaiStandIn());
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const bridge = new ViewStateAppBridge(null, HOST_INFO, {}, {}, { storage: hostStore() });
    await bridge.connect(hostSide);
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    trackViewState(app, { stores: ["openai"] });
    await app.connect(viewSide);
    assert.equal((await viewStateOf(app)).store, "openai");
  });

  for (const [name, stores] of Object.entries({ "an unknown name": ["host", "cookies"], "a name twice": ["local", "local"], "not an array": "host", empty: [], "not a string": [1] })) {
    test(`options.stores with ${name} is a TypeError before connecting`, async () => {
      const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
      const [, viewSide] = InMemoryTransport.createLinkedPair();
      await assert.rejects(connectWithViewState(app, viewSide, { stores }), (e) => e instanceof TypeError && /options\.stores/.test(e.message));
      assert.equal(app.transport, undefined, "not connected");
    });
  }

  test("connectWithViewState(app, options) without a transport reads the options", async () => {
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    await assert.rejects(connectWithViewState(app, { stores: ["nowhere"] }), /unknown store "nowhere"/);
  });

  test('"memory": the same size rule, saves resolve false, the View keeps working', async () => {
    const h = await render();
    await h.viewState.ready;
    assert.equal(h.viewState.store, "memory");
    assert.equal(h.viewState.restored, null);
    assert.equal(await h.viewState.save({ a: 1 }), false);
    await assert.rejects(h.viewState.save(overLimit()), isInvalid);
    await assert.rejects(h.viewState.save([1]), isInvalid);
    assert.equal(await h.ping(), "pong");
  });
});
