// Run the demo MCP server (www/server/worker.js) in real workerd, through Miniflare.
//
//   buildWorker()  esbuild bundle of worker.js against the PACKED package
//                  (js/out/consumer, made by `node js/pack.mjs`), in memory
//   startServer()  one Miniflare instance: { url, mcpUrl, dispose, ... }
//
// CLI (the demo command uses it):
//   node js/lib/miniflare.mjs [--port N] [--instances N] [--ttl S] [--ephemeral] [--json]
// starts N instances on ports N, N+1, ... (default: 8787, one instance), all
// with one key (STATE_KEY from the environment, else a random key for this
// run), prints their URLs and runs until Ctrl-C. --ephemeral passes no key,
// so each instance draws its own dev key (tokens then never cross instances).
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPATIBILITY_DATE, CONSUMER_NODE_MODULES, bundleForWorkerd, importTool } from "./workerd.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
// Module names in workerd are paths relative to the demo server's folder.
const SERVER_DIR = join(ROOT, "www/server");
export const WORKER_ENTRY = join(SERVER_DIR, "worker.js");
export { COMPATIBILITY_DATE, CONSUMER_NODE_MODULES };

/** The one-file View that worker.js imports as text (www/game/build.mjs writes it). */
export const VIEW_HTML = join(ROOT, "build/view/game.html");

/** Bundle worker.js for workerd against the packed package (see ./workerd.mjs). */
export async function buildWorker({ entry = WORKER_ENTRY, packageNodeModules = CONSUMER_NODE_MODULES } = {}) {
  if (entry === WORKER_ENTRY && !existsSync(VIEW_HTML)) throw new Error(`${VIEW_HTML} is missing: run \`node www/game/build.mjs\` first`);
  return bundleForWorkerd({ entry, packageNodeModules, moduleDir: SERVER_DIR });
}

let defaultBuild;

/**
 * Start one instance of the demo server in workerd.
 *
 * options: port (0 = any free port), key (STATE_KEY: a string, or a list
 * whose first key seals; omit for the dev ephemeral key), ttlSeconds
 * (TTL_SECONDS), instance (a label, INSTANCE),
 * allowedOrigins (ALLOWED_ORIGINS, a comma list or "*"), mirror (true:
 * MIRROR_TO_STRUCTURED_CONTENT, for hosts that drop _meta), bindings (more env),
 * build (a buildWorker() result; by default one shared build), onLog
 * ({ level, message }) => void for the worker's console output (default:
 * printed to stderr).
 *
 * Returns { url, mcpUrl, healthUrl, instance, readyMs, mf, dispose }.
 */
export async function startServer({ port = 0, key, ttlSeconds, instance = "a", allowedOrigins, mirror, bindings = {}, build, onLog } = {}) {
  const built = build ?? (await (defaultBuild ??= buildWorker()));
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const env = { INSTANCE: instance, ...bindings };
  if (key !== undefined) env.STATE_KEY = key;
  if (ttlSeconds !== undefined) env.TTL_SECONDS = String(ttlSeconds);
  if (mirror !== undefined) env.MIRROR_TO_STRUCTURED_CONTENT = mirror ? "1" : "0";
  if (allowedOrigins !== undefined) env.ALLOWED_ORIGINS = Array.isArray(allowedOrigins) ? allowedOrigins.join(",") : allowedOrigins;
  const t0 = performance.now();
  const mf = new Miniflare({
    name: `mcp-sealed-state-demo-${instance}`,
    host: "127.0.0.1",
    port,
    cf: false, // do not fetch Request.cf data from the network
    modulesRoot: SERVER_DIR,
    modules: built.modules,
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: env,
    log: new Log(LogLevel.WARN),
    structuredWorkerdLogs: true,
    // Miniflare checks that this returns nothing, hence the braces.
    handleStructuredLogs: (entry) => {
      if (onLog) onLog(entry);
      else process.stderr.write(`[workerd ${instance}] ${entry.level}: ${entry.message}\n`);
    },
  });
  let url;
  try {
    url = await mf.ready;
  } catch (error) {
    await mf.dispose().catch(() => {}); // a failed start must still be disposed, or Node hangs
    throw error;
  }
  let disposed;
  return {
    url,
    mcpUrl: new URL("/mcp", url),
    healthUrl: new URL("/health", url),
    instance,
    readyMs: performance.now() - t0,
    mf,
    dispose: () => (disposed ??= mf.dispose()),
  };
}

// ---- CLI -----------------------------------------------------------------------

function parseArgs(argv) {
  const opts = { port: 8787, instances: 1, ttl: undefined, ephemeral: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v)) throw new Error(`${arg} needs a whole number`);
      return Number(v);
    };
    if (arg === "--port") opts.port = value();
    else if (arg === "--instances") opts.instances = value();
    else if (arg === "--ttl") opts.ttl = value();
    else if (arg === "--ephemeral") opts.ephemeral = true;
    else if (arg === "--json") opts.json = true;
    else throw new Error(`unknown argument ${arg} (use --port N, --instances N, --ttl S, --ephemeral, --json)`);
  }
  if (opts.instances < 1) throw new Error("--instances must be at least 1");
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const key = opts.ephemeral ? undefined : process.env.STATE_KEY || randomBytes(32).toString("base64url");
  const keySource = opts.ephemeral ? "none (dev ephemeral key per instance)" : process.env.STATE_KEY ? "STATE_KEY" : "random for this run";
  const build = await buildWorker();
  const servers = [];
  const stop = async () => {
    await Promise.allSettled(servers.map((s) => s.dispose()));
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    for (let i = 0; i < opts.instances; i++) {
      const instance = String.fromCharCode(97 + (i % 26)) + (i >= 26 ? String(i) : "");
      servers.push(await startServer({ port: opts.port === 0 ? 0 : opts.port + i, key, ttlSeconds: opts.ttl, instance, build }));
    }
  } catch (error) {
    await Promise.allSettled(servers.map((s) => s.dispose()));
    throw error;
  }
  if (opts.json) {
    console.log(JSON.stringify({ instances: servers.map((s) => ({ instance: s.instance, url: s.url.href, mcp: s.mcpUrl.href, health: s.healthUrl.href })) }));
  } else {
    console.log(`demo MCP server (tic-tac-toe, sealed state) in workerd; bundle ${build.bytes} B; key: ${keySource}`);
    for (const s of servers) console.log(`  instance ${s.instance}: ${s.mcpUrl.href}   (health: ${s.healthUrl.href})`);
    console.log('principal header: X-Demo-User (default "anonymous"). Ctrl-C to stop.');
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error?.stack ?? error);
    process.exit(1);
  });
}
