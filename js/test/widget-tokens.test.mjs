// The token half of the widget API (readTokenUnverified, secondsLeft,
// adoptToken, isSealedStateError) on SDK-minted tokens, and what bad input does
// to it, from the packed package as a consumer gets it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { PACKAGE_DIR, resolvePackage } from "./support.mjs";
import { eachWidgetEntry, EDGE_ONLY, EXPECTED_BACKEND, forged, MAC, NG_MCP_UI_MESSAGE, requestState, S0, sdk, T0, view, WIDGET_EXPORTS } from "./widget-support.mjs";

test("the widget entry comes from the packed tarball, not the source tree", () => {
  const file = resolvePackage("/widget");
  assert.ok(file.startsWith(PACKAGE_DIR), file);
  assert.match(file, /\/widget\/node\.js$/);
});

eachWidgetEntry(async ({ w, plain, bound, good, stillWorks, assertMalformed }) => {
  const {
    backend,
    init,
    STATE_META_KEY,
    SEALED_STATE_INVALID_MESSAGE,
    SealedStateError,
    ViewStateSaveQueue,
    adoptToken,
    checkViewState,
    isSealedStateError,
    readTokenUnverified,
    secondsLeft,
    viewStateBytes,
    viewStateSupport,
  } = w;

  test(`backend() is "${EXPECTED_BACKEND}" here, and init() resolves with it`, async () => {
    assert.equal(backend(), EXPECTED_BACKEND);
    assert.equal(await init(), EXPECTED_BACKEND);
    assert.equal(backend(), EXPECTED_BACKEND);
  });

  test("exports: the API docs/format.md and docs/hosts.md name, and nothing only tests call", () => {
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
        hasSecret: false,
      });
    });

    test("ng-mcp-ui view envelope, bound to a principal", async () => {
      const t = await bound.mint(view({ n: 1 }), { user: "alice" });
      assert.deepEqual(await bound.verify(t, { user: "alice" }), view({ n: 1 }), "the SDK opens it");
      assert.deepEqual(readTokenUnverified(t), { payload: { n: 1 }, purpose: "view", tool: null, exp: S0 + 600, bound: true, hasSecret: false });
    });

    test("ng-mcp-ui requestState envelope {p:'r',d,o}, unbound and bound", async () => {
      const t1 = await plain.mint(requestState({ step: 2 }, "move"));
      assert.deepEqual(readTokenUnverified(t1), { payload: { step: 2 }, purpose: "requestState", tool: "move", exp: S0 + 600, bound: false, hasSecret: false });
      const t2 = await bound.mint(requestState(["a", null], 'tool "quoted" é/😀'), { user: "bob" });
      assert.deepEqual(readTokenUnverified(t2), {
        payload: ["a", null],
        purpose: "requestState",
        tool: 'tool "quoted" é/😀',
        exp: S0 + 600,
        bound: true,
        hasSecret: false,
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
        assert.deepEqual(readTokenUnverified(t), { payload, purpose: null, tool: null, exp: S0 + 600, bound: false, hasSecret: false }, JSON.stringify(payload));
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

  describe("adoptToken (the freshness rule of docs/hosts.md)", async () => {
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

    test("our stable message and ng-mcp-ui's as the whole text of a block (or of an McpError); inside a longer (e.g. echoed) text is not a refusal", () => {
      assert.equal(isSealedStateError(err(SEALED_STATE_INVALID_MESSAGE)), true);
      assert.equal(isSealedStateError(err(NG_MCP_UI_MESSAGE)), true);
      assert.equal(isSealedStateError(err(`MCP error -32603: ${NG_MCP_UI_MESSAGE}`)), true, "an McpError thrown by the tool, as the SDK formats it");
      assert.equal(isSealedStateError(err(`MCP error -32603: no such cell: ${NG_MCP_UI_MESSAGE}`)), false);
      assert.equal(isSealedStateError(err(`Error: ${SEALED_STATE_INVALID_MESSAGE} (retry)`)), false);
      assert.equal(isSealedStateError(err(`no such cell: ${SEALED_STATE_INVALID_MESSAGE}`)), false, "a server echoing input cannot fake it");
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
      assert.equal(isSealedStateError(err(big + NG_MCP_UI_MESSAGE)), false);
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
