// Cloudflare `agents` (createMcpHandler of agents/mcp/server): recipes/agents.js
// bundled by wrangler and served by workerd with nodejs_compat, two instances
// sharing a key, driven by the SDK's client over Streamable HTTP.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { join } from "node:path";
import { FRAMEWORKS } from "./setup.mjs";
import { KEY, PRODUCTION_ERROR, checkRecipe, sdkRefusal } from "./support.mjs";
import { startWorker, wranglerBuild } from "./workers.mjs";

let build;
const workers = [];

before(async () => {
  build = await wranglerBuild(join(FRAMEWORKS, "recipes/agents.js"), "agents-recipe");
  for (let i = 0; i < 2; i++) workers.push(await startWorker(build, { STATE_KEY: KEY, NODE_ENV: "production" }));
});
after(() => Promise.allSettled(workers.map((w) => w.dispose())));

test("agents in workerd: view tokens and MRTR requestState across two instances, every bad token refused", async (t) => {
  await checkRecipe(t, { a: workers[0].url, b: workers[1].url, requestStateRefusal: sdkRefusal });
  t.diagnostic(`wrangler bundle: ${build.files.join(", ")}, ${build.gzipBytes} B gzip`);
});

test("agents in workerd: no STATE_KEY in production serves nothing, with our error", async () => {
  const worker = await startWorker(build, { NODE_ENV: "production" });
  try {
    const response = await fetch(worker.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    assert.equal(response.status, 500);
    // Miniflare answers a Worker's uncaught exception with its text (Cloudflare logs it).
    const text = await response.text();
    assert.match(text, PRODUCTION_ERROR);
    assert.match(text, /Worker secret STATE_KEY/, "the error names the binding to set");
  } finally {
    await worker.dispose();
  }
});
