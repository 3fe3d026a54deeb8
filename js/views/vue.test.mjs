// mcp-sealed-state/vue in Vue 3: the composables inside an effect scope (what
// a component's setup runs in), the lifecycle of lifecycle.mjs, and Vue's own
// idiom: a change inside the ref's object is saved too.
import assert from "node:assert/strict";
import { test } from "node:test";
import { effectScope, nextTick } from "vue";
import { lifecycle } from "./lifecycle.mjs";
import { connected, hostStorage, importPackage } from "./support.mjs";

const { useSealedToken, useViewState } = await importPackage("./vue");

function inScope(use) {
  const scope = effectScope();
  const result = scope.run(use);
  return { result, unmount: async () => (scope.stop(), nextTick()) };
}

lifecycle("mcp-sealed-state/vue", {
  viewState(app, initial, options) {
    const { result, unmount } = inScope(() => useViewState(app, initial, options));
    return { state: () => result.state.value, set: (v) => void (result.state.value = v), status: () => result.status.value, unmount };
  },
  token(app, options) {
    const { result, unmount } = inScope(() => useSealedToken(app, options));
    return { snapshot: () => ({ token: result.token.value, source: result.source.value, expired: result.expired.value, status: result.status.value }), unmount };
  },
});

test("mcp-sealed-state/vue: `state.value.tab = …` on the reactive object is saved as an assignment is; the app may be a ref", async () => {
  const storage = hostStorage({ tab: "board", moves: [] });
  const { app } = await connected(storage);
  const { shallowRef } = await import("vue");
  const appRef = shallowRef(null);
  const { result, unmount } = inScope(() => useViewState(appRef, { tab: "initial", moves: [] }, { debounceMs: 20 }));
  assert.equal(result.status.value.store, null, "no app yet");
  appRef.value = app;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(result.state.value, { tab: "board", moves: [] });
  const saved = storage.nextSave();
  result.state.value.moves.push(4);
  result.state.value.tab = "history";
  await saved;
  assert.deepEqual(storage.saves, [{ tab: "history", moves: [4] }]);
  await unmount();
});
