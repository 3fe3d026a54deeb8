// `mcp-sealed-state/widget` in REAL workerd (Miniflare): its "workerd" entry
// imports the .wasm as a module (workerd refuses to compile bytes at run
// time), bundled from the packed package as js/workerd.mjs bundles workers.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { COMPATIBILITY_DATE, bundleForWorkerd, importTool } from "../workerd.mjs";
import { JS_DIR } from "./support.mjs";

const KEY = "a-test-key-that-is-at-least-32-bytes-long!";
const WORKER = `import { backend, init, readTokenUnverified, secondsLeft, adoptToken, viewStateBytes, STATE_META_KEY } from "mcp-sealed-state/widget";
export default { async fetch(request) {
  const token = new URL(request.url).searchParams.get("token");
  let malformed = null;
  try { readTokenUnverified("v1.x.y"); } catch (e) { malformed = e.reason; }
  return Response.json({
    backend: backend(), settled: await init(), view: readTokenUnverified(token), left: secondsLeft(token, 0),
    adopted: adoptToken(null, { _meta: { [STATE_META_KEY]: token } }) === token, bytes: viewStateBytes({ "é": 1 }), malformed,
  });
} };`;

let mf;
let built;
before(async () => {
  built = await bundleForWorkerd({ source: WORKER, sourcefile: "widget-worker.mjs", resolveDir: join(JS_DIR, "test"), moduleDir: join(JS_DIR, "out/widget-worker") });
  const { Miniflare } = await importTool("miniflare");
  mf = new Miniflare({ modulesRoot: join(JS_DIR, "out/widget-worker"), modules: built.modules, compatibilityDate: COMPATIBILITY_DATE });
  await mf.ready;
});
after(() => mf?.dispose());

test("the worker bundles the widget's workerd entry with the widget .wasm as a module", () => {
  assert.deepEqual(
    built.wasm.map((f) => f.split("/").slice(-2).join("/")),
    ["wasm/widget_bg.wasm"],
  );
});

test("reads an SDK-minted token in workerd, on the wasm backend", async () => {
  const token = await createRequestStateCodec({ key: KEY, ttlSeconds: 600 }).mint({ p: "v", d: { board: [1, 2] } });
  const res = await mf.dispatchFetch(`http://widget.test/?token=${encodeURIComponent(token)}`);
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  assert.equal(body.backend, "wasm");
  assert.equal(body.settled, "wasm");
  assert.deepEqual(body.view.payload, { board: [1, 2] });
  assert.equal(body.view.purpose, "view");
  assert.equal(body.left, body.view.exp + 1);
  assert.equal(body.adopted, true);
  assert.equal(body.bytes, 8);
  assert.equal(body.malformed, "malformed");
});
