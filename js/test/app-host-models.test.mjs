// One View for both host models (docs/views.md, "Two host models"): where the
// Host speaks only the Apps SDK's window.openai and nothing answers on the
// bridge (ChatGPT's openai/outputTemplate widgets, the MCPJam Inspector), the
// View decides its store within the bridge bound, calls tools through
// window.openai.callTool and takes their tokens; a bridge that answers late
// serves calls without moving the store. From the packed tarball over the REAL
// ext-apps 2.0.4 App; window.openai is a stand-in of the documented API, named so.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { importPackage } from "./support.mjs";
import { QuotaStorage, setGlobal } from "./frame-globals.mjs";

const { App } = await import("@modelcontextprotocol/ext-apps");
const { AppBridge } = await import("@modelcontextprotocol/ext-apps/app-bridge");
const { callTool, connectWithViewState, keepFreshestToken } = await importPackage("/app");
const { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE } = await importPackage("/widget");

const KEY = "a host-models test key of at least 32 bytes";
const codec = createRequestStateCodec({ key: KEY });
const mint = (payload) => codec.mint({ p: "v", d: payload });
const VIEW_UUID = "c0ffee00-0000-4000-8000-0000000000aa";

const unhandled = [];
const onUnhandled = (reason) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

/**
 * An Apps SDK host's window (a stand-in of its documented globals): the
 * render's toolResponseMetadata and widgetState, setWidgetState, and callTool
 * answering as `answer(name, args)` says; `fire(event, globals)` updates the
 * globals and fires that set_globals event.
 */
function appsSdkWindow({ metadata, widgetState = null, answer }) {
  const win = new EventTarget();
  win.calls = [];
  win.openai = {
    toolResponseMetadata: metadata,
    toolOutput: {},
    widgetState,
    setWidgetState: async (state) => void (win.openai.widgetState = state),
    callTool: async (name, args) => {
      win.calls.push([name, args]);
      return answer(name, args);
    },
  };
  win.fire = (event, globals) => {
    Object.assign(win.openai, globals);
    win.dispatchEvent(Object.assign(new Event(event), { detail: { globals } }));
  };
  return win;
}

/** A View whose bridge nobody answers (the other end of the transport is started and silent). */
async function silentBridgeView(win, { beforeConnect, bridgeTimeoutMs } = {}) {
  setGlobal("openai", win.openai);
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  await hostSide.start();
  const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
  const before = beforeConnect?.(app);
  const viewState = await connectWithViewState(app, viewSide, bridgeTimeoutMs === undefined ? undefined : { bridgeTimeoutMs });
  return { app, before, viewState, hostSide, close: () => app.close() };
}

describe("an Apps SDK host: window.openai and no bridge", () => {
  test("the store is decided without the bridge (openai, written through to local), and connect never rejects", async () => {
    setGlobal("localStorage", new QuotaStorage());
    const t0 = await mint({ count: 0 });
    const win = appsSdkWindow({ metadata: { [STATE_META_KEY]: t0, viewUUID: VIEW_UUID }, answer: () => ({}) });
    const h = await silentBridgeView(win, { beforeConnect: (app) => keepFreshestToken(app, { window: win }) });
    assert.equal(h.viewState.hostModel, "apps-sdk");
    assert.equal(h.viewState.store, "openai");
    assert.equal(h.viewState.writeThrough, "local");
    assert.equal(h.viewState.rawInitializeResult, undefined);
    await h.viewState.ready;
    assert.equal(h.before.token, t0);
    assert.equal(h.before.source, "toolResponseMetadata");
    assert.equal(await h.viewState.save({ tab: "claims" }), true);
    assert.deepEqual(win.openai.widgetState, { privateContent: { tab: "claims" } });
    await h.close(); // ext-apps' pending ui/initialize is rejected now: caught, not unhandled
    await sleep(10);
    assert.deepEqual(unhandled, []);
  });

  test("callTool goes through window.openai.callTool; a result with `_meta: null` takes its token from the next toolResponseMetadata (webplus:set_globals)", async () => {
    const t0 = await mint({ count: 0 });
    const t1 = await mint({ count: 1 });
    const t2 = await mint({ count: 2 });
    let next = null;
    const win = appsSdkWindow({ metadata: { [STATE_META_KEY]: t0 }, answer: () => next });
    const h = await silentBridgeView(win, { beforeConnect: (app) => keepFreshestToken(app, { window: win }), bridgeTimeoutMs: 20 });
    const tokens = h.before;

    // ChatGPT answers with the whole result: its _meta carries the token.
    next = { content: [{ type: "text", text: "one" }], structuredContent: { count: 1 }, _meta: { [STATE_META_KEY]: t1 } };
    const result = await callTool(h.app, { name: "count", arguments: { state: tokens.token } }, undefined, win);
    assert.deepEqual(win.calls.at(-1), ["count", { state: t0 }]);
    assert.deepEqual(result.structuredContent, { count: 1 });
    assert.equal(tokens.token, t1);
    assert.equal(tokens.source, "_meta");

    // MCPJam answers with `_meta: null`, then updates toolResponseMetadata and fires webplus:set_globals.
    next = { content: [{ type: "text", text: "two" }], structuredContent: { count: 2 }, _meta: null };
    await callTool(h.app, { name: "count", arguments: { state: tokens.token } }, undefined, win);
    assert.equal(tokens.token, t1, "nothing yet");
    win.fire("webplus:set_globals", { toolResponseMetadata: { [STATE_META_KEY]: t2 } });
    assert.equal(tokens.token, t2);
    assert.equal(tokens.source, "toolResponseMetadata");
    // The render's token coming back (a set_globals for the theme, an emulator's replay) never replaces the call's.
    win.fire("openai:set_globals", { toolResponseMetadata: { [STATE_META_KEY]: t0 } });
    assert.equal(tokens.token, t2);
    await h.close();
  });

  test("the MCPJam Inspector's answers: a refusal flattened into structuredContent and a protocol error are error results; the keeper says expired", async () => {
    const t0 = await mint({ count: 0 });
    let next = null;
    const win = appsSdkWindow({ metadata: { [STATE_META_KEY]: t0 }, answer: () => next });
    const h = await silentBridgeView(win, { beforeConnect: (app) => keepFreshestToken(app, { window: win }), bridgeTimeoutMs: 10 });
    const refusal = { content: [{ type: "text", text: SEALED_STATE_INVALID_MESSAGE }], isError: true };
    next = { _meta: null, content: refusal.content, structuredContent: refusal, isError: false, result: "{}", meta: {} };
    assert.deepEqual(await callTool(h.app, { name: "count", arguments: { state: "v1.forged.x" } }, undefined, win), refusal);
    assert.equal(h.before.status, "expired");
    next = { isError: true, error: "MCP error -32602: Invalid arguments" };
    assert.deepEqual(await callTool(h.app, { name: "count", arguments: {} }, undefined, win), { isError: true, content: [{ type: "text", text: "MCP error -32602: Invalid arguments" }] });
    await h.close();
  });

  test("a bridge that answers after the bound serves tool calls; the store stays as decided", async () => {
    const win = appsSdkWindow({ metadata: {}, widgetState: { privateContent: { tab: "raw" } }, answer: () => ({ content: [] }) });
    setGlobal("openai", win.openai);
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    const viewState = await connectWithViewState(app, viewSide, { bridgeTimeoutMs: 20 });
    assert.equal(viewState.store, "openai");
    assert.deepEqual(viewState.restored, { tab: "raw" });
    const bridge = new AppBridge(null, { name: "late", version: "1" }, { serverTools: {} }, {});
    bridge.oncalltool = async () => ({ content: [{ type: "text", text: "through the bridge" }] });
    await bridge.connect(hostSide); // answers the ui/initialize that is still pending
    for (let i = 0; i < 50 && app.getHostCapabilities() === undefined; i++) await sleep(10);
    const result = await callTool(app, { name: "any", arguments: {} }, undefined, win);
    assert.equal(result.content[0].text, "through the bridge");
    assert.deepEqual(win.calls, [], "not through window.openai once the bridge answered");
    assert.equal(viewState.store, "openai");
    assert.equal(viewState.hostModel, "apps-sdk");
  });
});

describe("ChatGPT's structured widget state: only its three members", () => {
  test("a save keeps modelContent and imageIds and writes nothing else; classic top-level state is not overwritten and the save says so", async () => {
    const win = appsSdkWindow({ metadata: {}, widgetState: { modelContent: "the model sees this", imageIds: ["i1"], privateContent: null }, answer: () => ({}) });
    const h = await silentBridgeView(win, { bridgeTimeoutMs: 10 });
    assert.equal(await h.viewState.save({ tab: "claims" }), true);
    assert.deepEqual(win.openai.widgetState, { modelContent: "the model sees this", imageIds: ["i1"], privateContent: { tab: "claims" } });
    await h.close();

    const classic = appsSdkWindow({ metadata: {}, widgetState: { selectedTab: "x" }, answer: () => ({}) });
    const c = await silentBridgeView(classic, { bridgeTimeoutMs: 10 });
    assert.equal(await c.viewState.save({ tab: "claims" }), false, "not kept: the page's classic state would be lost or shown to the model");
    assert.deepEqual(classic.openai.widgetState, { selectedTab: "x" });
    assert.deepEqual(c.viewState.lastSave, { openai: false });
    await c.close();
  });
});
