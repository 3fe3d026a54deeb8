// Run the mcp-use Inspector (npm @mcp-use/inspector, installed in
// www/third-party by scripts/setup.sh) as a child process, for the browser e2e:
//
//   startMcpUseInspector({ serverUrl, onLog })  -> { url, port, process, readyMs, dispose }
//
// It needs Node >= 22.22.2 (its engines field): npm `node` 22.x of
// js/node_modules when that is new enough, else npm `node@24` (node24). Its
// anonymous telemetry is off (MCP_USE_ANONYMIZED_TELEMETRY=false) and what it
// writes goes to a temporary HOME that dispose() removes.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startWithHome, stopper } from "./child-server.mjs";
import { REPO_ROOT } from "./servers.mjs";

const JS_MODULES = join(REPO_ROOT, "js/node_modules");
/** The Inspector's command (its package's `mcp-inspect` bin). */
export const MCP_USE_INSPECTOR_CLI = join(REPO_ROOT, "www/third-party/node_modules/@mcp-use/inspector/dist/cli.js");
const MIN_NODE = [22, 22, 2];

const newEnough = (version) => {
  const parts = version.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < 3; i++) if (parts[i] !== MIN_NODE[i]) return parts[i] > MIN_NODE[i];
  return true;
};

/** The first npm Node binary that the Inspector's engines field admits. */
export function inspectorNode() {
  for (const bin of [join(JS_MODULES, "node/bin/node"), join(JS_MODULES, "node24/bin/node")]) {
    if (existsSync(bin) && newEnough(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim())) return bin;
  }
  throw new Error(`no npm Node >= ${MIN_NODE.join(".")} in js/node_modules (node, node24): run scripts/setup.sh`);
}

async function startOnce({ serverUrl, port, home, onLog }) {
  const env = { ...process.env, HOME: home, MCP_USE_ANONYMIZED_TELEMETRY: "false" };
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  const child = spawn(inspectorNode(), [MCP_USE_INSPECTOR_CLI, "--url", String(serverUrl), "--port", String(port), "--no-open"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const log = onLog ?? ((line) => process.stderr.write(`[mcp-use inspector] ${line}\n`));
  const lines = [];
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        if (lines.length < 40) lines.push(line);
        log(line);
        const url = line.match(/Inspector started at (http:\/\/\S+)/)?.[1];
        if (url) resolve(url);
        if (/EADDRINUSE|already in use/i.test(line)) reject(Object.assign(new Error(`port ${port} in use`), { portInUse: true }));
      });
    }
    child.once("error", reject);
    exited.then(({ code, signal }) => setImmediate(() => reject(new Error(`the mcp-use Inspector exited before listening (code ${code}, signal ${signal}): ${lines.join(" | ")}`))));
  });
  const dispose = stopper(child, exited);
  try {
    const printed = new URL(await ready);
    // It may go on to another port when this one is taken: the printed one is the truth.
    return { url: printed, port: Number(printed.port), process: child, readyMs: performance.now() - t0, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** Start the mcp-use Inspector on a free loopback port, auto-connecting to `serverUrl` (Streamable HTTP). */
export async function startMcpUseInspector({ serverUrl, onLog } = {}) {
  if (!existsSync(MCP_USE_INSPECTOR_CLI)) throw new Error(`${MCP_USE_INSPECTOR_CLI} is missing: run scripts/setup.sh (npm ci in www/third-party)`);
  return startWithHome("mcp-use-inspector-", ({ port, home }) => startOnce({ serverUrl, port, home, onLog }));
}
