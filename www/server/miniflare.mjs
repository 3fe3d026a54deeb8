// Run the demo MCP server (./worker.js) in real workerd, through Miniflare.
//
//   buildWorker()  esbuild bundle of worker.js against the PACKED package
//                  (js/out/consumer, made by `node js/pack.mjs`), in memory
//   startServer()  one Miniflare instance: { url, mcpUrl, dispose, ... }
//
// CLI (the demo command uses it):
//   node www/server/miniflare.mjs [--port N] [--instances N] [--ttl S] [--ephemeral] [--json]
// starts N instances on ports N, N+1, ... (default: 8787, one instance), all
// with one key (STATE_KEY from the environment, else a random key for this
// run), prints their URLs and runs until Ctrl-C. --ephemeral passes no key,
// so each instance draws its own dev key (tokens then never cross instances).
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
const JS_DIR = join(ROOT, "js");
/** Where `node js/pack.mjs` installs the packed tarball, the way a consumer gets it. */
export const CONSUMER_NODE_MODULES = join(JS_DIR, "out/consumer/node_modules");
/** The repo's tooling: esbuild, miniflare, @modelcontextprotocol/server. */
const JS_NODE_MODULES = join(JS_DIR, "node_modules");
export const WORKER_ENTRY = join(HERE, "worker.js");
/** Newest date workerd 1.20260426.x accepts. No compatibility flags: nodejs_compat is not needed. */
export const COMPATIBILITY_DATE = "2026-05-03";

const requireTool = createRequire(join(JS_DIR, "package.json"));
const importTool = (name) => import(pathToFileURL(requireTool.resolve(name)).href);

/**
 * Bundle worker.js for workerd. Returns `{ modules, bytes, wasm, ms }` where
 * `modules` is Miniflare's module list (the bundle first, then each wasm).
 *
 * How the wasm gets in: the package's "workerd" condition resolves to
 * edge/workerd.js, which does `import wasm from "../wasm/edge_bg.wasm"`
 * (workerd refuses to compile wasm from bytes at run time, so the module must
 * be imported as an already-compiled WebAssembly.Module). esbuild cannot
 * bundle that, so the plugin below keeps every `*.wasm` import external and
 * rewrites its path to `./<file name>`, a module name next to the bundle;
 * it remembers which file on disk that was, and the same bytes are handed to
 * Miniflare as a `CompiledWasm` module of exactly that name. So the name the
 * bundle imports and the name Miniflare serves cannot drift apart, whatever
 * relative path the package uses internally.
 */
export async function buildWorker({ entry = WORKER_ENTRY, packageNodeModules = CONSUMER_NODE_MODULES } = {}) {
  if (!existsSync(join(packageNodeModules, "mcp-sealed-state/package.json"))) {
    throw new Error(`mcp-sealed-state is not installed in ${packageNodeModules}: run \`npm --prefix js run build && node js/pack.mjs\` first`);
  }
  const esbuild = await importTool("esbuild");
  const t0 = performance.now();
  const wasm = new Map(); // module name -> absolute path
  const wasmAsModule = {
    name: "wasm-as-compiled-module",
    setup(build) {
      build.onResolve({ filter: /\.wasm$/ }, (args) => {
        const file = resolve(args.resolveDir, args.path);
        const name = basename(file);
        if (wasm.has(name) && wasm.get(name) !== file) throw new Error(`two different wasm files are both named ${name}`);
        wasm.set(name, file);
        return { path: `./${name}`, external: true };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outfile: "worker.js",
    format: "esm",
    platform: "browser", // workerd: web APIs, no Node built-ins
    // "workerd" picks mcp-sealed-state's edge/workerd.js and the SDK's workerd shims.
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    // Bare imports: the packed package first, then the repo's tooling.
    nodePaths: [packageNodeModules, JS_NODE_MODULES],
    plugins: [wasmAsModule],
    logLevel: "warning",
    metafile: true,
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.keys(result.metafile.inputs);
  if (!inputs.some((i) => i.includes("mcp-sealed-state/edge/workerd.js"))) {
    throw new Error("the bundle did not pick mcp-sealed-state's workerd entry");
  }
  const modules = [
    { type: "ESModule", path: join(HERE, "worker.js"), contents: code },
    ...[...wasm].map(([name, file]) => ({ type: "CompiledWasm", path: join(HERE, name), contents: new Uint8Array(readFileSync(file)) })),
  ];
  return { modules, bytes: code.length, wasm: [...wasm.values()], ms: performance.now() - t0 };
}

let defaultBuild;

/**
 * Start one instance of the demo server in workerd.
 *
 * options: port (0 = any free port), key (STATE_KEY; omit for the dev
 * ephemeral key), ttlSeconds (TTL_SECONDS), instance (a label, INSTANCE),
 * allowedOrigins (ALLOWED_ORIGINS, a comma list or "*"), bindings (more env),
 * build (a buildWorker() result; by default one shared build), onLog
 * ({ level, message }) => void for the worker's console output (default:
 * printed to stderr).
 *
 * Returns { url, mcpUrl, healthUrl, instance, readyMs, mf, dispose }.
 */
export async function startServer({ port = 0, key, ttlSeconds, instance = "a", allowedOrigins, bindings = {}, build, onLog } = {}) {
  const built = build ?? (await (defaultBuild ??= buildWorker()));
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const env = { INSTANCE: instance, ...bindings };
  if (key !== undefined) env.STATE_KEY = key;
  if (ttlSeconds !== undefined) env.TTL_SECONDS = String(ttlSeconds);
  if (allowedOrigins !== undefined) env.ALLOWED_ORIGINS = Array.isArray(allowedOrigins) ? allowedOrigins.join(",") : allowedOrigins;
  const t0 = performance.now();
  const mf = new Miniflare({
    name: `mcp-sealed-state-demo-${instance}`,
    host: "127.0.0.1",
    port,
    cf: false, // do not fetch Request.cf data from the network
    modulesRoot: HERE, // module names are paths relative to this
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
    console.log("principal header: X-Demo-User (default \"anonymous\"). Ctrl-C to stop.");
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error?.stack ?? error);
    process.exit(1);
  });
}
