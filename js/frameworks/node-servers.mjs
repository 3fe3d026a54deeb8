// A recipe served by serve-node.mjs in a child process: one process per server
// instance, as two instances of a Node deployment are.
import { spawn } from "node:child_process";
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
