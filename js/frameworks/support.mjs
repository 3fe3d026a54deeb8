// What every framework test shares: the MCP client (the SDK's, over
// Streamable HTTP), the keys, tokens the test seals itself (another key, an
// expired one), and the checks every recipe must pass.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { FRAMEWORKS, setup } from "./setup.mjs";

setup();
const require = createRequire(join(FRAMEWORKS, "package.json"));
/** The packed package as the frameworks' project installed it (its Node entry). */
export const ours = await import(pathToFileURL(require.resolve("mcp-sealed-state")).href);
export const { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, StateCodec } = ours;

/** The key the servers share, and one no server holds. */
export const KEY = "frameworks-test-key: thirty-two bytes and more";
export const OTHER_KEY = "another server's key, thirty-two bytes and more";
export const PRODUCTION_ERROR = /no key configured, and production mode refuses the ephemeral development key/;

/** A client of `url` whose requests carry `X-User: user` (the recipes' stand-in principal). MRTR rounds are driven by hand. */
export async function connect(url, user) {
  const client = new Client(
    { name: "frameworks-test", version: "0.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } },
  );
  const withUser = (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("x-user", user);
    return fetch(input, { ...init, headers });
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: withUser }));
  return client;
}

const call = (client, name, args, extra = {}) => client.callTool({ name, arguments: args, ...extra }, { allowInputRequired: true });

/** A view token sealed by the test: `key` and a clock `ageMs` in the past. */
function sealAside({ key = KEY, ageMs = 0, user = "alice", count = 1 } = {}) {
  const codec = new StateCodec({ key, now: () => Date.now() - ageMs });
  return codec.seal({ count }, { bind: user, secret: { owner: user } });
}

/** The SDK recipes' requestState of `transfer`: the payload the tool seals, for the tool, bound to the user and the arguments. */
export function sdkRequestState(codec, { user, amount }) {
  return codec.sealRequestState({ amount }, "transfer", { bind: user, request: { amount } });
}

const tamper = (token) => token.slice(0, 12) + (token[12] === "A" ? "B" : "A") + token.slice(13);
const ELEVEN_MINUTES = 11 * 60_000; // past the default 600 s lifetime

function assertRefused(result, what) {
  assert.equal(result.isError, true, `${what}: ${JSON.stringify(result)}`);
  assert.equal(result.content[0].text, SEALED_STATE_INVALID_MESSAGE, what);
  assert.equal(result._meta?.[STATE_META_KEY], undefined, what);
}

/**
 * A refused requestState retry: the JSON-RPC error (-32602, a seam's answer),
 * or with `as` "isError" the tool result (a tool that opens it itself).
 */
async function refusedRetry(client, args, requestState, what, as = "error") {
  const retry = call(client, "transfer", args, { requestState, inputResponses: { confirm: { action: "accept", content: { ok: true } } } });
  if (as === "isError") return retry;
  const error = await retry.then(
    (result) => assert.fail(`${what}: answered ${JSON.stringify(result)}`),
    (e) => e,
  );
  assert.ok(error instanceof ProtocolError, `${what}: ${error}`);
  assert.equal(error.code, -32602, what);
  return error;
}

/**
 * The checks, on two instances `a` and `b` of one recipe sharing KEY (MCP
 * endpoint URLs). `requestStateRefusal(error, what)` asserts the framework's
 * own -32602 wording; `sealRequestState(codec, { user, amount })` seals the
 * requestState of `transfer { amount }` as the recipe does.
 */
export async function checkRecipe(t, { a, b, requestStateRefusal, requestStateRefusedAs = "error", sealRequestState = sdkRequestState }) {
  const requestStateAside = ({ key = KEY, ageMs = 0, user = "alice", amount = 5 } = {}) => sealRequestState(new StateCodec({ key, now: () => Date.now() - ageMs }), { user, amount });
  const [alice, aliceOnB, bob] = [await connect(a, "alice"), await connect(b, "alice"), await connect(b, "bob")];
  try {
    await t.test("a view token sealed on one instance opens on the other, with its secret part", async () => {
      const sealed = await call(alice, "seal_view", { count: 3 });
      const token = sealed._meta[STATE_META_KEY];
      assert.equal(typeof token, "string");
      const opened = await call(aliceOnB, "open_view", { token });
      assert.equal(opened.isError, undefined, JSON.stringify(opened));
      assert.deepEqual(opened.structuredContent, { payload: { count: 3 }, secret: { owner: "alice" } });
      // The same token for another user, tampered: refused as the SDK refuses a thrown error.
      assertRefused(await call(bob, "open_view", { token }), "bound to another user");
      assertRefused(await call(aliceOnB, "open_view", { token: tamper(token) }), "tampered");
    });

    await t.test("a view token that expired, or sealed with another key, is refused", async () => {
      assertRefused(await call(aliceOnB, "open_view", { token: sealAside({ ageMs: ELEVEN_MINUTES }) }), "expired");
      assertRefused(await call(aliceOnB, "open_view", { token: sealAside({ key: OTHER_KEY }) }), "another key");
      // The control: the same token, fresh and of the shared key, opens.
      assert.equal((await call(aliceOnB, "open_view", { token: sealAside() })).isError, undefined);
    });

    await t.test("MRTR: the requestState sealed on one instance carries the retry on the other", async () => {
      const asked = await call(alice, "transfer", { amount: 5 });
      assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
      assert.equal(typeof asked.requestState, "string");
      const confirm = { confirm: { action: "accept", content: { ok: true } } };
      const done = await call(aliceOnB, "transfer", { amount: 5 }, { requestState: asked.requestState, inputResponses: confirm });
      assert.deepEqual(done.structuredContent, { sent: 5 }, JSON.stringify(done));

      const refusals = {
        tampered: await refusedRetry(aliceOnB, { amount: 5 }, tamper(asked.requestState), "tampered requestState", requestStateRefusedAs),
        "other arguments": await refusedRetry(aliceOnB, { amount: 500 }, asked.requestState, "requestState replayed with other arguments", requestStateRefusedAs),
        "other user": await refusedRetry(bob, { amount: 5 }, asked.requestState, "requestState of another user", requestStateRefusedAs),
        expired: await refusedRetry(aliceOnB, { amount: 5 }, requestStateAside({ ageMs: ELEVEN_MINUTES }), "expired requestState", requestStateRefusedAs),
        "other key": await refusedRetry(aliceOnB, { amount: 5 }, requestStateAside({ key: OTHER_KEY }), "requestState of another key", requestStateRefusedAs),
      };
      for (const [what, error] of Object.entries(refusals)) requestStateRefusal(error, what);
      // The control: a requestState the test sealed with the shared key is taken.
      const aside = await call(aliceOnB, "transfer", { amount: 5 }, { requestState: requestStateAside(), inputResponses: confirm });
      assert.deepEqual(aside.structuredContent, { sent: 5 });
    });

    await t.test("the server stays up: both instances still serve", async () => {
      for (const client of [alice, aliceOnB]) assert.equal(typeof (await call(client, "seal_view", { count: 1 }))._meta[STATE_META_KEY], "string");
    });
  } finally {
    await Promise.allSettled([alice, aliceOnB, bob].map((c) => c.close()));
  }
}

/** The SDK's answer to a refused requestState (its seam, frozen wording). */
export function sdkRefusal(error, what) {
  assert.match(error.message, /Invalid or expired requestState/, what);
  assert.deepEqual(error.data, { reason: "invalid_request_state" }, what);
}
