// mcp-sealed-state/solid in Solid (its browser build: node --conditions=browser,
// as scripts/test runs it; Node's default is Solid's server build, without
// reactivity): the primitives under a root, the lifecycle of lifecycle.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRoot, createSignal } from "solid-js";
import { lifecycle } from "./lifecycle.mjs";
import { connected, hostStorage, importPackage, settle } from "./support.mjs";

const { createSealedToken, createViewState } = await importPackage("./solid");

function inRoot(make) {
  let dispose;
  const result = createRoot((d) => ((dispose = d), make()));
  return { result, unmount: async () => dispose() };
}

lifecycle("mcp-sealed-state/solid", {
  viewState(app, initial, options) {
    const { result, unmount } = inRoot(() => createViewState(app, initial, options));
    const [state, setState, status] = result;
    return { state, set: setState, status, unmount };
  },
  token(app, options) {
    const { result, unmount } = inRoot(() => createSealedToken(app, options));
    return { snapshot: () => ({ token: result.token(), source: result.source(), expired: result.expired(), status: result.status() }), unmount };
  },
});

test("mcp-sealed-state/solid: the app as an accessor, set later", async () => {
  const { app } = await connected(hostStorage({ tab: "restored" }));
  const [appSignal, setApp] = createSignal(null);
  const { result, unmount } = inRoot(() => createViewState(appSignal, { tab: "initial" }));
  assert.equal(result[2]().store, null);
  setApp(app);
  await settle();
  assert.deepEqual(result[0](), { tab: "restored" });
  assert.equal(result[2]().store, "host");
  await unmount();
});
