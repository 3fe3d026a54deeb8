// The official MCP conformance suite's 14 MRTR scenarios (input-required-result-*),
// run by its own command line on Node 24 against our Streamable HTTP server
// (server.mjs) three times, requestState always behind the SDK's verify seam:
// through the SDK's createRequestStateCodec, through our drop-in from the packed
// package, and (the requestState scenarios) through StateCodec.sealRequestState/
// openRequestState.
// Every scenario must pass, and our drop-in must give the SDK codec's results.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as sdk from "@modelcontextprotocol/server";
import { viaStateCodec, viaVerifySeam } from "./request-state.mjs";
import { listen, mrtrHandler } from "./server.mjs";
import { MRTR_SCENARIOS, conformanceVersion, listedMrtrScenarios, runScenarios } from "./suite.mjs";

const CONSUMER = join(dirname(fileURLToPath(import.meta.url)), "../out/consumer/package.json");
if (!existsSync(CONSUMER)) throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
const ours = await import(pathToFileURL(createRequire(CONSUMER).resolve("mcp-sealed-state")).href);

// The scenarios where requestState carries the flow.
const STATE_SCENARIOS = ["request-state", "multiple-input-requests", "multi-round", "tampered-state"].map((s) => `input-required-result-${s}`);

const key = () => crypto.getRandomValues(new Uint8Array(32));
const runs = {};

/** Serves `state` on loopback and runs `scenarios` against it. */
async function conformance(state, scenarios) {
  const server = await listen(mrtrHandler(state));
  try {
    return { results: await runScenarios(server.url, scenarios), reasons: state.reasons };
  } finally {
    await server.close();
  }
}

before(async () => {
  // Mostly waiting on loopback round trips: the three runs side by side.
  const [sdkCodec, dropIn, stateCodec] = await Promise.all([
    conformance(viaVerifySeam(sdk.createRequestStateCodec({ key: key() })), MRTR_SCENARIOS),
    conformance(viaVerifySeam(ours.createRequestStateCodec({ key: key() })), MRTR_SCENARIOS),
    conformance(viaStateCodec(new ours.StateCodec({ key: key() }), ours.SealedStateError), STATE_SCENARIOS),
  ]);
  Object.assign(runs, { sdkCodec, dropIn, stateCodec });
});

/** Every check of every scenario succeeded; returns the count. */
function allPassed(results, t) {
  let passed = 0;
  for (const [scenario, checks] of Object.entries(results)) {
    assert.ok(checks.length > 0, `${scenario}: no checks`);
    const failed = checks.filter((c) => c.status !== "SUCCESS");
    assert.deepEqual(
      failed.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`),
      [],
      scenario,
    );
    passed += checks.length;
  }
  t.diagnostic(`${Object.keys(results).length} scenarios, ${passed} checks passed, 0 failed (conformance ${conformanceVersion()})`);
  return passed;
}

// What a check saw, less what differs by key and clock: tokens, timestamps.
const comparable = (checks) => JSON.parse(JSON.stringify(checks, (k, v) => (k === "timestamp" ? undefined : k === "requestState" && typeof v === "string" ? "<requestState>" : v)));

test("the scenarios run are every input-required-result-* scenario the pinned suite lists", async () => {
  assert.deepEqual(await listedMrtrScenarios(), MRTR_SCENARIOS);
});

test(`the SDK's createRequestStateCodec: the 14 MRTR scenarios pass`, (t) => {
  assert.deepEqual(Object.keys(runs.sdkCodec.results), MRTR_SCENARIOS);
  allPassed(runs.sdkCodec.results, t);
});

test(`our createRequestStateCodec (packed package): the 14 MRTR scenarios pass`, (t) => {
  assert.deepEqual(Object.keys(runs.dropIn.results), MRTR_SCENARIOS);
  allPassed(runs.dropIn.results, t);
});

test("our drop-in gives the SDK codec's results, check by check, and the same reasons to onerror", (t) => {
  for (const scenario of MRTR_SCENARIOS) assert.deepEqual(comparable(runs.dropIn.results[scenario]), comparable(runs.sdkCodec.results[scenario]), scenario);
  // The tampered token is the only one refused, by both for the same reason.
  assert.equal(runs.sdkCodec.reasons.length, 1);
  assert.deepEqual(runs.dropIn.reasons, runs.sdkCodec.reasons);
  t.diagnostic(`the tampered token's reason, both codecs: ${runs.sdkCodec.reasons.join(", ")}`);
});

test("StateCodec.sealRequestState/openRequestState behind the seam: the requestState scenarios pass, tampered-state refused as the SDK's codec refuses it", (t) => {
  assert.deepEqual(Object.keys(runs.stateCodec.results), STATE_SCENARIOS);
  allPassed(runs.stateCodec.results, t);
  const tampered = (run) => run.results["input-required-result-tampered-state"].find((c) => c.id === "sep-2322-reject-tampered-state").details.tamperedResponse;
  assert.deepEqual(tampered(runs.stateCodec), { code: -32602, message: "Invalid or expired requestState", data: { reason: "invalid_request_state" } });
  assert.deepEqual(tampered(runs.stateCodec), tampered(runs.sdkCodec));
  // The tampered token is the only one refused, for its MAC.
  assert.deepEqual(runs.stateCodec.reasons, ["mac"]);
});
