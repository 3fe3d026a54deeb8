// mcp-sealed-state/svelte in Svelte 5: the stores by the store contract
// (subscribe at mount, the last unsubscribe at destroy), the lifecycle of
// lifecycle.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { get } from "svelte/store";
import { lifecycle } from "./lifecycle.mjs";
import { connected, hostStorage, importPackage } from "./support.mjs";

const { sealedToken, viewState } = await importPackage("./svelte");

// As a component uses a store: subscribed while mounted.
function mounted(store) {
  let value;
  const stop = store.subscribe((v) => (value = v));
  return { value: () => value, stop };
}

lifecycle("mcp-sealed-state/svelte", {
  viewState(app, initial, options) {
    const store = viewState(app, initial, options);
    const state = mounted(store);
    const status = mounted(store.status);
    return { state: state.value, set: (v) => store.set(v), status: status.value, unmount: async () => (state.stop(), status.stop()) };
  },
  token(app, options) {
    const store = sealedToken(app, options);
    const token = mounted(store);
    return { snapshot: token.value, unmount: async () => token.stop() };
  },
});

test("mcp-sealed-state/svelte: `$ui.tab = …` (a store_mutate: set with the same object) is saved; get() of an unsubscribed store reads initial", async () => {
  const storage = hostStorage();
  const { app } = await connected(storage);
  const ui = viewState(app, { tab: "board" }, { debounceMs: 20 });
  assert.deepEqual(get(ui), { tab: "board" });
  const state = mounted(ui);
  const saved = storage.nextSave();
  const value = state.value();
  value.tab = "history";
  ui.set(value); // what Svelte compiles `$ui.tab = "history"` to
  await saved;
  assert.deepEqual(storage.saves, [{ tab: "history" }]);
  state.stop();
});
