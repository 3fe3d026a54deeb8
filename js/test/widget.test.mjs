// `mcp-sealed-state/widget`, imported from the packed tarball as a consumer gets
// it, fed tokens minted by the REAL createRequestStateCodec of
// @modelcontextprotocol/server@2.4.0 with ng-mcp-ui's envelopes:
//   view token     {p:"v", d}       (ng-mcp-ui's ctx.state.seal)
//   requestState   {p:"r", d, o}    (ng-mcp-ui's ctx.state.sealRequestState)
//   raw            any payload      (the SDK's own mint)
// The same suite runs against the edge entry, which re-exports these helpers
// over its own wasm build. widget-backends.test.mjs runs it again under
// `node --jitless` (no WebAssembly), where the widget entry's JS twin serves.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer, createRequestStateCodec } from "@modelcontextprotocol/server";
import { PACKAGE_DIR, importPackage, resolvePackage } from "./support.mjs";

const KEY = "a-test-key-that-is-at-least-32-bytes-long!";
const NG_MCP_UI_MESSAGE = "ng-mcp-ui: sealed state is invalid or expired";
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250); // a fixed clock, ms (not on a second boundary)
const S0 = Math.floor(T0 / 1000);

const utf8Len = (s) => new TextEncoder().encode(JSON.stringify(s)).length;
const b64 = (s) => Buffer.from(s, "utf8").toString("base64url");
const MAC = "A".repeat(43);
/** A v1-shaped token around any body text (the MAC is junk: the widget never checks it). */
const forged = (bodyText, mac = MAC) => `v1.${b64(bodyText)}.${mac}`;
const tick = () => new Promise((r) => setImmediate(r));
const WIDGET_EXPORTS = [
  "SEALED_STATE_INVALID_MESSAGE",
  "STATE_META_KEY",
  "SealedStateError",
  "VIEW_STATE_ERRORS",
  "ViewStateError",
  "ViewStateSaveQueue",
  "adoptToken",
  "backend",
  "checkViewState",
  "init",
  "isSealedStateError",
  "readTokenUnverified",
  "secondsLeft",
  "setViewStateRequest",
  "viewStateBytes",
  "viewStateSupport",
];
const EDGE_ONLY = new Set(["StateCodec", "createRequestStateCodec"]);

/** The SDK's codec, minting at a pinned clock (it reads Date.now() for exp). */
function sdk({ ttlSeconds = 600, bind } = {}) {
  const codec = createRequestStateCodec({ key: KEY, ttlSeconds, ...(bind && { bind: (ctx) => ctx.user }) });
  const at = async (nowMs, fn) => {
    const real = Date.now;
    Date.now = () => nowMs;
    try {
      return await fn();
    } finally {
      Date.now = real;
    }
  };
  return {
    codec,
    mint: (payload, { nowMs = T0, user } = {}) => at(nowMs, () => codec.mint(payload, bind ? { user } : undefined)),
    verify: (token, { nowMs = T0, user } = {}) => at(nowMs, () => codec.verify(token, bind ? { user } : undefined)),
  };
}
// ng-mcp-ui's purpose envelopes, sealed by the SDK codec.
const view = (d) => ({ p: "v", d });
const requestState = (d, o) => ({ p: "r", d, o });

/** Promise state without awaiting it. */
function track(promise) {
  const t = { settled: false, value: undefined, error: undefined };
  promise.then(
    (v) => Object.assign(t, { settled: true, value: v }),
    (e) => Object.assign(t, { settled: true, error: e }),
  );
  return t;
}

/** A store whose saves the test resolves or rejects by hand. */
function manualStore() {
  const calls = [];
  const store = (state) =>
    new Promise((resolve, reject) => {
      calls.push({ state, resolve, reject });
    });
  return { store, calls };
}

const NO_WASM = typeof WebAssembly === "undefined"; // node --jitless
const EXPECTED_BACKEND = NO_WASM ? "js" : "wasm";

test("the widget entry comes from the packed tarball, not the source tree", () => {
  const file = resolvePackage("/widget");
  assert.ok(file.startsWith(PACKAGE_DIR), file);
  assert.match(file, /\/widget\/node\.js$/);
});

// The edge entry needs WebAssembly; without it only the widget entry runs.
for (const entry of NO_WASM ? ["/widget"] : ["/widget", "/edge"]) {
  describe(`mcp-sealed-state${entry}`, async () => {
    const w = await importPackage(entry);
    const {
      backend,
      init,
      STATE_META_KEY,
      SEALED_STATE_INVALID_MESSAGE,
      SealedStateError,
      ViewStateError,
      ViewStateSaveQueue,
      adoptToken,
      checkViewState,
      isSealedStateError,
      readTokenUnverified,
      secondsLeft,
      setViewStateRequest,
      viewStateBytes,
      viewStateSupport,
    } = w;

    const plain = sdk();
    const bound = sdk({ bind: true });
    const good = await plain.mint(view({ board: [0, 1, 2], turn: 3 }));
    /** The module still answers correctly (called after every bad input). */
    const stillWorks = () => {
      assert.deepEqual(readTokenUnverified(good).payload, { board: [0, 1, 2], turn: 3 });
      assert.equal(secondsLeft(good, T0), 601);
      assert.equal(viewStateBytes({ é: 1 }), 8);
    };
    const assertMalformed = (fn, label) => {
      assert.throws(
        fn,
        (e) => {
          assert.ok(e instanceof SealedStateError, `${label}: ${e?.constructor?.name}: ${e?.message}`);
          assert.ok(NO_WASM || !(e instanceof WebAssembly.RuntimeError), `${label}: trapped`);
          assert.equal(e.reason, "malformed", label);
          assert.equal(e.message, SEALED_STATE_INVALID_MESSAGE, label);
          return true;
        },
        label,
      );
      stillWorks();
    };

    test(`backend() is "${EXPECTED_BACKEND}" here, and init() resolves with it`, async () => {
      assert.equal(backend(), EXPECTED_BACKEND);
      assert.equal(await init(), EXPECTED_BACKEND);
      assert.equal(backend(), EXPECTED_BACKEND);
    });

    test("exports: the API SPEC.md names, and nothing only tests call", () => {
      assert.deepEqual(
        Object.keys(w)
          .filter((k) => !EDGE_ONLY.has(k))
          .sort(),
        WIDGET_EXPORTS,
      );
    });

    test("constants", () => {
      assert.equal(STATE_META_KEY, "ng-mcp-ui/state");
      assert.equal(typeof SEALED_STATE_INVALID_MESSAGE, "string");
      assert.ok(SEALED_STATE_INVALID_MESSAGE.length > 10);
      assert.notEqual(SEALED_STATE_INVALID_MESSAGE, NG_MCP_UI_MESSAGE);
    });

    describe("readTokenUnverified on SDK-minted tokens", () => {
      test("ng-mcp-ui view envelope {p:'v',d}, unbound", async () => {
        const t = await plain.mint(view({ board: [0, 1], note: "café ☕ 😀" }));
        assert.deepEqual(readTokenUnverified(t), {
          payload: { board: [0, 1], note: "café ☕ 😀" },
          purpose: "view",
          tool: null,
          exp: S0 + 600,
          bound: false,
        });
      });

      test("ng-mcp-ui view envelope, bound to a principal", async () => {
        const t = await bound.mint(view({ n: 1 }), { user: "alice" });
        assert.deepEqual(await bound.verify(t, { user: "alice" }), view({ n: 1 }), "the SDK opens it");
        assert.deepEqual(readTokenUnverified(t), { payload: { n: 1 }, purpose: "view", tool: null, exp: S0 + 600, bound: true });
      });

      test("ng-mcp-ui requestState envelope {p:'r',d,o}, unbound and bound", async () => {
        const t1 = await plain.mint(requestState({ step: 2 }, "move"));
        assert.deepEqual(readTokenUnverified(t1), { payload: { step: 2 }, purpose: "requestState", tool: "move", exp: S0 + 600, bound: false });
        const t2 = await bound.mint(requestState(["a", null], 'tool "quoted" é/😀'), { user: "bob" });
        assert.deepEqual(readTokenUnverified(t2), {
          payload: ["a", null],
          purpose: "requestState",
          tool: 'tool "quoted" é/😀',
          exp: S0 + 600,
          bound: true,
        });
      });

      test("raw SDK payloads (no purpose envelope): purpose null, payload is the whole p", async () => {
        for (const payload of [
          { game: { board: [] } },
          [1, "two", { three: 3 }],
          "a string",
          42,
          -0.5,
          1e300,
          true,
          null,
          { p: "x", d: 1 }, // an unknown purpose is not an envelope
          { p: "v" }, // no d
          { p: "r", d: 1 }, // no o
        ]) {
          const t = await plain.mint(payload);
          assert.deepEqual(readTokenUnverified(t), { payload, purpose: null, tool: null, exp: S0 + 600, bound: false }, JSON.stringify(payload));
        }
        const tb = await bound.mint({ raw: true }, { user: "carol" });
        assert.equal(readTokenUnverified(tb).bound, true);
        assert.equal(readTokenUnverified(tb).purpose, null);
      });

      test("payloads survive exactly: escapes, astral, lone surrogates, deep nesting", async () => {
        let deep = { leaf: true };
        for (let i = 0; i < 200; i++) deep = { i, next: [deep] };
        for (const d of [
          { s: 'quote " backslash \\ slash / nl \n tab \t nul \u0000 ls \u2028' },
          { s: "\ud800 lone high, \udfff lone low, pair \ud83d\ude00" },
          { "k é": "v", "😀": ["😀"] },
          { n: [0, -0, 1.5, -1e-7, 2 ** 53, 1e21, 123456789012345680000] },
          deep,
        ]) {
          const t = await plain.mint(view(d));
          assert.deepEqual(readTokenUnverified(t).payload, JSON.parse(JSON.stringify(d)));
        }
      });

      test("exp is whatever the SDK wrote, including past and far-future", async () => {
        assert.equal(readTokenUnverified(await sdk({ ttlSeconds: -3600 }).mint(view(1))).exp, S0 - 3600);
        assert.equal(readTokenUnverified(await sdk({ ttlSeconds: 10 ** 9 }).mint(view(1))).exp, S0 + 10 ** 9);
      });

      test("a large (0.7 MB) token reads", async () => {
        const big = "x".repeat(500_000);
        const t = await plain.mint(view({ big }));
        assert.ok(t.length > 600_000);
        assert.equal(readTokenUnverified(t).payload.big, big);
      });

      test("each call returns a fresh object", async () => {
        const a = readTokenUnverified(good);
        a.payload.board.push(99);
        assert.deepEqual(readTokenUnverified(good).payload.board, [0, 1, 2]);
      });

      test("it verifies nothing: a forged MAC and an expired token still read", async () => {
        const [, body] = good.split(".");
        assert.deepEqual(readTokenUnverified(`v1.${body}.${MAC}`).payload, { board: [0, 1, 2], turn: 3 });
        await assert.rejects(plain.verify(`v1.${body}.${MAC}`), /mac/, "the SDK refuses it");
        assert.equal(readTokenUnverified(forged('{"p":{"p":"v","d":"forged"},"exp":1}')).payload, "forged");
      });
    });

    describe("secondsLeft", () => {
      test("positive exactly while the SDK still opens the token, <= 0 after", async () => {
        const t = await plain.mint(view({ a: 1 }));
        const exp = readTokenUnverified(t).exp;
        assert.equal(secondsLeft(t, T0), exp + 1 - S0);
        const lastValid = exp * 1000 + 999;
        const firstExpired = (exp + 1) * 1000;
        assert.equal(secondsLeft(t, lastValid), 1);
        assert.deepEqual(await plain.verify(t, { nowMs: lastValid }), view({ a: 1 }));
        assert.ok(secondsLeft(t, firstExpired) <= 0);
        await assert.rejects(plain.verify(t, { nowMs: firstExpired }), /expired/);
        assert.ok(secondsLeft(t, firstExpired + 3_600_000) < -3000);
      });

      test("defaults to Date.now()", async () => {
        const t = await plain.mint(view(1), { nowMs: Date.now() });
        const left = secondsLeft(t);
        assert.ok(left >= 599 && left <= 601, String(left));
      });

      test("a clock that is not a finite number is refused, not read as the epoch", async () => {
        const expired = await sdk({ ttlSeconds: -5 }).mint(view(1));
        // Values that Number() would coerce to a clock near the epoch are refused too.
        for (const nowMs of [NaN, "soon", Infinity, -Infinity, {}, "", [], [5], true, false, 10n, "1764500000000", new Date(NaN)]) {
          assert.throws(() => secondsLeft(expired, nowMs), TypeError, String(nowMs));
        }
        assert.ok(secondsLeft(expired, null) <= 0, "null means now, like undefined");
        assert.ok(secondsLeft(expired, new Date(T0)) <= 0, "a Date is its ms");
        stillWorks();
      });

      test("an already-expired SDK token", async () => {
        const t = await sdk({ ttlSeconds: -5 }).mint(view(1));
        assert.ok(secondsLeft(t, T0) <= 0);
      });

      test("requestState and raw tokens too", async () => {
        assert.equal(secondsLeft(await plain.mint(requestState(1, "t")), T0), 601);
        assert.equal(secondsLeft(await bound.mint([1], { user: "u" }), T0), 601);
      });

      test("malformed tokens throw SealedStateError(malformed)", () => {
        for (const bad of [null, undefined, 5, "", "v1.x.y", {}, "v1." + "A".repeat(2_000_000) + "." + MAC]) {
          assertMalformed(() => secondsLeft(bad, T0), String(bad).slice(0, 20));
        }
      });
    });

    describe("adoptToken (SPEC freshness rule)", async () => {
      const older = await sdk({ ttlSeconds: 60 }).mint(view({ v: "older" }));
      const newer = await sdk({ ttlSeconds: 600 }).mint(view({ v: "newer" }));
      const newerTwin = await sdk({ ttlSeconds: 600 }).mint(view({ v: "same exp, other payload" }));
      const result = (token, extra = {}) => ({
        content: [{ type: "text", text: "ok" }],
        structuredContent: { shown: true },
        _meta: { [STATE_META_KEY]: token, other: 1 },
        ...extra,
      });

      test("first token: takes the result's", () => {
        assert.equal(adoptToken(null, result(older)), older);
      });

      test("takes a result token that expires later", () => {
        assert.equal(adoptToken(older, result(newer)), newer);
      });

      test("keeps current when it expires strictly later", () => {
        assert.equal(adoptToken(newer, result(older)), newer);
      });

      test("a tie takes the result's token", () => {
        assert.equal(readTokenUnverified(newer).exp, readTokenUnverified(newerTwin).exp);
        assert.equal(adoptToken(newer, result(newerTwin)), newerTwin);
        assert.equal(adoptToken(newerTwin, result(newer)), newer);
      });

      test("requestState, raw and bound tokens are adopted by the same rule", async () => {
        const rs = await sdk({ ttlSeconds: 900 }).mint(requestState(1, "move"));
        assert.equal(adoptToken(newer, result(rs)), rs);
        const raw = await bound.mint({ any: 1 }, { user: "u" });
        assert.equal(adoptToken(older, result(raw)), raw);
        assert.equal(adoptToken(rs, result(raw)), rs);
      });

      test("an expired result token is still adopted over nothing (isSealedStateError tells expiry)", async () => {
        const expired = await sdk({ ttlSeconds: -10 }).mint(view(1));
        assert.equal(adoptToken(null, result(expired)), expired);
        assert.equal(adoptToken(older, result(expired)), older);
      });

      test("accepts a CallToolResult, ui/notifications/tool-result params, a JSON-RPC notification and response", () => {
        const r = result(newer);
        assert.equal(adoptToken(older, r), newer, "CallToolResult");
        // The params of ui/notifications/tool-result ARE a CallToolResult (ext-apps' app.ontoolresult(params)).
        const params = structuredClone(r);
        assert.equal(adoptToken(older, params), newer, "tool-result params");
        assert.equal(adoptToken(older, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params }), newer, "JSON-RPC notification");
        assert.equal(adoptToken(older, { jsonrpc: "2.0", id: 7, result: r }), newer, "JSON-RPC response to tools/call");
        assert.equal(adoptToken(newer, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result(older) }), newer);
      });

      test("keeps current when the result has no token", () => {
        for (const r of [
          { content: [] },
          { content: [], _meta: {} },
          { content: [], _meta: null },
          { content: [], _meta: { other: "v1.x.y" } },
          { content: [], _meta: { [STATE_META_KEY]: null } },
          { content: [], _meta: { [STATE_META_KEY]: undefined } },
          { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [] } },
        ]) {
          assert.equal(adoptToken(older, r), older, JSON.stringify(r));
          assert.equal(adoptToken(null, r), null, JSON.stringify(r));
        }
      });

      test("keeps current when the result's token is not a v1 token", () => {
        const [, body, mac] = newer.split(".");
        for (const bad of [
          "",
          "garbage",
          42,
          { token: newer },
          [newer],
          `v2.${body}.${mac}`,
          `${newer}.extra`,
          `v1.${body}`,
          `v1.${body}.${mac.slice(1)}`,
          forged("not json"),
          forged("[1,2]"),
          forged('{"p":1,"exp":"99999999999"}'),
          "x".repeat(3_000_000), // long, but not a v1 token
        ]) {
          assert.equal(adoptToken(older, result(bad)), older, String(bad).slice(0, 40));
          assert.equal(adoptToken(null, result(bad)), null, String(bad).slice(0, 40));
        }
        stillWorks();
      });

      test("a v1 token longer than the widget reads is refused visibly (RangeError), not dropped", async () => {
        // A codec whose maxTokenBytes was raised past the widget's 1 MiB mints such tokens.
        const big = await plain.mint(view({ big: "x".repeat(800_000) }));
        assert.ok(big.length > 1 << 20, String(big.length));
        for (const current of [older, null]) {
          assert.throws(
            () => adoptToken(current, result(big)),
            (e) => e instanceof RangeError && /1048576/.test(e.message) && /seal less/.test(e.message),
          );
        }
        assert.throws(() => adoptToken(older, result("v1." + "A".repeat(3_000_000) + "." + MAC)), RangeError);
        assertMalformed(() => readTokenUnverified(big), "readTokenUnverified(over 1 MiB)");
        assertMalformed(() => secondsLeft(big, T0), "secondsLeft(over 1 MiB)");
        const limit = forged(`{"p":{"p":"v","d":"${"x".repeat(Math.floor((((1 << 20) - 3 - 1 - 43) / 4) * 3) - 40)}"},"exp":${S0 + 10 ** 6}}`);
        assert.ok(limit.length <= 1 << 20, String(limit.length));
        assert.ok(adoptToken(older, result(limit)) === limit, "at the limit it is read and adopted");
      });

      test("an unreadable or non-string current gives way to a real token", () => {
        assert.equal(adoptToken("garbage", result(older)), older);
        assert.equal(adoptToken(forged("[]"), result(older)), older);
        for (const current of [undefined, 5, {}, ["x"]]) assert.equal(adoptToken(current, result(older)), older);
        assert.equal(adoptToken("garbage", { content: [] }), "garbage", "no token: current kept as it is");
      });

      test("tool results that are not objects keep current", () => {
        for (const r of [null, undefined, 0, 5, "v1.a.b", true, [], [result(newer)], Symbol("x")]) {
          assert.equal(adoptToken(older, r), older, String(r));
        }
      });
    });

    describe("isSealedStateError", () => {
      const err = (text, extra = {}) => ({ isError: true, content: [{ type: "text", text }], ...extra });

      test("our stable message and ng-mcp-ui's, also inside a longer text", () => {
        assert.equal(isSealedStateError(err(SEALED_STATE_INVALID_MESSAGE)), true);
        assert.equal(isSealedStateError(err(NG_MCP_UI_MESSAGE)), true);
        assert.equal(isSealedStateError(err(`MCP error -32603: ${NG_MCP_UI_MESSAGE}`)), true);
        assert.equal(isSealedStateError(err(`Error: ${SEALED_STATE_INVALID_MESSAGE} (retry)`)), true);
        assert.equal(
          isSealedStateError({
            isError: true,
            content: [
              { type: "image", data: "", mimeType: "image/png" },
              { type: "text", text: NG_MCP_UI_MESSAGE },
            ],
          }),
          true,
          "any text block",
        );
      });

      test("accepts ui/notifications/tool-result params and JSON-RPC wrappers", () => {
        const r = err(NG_MCP_UI_MESSAGE);
        assert.equal(isSealedStateError({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: r }), true);
        assert.equal(isSealedStateError({ jsonrpc: "2.0", id: 1, result: r }), true);
      });

      test("false for other errors and for non-error results", () => {
        assert.equal(isSealedStateError(err("Tool move failed: board is full")), false);
        assert.equal(isSealedStateError(err("sealed state is invalid or expired")), false, "without either prefix");
        assert.equal(isSealedStateError(err(NG_MCP_UI_MESSAGE.toUpperCase())), false);
        assert.equal(isSealedStateError({ content: [{ type: "text", text: NG_MCP_UI_MESSAGE }] }), false, "isError missing");
        assert.equal(isSealedStateError(err(NG_MCP_UI_MESSAGE, { isError: false })), false);
        assert.equal(isSealedStateError(err(NG_MCP_UI_MESSAGE, { isError: "true" })), false);
        assert.equal(isSealedStateError({ isError: true, content: [{ type: "image", data: SEALED_STATE_INVALID_MESSAGE }] }), false);
        assert.equal(isSealedStateError({ isError: true, content: "not an array" }), false);
        assert.equal(isSealedStateError({ isError: true }), false, "no content");
        assert.equal(isSealedStateError({ isError: true, content: [null, 5, { type: "text" }, { type: "text", text: 5 }] }), false);
        assert.equal(isSealedStateError({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: NG_MCP_UI_MESSAGE } }), false);
        for (const x of [null, undefined, 0, "x", NG_MCP_UI_MESSAGE, [], true]) assert.equal(isSealedStateError(x), false, String(x));
      });

      test("a 10 MB error text is scanned without trouble", () => {
        const big = "x".repeat(10 * 1024 * 1024);
        assert.equal(isSealedStateError(err(big)), false);
        assert.equal(isSealedStateError(err(big + NG_MCP_UI_MESSAGE)), true);
        stillWorks();
      });

      test("the real MCP server 2.4.0 turns a thrown open() failure into a result it recognizes; adoption over the real client", async () => {
        const server = new McpServer({ name: "t", version: "0" });
        let fail = null;
        server.registerTool("move", { description: "move" }, async () => {
          if (fail) throw new Error(fail);
          return { content: [{ type: "text", text: "moved" }], _meta: { [STATE_META_KEY]: await plain.codec.mint(view({ moved: true })) } };
        });
        const [ct, st] = InMemoryTransport.createLinkedPair();
        await server.connect(st);
        const client = new Client({ name: "c", version: "0" });
        await client.connect(ct);
        try {
          const ok = await client.callTool({ name: "move", arguments: {} });
          assert.equal(isSealedStateError(ok), false);
          const adopted = adoptToken(null, ok);
          assert.deepEqual(readTokenUnverified(adopted).payload, { moved: true });
          for (const message of [SEALED_STATE_INVALID_MESSAGE, NG_MCP_UI_MESSAGE]) {
            fail = message;
            const r = await client.callTool({ name: "move", arguments: {} });
            assert.equal(r.isError, true);
            assert.equal(isSealedStateError(r), true, JSON.stringify(r));
            assert.equal(adoptToken(adopted, r), adopted, "an error result carries no token: keep current");
          }
          fail = "something else broke";
          assert.equal(isSealedStateError(await client.callTool({ name: "move", arguments: {} })), false);
        } finally {
          await client.close();
          await server.close();
        }
      });
    });

    describe("viewStateBytes", () => {
      test("equals TextEncoder(JSON.stringify(state)).length", () => {
        let deep = {};
        for (let i = 0; i < 500; i++) deep = { d: deep };
        const states = [
          {},
          null,
          { version: 1, tab: "details" },
          { ascii: "hello world", n: 12 },
          { latin: "é à ü ß", cjk: "漢字かな", emoji: "😀🎉👩‍👩‍👧" },
          { "clé 😀": "valeur" },
          { lone: "\ud800" },
          { lone: "\udfff" },
          { lone: "x\ud83d" },
          { lone: "\ude00x\ud83d" },
          { reversed: "\ude00\ud83d" },
          { controls: '\u0000\u0001\u001f\n\r\t\b\f"\\/', sep: "\u2028\u2029", del: "\u007f" },
          { nested: { a: [1, { b: [{ c: "é" }] }] } },
          deep,
          [1, "é", null, [[]]],
          [undefined, () => 1, Symbol("s")], // become null in arrays
          { u: undefined, f: () => 1, s: Symbol("s") }, // dropped in objects
          { numbers: [0, -0, 1.5, -1e-7, 1e21, 1e-7, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity] },
          { date: new Date(T0) },
          { toJSON: () => ({ replaced: "é" }) },
          "a string",
          "é😀",
          "\ud800",
          12345.678,
          true,
          false,
          0,
          new Array(3),
          Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
          { big: "é".repeat(100_000) },
        ];
        for (const s of states) assert.equal(viewStateBytes(s), utf8Len(s), JSON.stringify(s)?.slice(0, 60));
      });

      test("undefined and other non-JSON values count 0 bytes, as TextEncoder counts them", () => {
        for (const s of [undefined, () => 1, Symbol("x")]) {
          assert.equal(viewStateBytes(s), 0);
          assert.equal(viewStateBytes(s), new TextEncoder().encode(JSON.stringify(s)).length);
        }
      });

      test("random strings of UTF-16 code units, surrogates included", () => {
        let seed = 12345;
        const rand = (n) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
        const pools = [
          [0x00, 0x80],
          [0x80, 0x800],
          [0x800, 0xd800],
          [0xd800, 0xe000],
          [0xe000, 0x10000],
        ];
        for (let i = 0; i < 300; i++) {
          let s = "";
          const len = rand(40);
          for (let j = 0; j < len; j++) {
            const [lo, hi] = pools[rand(pools.length)];
            s += String.fromCharCode(lo + rand(hi - lo));
          }
          const state = { [s.slice(0, 3)]: s, arr: [s] };
          assert.equal(viewStateBytes(state), utf8Len(state), JSON.stringify(s));
        }
      });

      test("a 10 MB state", () => {
        const s = { blob: "x".repeat(10 * 1024 * 1024) };
        assert.equal(viewStateBytes(s), 10 * 1024 * 1024 + 11);
        stillWorks();
      });

      test("what JSON.stringify cannot serialize throws like JSON.stringify does", () => {
        const circular = {};
        circular.self = circular;
        assert.throws(() => viewStateBytes(circular), TypeError);
        assert.throws(() => viewStateBytes({ n: 1n }), TypeError);
        stillWorks();
      });
    });

    describe("checkViewState", () => {
      const refused = (fn, pattern, label) =>
        assert.throws(
          fn,
          (e) => {
            assert.ok(e instanceof ViewStateError, `${label}: ${e?.constructor?.name} ${e?.message}`);
            assert.equal(e.code, -32602, label);
            if (pattern) assert.match(e.message, pattern, label);
            return true;
          },
          label,
        );

      test("objects and null within the limit pass", () => {
        assert.equal(checkViewState({}, 2), undefined);
        assert.equal(checkViewState(null, 4), undefined);
        assert.equal(checkViewState({ version: 1, tab: "details" }, 65536), undefined);
        checkViewState({ nested: { a: [1] } }, 65536);
      });

      test("the limit is bytes of compact UTF-8 JSON, inclusive", () => {
        const s = { t: "é😀" }; // {"t":"é😀"} = 8 + 2 + 4 bytes
        assert.equal(utf8Len(s), 14);
        checkViewState(s, 14);
        refused(() => checkViewState(s, 13), /14 bytes.*13/, "one byte over");
        refused(() => checkViewState(null, 3), /4 bytes/, "null is 4 bytes");
        refused(() => checkViewState({}, 1), undefined, "{} is 2 bytes");
      });

      test("only an object or null", () => {
        for (const s of [[], [1], "x", "", 0, 5, true, false, undefined, () => 1, Symbol("s"), 1n]) {
          refused(() => checkViewState(s, 65536), /object or null/, String(typeof s));
        }
      });

      test("objects that do not serialize to a JSON object are refused", () => {
        const circular = {};
        circular.self = circular;
        refused(() => checkViewState(circular, 65536), /JSON-serializable/, "circular");
        refused(() => checkViewState({ n: 1n }, 65536), /JSON-serializable/, "bigint");
        for (const thrown of [
          null,
          undefined,
          Symbol("s"),
          Object.create(null),
          5,
          {
            get message() {
              throw new Error("no");
            },
          },
        ]) {
          refused(
            () =>
              checkViewState(
                {
                  toJSON() {
                    throw thrown;
                  },
                },
                65536,
              ),
            /JSON-serializable/,
            `toJSON throws ${typeof thrown}`,
          );
          assert.equal(viewStateBytes({ ok: 1 }), 8);
        }
        refused(() => checkViewState(new Date(T0), 65536), /object or null/, "Date serializes to a string");
        refused(() => checkViewState({ toJSON: () => [1] }, 65536), /object or null/, "toJSON to an array");
        refused(() => checkViewState({ toJSON: () => undefined }, 65536), /object or null/, "toJSON to undefined");
        refused(() => checkViewState(new Number(5), 65536), /object or null/, "boxed number");
        checkViewState({ toJSON: () => ({ ok: 1 }) }, 65536);
      });

      test("a 10 MB state is refused", () => {
        refused(() => checkViewState({ blob: "x".repeat(10 * 1024 * 1024) }, 65536), /10485771 bytes/, "10 MB");
        stillWorks();
      });

      test("maxBytes must be a positive integer", () => {
        for (const m of [0, -1, 1.5, NaN, Infinity, undefined, null, "x", "65536", true, 10n, [65536]]) {
          assert.throws(() => checkViewState({}, m), RangeError, String(m));
        }
      });
    });

    describe("viewStateSupport", () => {
      const initResult = (caps, ctx) => ({
        protocolVersion: "2026-01-26",
        hostInfo: { name: "h", version: "1" },
        hostCapabilities: { openLinks: {}, ...caps },
        hostContext: { theme: "light", ...ctx },
      });

      test("reads maxBytes and the saved state from a raw ui/initialize result (the PR's example)", () => {
        const raw = initResult({ viewState: { maxBytes: 65536 } }, { viewState: { version: 1, tab: "details" } });
        assert.deepEqual(viewStateSupport(raw), { maxBytes: 65536, state: { version: 1, tab: "details" } });
      });

      test("and from the JSON-RPC response that carries it", () => {
        const raw = initResult({ viewState: { maxBytes: 1024 } }, { viewState: null });
        assert.deepEqual(viewStateSupport({ jsonrpc: "2.0", id: 1, result: raw }), { maxBytes: 1024, state: null });
      });

      test("null when the Host did not advertise the capability", () => {
        assert.equal(viewStateSupport(initResult({}, { viewState: { a: 1 } })), null, "state without capability");
        assert.equal(viewStateSupport(initResult({ viewState: null }, {})), null);
        assert.equal(viewStateSupport(initResult({ viewState: {} }, {})), null);
        assert.equal(viewStateSupport(initResult({ viewState: true }, {})), null);
        assert.equal(viewStateSupport({ hostContext: { viewState: null } }), null, "no hostCapabilities");
        assert.equal(viewStateSupport({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "x" } }), null);
      });

      test("null when maxBytes is not a positive integer", () => {
        for (const maxBytes of [0, -1, 1.5, NaN, Infinity, "65536", null, undefined, [65536], { n: 1 }]) {
          assert.equal(viewStateSupport(initResult({ viewState: { maxBytes } }, { viewState: {} })), null, String(maxBytes));
        }
      });

      test("state null when hostContext.viewState is missing or not an object", () => {
        for (const ctx of [{}, { viewState: null }, { viewState: undefined }, { viewState: [1] }, { viewState: "s" }, { viewState: 5 }, { viewState: true }]) {
          assert.deepEqual(viewStateSupport(initResult({ viewState: { maxBytes: 10 } }, ctx)), { maxBytes: 10, state: null }, JSON.stringify(ctx));
        }
        const noCtx = initResult({ viewState: { maxBytes: 10 } }, {});
        delete noCtx.hostContext;
        assert.deepEqual(viewStateSupport(noCtx), { maxBytes: 10, state: null });
      });

      test("not an initialize result: null", () => {
        for (const x of [null, undefined, 0, "x", [], true]) assert.equal(viewStateSupport(x), null, String(x));
      });
    });

    describe("setViewStateRequest", () => {
      test("the PR's example request", () => {
        const req = setViewStateRequest(4, { version: 1, tab: "details" });
        assert.deepEqual(req, { jsonrpc: "2.0", id: 4, method: "ui/set-view-state", params: { state: { version: 1, tab: "details" } } });
        assert.equal(JSON.stringify(req), '{"jsonrpc":"2.0","id":4,"method":"ui/set-view-state","params":{"state":{"version":1,"tab":"details"}}}');
      });

      test("null clears; string ids", () => {
        assert.deepEqual(setViewStateRequest("req-1", null), { jsonrpc: "2.0", id: "req-1", method: "ui/set-view-state", params: { state: null } });
        assert.equal(setViewStateRequest(0, {}).id, 0);
      });

      test("refuses bad ids and states with a TypeError", () => {
        for (const id of [null, undefined, NaN, Infinity, {}, [], true]) assert.throws(() => setViewStateRequest(id, {}), TypeError, String(id));
        for (const s of [[1], "x", 5, undefined, true]) assert.throws(() => setViewStateRequest(1, s), TypeError, String(s));
      });
    });

    describe("ViewStateSaveQueue", () => {
      const codeOf = (t) => t.error?.code;

      test("constructor checks its arguments", () => {
        assert.throws(() => new ViewStateSaveQueue(null, { maxBytes: 10 }), TypeError);
        assert.throws(() => new ViewStateSaveQueue(async () => {}), RangeError);
        for (const maxBytes of [0, -5, 1.5, NaN, Infinity, "x"]) {
          assert.throws(() => new ViewStateSaveQueue(async () => {}, { maxBytes }), RangeError, String(maxBytes));
        }
        const q = new ViewStateSaveQueue(async () => {}, { maxBytes: 100 });
        assert.equal(q.lastSaved, null);
        assert.equal(q.maxBytes, 100);
      });

      test("`initial` seeds lastSaved with a copy, with no size limit; it must be an object or null", () => {
        const initial = { tab: "details", big: "x".repeat(500) };
        const q = new ViewStateSaveQueue(async () => {}, { maxBytes: 100, initial });
        assert.deepEqual(q.lastSaved, initial);
        initial.tab = "mutated";
        assert.equal(q.lastSaved.tab, "details");
        assert.equal(new ViewStateSaveQueue(async () => {}, { maxBytes: 100, initial: null }).lastSaved, null);
        assert.throws(
          () => new ViewStateSaveQueue(async () => {}, { maxBytes: 100, initial: [1] }),
          (e) => e.code === -32602,
        );
      });

      test("lastSaved is a copy: mutating it (or the store's argument) changes nothing kept", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const saved = q.save({ n: "A", list: [1] });
        calls[0].state.list.push(99); // the store got its own copy
        calls[0].resolve();
        await saved;
        q.lastSaved.list.push(2);
        assert.deepEqual(q.lastSaved, { n: "A", list: [1] });
      });

      test("idle() resolves only once the running save and the coalesced one behind it are done", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const idleBefore = track(q.idle());
        await tick();
        assert.equal(idleBefore.settled, true, "idle right away when nothing runs");
        track(q.save({ n: "A" }));
        const b = track(q.save({ n: "B" }));
        const idle = track(q.idle());
        calls[0].resolve();
        await tick();
        assert.equal(calls.length, 2, "B is being stored");
        assert.equal(idle.settled, false, "not idle while B is stored");
        calls[1].reject(new Error("disk full"));
        await tick();
        assert.equal(idle.settled, true);
        assert.equal(b.error?.code, -32603);
        assert.deepEqual(q.lastSaved, { n: "A" });
      });

      test("one save: stored at once; settles with the store; lastSaved follows", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const a = track(q.save({ n: "A" }));
        assert.equal(calls.length, 1, "the store is called right away");
        assert.deepEqual(calls[0].state, { n: "A" });
        await tick();
        assert.equal(a.settled, false, "not settled before the store resolves");
        assert.equal(q.lastSaved, null, "lastSaved only after success");
        calls[0].resolve();
        await tick();
        assert.deepEqual(a, { settled: true, value: undefined, error: undefined });
        assert.deepEqual(q.lastSaved, { n: "A" });
      });

      test("A runs; B, C, D arrive: only A then D are stored; B, C, D all settle with D's outcome", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const a = track(q.save({ n: "A" }));
        const b = track(q.save({ n: "B" }));
        const c = track(q.save({ n: "C" }));
        const d = track(q.save({ n: "D" }));
        await tick();
        assert.equal(calls.length, 1, "one store at a time");
        assert.ok(![a, b, c, d].some((t) => t.settled));
        calls[0].resolve();
        await tick();
        assert.equal(a.settled && !a.error, true, "A settles with its own outcome");
        assert.deepEqual(q.lastSaved, { n: "A" });
        assert.equal(calls.length, 2);
        assert.deepEqual(calls[1].state, { n: "D" }, "only the newest queued state is stored");
        assert.ok(![b, c, d].some((t) => t.settled), "B, C, D wait for D's store");
        calls[1].resolve();
        await tick();
        for (const t of [b, c, d]) assert.deepEqual(t, { settled: true, value: undefined, error: undefined });
        assert.deepEqual(q.lastSaved, { n: "D" });
        assert.deepEqual(
          calls.map((x) => x.state.n),
          ["A", "D"],
        );
      });

      test("a failing store rejects all of its batch with -32603; lastSaved stays", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000, initial: { n: "initial" } });
        const a = track(q.save({ n: "A" }));
        const b = track(q.save({ n: "B" }));
        const c = track(q.save({ n: "C" }));
        calls[0].resolve();
        await tick();
        assert.deepEqual(q.lastSaved, { n: "A" });
        calls[1].reject(new Error("disk full"));
        await tick();
        for (const t of [b, c]) {
          assert.equal(t.settled, true);
          assert.ok(t.error instanceof ViewStateError);
          assert.equal(codeOf(t), -32603);
          assert.match(t.error.message, /disk full/);
        }
        assert.equal(a.error, undefined);
        assert.deepEqual(q.lastSaved, { n: "A" }, "the failed state is not the last saved one");
        // The queue keeps working after a failure.
        const e = track(q.save({ n: "E" }));
        assert.equal(calls.length, 3);
        calls[2].resolve();
        await tick();
        assert.equal(e.settled && !e.error, true);
        assert.deepEqual(q.lastSaved, { n: "E" });
      });

      test("the first save failing rejects only itself; the queued batch still runs", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const a = track(q.save({ n: "A" }));
        const b = track(q.save({ n: "B" }));
        calls[0].reject("not an Error");
        await tick();
        assert.equal(codeOf(a), -32603);
        assert.equal(q.lastSaved, null);
        assert.equal(b.settled, false);
        calls[1].resolve();
        await tick();
        assert.equal(b.settled && !b.error, true);
        assert.deepEqual(q.lastSaved, { n: "B" });
      });

      test("a store rejecting with something that cannot be turned into text still gives -32603, and the queue goes on", async () => {
        const unprintable = [
          Symbol("s"),
          Object.create(null),
          null,
          undefined,
          {
            get message() {
              throw new Error("getter");
            },
          },
          new Proxy(
            {},
            {
              get() {
                throw new Error("trap");
              },
              getPrototypeOf() {
                throw new Error("trap");
              },
            },
          ),
        ];
        for (const thrown of unprintable) {
          for (const how of ["reject", "throw"]) {
            const q = new ViewStateSaveQueue(
              how === "reject"
                ? () => Promise.reject(thrown)
                : () => {
                    throw thrown;
                  },
              { maxBytes: 100 },
            );
            const a = track(q.save({ n: 1 }));
            const b = track(q.save({ n: 2 }));
            await q.idle();
            await tick();
            assert.equal(codeOf(a), -32603, `${how} ${typeof thrown}`);
            assert.equal(codeOf(b), -32603, `${how} ${typeof thrown}: the coalesced save too`);
            assert.equal(typeof a.error.message, "string");
            assert.equal(q.lastSaved, null);
          }
        }
        // A queue whose store failed that way takes the next save.
        let fail = true;
        const q = new ViewStateSaveQueue(() => (fail ? Promise.reject(Object.create(null)) : Promise.resolve()), { maxBytes: 100 });
        await assert.rejects(q.save({ n: 1 }), (e) => e.code === -32603);
        fail = false;
        await q.save({ n: 2 });
        assert.deepEqual(q.lastSaved, { n: 2 });
      });

      test("a store that never settles gives -32603 after opts.timeoutMs; the queue goes on; a late outcome changes nothing", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 100, timeoutMs: 20 });
        const a = q.save({ n: "A" });
        const b = track(q.save({ n: "B" }));
        await assert.rejects(a, (e) => e instanceof ViewStateError && e.code === -32603 && /did not settle within 20 ms/.test(e.message));
        assert.equal(calls.length, 2, "B is stored once A timed out");
        calls[1].resolve();
        await q.idle();
        assert.equal(b.settled && !b.error, true);
        calls[0].resolve(); // A's store settles late
        await tick();
        assert.deepEqual(q.lastSaved, { n: "B" });
      });

      test("opts.timeoutMs must be a whole number of ms that a timer can hold", () => {
        for (const timeoutMs of [0, -1, 1.5, NaN, Infinity, "100", 2 ** 31]) {
          assert.throws(() => new ViewStateSaveQueue(async () => {}, { maxBytes: 10, timeoutMs }), RangeError, String(timeoutMs));
        }
        new ViewStateSaveQueue(async () => {}, { maxBytes: 10, timeoutMs: 2 ** 31 - 1 });
      });

      test("a store that throws synchronously or returns a non-promise", async () => {
        const q1 = new ViewStateSaveQueue(
          () => {
            throw new Error("sync");
          },
          { maxBytes: 100 },
        );
        await assert.rejects(q1.save({}), (e) => e.code === -32603 && /sync/.test(e.message));
        const q2 = new ViewStateSaveQueue(() => undefined, { maxBytes: 100 });
        await q2.save({ ok: 1 });
        assert.deepEqual(q2.lastSaved, { ok: 1 });
      });

      test("oversize and non-object states are refused at once with -32602; the batch and lastSaved are untouched", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 64 });
        const a = track(q.save({ n: "A" }));
        calls[0].resolve();
        await tick();
        const b = track(q.save({ n: "B" })); // running
        const refusedStates = [
          { blob: "x".repeat(100) },
          { blob: "é".repeat(30) }, // 60 chars of JSON text, 71 bytes
          { blob: "x".repeat(10 * 1024 * 1024) },
          [1],
          "state",
          5,
          undefined,
          () => 1,
        ];
        const r = refusedStates.map((s) => track(q.save(s)));
        await tick();
        for (const [i, t] of r.entries()) {
          assert.equal(t.settled, true, `refused at once #${i}`);
          assert.ok(t.error instanceof ViewStateError, `#${i}`);
          assert.equal(codeOf(t), -32602, `#${i}`);
        }
        assert.equal(calls.length, 2, "the store never sees a refused state");
        assert.equal(b.settled, false);
        assert.deepEqual(q.lastSaved, { n: "A" });
        calls[1].resolve();
        await tick();
        assert.deepEqual(q.lastSaved, { n: "B" });
        assert.equal(a.error ?? b.error, undefined);
        assert.equal(calls.length, 2, "nothing queued behind B");
      });

      test("a refused save between two good ones does not break coalescing", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 64 });
        track(q.save({ n: "A" }));
        const b = track(q.save({ n: "B" }));
        const big = track(q.save({ blob: "x".repeat(100) }));
        const c = track(q.save({ n: "C" }));
        calls[0].resolve();
        await tick();
        assert.deepEqual(calls[1].state, { n: "C" });
        calls[1].resolve();
        await tick();
        assert.equal(codeOf(big), -32602);
        assert.equal(b.settled && !b.error && c.settled && !c.error, true);
        assert.deepEqual(q.lastSaved, { n: "C" });
      });

      test("null clears", async () => {
        const saved = [];
        const q = new ViewStateSaveQueue(async (s) => void saved.push(s), { maxBytes: 10, initial: { a: 1 } });
        await q.save(null);
        assert.deepEqual(saved, [null]);
        assert.equal(q.lastSaved, null);
      });

      test("the stored value is a snapshot: later changes by the caller are not stored", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const a = { n: "A", list: [1] };
        const b = { n: "B", list: [2] };
        q.save(a);
        q.save(b);
        a.n = "A!";
        a.list.push(9);
        b.n = "B!";
        b.list.push(9);
        assert.deepEqual(calls[0].state, { n: "A", list: [1] });
        calls[0].resolve();
        await tick();
        assert.deepEqual(calls[1].state, { n: "B", list: [2] }, "queued states are snapshots too");
        calls[1].resolve();
        await tick();
        assert.deepEqual(q.lastSaved, { n: "B", list: [2] });
      });

      test("saves after a batch are ordered behind it (A, then B; C arrives during B)", async () => {
        const { store, calls } = manualStore();
        const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
        const a = track(q.save({ n: "A" }));
        const b = track(q.save({ n: "B" }));
        calls[0].resolve();
        await tick();
        const c = track(q.save({ n: "C" }));
        await tick();
        assert.equal(calls.length, 2, "C waits for B");
        calls[1].resolve();
        await tick();
        assert.equal(calls.length, 3);
        assert.equal(b.settled, true);
        assert.equal(c.settled, false);
        calls[2].resolve();
        await tick();
        assert.deepEqual(
          calls.map((x) => x.state.n),
          ["A", "B", "C"],
        );
        assert.ok(a.settled && c.settled);
      });

      test("after the queue is idle, the next save is stored at once", async () => {
        const saved = [];
        const q = new ViewStateSaveQueue(async (s) => void saved.push(s.n), { maxBytes: 100 });
        await Promise.all([q.save({ n: 1 }), q.save({ n: 2 }), q.save({ n: 3 })]);
        await q.save({ n: 4 });
        assert.deepEqual(saved, [1, 3, 4]);
      });
    });

    describe("bad input from the issue: a clear error or null, never a trap; the module keeps working", async () => {
      const tenMB = "x".repeat(10 * 1024 * 1024);
      const threeDots = `${good}.more`;
      const bads = {
        null: null,
        "a number": 12345,
        "a token with three dots": threeDots,
        "a body that is not JSON": forged("not json {"),
        "a body that is a JSON array": forged('[{"p":1,"exp":5}]'),
        "an exp that is a string": forged(`{"p":{"p":"v","d":1},"exp":"${S0 + 600}"}`),
        "a 10 MB string": tenMB,
        "a 10 MB token-shaped string": `v1.${tenMB}.${MAC}`,
        "a body that is not UTF-8": `v1.${Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString("base64url")}.${MAC}`,
        "a body that is not base64url": `v1.ab+/=.${MAC}`,
        "an exp that is a float": forged('{"p":1,"exp":5.5}'),
        "no exp": forged('{"p":1}'),
        "no p": forged('{"exp":5}'),
        "trailing junk after the JSON": forged('{"p":1,"exp":5} x'),
        "a short MAC": forged('{"p":1,"exp":5}', "AAAA"),
        "an empty string": "",
        "just the prefix": "v1.",
        undefined: undefined,
        "an object": { token: good },
      };

      for (const [label, bad] of Object.entries(bads)) {
        test(label, () => {
          assertMalformed(() => readTokenUnverified(bad), `readTokenUnverified(${label})`);
          assertMalformed(() => secondsLeft(bad, T0), `secondsLeft(${label})`);
          if (typeof bad === "string" && bad.startsWith("v1.") && bad.length > 1 << 20) {
            assert.throws(() => adoptToken(good, { _meta: { [STATE_META_KEY]: bad } }), RangeError, `adoptToken: ${label}`);
          } else {
            assert.equal(adoptToken(good, { _meta: { [STATE_META_KEY]: bad } }), good, `adoptToken: ${label}`);
          }
          assert.equal(adoptToken(null, bad), null, `adoptToken(null, ${label})`);
          assert.equal(isSealedStateError(bad), false);
          assert.equal(viewStateSupport(bad), null);
          stillWorks();
        });
      }

      test("a tool result without _meta", () => {
        const r = { content: [{ type: "text", text: "done" }], structuredContent: { a: 1 } };
        assert.equal(adoptToken(good, r), good);
        assert.equal(adoptToken(null, r), null);
        assert.equal(isSealedStateError(r), false);
        stillWorks();
      });

      test("a 10 MB view state", async () => {
        const s = { blob: tenMB };
        assert.equal(viewStateBytes(s), tenMB.length + 11);
        assert.throws(
          () => checkViewState(s, 65536),
          (e) => e.code === -32602,
        );
        await assert.rejects(new ViewStateSaveQueue(async () => {}, { maxBytes: 65536 }).save(s), (e) => e.code === -32602);
        stillWorks();
      });

      test("a thousand bad tokens in a row leave the module healthy", () => {
        for (let i = 0; i < 1000; i++) {
          assert.throws(() => readTokenUnverified(forged(`{"p":${"[".repeat(i % 50)},"exp":5}`)), SealedStateError);
        }
        stillWorks();
      });
    });
  });
}
