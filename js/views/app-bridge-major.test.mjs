// The Host side (mcp-sealed-state/app-bridge) needs ext-apps 2.x, whose
// AppBridge registers request handlers by method name; on 1.x it says so at
// construction instead of failing inside ext-apps. The View side runs on both
// (lifecycle.mjs, with EXT_APPS=1).
import assert from "node:assert/strict";
import { test } from "node:test";
import { EXT_APPS_MAJOR, importPackage } from "./support.mjs";

test("ViewStateAppBridge on this ext-apps major: built on 2.x, a clear TypeError on 1.x", async () => {
  const { ViewStateAppBridge } = await importPackage("./app-bridge");
  const storage = { load: async () => null, save: async () => {} };
  const make = () => new ViewStateAppBridge(null, { name: "h", version: "1" }, {}, {}, { storage });
  if (EXT_APPS_MAJOR === 2) {
    assert.equal(make().viewStateMaxBytes, 65536);
    return;
  }
  assert.throws(make, (e) => e instanceof TypeError && /needs @modelcontextprotocol\/ext-apps 2\.x/.test(e.message) && e.cause !== undefined);
});
