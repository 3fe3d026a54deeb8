// Run the MCPJam Inspector (npm @mcpjam/inspector, installed in www/third-party
// by scripts/setup.sh) as a child process, for the browser e2e:
//
//   startMcpJam({ servers: { name: url }, onLog })
//     -> { url, port, process, readyMs, refused, dispose }
//
// Its server (dist/server/index.js, run as its `inspector` bin runs it:
// NODE_ENV=production, PORT, from its package directory, where it serves its
// UI from) connects to the MCP servers of MCP_CONFIG_DATA (Streamable HTTP) on
// its own. It has no switch for where it listens (0.0.0.0) nor for its Sentry
// and PostHog reports, so it runs under js/lib/loopback-guard.mjs: it listens
// on 127.0.0.1 and reaches nothing but loopback. `refused` lists what the
// guard kept in (its stderr lines). What it writes goes to a temporary HOME
// that dispose() removes.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { startWithHome, stopper } from "./child-server.mjs";
import { REPO_ROOT } from "./servers.mjs";

export const MCPJAM_DIR = join(REPO_ROOT, "www/third-party/node_modules/@mcpjam/inspector");
/** Its server's entry (what its `inspector` bin starts). */
export const MCPJAM_SERVER = join(MCPJAM_DIR, "dist/server/index.js");
const GUARD = pathToFileURL(join(REPO_ROOT, "js/lib/loopback-guard.mjs")).href;
const READY_TIMEOUT_MS = 60_000;
const REFUSED = /^\[loopback-guard\] refused (.*)$/;

/** GET `url` until it answers 200 or `exited` settles or the time is up. */
async function answering(url, exited, timeoutMs) {
  let gone = false;
  exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!gone && Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(gone ? "it exited" : `no answer from ${url} within ${timeoutMs / 1000} s`);
}

async function startOnce({ servers, port, home, onLog }) {
  const mcpServers = Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { type: "http", url: String(url) }]));
  const env = { ...process.env, HOME: home, NODE_ENV: "production", PORT: String(port), MCP_CONFIG_DATA: JSON.stringify({ mcpServers }) };
  for (const name of ["NODE_OPTIONS", "ENVIRONMENT", "ELECTRON_APP", "MCP_AUTO_CONNECT_SERVER", "MCP_SERVER_COMMAND"]) delete env[name];
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", GUARD, MCPJAM_SERVER], { cwd: MCPJAM_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
  const log = onLog ?? ((line) => process.stderr.write(`[mcpjam] ${line}\n`));
  const lines = [];
  const refused = [];
  let portInUse = false;
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      if (lines.length < 40) lines.push(line);
      const kept = line.match(REFUSED)?.[1];
      if (kept) refused.push(kept);
      if (/EADDRINUSE/.test(line)) portInUse = true;
      log(line);
    });
  }
  const dispose = stopper(child, exited);
  const url = new URL(`http://127.0.0.1:${port}/`);
  try {
    await Promise.race([answering(new URL("/health", url), exited, READY_TIMEOUT_MS), new Promise((resolve, reject) => child.once("error", reject))]);
    return { url, port, process: child, readyMs: performance.now() - t0, refused, dispose };
  } catch (error) {
    await dispose();
    await new Promise((resolve) => setImmediate(resolve)); // let the readers drain, for the message
    throw Object.assign(new Error(`MCPJam did not start (${error.message}): ${lines.join(" | ")}`), { portInUse });
  }
}

/** Start MCPJam on a free loopback port, connecting to `servers` ({ name: Streamable HTTP URL }). */
export async function startMcpJam({ servers, onLog } = {}) {
  if (!existsSync(MCPJAM_SERVER)) throw new Error(`${MCPJAM_SERVER} is missing: run scripts/setup.sh (npm ci in www/third-party)`);
  return startWithHome("mcpjam-", ({ port, home }) => startOnce({ servers, port, home, onLog }));
}
