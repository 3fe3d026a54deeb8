// A View's first hour (docs/views.md): its own calls keep the freshest token
// without a step, the token comes back after a reload on every store ahead of
// the Host's replay (`persist`), `ready` settles in bounded time, and "no
// token" is a status. From the packed tarball over the REAL ext-apps 2.0.4 App
// and AppBridge, linked in memory; tokens minted by the SDK's codec.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { importPackage } from "./support.mjs";
import { QuotaStorage, setGlobal } from "./frame-globals.mjs";

const { App } = await import("@modelcontextprotocol/ext-apps");
const { AppBridge } = await import("@modelcontextprotocol/ext-apps/app-bridge");
const { connectWithViewState, keepFreshestToken } = await importPackage("/app");
const { ViewStateAppBridge } = await importPackage("/app-bridge");
const { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE } = await importPackage("/widget");

const KEY = "a first-hour test key of at least 32 bytes";
const codec = createRequestStateCodec({ key: KEY });
const mint = (payload) => codec.mint({ p: "v", d: payload });
const HOST_INFO = { name: "test-host", version: "1.0.0" };
const VIEW_UUID = "c0ffee00-0000-4000-8000-000000000001";

/** A counter server behind the Host: `count` opens the echoed token (if any) and seals count + 1; a token it did not mint is refused as the SDK refuses a throw. */
function counterServer() {
  const received = [];
  return {
    received,
    async call({ name, arguments: args }) {
      assert.equal(name, "count");
      received.push(args?.state ?? null);
      let count = 0;
      if (typeof args?.state === "string") {
        try {
          count = (await codec.verify(args.state)).d.count + 1;
        } catch {
          return { isError: true, content: [{ type: "text", text: SEALED_STATE_INVALID_MESSAGE }] };
        }
      }
      return { content: [{ type: "text", text: `count ${count}` }], _meta: { [STATE_META_KEY]: await mint({ count }), viewUUID: VIEW_UUID } };
    },
  };
}

/** A Host (ViewStateAppBridge over `storage`, or a plain AppBridge) and a View linked in memory; `beforeConnect(app)` runs before connect. */
async function render({ server = counterServer(), storage, beforeConnect, readyTimeoutMs } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const bridge = storage ? new ViewStateAppBridge(null, HOST_INFO, { serverTools: {} }, {}, { storage }) : new AppBridge(null, HOST_INFO, { serverTools: {} }, {});
  bridge.oncalltool = (params) => server.call(params);
  await bridge.connect(hostSide);
  const app = new App({ name: "counter", version: "1.0.0" }, {}, { autoResize: false });
  const before = beforeConnect?.(app);
  const viewState = await connectWithViewState(app, viewSide, readyTimeoutMs === undefined ? undefined : { readyTimeoutMs });
  return { bridge, app, before, viewState, server };
}

/** A Host's store over a plain variable. */
const hostStorage = () => {
  const s = { value: null, load: async () => s.value, save: async (state) => void (s.value = state) };
  return s;
};

describe("the View's own calls keep the freshest token without a step", () => {
  test("two app.callServerTool calls whose results are dropped send two fresh tokens", async () => {
    const h = await render({ beforeConnect: (app) => keepFreshestToken(app) });
    const tokens = h.before;
    await h.bridge.sendToolResult(await h.server.call({ name: "count", arguments: {} })); // the render's result: count 0
    await h.app.callServerTool({ name: "count", arguments: { state: tokens.token } }); // the README's click: result dropped
    await h.app.callServerTool({ name: "count", arguments: { state: tokens.token } });
    const [, first, second] = h.server.received;
    assert.notEqual(first, second, "the second click sent the first click's token, not the render's again");
    assert.equal((await codec.verify(second)).d.count, 1);
    assert.equal((await codec.verify(tokens.token)).d.count, 2);
    assert.equal(tokens.source, "_meta");
    assert.equal(tokens.status, "ready");
  });

  test("a refused call (the SDK's isError with the stable message) makes the status expired, without adopt()", async () => {
    const h = await render({ beforeConnect: (app) => keepFreshestToken(app) });
    const tokens = h.before;
    await h.bridge.sendToolResult(await h.server.call({ name: "count", arguments: {} }));
    const forged = `${tokens.token.slice(0, -2)}AA`;
    const result = await h.app.callServerTool({ name: "count", arguments: { state: forged } });
    assert.equal(result.isError, true);
    assert.equal(tokens.expired, true);
    assert.equal(tokens.status, "expired");
  });
});

describe("persist: the token across a reload, ahead of the Host's replay, on every store", () => {
  test('"host": restored at connect; the Host replaying the render\'s result after it changes nothing', async () => {
    const storage = hostStorage();
    const server = counterServer();
    const render0 = await server.call({ name: "count", arguments: {} });
    const first = await render({ server, storage, beforeConnect: (app) => keepFreshestToken(app, { persist: true }) });
    assert.equal(first.viewState.store, "host");
    await first.bridge.sendToolResult(render0);
    await first.viewState.save({ tab: "details" });
    await first.app.callServerTool({ name: "count", arguments: { state: first.before.token } });
    const latest = first.before.token;
    assert.equal((await codec.verify(latest)).d.count, 1);
    assert.deepEqual(storage.value, { tab: "details", [STATE_META_KEY]: latest }, "the token went into the view state with the View's own state");

    const again = await render({ server, storage, beforeConnect: (app) => keepFreshestToken(app, { persist: true }) });
    await again.viewState.ready;
    await again.bridge.sendToolResult(render0); // the Host replays the render's result
    await again.app.callServerTool({ name: "ping-free", arguments: {} }).catch(() => {}); // a round trip: the replay has arrived
    assert.equal(again.before.token, latest, "the restored token, not the replayed one");
    assert.equal(again.before.source, "viewState");
    assert.deepEqual(again.viewState.restored, { tab: "details" }, "the member is the keeper's, not in the View's state");
  });

  test('"local": the render\'s result names the viewUUID, then the restored token replaces its token', async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    const server = counterServer();
    const render0 = await server.call({ name: "count", arguments: {} });
    const first = await render({ server, beforeConnect: (app) => keepFreshestToken(app, { persist: true }) });
    await first.bridge.sendToolResult(render0);
    await first.viewState.ready;
    assert.equal(first.viewState.store, "local");
    await first.app.callServerTool({ name: "count", arguments: { state: first.before.token } });
    const latest = first.before.token;
    await sleep(0);

    const again = await render({ server, beforeConnect: (app) => keepFreshestToken(app, { persist: true }) });
    await again.bridge.sendToolResult(render0);
    await again.viewState.ready;
    await sleep(0);
    assert.equal(again.viewState.store, "local");
    assert.equal(again.before.token, latest);
    assert.equal(again.before.source, "viewState");
    assert.equal(again.viewState.restored, null, "a state that held only the token restores as null");
  });

  test('"memory" after a reload that replays nothing (the MCP Inspector): status "none" in bounded time, and a tool running keeps it "waiting"', async () => {
    const quiet = await render({ beforeConnect: (app) => keepFreshestToken(app, { persist: true }) });
    assert.equal(quiet.viewState.store, "memory");
    assert.equal(quiet.before.status, "waiting");
    const changed = new Promise((resolve) => quiet.before.subscribe(resolve));
    await changed;
    assert.equal(quiet.before.status, "none");
    assert.equal(quiet.before.token, null);

    const running = await render({ beforeConnect: (app) => keepFreshestToken(app) });
    await running.bridge.sendToolInput({ arguments: {} });
    await sleep(1200);
    assert.equal(running.before.status, "waiting", "the tool's result is still to come");
    await running.bridge.sendToolResult(await running.server.call({ name: "count", arguments: {} }));
    await running.app.callServerTool({ name: "count", arguments: { state: running.before.token } });
    assert.equal(running.before.status, "ready");
  });
});

describe("ready settles in bounded time", () => {
  test("storage works and no tool result comes: ready settles on memory within readyTimeoutMs; a later result joins local with its restored state", async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    storage.setItem(`mcp-sealed-state/view/${VIEW_UUID}`, JSON.stringify({ tab: "raw" }));
    const h = await render({ readyTimeoutMs: 50 });
    const settled = await Promise.race([h.viewState.ready.then(() => "ready"), sleep(10_000).then(() => "hung")]);
    assert.equal(settled, "ready");
    assert.equal(h.viewState.store, "memory");
    assert.equal(h.viewState.restored, null);
    assert.equal(await h.viewState.save({ tab: "payload" }), false, "memory keeps nothing");

    const joined = new Promise((resolve) => h.viewState.subscribe(resolve));
    await h.bridge.sendToolResult(await h.server.call({ name: "count", arguments: {} }));
    assert.equal(await joined, h.viewState);
    assert.equal(h.viewState.store, "local");
    assert.deepEqual(h.viewState.restored, { tab: "raw" }, "what was stored is told, not overwritten by the save made before");
    assert.deepEqual(JSON.parse(storage.getItem(`mcp-sealed-state/view/${VIEW_UUID}`)), { tab: "raw" });
    assert.equal(await h.viewState.save({ tab: "claims" }), true);
    assert.deepEqual(JSON.parse(storage.getItem(`mcp-sealed-state/view/${VIEW_UUID}`)), { tab: "claims" });
  });
});
