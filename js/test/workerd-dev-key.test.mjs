// The development key in real workerd (Miniflare, the packed package's
// workerd entry): one key per isolate, drawn at first use, so (1) a codec
// built per request opens the previous request's tokens and (2) a codec built
// at module scope does not draw randomness at startup, which workerd refuses
// ("the platform's random number generator failed").
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { bundleForWorkerd, importTool } from "../lib/workerd.mjs";
import { importPackage } from "./support.mjs";

const { Miniflare } = await importTool("miniflare");
const started = [];
after(() => Promise.all(started.map((mf) => mf.dispose())));

async function worker(source, bindings = {}) {
  const built = await bundleForWorkerd({ source, sourcefile: "dev-key.test.js" });
  const mf = new Miniflare({ modules: built.modules, modulesRoot: "/", compatibilityDate: "2026-05-03", cf: false, bindings });
  started.push(mf);
  return mf;
}

// ?state=T opens T; every request seals its count.
const HANDLER = `
    const echoed = new URL(request.url).searchParams.get("state");
    try {
      const count = echoed === null ? 0 : state.open(echoed).count + 1;
      return Response.json({ count, state: state.seal({ count }) });
    } catch (e) {
      return Response.json({ error: e.constructor.name + ": " + e.message }, { status: 500 });
    }`;

async function counts(mf, n) {
  const seen = [];
  let state;
  for (let i = 0; i < n; i++) {
    const body = await (await mf.dispatchFetch(state === undefined ? "http://x/" : `http://x/?state=${state}`)).json();
    seen.push(body.count ?? body.error);
    state = body.state;
  }
  return seen;
}

test("a keyless codec built inside each fetch opens the previous request's tokens (one key per isolate)", async () => {
  const mf = await worker(`import { StateCodec } from "mcp-sealed-state";
export default { async fetch(request, env) { const state = new StateCodec({ env }); ${HANDLER} } };`);
  assert.deepEqual(await counts(mf, 3), [0, 1, 2]);
});

test("a keyless codec built at module scope starts, and draws its key in the first fetch", async () => {
  const mf = await worker(`import { StateCodec } from "mcp-sealed-state";
const state = new StateCodec();
export default { async fetch(request) { ${HANDLER} } };`);
  assert.deepEqual(await counts(mf, 3), [0, 1, 2]);
});

test("a keyless codec used at module scope: a clear error that says what to do", async () => {
  const mf = await worker(`import { StateCodec } from "mcp-sealed-state";
let error = "none";
try { new StateCodec().seal(1); } catch (e) { error = e.constructor.name + ": " + e.message; }
export default { async fetch() { return new Response(error); } };`);
  const text = await (await mf.dispatchFetch("http://x/")).text();
  assert.match(
    text,
    /^Error: mcp-sealed-state: no random values here to draw the development key \(workerd refuses them at global scope, outside a request\): build or use the codec inside fetch, or give it a key$/,
  );
});

test("env: NODE_ENV=production and no STATE_KEY fails the request naming the binding; STATE_KEY is the key", async () => {
  const source = `import { StateCodec } from "mcp-sealed-state";
export default { async fetch(request, env) {
  try { const state = new StateCodec({ env }); return new Response(state.seal(1)); }
  catch (e) { return new Response(e.constructor.name + ": " + e.message, { status: 500 }); } } };`;
  const prod = await worker(source, { NODE_ENV: "production" });
  const r = await prod.dispatchFetch("http://x/");
  assert.equal(r.status, 500);
  assert.match(
    await r.text(),
    /^RangeError: mcp-sealed-state: no key configured, and production mode refuses the ephemeral development key; set the Worker secret STATE_KEY \(wrangler secret put STATE_KEY; \.dev\.vars locally\)$/,
  );
  const KEY = "workerd-dev-key-test: at least thirty-two bytes long";
  const keyed = await worker(source, { NODE_ENV: "production", STATE_KEY: KEY });
  const token = await (await keyed.dispatchFetch("http://x/")).text();
  const { StateCodec } = await importPackage();
  assert.equal(new StateCodec({ key: KEY }).open(token), 1);
});
