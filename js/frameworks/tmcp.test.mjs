// tmcp (its McpServer and HttpTransport) in Node and in Bun: recipes/tmcp.js,
// requestState through tmcpRequestStateCodec in tmcp's requestStateCodec
// slot, two processes sharing a key, driven by the SDK's client.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { failedStart, startNode } from "./node-servers.mjs";
import { KEY, PRODUCTION_ERROR, SEALED_STATE_INVALID_MESSAGE, StateCodec, checkRecipe, ours } from "./support.mjs";

const { SealedStateError, tmcpRequestStateCodec } = ours;
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

describe("tmcpRequestStateCodec, on its own", () => {
  const context = { user: "alice", call: { name: "transfer", arguments: { amount: 5 } } };
  const codec = tmcpRequestStateCodec({ key: KEY, bind: () => context.user, request: () => context.call });
  const envelope = { version: 1, inputResponses: {}, state: { amount: 5 } };

  test("encode seals (not tmcp's readable JSON), decode opens for the same user and call", () => {
    const token = codec.encode(envelope);
    assert.throws(() => JSON.parse(token), SyntaxError);
    assert.deepEqual(codec.decode(token), envelope);
  });

  test("another user, another call, tmcp's own JSON: a SealedStateError with the fixed message", () => {
    const token = codec.encode(envelope);
    const refused = (reason) => (e) => e instanceof SealedStateError && e.message === SEALED_STATE_INVALID_MESSAGE && e.reason === reason;
    context.user = "bob";
    assert.throws(() => codec.decode(token), refused("bind"));
    context.user = "alice";
    context.call = { name: "transfer", arguments: { amount: 500 } };
    assert.throws(() => codec.decode(token), refused("request"));
    context.call = { name: "transfer", arguments: { amount: 5 } };
    assert.throws(() => codec.decode(JSON.stringify(envelope)), refused("malformed"));
    assert.deepEqual(codec.decode(token), envelope);
  });

  test("a view token or another requestState does not open here", () => {
    const state = new StateCodec({ key: KEY });
    assert.throws(() => codec.decode(state.seal(envelope, { bind: "alice" })), SealedStateError);
    assert.throws(() => codec.decode(state.sealRequestState(envelope, "transfer", { bind: "alice", request: context.call })), SealedStateError);
  });

  test("bad options: a callback that is not a function, no key in production", () => {
    assert.throws(() => tmcpRequestStateCodec({ key: KEY, bind: "alice" }), /bind must be a function/);
    assert.throws(() => tmcpRequestStateCodec({ key: KEY, request: {} }), /request must be a function/);
    assert.throws(() => tmcpRequestStateCodec({ production: true }), PRODUCTION_ERROR);
    assert.throws(() => tmcpRequestStateCodec({ key: "short" }), /at least 32 bytes/);
  });
});
