// A fleet of the demo MCP server (www/server) on loopback: N instances, each
// its own workerd process started through js/lib/servers.mjs, behind the
// front (./front.mjs). Instances can be restarted with another configuration
// (a rolling deploy), or killed with SIGKILL by their own PID and brought
// back. Every refusal an instance logs (`reason=...`, server side only) is
// collected, so a scenario can tell an expired token from a foreign key.
import { buildWorker, startServer } from "../lib/servers.mjs";
import { startFront } from "./front.mjs";
import { alive, childPids, cpuSeconds, rssKiB } from "./processes.mjs";

/** Instance names: a, b, c, ... */
export const instanceName = (i) => String.fromCharCode(97 + (i % 26)) + (i >= 26 ? String(i) : "");

/**
 * What one instance runs: `key` (a string, or a list: the first seals, every
 * one opens), `ttlSeconds`, `leewaySeconds`, `codec` ("mcp-sealed-state" or
 * "sdk"), `skewSeconds` (its codec's clock offset). Mapped onto the demo's env bindings.
 */
function serverOptions(name, spec) {
  const bindings = {};
  if (spec.leewaySeconds !== undefined) bindings.LEEWAY_SECONDS = String(spec.leewaySeconds);
  if (spec.codec !== undefined) bindings.STATE_CODEC = spec.codec;
  if (spec.skewSeconds) bindings.CLOCK_SKEW_SECONDS = String(spec.skewSeconds);
  return { instance: name, key: spec.key, ttlSeconds: spec.ttlSeconds, bindings };
}

/**
 * Start the fleet: `specs` is one spec per instance (see serverOptions).
 * `build` is a buildWorker() result (made once when left out). Returns
 * `{ front, url, mcpUrl, instances, logs, reasons, restart, kill, revive, memory, close }`.
 */
export async function startFleet({ specs, build, strategy = "round-robin", random } = {}) {
  if (!Array.isArray(specs) || specs.length === 0) throw new TypeError("startFleet: specs must list at least one instance");
  const built = build ?? (await buildWorker());
  const logs = []; // { instance, level, message }
  const instances = new Map(); // name -> { spec, server, pid, startKiB }
  const front = await startFront({ strategy, random });
  let starting = Promise.resolve(); // one start at a time: the new workerd child is told apart by PID

  const launch = (name, spec) => {
    const run = starting.then(async () => {
      const before = new Set(childPids("workerd"));
      const server = await startServer({ ...serverOptions(name, spec), build: built, onLog: (entry) => logs.push({ instance: name, ...entry }) });
      const pids = childPids("workerd").filter((pid) => !before.has(pid));
      if (pids.length !== 1) {
        await server.dispose();
        throw new Error(`instance ${name}: expected one new workerd process, found ${pids.length}`);
      }
      const instance = { name, spec, server, pid: pids[0], startKiB: rssKiB(pids[0]) };
      instances.set(name, instance);
      front.add({ name, url: server.url });
      return instance;
    });
    starting = run.catch(() => {});
    return run;
  };

  const fleet = {
    front,
    url: front.url,
    mcpUrl: front.mcpUrl,
    instances,
    logs,
    /** Refusals logged by the instances, by reason (`{ expired: 3, mac: 1 }`), from log entry `since` on. */
    reasons(since = 0) {
      const out = {};
      for (const { message } of logs.slice(since)) {
        const match = /sealed state refused, reason=(\w+)/.exec(message);
        if (match) out[match[1]] = (out[match[1]] ?? 0) + 1;
      }
      return out;
    },
    /** Take `name` out of the front, stop it, start it again with `spec` (a rolling deploy's one step). */
    async restart(name, spec) {
      const old = instances.get(name);
      front.remove(name);
      await old.server.dispose();
      return launch(name, spec);
    },
    /** SIGKILL the instance's workerd, by its PID; the front still sends it requests until they fail. */
    kill(name) {
      const { pid } = instances.get(name);
      process.kill(pid, "SIGKILL");
      return pid;
    },
    /** Bring a killed instance back, same spec, a new process (and port). */
    async revive(name) {
      const old = instances.get(name);
      front.remove(name);
      await old.server.dispose().catch(() => {});
      return launch(name, old.spec);
    },
    /** Each instance's workerd now: resident memory in KiB (beside its figure at start) and CPU seconds used. */
    memory() {
      return [...instances.values()].map((i) => ({ instance: i.name, pid: i.pid, startKiB: i.startKiB, nowKiB: rssKiB(i.pid), cpuSeconds: cpuSeconds(i.pid) }));
    },
    async close() {
      await front.close();
      await Promise.allSettled([...instances.values()].map((i) => i.server.dispose()));
      // Whatever of ours outlived its dispose is ended by its own PID.
      for (const { pid } of instances.values()) if (alive(pid)) process.kill(pid, "SIGKILL");
    },
  };

  try {
    for (const [i, spec] of specs.entries()) await launch(instanceName(i), spec);
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet;
}
