// mcp-sealed-state/react, from the packed tarball: useViewState and
// useSealedToken in real React 19 (react-test-renderer), against the real
// ext-apps 2.0.4 App and the package's ViewStateAppBridge, linked in memory.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hostStorage as store } from "../lib/host-storage.mjs";
import { importPackage, importPackedConstants, PACKAGE_DIR, resolvePackage } from "./support.mjs";

const CONSTANTS = await importPackedConstants();

const { createRequire } = await import("node:module");
// React as the consumer resolves it: the same copy the package's react entry imports.
const requireFromPackage = createRequire(resolvePackage("/react"));
const React = requireFromPackage("react");
const { act, create } = requireFromPackage("react-test-renderer");
const { App } = await import("@modelcontextprotocol/ext-apps");
const { connectWithViewState, keepFreshestToken, trackViewState } = await importPackage("/app");
// The app entry's internal plumbing, which the react entry imports by relative path: the same module instance.
const { viewStateOf } = await import(pathToFileURL(join(PACKAGE_DIR, "app/tracking.js")).href);
const { ViewStateAppBridge } = await importPackage("/app-bridge");
const { DEFAULT_DEBOUNCE_MS, useSealedToken, useViewState } = await importPackage("/react");
const { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE } = await importPackage("/widget");

globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const h = React.createElement;
const KEY = "a react hook test key of at least 32 bytes";

async function connected(storage, { offer = true } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const bridge = offer
    ? new ViewStateAppBridge(null, { name: "h", version: "1" }, {}, {}, { storage })
    : new (await import("@modelcontextprotocol/ext-apps/app-bridge")).AppBridge(null, { name: "h", version: "1" }, {}, {});
  bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
  await bridge.connect(hostSide);
  const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
  const viewState = await connectWithViewState(app, viewSide);
  const ping = () => app.callServerTool({ name: "ping", arguments: {} });
  return { bridge, app, viewState, ping };
}

/** Render a hook in a component; `current()` is its latest return value. */
async function renderHook(useHook) {
  const seen = { value: undefined };
  function Probe() {
    seen.value = useHook();
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = create(h(Probe));
  });
  return { current: () => seen.value, unmount: () => act(async () => renderer.unmount()) };
}

describe("mcp-sealed-state/react", () => {
  test("useViewState starts from the restored state and saves a burst of updates once, debounced", async () => {
    const storage = store({ tab: "restored" });
    const { app, viewState } = await connected(storage);
    assert.equal(DEFAULT_DEBOUNCE_MS, CONSTANTS.DEFAULT_DEBOUNCE_MS, "the packed entry exports the one definition");
    const hook = await renderHook(() => useViewState(app, { tab: "initial" }, { debounceMs: 20 }));
    assert.deepEqual(hook.current()[0], { tab: "restored" });
    assert.equal(hook.current()[2].offered, true);
    assert.equal(hook.current()[2].maxBytes, 65536);
    assert.equal(hook.current()[2].store, "host");

    const saved = storage.nextSave();
    await act(async () => {
      const set = hook.current()[1];
      set({ tab: "a" });
      set((prev) => ({ ...prev, page: 2 }));
      set((prev) => ({ ...prev, tab: "b" }));
    });
    assert.deepEqual(hook.current()[0], { tab: "b", page: 2 }, "like useState, functional updates included");
    await act(() => saved);
    assert.deepEqual(storage.saves, [{ tab: "b", page: 2 }], "three updates in one burst: one save, of the last state");
    assert.deepEqual(viewState.state, { tab: "b", page: 2 });
    await hook.unmount();
  });

  test("useViewState takes the ViewState itself, and sends a pending save at once on unmount", async () => {
    const storage = store();
    const { viewState } = await connected(storage);
    const hook = await renderHook(() => useViewState(viewState, { n: 0 }, { debounceMs: 3_600_000 }));
    assert.deepEqual(hook.current()[0], { n: 0 }, "nothing restored: initial");
    await act(async () => hook.current()[1]({ n: 1 }));
    assert.deepEqual(storage.saves, [], "debounced");
    const saved = storage.nextSave();
    await hook.unmount();
    await saved;
    assert.deepEqual(storage.saves, [{ n: 1 }]);
  });

  test("useViewState on a Host without the capability: plain state, nothing sent", async () => {
    const storage = store();
    const { app, ping } = await connected(storage, { offer: false });
    const hook = await renderHook(() => useViewState(app, { n: 0 }, { debounceMs: 3_600_000 }));
    await act(async () => hook.current()[1]({ n: 5 }));
    assert.equal(await act(() => hook.current()[2].flush()), false);
    await ping();
    assert.deepEqual(hook.current()[0], { n: 5 });
    assert.equal(hook.current()[2].offered, false);
    assert.equal(hook.current()[2].store, "memory");
    assert.deepEqual(storage.saves, []);
    await hook.unmount();
  });

  test("useViewState reports a refused save in status.error and keeps the state", async () => {
    const storage = store();
    const { app } = await connected(storage);
    const hook = await renderHook(() => useViewState(app, null, { debounceMs: 3_600_000 }));
    await act(async () => hook.current()[1]({ blob: "x".repeat(70_000) }));
    assert.equal(await act(() => hook.current()[2].flush()), false);
    assert.equal(hook.current()[2].error?.code, -32602);
    await act(async () => hook.current()[1]({ small: true }));
    assert.equal(await act(() => hook.current()[2].flush()), true);
    assert.equal(hook.current()[2].error, null, "cleared by the next good save");
    assert.deepEqual(storage.saves, [{ small: true }]);
    await hook.unmount();
  });

  test('useViewState on the "local" store: status.store is null until the tool result decides it, earlier updates are saved then, a remount restores', async (t) => {
    // A fake Storage as this frame's localStorage (no Host store, no window.openai).
    const map = new Map();
    const storage = { getItem: (k) => (map.has(k) ? map.get(k) : null), setItem: (k, v) => map.set(k, String(v)), removeItem: (k) => map.delete(k) };
    Object.defineProperty(globalThis, "localStorage", { value: storage, configurable: true, writable: true });
    t.after(() => delete globalThis.localStorage);
    const renderView = async () => {
      const { app, bridge, ping } = await connected(null, { offer: false });
      const hook = await renderHook(() => useViewState(app, { tab: "initial" }, { debounceMs: 3_600_000 }));
      return { app, bridge, ping, hook };
    };
    const first = await renderView();
    assert.equal(first.hook.current()[2].store, null, "not decided before the tool result");
    await act(async () => first.hook.current()[1]({ tab: "moves" }));
    await act(async () => {
      await first.bridge.sendToolResult({ content: [], _meta: { viewUUID: "react-view" } });
      await first.ping();
      await viewStateOf(first.app).then((vs) => vs.ready);
    });
    assert.equal(first.hook.current()[2].store, "local");
    assert.equal(await act(() => first.hook.current()[2].flush()), true);
    assert.equal(map.get("mcp-sealed-state/view/react-view"), '{"tab":"moves"}');
    await first.hook.unmount();

    const again = await renderView();
    await act(async () => {
      await again.bridge.sendToolResult({ content: [], _meta: { viewUUID: "react-view" } });
      await again.ping();
      await viewStateOf(again.app).then((vs) => vs.ready);
    });
    assert.deepEqual(again.hook.current()[0], { tab: "moves" }, "restored from localStorage");
    assert.equal(again.hook.current()[2].store, "local");
    await again.hook.unmount();
  });

  test("useSealedToken follows the freshest token of the tool results and the expired flag", async () => {
    const { app, bridge, ping } = await connected(store());
    const codec = createRequestStateCodec({ key: KEY });
    const token = await codec.mint({ p: "v", d: { move: 1 } });
    const hook = await renderHook(() => useSealedToken(app));
    assert.equal(hook.current().token, null);
    await act(async () => {
      await bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: token } });
      await ping();
    });
    assert.equal(hook.current().token, token);
    assert.equal(hook.current().expired, false);
    await act(async () => {
      await bridge.sendToolResult({ isError: true, content: [{ type: "text", text: SEALED_STATE_INVALID_MESSAGE }] });
      await ping();
    });
    assert.equal(hook.current().expired, true, "expired, start over");
    await act(async () => hook.current().reset());
    assert.equal(hook.current().token, null);
    await hook.unmount();
  });

  test(
    "a pending save is sent before the App closes, when a parent closes it as it unmounts (ext-apps' useApp does, and React runs a parent's cleanup before its children's)",
    { timeout: 30_000 },
    async () => {
      const storage = store();
      const { app } = await connected(storage);
      const seen = {};
      function Game() {
        seen.hook = useViewState(app, { tab: "payload" }, { debounceMs: 3_600_000 });
        return null;
      }
      function Root() {
        React.useEffect(() => () => void app.close(), []); // as useApp's cleanup
        return h(Game);
      }
      let renderer;
      await act(async () => {
        renderer = create(h(Root));
      });
      await act(async () => seen.hook[1]({ tab: "raw" }));
      assert.deepEqual(storage.saves, [], "debounced");
      const saved = storage.nextSave(); // never, where the save goes out after the close
      await act(async () => renderer.unmount());
      await saved;
      assert.deepEqual(storage.saves, [{ tab: "raw" }]);
    },
  );

  test("ext-apps' useApp pattern: onAppCreated: trackViewState, then useViewState(app) finds the ViewState of the connect useApp makes", async () => {
    const storage = store({ tab: "restored" });
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const bridge = new ViewStateAppBridge(null, { name: "h", version: "1" }, {}, {}, { storage });
    await bridge.connect(hostSide);
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    const onAppCreated = trackViewState; // as useApp({ appInfo, capabilities, onAppCreated }) calls it, before it connects
    assert.equal(onAppCreated(app), undefined);
    await app.connect(viewSide); // what useApp does next
    const hook = await renderHook(() => useViewState(app, { tab: "initial" }));
    await act(async () => {
      await viewStateOf(app).then((vs) => vs.ready);
    });
    assert.deepEqual(hook.current()[0], { tab: "restored" });
    assert.equal(hook.current()[2].store, "host");
    assert.equal(hook.current()[2].maxBytes, 65536);
    await hook.unmount();
  });

  test("useSealedToken says where the token came from: a Host that drops _meta, with the server's structuredContent mirror", async () => {
    const { app, bridge, ping } = await connected(store());
    const token = await createRequestStateCodec({ key: KEY }).mint({ p: "v", d: { mirrored: true } });
    const hook = await renderHook(() => useSealedToken(app));
    assert.equal(hook.current().source, null);
    await act(async () => {
      await bridge.sendToolResult({ content: [], structuredContent: { [STATE_META_KEY]: token } });
      await ping();
    });
    assert.equal(hook.current().token, token);
    assert.equal(hook.current().source, "structuredContent");
    await hook.unmount();
  });

  test("useSealedToken over a keeper made before connect sees results from before the first render", async () => {
    const { app } = await connected(store());
    const keeper = keepFreshestToken(app);
    const token = await createRequestStateCodec({ key: KEY }).mint({ p: "v", d: {} });
    keeper.adopt({ _meta: { [STATE_META_KEY]: token } });
    const hook = await renderHook(() => useSealedToken(keeper));
    assert.equal(hook.current().token, token);
    await hook.unmount();
  });
});

describe("mcp-sealed-state/react: the token across a reload, and its status", () => {
  test("useSealedToken(app, { persist: true }): the token of the View's own call is saved into the view state and restored on the next render, ahead of the Host's replay; status ready", async () => {
    const codec = createRequestStateCodec({ key: KEY });
    const storage = store();
    const renderToken = await codec.mint({ p: "v", d: { n: 0 } });
    const first = await connected(storage);
    const callToken = await codec.mint({ p: "v", d: { n: 1 } });
    first.bridge.oncalltool = async () => ({ content: [], _meta: { [STATE_META_KEY]: callToken } });
    const hook = await renderHook(() => useSealedToken(first.app, { persist: true }));
    await act(async () => {
      await first.bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: renderToken } });
      await first.ping();
    });
    assert.equal(hook.current().token, callToken, "the result of the View's own call, without adopt()");
    assert.equal(hook.current().status, "ready");
    for (let i = 0; i < 50 && storage.value?.[STATE_META_KEY] !== callToken; i++) await act(() => new Promise((r) => setTimeout(r, 10)));
    assert.equal(storage.value?.[STATE_META_KEY], callToken, "saved into the view state");
    await hook.unmount();

    const again = await connected(storage);
    const reloaded = await renderHook(() => useSealedToken(again.app, { persist: true }));
    await act(async () => {
      await again.viewState.ready;
      await new Promise((r) => setTimeout(r, 10));
      await again.bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: renderToken } }); // the Host's replay
      await again.ping();
    });
    assert.equal(reloaded.current().token, callToken);
    assert.equal(reloaded.current().source, "viewState");
    await reloaded.unmount();
  });
});
