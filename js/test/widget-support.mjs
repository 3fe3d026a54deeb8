// What the widget API's tests share: tokens minted by the REAL
// createRequestStateCodec of @modelcontextprotocol/server@2.4.0 with ng-mcp-ui's
// envelopes, and a describe() per entry that serves the widget API (the widget
// entry alone: the server entry has no reader):
//   view token     {p:"v", d}       (ng-mcp-ui's ctx.state.seal)
//   requestState   {p:"r", d, o}    (ng-mcp-ui's ctx.state.sealRequestState)
//   raw            any payload      (the SDK's own mint)
// widget-backends.test.mjs runs these tests again under `node --jitless` (no
// WebAssembly), where the widget entry's JS twin serves.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { atClock } from "../lib/clock.mjs";
import { importPackage } from "./support.mjs";

/** The files of these tests, which widget-backends.test.mjs runs again without WebAssembly. */
export const WIDGET_TEST_FILES = ["widget-tokens.test.mjs", "view-state.test.mjs", "view-state-queue.test.mjs"];

export const KEY = "a-test-key-that-is-at-least-32-bytes-long!";
export const NG_MCP_UI_MESSAGE = "ng-mcp-ui: sealed state is invalid or expired";
export const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250); // a fixed clock, ms (not on a second boundary)
export const S0 = Math.floor(T0 / 1000);

export const utf8Len = (s) => new TextEncoder().encode(JSON.stringify(s)).length;
export const b64 = (s) => Buffer.from(s, "utf8").toString("base64url");
export const MAC = "A".repeat(43);
/** A v1-shaped token around any body text (the MAC is junk: the widget never checks it). */
export const forged = (bodyText, mac = MAC) => `v1.${b64(bodyText)}.${mac}`;
export const tick = () => new Promise((r) => setImmediate(r));
export const WIDGET_EXPORTS = [
  "DEFAULT_STORE_TIMEOUT_MS",
  "DEFAULT_VIEW_STATE_MAX_BYTES",
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
export const EDGE_ONLY = new Set(["StateCodec", "createRequestStateCodec", "tmcpRequestStateCodec", "mirrorToStructuredContent"]);

/** The SDK's codec, minting at a pinned clock (it reads Date.now() for exp). */
export function sdk({ ttlSeconds = 600, bind } = {}) {
  const codec = createRequestStateCodec({ key: KEY, ttlSeconds, ...(bind && { bind: (ctx) => ctx.user }) });
  return {
    codec,
    mint: (payload, { nowMs = T0, user } = {}) => atClock(nowMs, () => codec.mint(payload, bind ? { user } : undefined)),
    verify: (token, { nowMs = T0, user } = {}) => atClock(nowMs, () => codec.verify(token, bind ? { user } : undefined)),
  };
}
// ng-mcp-ui's purpose envelopes, sealed by the SDK codec.
export const view = (d) => ({ p: "v", d });
export const requestState = (d, o) => ({ p: "r", d, o });

/** Promise state without awaiting it. */
export function track(promise) {
  const t = { settled: false, value: undefined, error: undefined };
  promise.then(
    (v) => Object.assign(t, { settled: true, value: v }),
    (e) => Object.assign(t, { settled: true, error: e }),
  );
  return t;
}

/** A store whose saves the test resolves or rejects by hand. */
export function manualStore() {
  const calls = [];
  const store = (state) =>
    new Promise((resolve, reject) => {
      calls.push({ state, resolve, reject });
    });
  return { store, calls };
}

export const NO_WASM = typeof WebAssembly === "undefined"; // node --jitless
export const EXPECTED_BACKEND = NO_WASM ? "js" : "wasm";

/**
 * One describe() per entry that serves the widget API (the widget entry; the
 * server entry has none), calling `body` with the entry's module and what
 * every test of it uses.
 */
export function eachWidgetEntry(body) {
  for (const entry of ["/widget"]) {
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
      await body({ w, plain, bound, good, stillWorks, assertMalformed });
    });
  }
}
