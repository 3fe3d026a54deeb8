// mcp-sealed-state/angular with @angular/core 21 and no Angular compiler
// (nothing here imports @angular/compiler): injectViewState and
// injectSealedToken in an injection context whose DestroyRef is an
// environment injector's, destroyed as a component's is.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Injector, runInInjectionContext } from "@angular/core";
import { lifecycle } from "./lifecycle.mjs";
import { importPackage } from "./support.mjs";

const { injectSealedToken, injectViewState } = await importPackage("./angular");

function inInjector(make) {
  const injector = Injector.create({ providers: [] });
  const result = runInInjectionContext(injector, make);
  return { result, unmount: async () => injector.destroy() };
}

lifecycle("mcp-sealed-state/angular", {
  viewState(app, initial, options) {
    const { result, unmount } = inInjector(() => injectViewState(app, initial, options));
    return { state: result.value, set: result.set, status: result.status, unmount };
  },
  token(app, options) {
    const { result, unmount } = inInjector(() => injectSealedToken(app, options));
    return { snapshot: () => ({ token: result.token(), source: result.source(), expired: result.expired(), status: result.status() }), unmount };
  },
});

test("mcp-sealed-state/angular: outside an injection context it throws Angular's NG0203", async () => {
  const { injectViewState: inject } = await importPackage("./angular");
  assert.throws(() => inject(null, {}), /NG0203/);
});
