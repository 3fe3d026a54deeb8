// mcp-use (MCPServer) in Node 22.23 (npm's node@22; mcp-use needs >= 22.22):
// recipes/mcp-use.js in two processes sharing a key, driven by the SDK's client.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { join } from "node:path";
import { failedStart, startNode } from "./node-servers.mjs";
import { KEY, PRODUCTION_ERROR, checkRecipe, sdkRefusal } from "./support.mjs";
import { FRAMEWORKS } from "./setup.mjs";

const NODE22 = { bin: join(FRAMEWORKS, "../node_modules/node/bin/node") };
const servers = [];

before(async () => {
  for (let i = 0; i < 2; i++) servers.push(await startNode(NODE22, "recipes/mcp-use.js", { STATE_KEY: KEY, NODE_ENV: "production" }));
});
after(() => Promise.allSettled(servers.map((s) => s.stop())));

test("mcp-use in Node 22: view tokens and MRTR requestState across two processes, every bad token refused", async (t) => {
  await checkRecipe(t, { a: servers[0].url, b: servers[1].url, requestStateRefusal: sdkRefusal });
});

test("mcp-use in Node 22: no STATE_KEY in production refuses to start, with our error", async () => {
  const { code, listened, output } = await failedStart(NODE22, "recipes/mcp-use.js", { STATE_KEY: undefined, NODE_ENV: "production" });
  assert.equal(listened, false);
  assert.notEqual(code, 0);
  assert.match(output, PRODUCTION_ERROR);
});
