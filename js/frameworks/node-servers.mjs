// A recipe served by serve-node.mjs in a child process: one process per server
// instance, as two instances of a Node deployment are.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { FRAMEWORKS } from "./setup.mjs";

const SERVE = join(FRAMEWORKS, "serve-node.mjs");

function child(runtime, recipe, env) {
  const full = { ...process.env, NO_COLOR: "1", MCP_USE_ANONYMIZED_TELEMETRY: "false", DO_NOT_TRACK: "1", ...env };
  delete full.NODE_OPTIONS;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete full[k];
  const proc = spawn(runtime.bin, [...(runtime.args ?? []), SERVE, join(FRAMEWORKS, recipe)], { cwd: FRAMEWORKS, env: full, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  proc.stdout.on("data", (d) => (out.stdout += d));
  proc.stderr.on("data", (d) => (out.stderr += d));
  const exited = new Promise((resolve) => proc.on("close", (code) => resolve(code)));
  return { proc, out, exited };
}

/** One instance: `{ url, stop, output }`, once it printed its URL (60 s at most). */
export async function startNode(runtime, recipe, env) {
  const { proc, out, exited } = child(runtime, recipe, env);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${recipe}: no LISTENING line in 60 s:\n${out.stdout}${out.stderr}`)), 60_000);
    proc.stdout.on("data", () => {
      const line = /LISTENING (\S+)/.exec(out.stdout);
      if (line) {
        clearTimeout(timer);
        resolve(line[1]);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${recipe} exited ${code} before listening:\n${out.stdout}${out.stderr}`));
    });
  });
  return {
    url,
    output: () => out.stdout + out.stderr,
    stop: async () => {
      proc.kill("SIGTERM");
      await exited;
    },
  };
}

/** A start that must fail: `{ code, output }` once the process exited (60 s at most, then it is killed). */
export async function failedStart(runtime, recipe, env) {
  const { proc, out, exited } = child(runtime, recipe, env);
  const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, listened: out.stdout.includes("LISTENING"), output: out.stdout + out.stderr };
}

/**
 * The TCP ports process `pid` listens on (Linux: its socket inodes in
 * /proc/<pid>/fd, matched in /proc/net/tcp). For a server that takes port 0
 * and prints ":0" (xmcp's built http.js).
 */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = [];
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === "0A" && inodes.has(f[9])) ports.push(parseInt(f[1].split(":")[1], 16)); // 0A: LISTEN
  }
  return ports;
}

/** xmcp's built server (`dist/http.js` of `dir`, port 0): `{ url, stop }` once it listens (60 s at most). */
export async function startXmcp(dir, env) {
  const full = { ...process.env, NO_COLOR: "1", ...env };
  delete full.NODE_OPTIONS;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete full[k];
  const proc = spawn(process.execPath, [join(dir, "dist/http.js")], { cwd: dir, env: full, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => proc.on("close", (code) => resolve(code)));
  const stop = async () => {
    proc.kill("SIGTERM");
    await exited;
  };
  for (let i = 0; i < 600; i++) {
    const done = await Promise.race([exited.then((code) => ({ code })), new Promise((resolve) => setTimeout(resolve, 100))]);
    if (done) throw new Error(`xmcp exited ${done.code} before listening:\n${output}`);
    const [port] = output.includes("running on") ? listeningPorts(proc.pid) : [];
    if (port) return { url: `http://127.0.0.1:${port}/mcp`, stop, output: () => output };
  }
  await stop();
  throw new Error(`xmcp did not listen in 60 s:\n${output}`);
}
