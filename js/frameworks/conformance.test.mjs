// The official MCP conformance suite's input-required-result-* scenarios (the
// pinned @modelcontextprotocol/conformance of js/package.json, on Node 24)
// against a framework's own handler: agents' createMcpHandler in workerd (our
// drop-in, and StateCodec, behind the seam) and mcp-handler's in Node (the
// drop-in). The tools are js/conformance/server.mjs's, as in js/conformance.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { join } from "node:path";
import { MRTR_SCENARIOS, conformanceVersion, runScenarios } from "../conformance/suite.mjs";
import { startNode } from "./node-servers.mjs";
import { FRAMEWORKS } from "./setup.mjs";
import { KEY } from "./support.mjs";
import { startWorker, wranglerBuild } from "./workers.mjs";

const STATE_SCENARIOS = ["request-state", "multiple-input-requests", "multi-round", "tampered-state"].map((s) => `input-required-result-${s}`);
const servers = [];
const runs = {};

/** Runs `scenarios` against `url` (an MCP endpoint), and reads the reasons its seam refused. */
async function conformance(url, scenarios) {
  const results = await runScenarios(url, scenarios);
  const reasons = await (await fetch(new URL("/reasons", url))).json();
  return { results, reasons };
}

before(async () => {
  // js/conformance/server.mjs imports the SDK from js/node_modules: one copy, agents' own, in the bundle.
  const build = await wranglerBuild(join(FRAMEWORKS, "conformance/agents.js"), "agents-conformance", ["--alias", "@modelcontextprotocol/server:@modelcontextprotocol/server"]);
  const dropIn = await startWorker(build, { STATE_KEY: KEY });
  const stateCodec = await startWorker(build, { STATE_KEY: KEY, CODEC: "StateCodec" });
  const handler = await startNode({ bin: process.execPath }, "conformance/mcp-handler.js", { STATE_KEY: KEY });
  servers.push(dropIn, stateCodec, handler);
  // Mostly waiting on loopback round trips: the three runs side by side.
  const [agents, agentsStateCodec, mcpHandler] = await Promise.all([conformance(dropIn.url, MRTR_SCENARIOS), conformance(stateCodec.url, STATE_SCENARIOS), conformance(handler.url, MRTR_SCENARIOS)]);
  Object.assign(runs, { agents, agentsStateCodec, mcpHandler });
});
after(() => Promise.allSettled(servers.map((s) => (s.dispose ?? s.stop)())));

/** Every check of every scenario succeeded; the count, per scenario, in the diagnostics. */
function allPassed(t, results, scenarios) {
  assert.deepEqual(Object.keys(results), scenarios);
  for (const [scenario, checks] of Object.entries(results)) {
    assert.ok(checks.length > 0, `${scenario}: no checks`);
    const failed = checks.filter((c) => c.status !== "SUCCESS").map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`);
    assert.deepEqual(failed, [], scenario);
    t.diagnostic(`${scenario}: ${checks.length} checks passed`);
  }
  t.diagnostic(`conformance ${conformanceVersion()}`);
}

const tampered = (results) => results["input-required-result-tampered-state"].find((c) => c.id === "sep-2322-reject-tampered-state").details.tamperedResponse;
// The seam hands onerror the codec's reason in its own words: the tampered token, refused for its MAC.
const REFUSED_FOR_MAC = ["requestState verification rejected tools/call: mac"];
const SDK_ANSWER = { code: -32602, message: "Invalid or expired requestState", data: { reason: "invalid_request_state" } };

test("agents (workerd), our createRequestStateCodec behind the seam: the 14 input-required-result-* scenarios pass", (t) => {
  allPassed(t, runs.agents.results, MRTR_SCENARIOS);
  assert.deepEqual(tampered(runs.agents.results), SDK_ANSWER);
  assert.deepEqual(runs.agents.reasons, REFUSED_FOR_MAC);
});

test("agents (workerd), StateCodec behind the seam: the requestState scenarios pass", (t) => {
  allPassed(t, runs.agentsStateCodec.results, STATE_SCENARIOS);
  assert.deepEqual(tampered(runs.agentsStateCodec.results), SDK_ANSWER);
  assert.deepEqual(runs.agentsStateCodec.reasons, ["mac"]);
});

test("mcp-handler (Node), our createRequestStateCodec behind its requestState option: the 14 scenarios pass", (t) => {
  allPassed(t, runs.mcpHandler.results, MRTR_SCENARIOS);
  assert.deepEqual(tampered(runs.mcpHandler.results), SDK_ANSWER);
  assert.deepEqual(runs.mcpHandler.reasons, REFUSED_FOR_MAC);
});
