// A tool's own server run as a child process for the tests (the MCP Inspector,
// the mcp-use Inspector): a throw-away HOME for what it writes, a free port
// retried when another process takes it first, and a stop that ends in SIGKILL.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./servers.mjs";

/** `dispose()` for `child`: SIGTERM, SIGKILL after 10 s, resolved once it has exited (`exited` settles on its exit). */
export function stopper(child, exited) {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      await exited;
      clearTimeout(timer);
    }
  };
}

/**
 * `startOnce({ port, home })` on a free port with a fresh HOME (`prefix` names
 * it), up to three times while it rejects with `error.portInUse`. The result's
 * `dispose()` also removes the HOME.
 */
export async function startWithHome(prefix, startOnce) {
  const home = mkdtempSync(join(tmpdir(), prefix));
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const started = await startOnce({ port: await freePort(), home });
        const dispose = started.dispose;
        started.dispose = async () => {
          await dispose();
          rmSync(home, { recursive: true, force: true });
        };
        return started;
      } catch (error) {
        if (!error.portInUse || attempt === 3) throw error;
      }
    }
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
}
