// The examples docs/views.md shows (js/views/examples, rendered by docs.mjs):
// each, in its framework, restores the state, keeps the token and saves a
// change; and the page is their rendering.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Injector, runInInjectionContext } from "@angular/core";
import { Window } from "happy-dom";
import { test } from "node:test";
import { createRoot } from "solid-js";
import { get } from "svelte/store";
import { effectScope } from "vue";
import { PAGE, render } from "./docs.mjs";
import { EXT_APPS_MAJOR, STATE_META_KEY, connected, hostStorage, mint, settle } from "./support.mjs";

globalThis.document ??= new Window().document;
const { h, render: renderPreact } = await import("preact");
const { act } = await import("preact/test-utils");

// Each example's way of being run, and how it reads { tab, token, status }.
const RUN = {
  vue: async (make) => {
    const scope = effectScope();
    const r = scope.run(make);
    return { read: () => ({ tab: r.ui.value.tab, token: r.token.value, status: r.status.value }), act: r.showHistory, stop: () => scope.stop() };
  },
  svelte: async (make) => {
    const r = make();
    const stops = [r.ui.subscribe(() => {}), r.token.subscribe(() => {})];
    return { read: () => ({ tab: get(r.ui).tab, token: get(r.token).token, status: get(r.token).status }), act: r.showHistory, stop: () => stops.forEach((s) => s()) };
  },
  solid: async (make) => {
    let dispose;
    const r = createRoot((d) => ((dispose = d), make()));
    return { read: () => ({ tab: r.ui().tab, token: r.token(), status: r.status() }), act: r.showHistory, stop: () => dispose() };
  },
  preact: async (make) => {
    let r;
    const root = document.createElement("div");
    await act(() =>
      renderPreact(
        h(() => ((r = make()), null), null),
        root,
      ),
    );
    return { read: () => ({ tab: r.ui.tab, token: r.token, status: r.status }), act: () => act(() => r.showHistory()), stop: () => act(() => renderPreact(null, root)) };
  },
  angular: async (make) => {
    const injector = Injector.create({ providers: [] });
    const r = runInInjectionContext(injector, make);
    return { read: () => ({ tab: r.ui().tab, token: r.token(), status: r.status() }), act: r.showHistory, stop: () => injector.destroy() };
  },
};

for (const [name, run] of Object.entries(RUN)) {
  test(
    `js/views/examples/${name}.js: restored, the Host's token kept, a change saved`,
    { skip: EXT_APPS_MAJOR === 1 && "the examples import the package as the ext-apps 2.x project installs it" },
    async () => {
      const storage = hostStorage({ tab: "moves" });
      const { app, bridge } = await connected(storage);
      const example = await import(`./examples/${name}.js`);
      const make = Object.values(example)[0];
      const view = await run(() => make(app));
      const token = await mint({ board: name });
      await bridge.sendToolResult({ content: [], _meta: { [STATE_META_KEY]: token } });
      await settle();
      if (name === "preact") await act(async () => {});
      assert.deepEqual(view.read(), { tab: "moves", token, status: "ready" });
      await view.act();
      await view.stop(); // the pending save is sent at once
      while (storage.value?.tab !== "history") await storage.nextSave();
      assert.equal(storage.value[STATE_META_KEY], token, "the token kept beside the state (persist)");
    },
  );
}

test("docs/views.md shows the examples as they are (node js/views/docs.mjs rewrites its Frameworks section)", () => {
  assert.equal(readFileSync(PAGE, "utf8"), render());
});
