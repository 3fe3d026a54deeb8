// Interop with the REAL createRequestStateCodec of @modelcontextprotocol/server
// 2.4.0 (js/node_modules), against our packed package (js/out/consumer):
// tokens cross in both directions, with and without bind; ng-mcp-ui's purpose
// envelopes ({p:"v",d} and {p:"r",d,o}) minted by the SDK open with open /
// openRequestState; for the same key, payload, bind and clock the tokens are
// byte-identical; our createRequestStateCodec is a drop-in for the SDK's,
// including inside McpServer's `requestState: { verify }` seam with one MRTR
// round trip through createMcpHandler.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as sdk from "@modelcontextprotocol/server";
import { importPackage } from "./support.mjs";
import { atClock as at } from "../lib/clock.mjs";

const ours = await importPackage();
const { StateCodec, SealedStateError } = ours;

const KEY = "interop-key: a string of at least thirty-two bytes";
const KEY_BYTES = new Uint8Array(48).map((_, i) => (i * 37 + 11) & 0xff);
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250);
const S0 = Math.floor(T0 / 1000);

const PAYLOADS = [
  { board: [0, 1, 2], turn: 2 },
  null,
  true,
  0,
  -0,
  1e21,
  1.5e-7,
  0.1 + 0.2,
  "plain",
  'esc " \\ / \b\f\n\r\t \u0000 \u001f \u007f \u2028 \u2029 </script> é 🎲',
  "lone \ud800 and \udfff surrogates",
  [],
  {},
  [[[]], { a: [{ b: null }] }],
  { "": 1, ключ: "значение", "\u0000": [] },
  { big: "x".repeat(20_000) },
];

/** The SDK's codec, optionally binding to ctx.user. */
const sdkCodec = ({ key = KEY, ttlSeconds, bind } = {}) => sdk.createRequestStateCodec({ key, ...(ttlSeconds !== undefined && { ttlSeconds }), ...(bind && { bind: (ctx) => ctx.user }) });

/** The SDK's verify as a reason ("ok" or the Error message it throws). */
async function sdkReason(codec, token, ctx) {
  try {
    await codec.verify(token, ctx);
    return "ok";
  } catch (e) {
    return e.message;
  }
}
function ourReason(fn) {
  try {
    fn();
    return "ok";
  } catch (e) {
    assert.ok(e instanceof SealedStateError, String(e));
    return e.reason;
  }
}

const BINDS = [undefined, "user-42", "ünï 🎲", "\ud800"];

describe("raw tokens: SDK mint ↔ our verify", () => {
  for (const user of BINDS) {
    const label = user === undefined ? "unbound" : `bound to ${JSON.stringify(user)}`;
    test(`SDK mint → our verify, ${label}`, async () => {
      const s = sdkCodec({ bind: user !== undefined });
      const c = new StateCodec({ key: KEY });
      for (const payload of PAYLOADS) {
        const token = await s.mint(payload, user === undefined ? undefined : { user });
        assert.deepEqual(c.verify(token, { bind: user }), JSON.parse(JSON.stringify(payload)));
      }
    });
    test(`our mint → SDK verify, ${label}`, async () => {
      const s = sdkCodec({ bind: user !== undefined });
      const c = new StateCodec({ key: KEY });
      for (const payload of PAYLOADS) {
        const token = c.mint(payload, { bind: user });
        assert.deepEqual(await s.verify(token, { user }), JSON.parse(JSON.stringify(payload)));
      }
    });
  }

  test("a Uint8Array key, and a key given as a string vs its UTF-8 bytes", async () => {
    const s = sdk.createRequestStateCodec({ key: KEY_BYTES });
    const c = new StateCodec({ key: KEY_BYTES });
    assert.deepEqual(c.verify(await s.mint({ n: 1 })), { n: 1 });
    assert.deepEqual(await s.verify(c.mint({ n: 2 })), { n: 2 });
    const fromBytes = sdk.createRequestStateCodec({ key: new TextEncoder().encode(KEY) });
    assert.deepEqual(new StateCodec({ key: KEY }).verify(await fromBytes.mint(3)), 3);
  });
});

describe("purpose envelopes: ours ↔ SDK-minted ng-mcp-ui envelopes", () => {
  for (const user of [undefined, "user-42"]) {
    const label = user === undefined ? "unbound" : "bound";
    const opts = user === undefined ? undefined : { bind: user };
    const ctx = user === undefined ? undefined : { user };

    test(`our seal / sealRequestState → SDK verify gives {p:"v",d} / {p:"r",d,o}, ${label}`, async () => {
      const s = sdkCodec({ bind: user !== undefined });
      const c = new StateCodec({ key: KEY });
      for (const d of PAYLOADS) {
        const json = JSON.parse(JSON.stringify(d));
        assert.deepEqual(await s.verify(c.seal(d, opts), ctx), { p: "v", d: json });
        assert.deepEqual(await s.verify(c.sealRequestState(d, "move", opts), ctx), { p: "r", d: json, o: "move" });
      }
    });

    test(`SDK-minted {p:"v",d} opens with open, {p:"r",d,o} with openRequestState, ${label}`, async () => {
      const s = sdkCodec({ bind: user !== undefined });
      const c = new StateCodec({ key: KEY });
      for (const d of PAYLOADS) {
        const json = JSON.parse(JSON.stringify(d));
        const view = await s.mint({ p: "v", d }, ctx);
        const rs = await s.mint({ p: "r", d, o: "resign" }, ctx);
        assert.deepEqual(c.open(view, opts), json);
        assert.deepEqual(c.openRequestState(rs, "resign", opts), json);
        assert.equal(
          ourReason(() => c.openRequestState(rs, "move", opts)),
          "purpose",
        );
        assert.equal(
          ourReason(() => c.open(rs, opts)),
          "purpose",
        );
        assert.equal(
          ourReason(() => c.openRequestState(view, "resign", opts)),
          "purpose",
        );
      }
      // A raw SDK token (no envelope) is neither carrier.
      const raw = await s.mint({ board: 1 }, ctx);
      const otherPurpose = await s.mint({ p: "x", d: 1 }, ctx);
      assert.equal(
        ourReason(() => c.open(raw, opts)),
        "purpose",
      );
      assert.equal(
        ourReason(() => c.open(otherPurpose, opts)),
        "purpose",
      );
    });
  }
});

describe("byte-identical tokens for the same key, payload, bind and clock", () => {
  // ttlSeconds 0 and -5 (every token born expired) are the drop-in's alone; StateCodec's is positive.
  for (const ttlSeconds of [undefined, 1, 3600]) {
    test(`ttlSeconds ${ttlSeconds ?? "default (600)"}`, async () => {
      for (const key of [KEY, KEY_BYTES]) {
        for (const user of BINDS) {
          const s = sdkCodec({ key, ttlSeconds, bind: user !== undefined });
          const c = new StateCodec({ key, ttlSeconds, now: () => T0 });
          const ctx = user === undefined ? undefined : { user };
          const opts = { bind: user };
          for (const d of PAYLOADS) {
            const [raw, view, rs] = await at(T0, async () => [await s.mint(d, ctx), await s.mint({ p: "v", d }, ctx), await s.mint({ p: "r", d, o: "move" }, ctx)]);
            assert.equal(c.mint(d, opts), raw);
            assert.equal(c.seal(d, opts), view);
            assert.equal(c.sealRequestState(d, "move", opts), rs);
            assert.equal(JSON.parse(Buffer.from(raw.split(".")[1], "base64url")).exp, S0 + (ttlSeconds ?? 600));
          }
        }
      }
    });
  }

  test("our default clock reads Date.now per call, as the SDK does (fake timers apply)", async () => {
    const c = new StateCodec({ key: KEY }); // constructed BEFORE Date.now is pinned
    const s = sdkCodec();
    const [mine, theirs] = await at(T0, async () => [c.mint({ a: 1 }), await s.mint({ a: 1 })]);
    assert.equal(mine, theirs);
  });
});

describe("both codecs refuse the same bad tokens for the same reason", () => {
  test("tampered, expired, wrong / missing / extra bind, foreign key", async () => {
    const c = new StateCodec({ key: KEY });
    const cBound = new StateCodec({ key: KEY }); // used with { bind }
    const s = sdkCodec();
    const sBound = sdkCodec({ bind: true });
    const good = await at(T0, () => s.mint({ a: 1 }));
    const bound = await at(T0, () => sBound.mint({ a: 1 }, { user: "alice" }));
    const foreign = await at(T0, () => sdk.createRequestStateCodec({ key: KEY_BYTES }).mint({ a: 1 }));
    const tamperedBody = good.replace(/^v1\.(.)/, (_, ch) => `v1.${ch === "e" ? "f" : "e"}`);
    const tamperedMac = good.slice(0, -3) + (good.endsWith("AAA") ? "BBB" : "AAA");
    const cases = [
      // [token, bound codec?, user, expected reason, clock]
      [good, false, undefined, "ok", T0],
      [tamperedBody, false, undefined, "mac", T0],
      [tamperedMac, false, undefined, "mac", T0],
      [foreign, false, undefined, "mac", T0],
      [good, false, undefined, "ok", (S0 + 600) * 1000 + 999],
      [good, false, undefined, "expired", (S0 + 601) * 1000],
      [bound, true, "alice", "ok", T0],
      [bound, true, "bob", "bind", T0],
      [bound, false, undefined, "bind", T0], // extra b: the unbound codec fails closed
      [good, true, "alice", "bind", T0], // missing b
      ["v2.e30.AAAA", false, undefined, "malformed", T0],
      [`v1.${"!".repeat(10)}.AAAA`, false, undefined, "mac", T0], // SDK: MAC first; ours: shape first
    ];
    for (const [token, isBound, user, expected, now] of cases) {
      const theirs = await at(now, () => sdkReason(isBound ? sBound : s, token, isBound ? { user } : undefined));
      const mine = await at(now, () => ourReason(() => (isBound ? cBound : c).verify(token, isBound ? { bind: user } : undefined)));
      if (token.startsWith("v1.!")) {
        // The only documented difference: docs/format.md checks the base64url alphabet before hashing.
        assert.equal(theirs, "mac");
        assert.equal(mine, "malformed");
        continue;
      }
      assert.equal(theirs, expected, `SDK on case ${cases.findIndex((x) => x[0] === token)}`);
      assert.equal(mine, expected, `ours on case ${cases.findIndex((x) => x[0] === token)}`);
    }
  });
});

describe("the drop-in in McpServer's requestState.verify seam (MRTR, createMcpHandler in-process)", () => {
  const bindToClient = (ctx) => ctx.http?.authInfo?.clientId ?? "anonymous";
  // Which codec mints in the tool and which verifies in the seam.
  const PAIRS = [
    ["ours mints, ours verifies", "ours", "ours"],
    ["SDK mints, ours verifies", "sdk", "ours"],
    ["ours mints, SDK verifies", "ours", "sdk"],
  ];

  function setup(minter, verifier) {
    const make = (which) => (which === "ours" ? ours : sdk).createRequestStateCodec({ key: KEY, bind: bindToClient });
    const mintCodec = make(minter);
    const verifyCodec = make(verifier);
    const stats = { rounds: 0, verified: 0, rejected: [] };
    const factory = () => {
      const server = new sdk.McpServer(
        { name: "mrtr-interop", version: "0.0.0" },
        {
          requestState: {
            verify: async (state, ctx) => {
              stats.verified++;
              try {
                return await verifyCodec.verify(state, ctx);
              } catch (e) {
                stats.rejected.push(e.reason ?? e.message); // the reason stays on the server
                throw e;
              }
            },
          },
        },
      );
      server.registerTool("risky_move", { inputSchema: sdk.fromJsonSchema({ type: "object", properties: { cell: { type: "integer" } }, required: ["cell"] }) }, async ({ cell }, ctx) => {
        stats.rounds++;
        const state = ctx.mcpReq.requestState();
        const answer = sdk.acceptedContent(ctx.mcpReq.inputResponses, "confirm");
        if (state === undefined || answer === undefined) {
          return sdk.inputRequired({
            inputRequests: {
              confirm: sdk.inputRequired.elicit({
                message: `Really play cell ${cell}?`,
                requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
              }),
            },
            requestState: await mintCodec.mint({ cell, round: stats.rounds }, ctx),
          });
        }
        return { content: [{ type: "text", text: `played ${state.cell}` }], structuredContent: { cell: state.cell, ok: answer.ok, round: state.round } };
      });
      return server;
    };
    const handler = sdk.createMcpHandler(factory);
    /** A client whose requests reach the handler as `user` (authInfo.clientId). */
    const client = async (user, options = {}) => {
      const c = new Client({ name: "interop", version: "0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } }, ...options });
      c.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { ok: true } }));
      const authInfo = { token: `t-${user}`, clientId: user, scopes: [] };
      const fetchIntoHandler = (url, init) => handler.fetch(new Request(url, init), { authInfo });
      await c.connect(new StreamableHTTPClientTransport(new URL("http://in-process/mcp"), { fetch: fetchIntoHandler }));
      return c;
    };
    return { stats, client };
  }

  for (const [label, minter, verifier] of PAIRS) {
    test(`one MRTR round trip, auto-fulfilled: ${label}`, async () => {
      const { stats, client } = setup(minter, verifier);
      const c = await client("alice");
      try {
        const result = await c.callTool({ name: "risky_move", arguments: { cell: 4 } });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.deepEqual(result.structuredContent, { cell: 4, ok: true, round: 1 });
        assert.equal(stats.rounds, 2);
        assert.equal(stats.verified, 1);
      } finally {
        await c.close();
      }
    });
  }
});
