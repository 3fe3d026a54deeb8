// tmcp (its McpServer and HttpTransport) in Node and in Bun: recipes/tmcp.js,
// requestState through tmcpRequestStateCodec in tmcp's requestStateCodec
// slot, two processes sharing a key, driven by the SDK's client.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { failedStart, startNode } from "./node-servers.mjs";
import { KEY, PRODUCTION_ERROR, SEALED_STATE_INVALID_MESSAGE, checkRecipe } from "./support.mjs";
import { FRAMEWORKS } from "./setup.mjs";

const RUNTIMES = {
  node: { bin: process.execPath },
  bun: { bin: join(FRAMEWORKS, "../node_modules/bun/bin/bun.exe"), args: ["run"] },
};

/** tmcp's answer: -32602 naming the codec's failure, whose message is our fixed one (no reason). */
function tmcpRefusal(error, what) {
  assert.match(error.message, /Invalid "requestState": the configured codec failed to decode it/, what);
  assert.ok(error.message.includes(SEALED_STATE_INVALID_MESSAGE), `${what}: ${error.message}`);
}

/** The requestState tmcp seals through tmcpRequestStateCodec: its envelope, the user, the call. */
const tmcpRequestState = (codec, { user, amount }) =>
  codec.sealRequestState({ version: 1, inputResponses: {}, state: { amount } }, "tmcp", { bind: user, request: { name: "transfer", arguments: { amount } } });

for (const [name, runtime] of Object.entries(RUNTIMES)) {
  describe(`tmcp in ${name}`, () => {
    const servers = [];
    before(async () => {
      for (let i = 0; i < 2; i++) servers.push(await startNode(runtime, "recipes/tmcp.js", { STATE_KEY: KEY, NODE_ENV: "production" }));
    });
    after(() => Promise.allSettled(servers.map((s) => s.stop())));

    test("view tokens and MRTR requestState across two processes, every bad token refused", async (t) => {
      await checkRecipe(t, { a: servers[0].url, b: servers[1].url, requestStateRefusal: tmcpRefusal, sealRequestState: tmcpRequestState });
    });

    test("no STATE_KEY in production refuses to start, with our error", async () => {
      const { code, listened, output } = await failedStart(runtime, "recipes/tmcp.js", { STATE_KEY: undefined, NODE_ENV: "production" });
      assert.equal(listened, false);
      assert.notEqual(code, 0);
      assert.match(output, PRODUCTION_ERROR);
    });
  });
}
