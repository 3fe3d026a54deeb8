// Runs scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in js/package.json) against a server URL and returns their checks, as the
// suite writes them to its results directory (checks.json per scenario).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const execFileP = promisify(execFile);
const NM = join(dirname(fileURLToPath(import.meta.url)), "../node_modules");

/** The suite's command line, and the Node it needs (22 or later: npm's node@24, not the machine's). */
export const CONFORMANCE_CLI = join(NM, "@modelcontextprotocol/conformance/dist/index.js");
export const CONFORMANCE_NODE = join(NM, "node24/bin/node");
export const conformanceVersion = () => JSON.parse(readFileSync(join(NM, "@modelcontextprotocol/conformance/package.json"), "utf8")).version;

/** The 14 MRTR scenarios (SEP-2322) of the 2026-07-28 revision. */
export const MRTR_SCENARIOS = [
  "basic-elicitation",
  "basic-sampling",
  "basic-list-roots",
  "request-state",
  "multiple-input-requests",
  "multi-round",
  "missing-input-response",
  "non-tool-request",
  "result-type",
  "unsupported-methods",
  "tampered-state",
  "capability-check",
  "ignore-extra-params",
  "validate-input",
].map((s) => `input-required-result-${s}`);

/** The suite's own server scenarios named `input-required-result-*` (its `list` command). */
export async function listedMrtrScenarios() {
  const { stdout } = await execFileP(CONFORMANCE_NODE, [CONFORMANCE_CLI, "list"], { env: { ...process.env, NO_COLOR: "1" } });
  const servers = stdout.split(/\n(?=\S)/).find((block) => block.startsWith("Server scenarios"));
  return [...(servers ?? "").matchAll(/^\s+- (input-required-result-[a-z-]+) /gm)].map((m) => m[1]);
}

/** One scenario: its checks ({ id, status, errorMessage?, details? }[]), whatever the suite's exit code. */
export async function runScenario(url, scenario) {
  const out = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  try {
    let output;
    try {
      output = await execFileP(CONFORMANCE_NODE, [CONFORMANCE_CLI, "server", "--url", url, "--scenario", scenario, "-o", out], { timeout: 120_000, env: { ...process.env, NO_COLOR: "1" } });
    } catch (e) {
      // A failed check exits 1; the checks are still written.
      output = e;
    }
    const runs = readdirSync(out);
    if (runs.length !== 1) throw new Error(`${scenario}: the suite wrote no results:\n${output.stdout ?? ""}${output.stderr ?? ""}`);
    return JSON.parse(readFileSync(join(out, runs[0], "checks.json"), "utf8"));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Scenarios one after another: { [scenario]: checks }. */
export async function runScenarios(url, scenarios) {
  const results = {};
  for (const s of scenarios) results[s] = await runScenario(url, s);
  return results;
}
