// The view-state limits, from the packed tarball over the REAL
// ext-apps 2.0.4 App and AppBridge linked in memory:
// - the size rule is checked on the exact text that is stored (one
//   serialization), objects and null only, in every store;
// - per-view localStorage is reclaimed (an index with last use; a save
//   that meets the quota drops the least recently used views and retries);
// - ViewStateSaveQueue's lastSaved follows what the store holds once a
//   timed-out store call settles.
// `globalThis.localStorage` is a Storage stand-in with a quota, as browsers
// have (about 5 MiB of text per origin), throwing QuotaExceededError past it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { importPackage } from "./support.mjs";
import { QuotaStorage as Quota, setGlobal } from "./frame-globals.mjs";

// 5 MiB of text by default, as browsers give an origin.
class QuotaStorage extends Quota {
  constructor(quotaChars = 5 * 1024 * 1024) {
    super(quotaChars);
  }
}

const { App } = await import("@modelcontextprotocol/ext-apps");
const { AppBridge } = await import("@modelcontextprotocol/ext-apps/app-bridge");
const { LOCAL_KEY_PREFIX, connectWithViewState } = await importPackage("/app");
const { ViewStateAppBridge } = await importPackage("/app-bridge");
const { DEFAULT_VIEW_STATE_MAX_BYTES, ViewStateError, ViewStateSaveQueue, checkViewState } = await importPackage("/widget");

const HOST_INFO = { name: "test-host", version: "1.0.0" };
const INDEX_KEY = "mcp-sealed-state/views";
const isInvalid = (e) => e instanceof ViewStateError && e.code === -32602;
const utf8Bytes = (s) => new TextEncoder().encode(s).length;

/** A Host and a View linked in memory; the tool result carries `viewUUID` in `_meta` when given. */
async function render({ viewUUID, stores, hostStorage } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const bridge = hostStorage ? new ViewStateAppBridge(null, HOST_INFO, {}, {}, { storage: hostStorage }) : new AppBridge(null, HOST_INFO, {}, {});
  bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
  await bridge.connect(hostSide);
  const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
  const viewState = await connectWithViewState(app, viewSide, stores === undefined ? undefined : { stores });
  if (viewUUID !== undefined) {
    await bridge.sendToolResult({ content: [{ type: "text", text: "ok" }], _meta: { viewUUID } });
    await viewState.ready;
  }
  return { bridge, app, viewState };
}

/** An object whose toJSON answers `first` once and `later` after that. */
function fickle(first, later) {
  let calls = 0;
  return { toJSON: () => (calls++ === 0 ? first : later) };
}
const LARGE = { blob: "x".repeat(500_000) };

describe("the size rule on the exact text that is stored", () => {
  test("checkViewState returns the text it checked", () => {
    assert.equal(checkViewState({ a: 1 }, 100), '{"a":1}');
    assert.equal(checkViewState(null, 100), "null");
    assert.throws(() => checkViewState([1], 100), isInvalid);
  });

  test('"local": a toJSON that answers small then large stores the small text; one that answers an array then is refused or stored as checked', async () => {
    const storage = new QuotaStorage(64 * 1024 * 1024);
    setGlobal("localStorage", storage);
    const { viewState } = await render({ viewUUID: "fickle", stores: ["local"] });
    assert.equal(viewState.store, "local");
    assert.equal(await viewState.save(fickle({ small: true }, LARGE)), true);
    const stored = storage.getItem(LOCAL_KEY_PREFIX + "fickle");
    assert.ok(utf8Bytes(stored) <= DEFAULT_VIEW_STATE_MAX_BYTES, `stored ${utf8Bytes(stored)} bytes under a ${DEFAULT_VIEW_STATE_MAX_BYTES}-byte rule`);
    assert.deepEqual(JSON.parse(stored), { small: true });
    assert.deepEqual(viewState.state, { small: true });

    assert.equal(await viewState.save(fickle({ n: 1 }, [1, 2, 3])), true);
    assert.deepEqual(JSON.parse(storage.getItem(LOCAL_KEY_PREFIX + "fickle")), { n: 1 }, "never an array");
    await assert.rejects(viewState.save(fickle([1, 2, 3], { n: 2 })), isInvalid, "an array as checked is refused");
    await assert.rejects(viewState.save([{ a: 1 }]), isInvalid);
    assert.deepEqual(JSON.parse(storage.getItem(LOCAL_KEY_PREFIX + "fickle")), { n: 1 });
  });

  test('"openai": setWidgetState gets what was checked', async () => {
    const calls = [];
    setGlobal("openai", { widgetState: null, setWidgetState: (s) => calls.push(JSON.stringify(s)) });
    const { viewState } = await render({ stores: ["openai"] });
    assert.equal(await viewState.save(fickle({ small: true }, LARGE)), true);
    assert.equal(await viewState.save(fickle({ n: 1 }, [1])), true);
    assert.deepEqual(
      calls.map((c) => JSON.parse(c).privateContent),
      [{ small: true }, { n: 1 }],
    );
    assert.ok(calls.every((c) => utf8Bytes(c) < DEFAULT_VIEW_STATE_MAX_BYTES));
  });

  test('"host": the Host receives what was checked (and its own queue stores that)', async () => {
    const saves = [];
    const hostStorage = { load: async () => null, save: async (s) => saves.push(JSON.stringify(s)) };
    const { viewState, bridge } = await render({ hostStorage });
    assert.equal(viewState.store, "host");
    assert.equal(await viewState.save(fickle({ small: true }, LARGE)), true);
    assert.equal(await viewState.save(fickle({ n: 1 }, [1])), true);
    await bridge.whenViewStateSettled();
    assert.deepEqual(
      saves.map((s) => JSON.parse(s)),
      [{ small: true }, { n: 1 }],
    );
  });

  test("ViewStateSaveQueue stores what it checked, never an array", async () => {
    const stored = [];
    const q = new ViewStateSaveQueue((s) => stored.push(JSON.stringify(s)), { maxBytes: 1000 });
    await q.save(fickle({ small: true }, LARGE));
    await q.save(fickle({ n: 1 }, [1]));
    await assert.rejects(q.save([1]), isInvalid);
    assert.deepEqual(stored, ['{"small":true}', '{"n":1}']);
    assert.deepEqual(q.lastSaved, { n: 1 });
  });
});

describe('"local": per-view storage reclaimed under the quota', () => {
  const STATE = () => ({ blob: "s".repeat(60_000) });

  test("after 100 renders saving 60 KB each, a new View's save still succeeds: the least recently used views' states go first", async () => {
    const storage = new QuotaStorage(); // 5 MiB of text: 100 x 60 KB does not fit
    storage.setItem("the-page's-own-key", "kept");
    setGlobal("localStorage", storage);
    const outcomes = [];
    for (let i = 0; i < 100; i++) {
      const { viewState } = await render({ viewUUID: `view-${i}` });
      assert.equal(viewState.store, "local");
      outcomes.push(await viewState.save(STATE()));
    }
    assert.ok(
      outcomes.every((ok) => ok),
      `every save took: ${outcomes.filter((ok) => !ok).length} refused`,
    );
    const { viewState } = await render({ viewUUID: "the-new-view" });
    assert.equal(await viewState.save(STATE()), true, "a new View's save succeeds");
    assert.ok(storage.getItem(LOCAL_KEY_PREFIX + "the-new-view"));
    assert.ok(storage.getItem(LOCAL_KEY_PREFIX + "view-99"), "the most recent views are kept");
    assert.equal(storage.getItem(LOCAL_KEY_PREFIX + "view-0"), null, "the oldest went first");
    assert.equal(storage.getItem("the-page's-own-key"), "kept", "keys that are not ours are never touched");
    const index = JSON.parse(storage.getItem(INDEX_KEY));
    assert.equal(index.at(-1)[0], "the-new-view", "the index lists the views by last use, newest last");
    for (const [uuid] of index) assert.ok(storage.getItem(LOCAL_KEY_PREFIX + uuid), `listed ${uuid} is stored`);
  });

  test("a restore counts as a use; keys the index does not list go first; the view being saved is never dropped", async () => {
    const storage = new QuotaStorage(150_000);
    setGlobal("localStorage", storage);
    for (const uuid of ["a", "b"]) {
      const { viewState } = await render({ viewUUID: uuid });
      assert.equal(await viewState.save({ blob: "x".repeat(60_000) }), true);
    }
    storage.setItem(LOCAL_KEY_PREFIX + "orphan", JSON.stringify({ blob: "o".repeat(10_000) })); // an older version's key: not in the index
    const again = await render({ viewUUID: "a" }); // a restore: "a" is now the most recently used
    assert.equal(again.viewState.restored.blob.length, 60_000);
    const { viewState } = await render({ viewUUID: "c" });
    assert.equal(await viewState.save({ blob: "x".repeat(60_000) }), true);
    assert.equal(storage.getItem(LOCAL_KEY_PREFIX + "orphan"), null, "the unlisted key went first");
    assert.equal(storage.getItem(LOCAL_KEY_PREFIX + "b"), null, "then the least recently used");
    assert.ok(storage.getItem(LOCAL_KEY_PREFIX + "a"), "restored later than b: kept");

    const alone = new QuotaStorage(50_000);
    setGlobal("localStorage", alone);
    const big = await render({ viewUUID: "big" });
    assert.equal(await big.viewState.save({ blob: "x".repeat(60_000) }), false, "a state that cannot fit even alone: false, nothing else to drop");
    assert.equal(await big.viewState.save({ small: 1 }), true);
  });

  test("saving null removes the view from the index", async () => {
    const storage = new QuotaStorage();
    setGlobal("localStorage", storage);
    const { viewState } = await render({ viewUUID: "gone" });
    await viewState.save({ a: 1 });
    assert.deepEqual(
      JSON.parse(storage.getItem(INDEX_KEY)).map(([u]) => u),
      ["gone"],
    );
    await viewState.save(null);
    assert.equal(storage.getItem(LOCAL_KEY_PREFIX + "gone"), null);
    assert.equal(storage.getItem(INDEX_KEY), null);
  });
});

describe("ViewStateSaveQueue: lastSaved follows the store once a late call settles", () => {
  test("a store call that timed out and then completes makes its state lastSaved; one that then fails does not", async () => {
    let finish;
    const held = [];
    const q = new ViewStateSaveQueue(
      (state) =>
        new Promise((resolve, reject) => {
          finish = { resolve, reject };
          held.push(state);
        }),
      { maxBytes: 1000, storeTimeoutMs: 20 },
    );
    await assert.rejects(q.save({ n: "late" }), (e) => e.code === -32603);
    assert.equal(q.lastSaved, null, "not stored yet");
    finish.resolve();
    await q.idle();
    assert.deepEqual(q.lastSaved, { n: "late" }, "the store holds it now");

    await assert.rejects(q.save({ n: "failed late" }), (e) => e.code === -32603);
    finish.reject(new Error("disk full"));
    await q.idle();
    assert.deepEqual(q.lastSaved, { n: "late" });
  });

  test("through the bridge: the next ui/initialize offers what the store holds after a late save", async () => {
    let value = { n: 0 };
    let finish = null;
    const hostStorage = {
      load: async () => value,
      save: (state) =>
        new Promise((resolve) => {
          finish = () => {
            value = state;
            resolve();
          };
        }),
    };
    const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
    const bridge = new ViewStateAppBridge(null, HOST_INFO, {}, {}, { storage: hostStorage, storeTimeoutMs: 20 });
    await bridge.connect(hostSide);
    const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
    const viewState = await connectWithViewState(app, viewSide);
    await assert.rejects(viewState.save({ n: 1 }), (e) => e.code === -32603);
    finish();
    await bridge.whenViewStateSettled();
    assert.deepEqual(value, { n: 1 }, "the store holds the late state");
    assert.deepEqual(bridge.viewState, { n: 1 }, "and the bridge offers it to the next render");
  });
});
