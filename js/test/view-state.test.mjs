// The view-state rules of the widget API (viewStateBytes, checkViewState,
// viewStateSupport, setViewStateRequest), from the packed package.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { eachWidgetEntry, T0, utf8Len } from "./widget-support.mjs";

eachWidgetEntry(async ({ w, stillWorks }) => {
  const { ViewStateError, checkViewState, setViewStateRequest, viewStateBytes, viewStateSupport } = w;

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
      // It returns the compact JSON it checked: the text to store.
      assert.equal(checkViewState({}, 2), "{}");
      assert.equal(checkViewState(null, 4), "null");
      assert.equal(checkViewState({ version: 1, tab: "details" }, 65536), '{"version":1,"tab":"details"}');
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
});
