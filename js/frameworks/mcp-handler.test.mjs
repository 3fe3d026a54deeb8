// Vercel `mcp-handler` (createMcpRouteHandler) in Node: recipes/mcp-handler.js
// served in two processes sharing a key, driven by the SDK's client over
// Streamable HTTP.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { failedStart, startNode } from "./node-servers.mjs";
import { KEY, PRODUCTION_ERROR, checkRecipe, sdkRefusal } from "./support.mjs";

const NODE = { bin: process.execPath };
const servers = [];

before(async () => {
  for (let i = 0; i < 2; i++) servers.push(await startNode(NODE, "recipes/mcp-handler.js", { STATE_KEY: KEY, NODE_ENV: "production" }));
});
after(() => Promise.allSettled(servers.map((s) => s.stop())));

test("mcp-handler in Node: view tokens and MRTR requestState across two processes, every bad token refused", async (t) => {
  await checkRecipe(t, { a: servers[0].url, b: servers[1].url, requestStateRefusal: sdkRefusal });
});

test("mcp-handler in Node: no STATE_KEY in production refuses to start, with our error", async () => {
  const { code, listened, output } = await failedStart(NODE, "recipes/mcp-handler.js", { STATE_KEY: undefined, NODE_ENV: "production" });
  assert.equal(listened, false);
  assert.notEqual(code, 0);
  assert.match(output, PRODUCTION_ERROR);
});
