// mcp-sealed-state/preact in Preact (preact/hooks, no compat), rendered into
// happy-dom with preact/test-utils' act: the lifecycle of lifecycle.mjs.
import { Window } from "happy-dom";
import { lifecycle } from "./lifecycle.mjs";
import { importPackage } from "./support.mjs";

const window = new Window();
globalThis.document = window.document;
const { h, render } = await import("preact");
const { act } = await import("preact/test-utils");
const { useSealedToken, useViewState } = await importPackage("./preact");

async function renderHook(useHook) {
  const seen = { value: undefined };
  const Probe = () => ((seen.value = useHook()), null);
  const root = document.createElement("div");
  await act(() => render(h(Probe, null), root));
  return { current: () => seen.value, unmount: () => act(() => render(null, root)) };
}

lifecycle("mcp-sealed-state/preact", {
  async viewState(app, initial, options) {
    const hook = await renderHook(() => useViewState(app, initial, options));
    return {
      state: () => hook.current()[0],
      set: (v) => act(() => hook.current()[1](v)),
      status: () => hook.current()[2],
      unmount: hook.unmount,
    };
  },
  async token(app, options) {
    const hook = await renderHook(() => useSealedToken(app, options));
    const snapshot = () => {
      const { token, source, expired, status } = hook.current();
      return { token, source, expired, status };
    };
    return { snapshot, unmount: hook.unmount };
  },
});
