// The widget API (no key): the unverified reader, secondsLeft, token adoption,
// isSealedStateError and the ui/set-view-state rules, from
// mcp-sealed-state/widget (the server entry has none of them). Tokens are the
// SDK's own (tests/vectors) or sealed by StateCodec.
import * as edge from "mcp-sealed-state";
import * as widget from "mcp-sealed-state/widget";
import vectors from "../vectors.js";
import { assert, test } from "../harness.js";
import { KEY, NG_MCP_UI_MESSAGE, S0, T0, forged } from "../util.js";

const byName = (name) => {
  const v = vectors.vectors.find((x) => x.name === name);
  if (!v) throw new Error(`no vector ${name}`);
  return v;
};
const sealer = (ttlSeconds = 600) => new edge.StateCodec({ key: KEY, ttlSeconds, now: () => T0 });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Promise state without awaiting it. */
function track(promise) {
  const t = { settled: false, value: undefined, error: undefined };
  promise.then(
    (v) => Object.assign(t, { settled: true, value: v }),
    (e) => Object.assign(t, { settled: true, error: e }),
  );
  return t;
}

/** A store whose saves the test settles by hand. */
function manualStore() {
  const calls = [];
  const store = (state) => new Promise((resolve, reject) => calls.push({ state, resolve, reject }));
  return { store, calls };
}

for (const [entry, w] of [["mcp-sealed-state/widget", widget]]) {
  const malformed = (fn, label) => {
    const e = assert.throws(fn, undefined, label);
    assert.ok(e instanceof w.SealedStateError, `${label}: ${e?.constructor?.name}: ${e?.message}`);
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `${label}: trapped`);
    assert.equal(e.reason, "malformed", label);
    assert.equal(e.message, w.SEALED_STATE_INVALID_MESSAGE, label);
  };

  test(`${entry}: the wasm serves once init() resolves`, async () => {
    assert.equal(await w.init(), "wasm");
    assert.equal(w.backend(), "wasm");
  });

  test(`${entry}: readTokenUnverified reads the SDK's view, requestState and raw tokens`, () => {
    const view = byName("view-bound-tictactoe");
    assert.deepEqual(w.readTokenUnverified(view.token), { payload: JSON.parse(view.payloadJson), purpose: "view", tool: null, exp: view.exp, bound: true, hasSecret: false });
    const rs = byName("rs-quote-tool");
    assert.deepEqual(w.readTokenUnverified(rs.token), { payload: JSON.parse(rs.payloadJson), purpose: "requestState", tool: rs.tool, exp: rs.exp, bound: false, hasSecret: false });
    const raw = byName("raw-nested");
    assert.deepEqual(w.readTokenUnverified(raw.token), { payload: JSON.parse(raw.payloadJson), purpose: null, tool: null, exp: raw.exp, bound: false, hasSecret: false });
    for (const v of vectors.vectors) {
      const read = w.readTokenUnverified(v.token);
      assert.equal(JSON.stringify(read.payload), v.payloadJson, v.name);
      assert.equal(read.exp, v.exp, v.name);
      assert.equal(read.bound, v.bind !== null, v.name);
      assert.equal(read.purpose, { raw: null, view: "view", requestState: "requestState" }[v.kind], v.name);
    }
  });

  test(`${entry}: readTokenUnverified verifies nothing, and refuses what is not a v1 token`, () => {
    const good = byName("view-tictactoe").token;
    const [, body] = good.split(".");
    assert.deepEqual(w.readTokenUnverified(`v1.${body}.${"A".repeat(43)}`).payload, JSON.parse(byName("view-tictactoe").payloadJson));
    assert.equal(w.readTokenUnverified(forged('{"p":{"p":"v","d":"forged"},"exp":1}')).payload, "forged");
    for (const bad of [null, 5, "", "garbage", "v1.x.y", `v2.${body}.${"A".repeat(43)}`, forged("not json"), forged("[1,2]"), {}]) {
      malformed(() => w.readTokenUnverified(bad), String(bad).slice(0, 20));
    }
    const a = w.readTokenUnverified(good);
    a.payload.board.push(99);
    assert.equal(w.readTokenUnverified(good).payload.board.length, 9, "each call returns a fresh object");
  });

  test(`${entry}: secondsLeft is positive exactly while the token opens`, () => {
    const t = sealer(30).seal({ a: 1 });
    const opener = (ms) => new edge.StateCodec({ key: KEY, now: () => ms });
    assert.equal(w.secondsLeft(t, T0), 31);
    const lastValid = (S0 + 30) * 1000 + 999;
    assert.equal(w.secondsLeft(t, lastValid), 1);
    assert.deepEqual(opener(lastValid).open(t), { a: 1 });
    assert.ok(w.secondsLeft(t, lastValid + 1) <= 0);
    assert.throws(() => opener(lastValid + 1).open(t), edge.SealedStateError);
    const now = w.secondsLeft(new edge.StateCodec({ key: KEY }).seal(1));
    assert.ok(now >= 599 && now <= 601, `defaults to Date.now(): ${now}`);
    for (const nowMs of [NaN, "soon", Infinity, {}]) assert.throws(() => w.secondsLeft(t, nowMs), TypeError, String(nowMs));
    for (const bad of [null, undefined, 5, "", "v1.x.y"]) malformed(() => w.secondsLeft(bad, T0), String(bad));
  });

  test(`${entry}: adoptToken keeps the freshest token (ties go to the result)`, () => {
    const older = sealer(60).seal({ v: "older" });
    const newer = sealer(600).seal({ v: "newer" });
    const twin = sealer(600).seal({ v: "same exp" });
    const result = (token) => ({ content: [{ type: "text", text: "ok" }], _meta: { [w.STATE_META_KEY]: token, other: 1 } });
    assert.equal(w.adoptToken(null, result(older)), older);
    assert.equal(w.adoptToken(older, result(newer)), newer);
    assert.equal(w.adoptToken(newer, result(older)), newer);
    assert.equal(w.adoptToken(newer, result(twin)), twin);
    assert.equal(w.adoptToken(older, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result(newer) }), newer);
    assert.equal(w.adoptToken(older, { jsonrpc: "2.0", id: 7, result: result(newer) }), newer);
    for (const r of [{ content: [] }, { _meta: null }, { _meta: { [w.STATE_META_KEY]: null } }, null, 5, "v1.a.b", [result(newer)]]) {
      assert.equal(w.adoptToken(older, r), older, JSON.stringify(r));
    }
    for (const bad of ["", "garbage", 42, forged("[1,2]"), `${newer}.extra`]) assert.equal(w.adoptToken(older, result(bad)), older, String(bad));
    for (const current of ["garbage", undefined, 5]) assert.equal(w.adoptToken(current, result(older)), older);
  });

  test(`${entry}: isSealedStateError knows our message and ng-mcp-ui's, nothing else`, () => {
    const err = (text, extra = {}) => ({ isError: true, content: [{ type: "text", text }], ...extra });
    assert.equal(w.isSealedStateError(err(w.SEALED_STATE_INVALID_MESSAGE)), true);
    assert.equal(w.isSealedStateError(err(`MCP error -32603: ${NG_MCP_UI_MESSAGE}`)), true);
    assert.equal(w.isSealedStateError({ jsonrpc: "2.0", id: 1, result: err(NG_MCP_UI_MESSAGE) }), true);
    assert.equal(w.isSealedStateError(err("Tool move failed: board is full")), false);
    assert.equal(w.isSealedStateError(err(NG_MCP_UI_MESSAGE, { isError: false })), false);
    assert.equal(w.isSealedStateError({ content: [{ type: "text", text: NG_MCP_UI_MESSAGE }] }), false);
    for (const x of [null, undefined, 0, NG_MCP_UI_MESSAGE, []]) assert.equal(w.isSealedStateError(x), false, String(x));
  });

  test(`${entry}: viewStateBytes and checkViewState count compact UTF-8 JSON bytes`, () => {
    for (const s of [{}, null, { tab: "details" }, { latin: "é ß", cjk: "漢字", emoji: "😀👩‍👩‍👧" }, { lone: "\ud800" }, [1, "é"]]) {
      assert.equal(w.viewStateBytes(s), new TextEncoder().encode(JSON.stringify(s)).length, JSON.stringify(s));
    }
    assert.equal(w.viewStateBytes(undefined), 0);
    w.checkViewState({ a: "é" }, 10); // {"a":"é"} is 10 bytes
    const over = assert.throws(() => w.checkViewState({ a: "é" }, 9), w.ViewStateError);
    assert.equal(over.code, -32602);
    for (const s of [[1], "x", 5, true]) assert.equal(assert.throws(() => w.checkViewState(s, 100)).code, -32602, String(s));
    for (const maxBytes of [0, -1, 1.5, NaN]) assert.throws(() => w.checkViewState({}, maxBytes), RangeError, String(maxBytes));
  });

  test(`${entry}: viewStateSupport reads the raw ui/initialize result; setViewStateRequest`, () => {
    const init = (caps, ctx) => ({ protocolVersion: "2026-01-26", hostCapabilities: { openLinks: {}, ...caps }, hostContext: { theme: "light", ...ctx } });
    assert.deepEqual(w.viewStateSupport(init({ viewState: { maxBytes: 65536 } }, { viewState: { version: 1 } })), { maxBytes: 65536, state: { version: 1 } });
    assert.deepEqual(w.viewStateSupport({ jsonrpc: "2.0", id: 1, result: init({ viewState: { maxBytes: 10 } }, { viewState: [1] }) }), { maxBytes: 10, state: null });
    assert.equal(w.viewStateSupport(init({}, { viewState: { a: 1 } })), null, "state without the capability");
    for (const maxBytes of [0, 1.5, "65536", null]) assert.equal(w.viewStateSupport(init({ viewState: { maxBytes } }, {})), null, String(maxBytes));
    assert.equal(JSON.stringify(w.setViewStateRequest(4, { version: 1, tab: "details" })), '{"jsonrpc":"2.0","id":4,"method":"ui/set-view-state","params":{"state":{"version":1,"tab":"details"}}}');
    assert.deepEqual(w.setViewStateRequest("r", null).params, { state: null });
    for (const id of [null, NaN, {}]) assert.throws(() => w.setViewStateRequest(id, {}), TypeError, String(id));
    assert.deepEqual(w.VIEW_STATE_ERRORS, { INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603, METHOD_NOT_FOUND: -32601 });
  });

  test(`${entry}: ViewStateSaveQueue stores one at a time and coalesces to the newest`, async () => {
    const { store, calls } = manualStore();
    const q = new w.ViewStateSaveQueue(store, { maxBytes: 1000 });
    const a = track(q.save({ n: "A" }));
    assert.equal(calls.length, 1, "the store is called at once");
    const [b, c, d] = [q.save({ n: "B" }), q.save({ n: "C" }), q.save({ n: "D" })].map(track);
    calls[0].resolve();
    await tick();
    assert.equal(a.settled && a.error === undefined, true);
    assert.deepEqual(q.lastSaved, { n: "A" });
    assert.equal(calls.length, 2, "only the newest of B, C, D is stored");
    assert.deepEqual(calls[1].state, { n: "D" });
    calls[1].resolve();
    await tick();
    for (const t of [b, c, d]) assert.equal(t.settled && t.error === undefined, true);
    assert.deepEqual(q.lastSaved, { n: "D" });
    await q.idle();
  });

  test(`${entry}: ViewStateSaveQueue refusals: -32602 never as given, -32603 when the store fails`, async () => {
    const { store, calls } = manualStore();
    const q = new w.ViewStateSaveQueue(store, { maxBytes: 20, initial: { kept: 1 } });
    await assert.rejects(q.save({ big: "x".repeat(50) }), (e) => e instanceof w.ViewStateError && e.code === -32602);
    await assert.rejects(q.save([1]), (e) => e.code === -32602);
    assert.equal(calls.length, 0, "refused states never reach the store");
    const failing = track(q.save({ n: 1 }));
    calls[0].reject(new Error("disk full"));
    await tick();
    assert.equal(failing.error?.code, -32603);
    assert.deepEqual(q.lastSaved, { kept: 1 });
    const ok = q.save(null);
    calls[1].resolve();
    await ok;
    assert.equal(q.lastSaved, null, "null clears");
    assert.throws(() => new w.ViewStateSaveQueue(null, { maxBytes: 10 }), TypeError);
    assert.throws(() => new w.ViewStateSaveQueue(async () => {}, { maxBytes: 0 }), RangeError);
  });
}
