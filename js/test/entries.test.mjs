// Each entry of the packed package exports what its users call (issue 34): the
// server entry (`.` and `./edge`) what servers call, the reader and the
// view-state helpers only from `/widget`, which has its own, smaller wasm.
// `node js/tools/entry-exports.mjs` lists every entry's names.
import assert from "node:assert/strict";
import { test } from "node:test";
import { importPackage } from "./support.mjs";

const SERVER = ["STATE_META_KEY", "SEALED_STATE_INVALID_MESSAGE", "SealedStateError", "StateCodec", "createRequestStateCodec"];
// The widget's own names: none of them is a server's call.
const WIDGET_ONLY = [
  "backend",
  "init",
  "readTokenUnverified",
  "secondsLeft",
  "adoptToken",
  "isSealedStateError",
  "viewStateBytes",
  "checkViewState",
  "viewStateSupport",
  "setViewStateRequest",
  "ViewStateSaveQueue",
  "ViewStateError",
  "VIEW_STATE_ERRORS",
];

for (const subpath of ["", "/edge"]) {
  test(`mcp-sealed-state${subpath} exports what servers call, and no widget helper`, async () => {
    const names = Object.keys(await importPackage(subpath));
    for (const name of SERVER) assert.ok(names.includes(name), `${name} missing from ${names.join(", ")}`);
    assert.deepEqual(
      names.filter((n) => WIDGET_ONLY.includes(n)),
      [],
    );
  });
}

test("mcp-sealed-state/widget exports the reader, the view-state helpers and the shared names, and no codec", async () => {
  const names = Object.keys(await importPackage("/widget"));
  for (const name of [...WIDGET_ONLY, "STATE_META_KEY", "SEALED_STATE_INVALID_MESSAGE", "SealedStateError"]) assert.ok(names.includes(name), `${name} missing`);
  assert.ok(!names.includes("StateCodec") && !names.includes("createRequestStateCodec"));
});
