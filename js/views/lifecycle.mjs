// The lifecycle every framework entry must pass, over a driver that mounts
// the entry's view state and token in that framework:
//   driver.viewState(app, initial, { debounceMs }) -> { state(), set(v), status(), unmount() }
//   driver.token(app, options) -> { snapshot(), unmount() }
// (async where the framework renders asynchronously).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, connected, extApps, hostStorage, mint, newApp, settle } from "./support.mjs";

const HOUR = 3_600_000;
export function lifecycle(name, driver) {
  describe(`${name} on ext-apps ${extApps}: lifecycle`, () => {
    test("mount: the restored state replaces initial; a burst of updates is saved once, debounced", async () => {
      const storage = hostStorage({ tab: "restored" });
      const { app, viewState } = await connected(storage);
      const view = await driver.viewState(app, { tab: "initial" }, { debounceMs: 20 });
      await settle();
      assert.deepEqual(view.state(), { tab: "restored" });
      assert.equal(view.status().store, "host");
      const saved = storage.nextSave();
      await view.set({ tab: "a" });
      await view.set({ tab: "b", page: 2 });
      assert.deepEqual(view.state(), { tab: "b", page: 2 });
      await saved;
      await settle();
      assert.deepEqual(storage.saves, [{ tab: "b", page: 2 }], "two updates in one burst: one save, of the last state");
      assert.deepEqual(viewState.state, { tab: "b", page: 2 });
      assert.equal(view.status().saving, false);
      await view.unmount();
    });

    test("unmount with a pending save sends it at once; a remount shows the state saved", async () => {
      const storage = hostStorage();
      const { app } = await connected(storage);
      const first = await driver.viewState(app, { n: 0 }, { debounceMs: HOUR });
      await settle();
      assert.deepEqual(first.state(), { n: 0 }, "nothing restored: initial");
      await first.set({ n: 1 });
      assert.deepEqual(storage.saves, [], "debounced");
      const saved = storage.nextSave();
      await first.unmount();
      await saved;
      assert.deepEqual(storage.saves, [{ n: 1 }]);
      await settle();
      const again = await driver.viewState(app, { n: 0 }, { debounceMs: HOUR });
      await settle();
      assert.deepEqual(again.state(), { n: 1 }, "the remount starts from the state this render saved");
      await again.unmount();
      assert.deepEqual(storage.saves, [{ n: 1 }], "nothing pending at the second unmount: nothing sent");
    });

    test("mounted before connect: an update made then is saved once the store is decided, and the restored state does not replace it", async () => {
      const app = newApp();
      const view = await driver.viewState(app, { n: 0 }, { debounceMs: 20 });
      await view.set({ n: "mine" });
      assert.equal(view.status().store, null, "not connected: no store yet");
      const storage = hostStorage({ n: "restored" });
      const saved = storage.nextSave();
      await connected(storage, { app });
      await saved;
      await settle();
      assert.deepEqual(view.state(), { n: "mine" }, "the View changed its state first");
      assert.deepEqual(storage.saves, [{ n: "mine" }]);
      assert.equal(view.status().store, "host");
      await view.unmount();
    });

    test("second connect: an untouched state follows the ViewState of the latest connect", async () => {
      const { app, bridge } = await connected(hostStorage({ tab: "first" }));
      const view = await driver.viewState(app, null, { debounceMs: 20 });
      await settle();
      assert.deepEqual(view.state(), { tab: "first" });
      await bridge.close();
      await connected(hostStorage({ tab: "second" }), { app });
      await settle();
      assert.deepEqual(view.state(), { tab: "second" });
      await view.unmount();
    });

    test("token: the Host's token, the View's own call's token, expired, and nothing after unmount", async () => {
      const { app, bridge, ping } = await connected(hostStorage());
      const token = await driver.token(app, {});
      assert.equal(token.snapshot().token, null);
      const hostToken = await mint({ n: 0 });
      await bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: hostToken } });
      await ping();
      await settle();
      assert.deepEqual({ ...token.snapshot() }, { token: hostToken, source: "_meta", expired: false, status: "ready" });
      const own = await mint({ n: 1 });
      bridge.oncalltool = async () => ({ content: [], _meta: { [STATE_META_KEY]: own } });
      await ping();
      await settle();
      assert.equal(token.snapshot().token, own, "the View's own call's token, adopted without a step");
      bridge.oncalltool = async () => ({ isError: true, content: [{ type: "text", text: SEALED_STATE_INVALID_MESSAGE }] });
      await ping();
      await settle();
      assert.equal(token.snapshot().status, "expired");
      await token.unmount();
      const after = await mint({ n: 2 });
      await bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: after } });
      await settle();
      assert.equal(token.snapshot().status, "expired", "unmounted: its keeper is disposed");
    });

    test("token with persist: saved into the view state and restored on the next render, ahead of the Host's replay", async () => {
      const storage = hostStorage();
      const renderToken = await mint({ n: 0 });
      const callToken = await mint({ n: 1 });
      const first = await connected(storage);
      first.bridge.oncalltool = async () => ({ content: [], _meta: { [STATE_META_KEY]: callToken } });
      const token = await driver.token(first.app, { persist: true });
      await first.bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: renderToken } });
      await first.ping();
      while (storage.value?.[STATE_META_KEY] !== callToken) await storage.nextSave();
      await token.unmount();

      const reload = await connected(storage);
      const again = await driver.token(reload.app, { persist: true });
      await settle();
      await reload.bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: renderToken } });
      await settle();
      assert.equal(again.snapshot().token, callToken, "restored, and the Host's replay of the older render result does not replace it");
      assert.equal(again.snapshot().source, "viewState");
      await again.unmount();
    });
  });
}
