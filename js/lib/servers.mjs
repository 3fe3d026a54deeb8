// The servers the demo (www/demo.mjs) and the tests both start, in one place:
//
//   serve()            a tiny static server for the browser pages: 127.0.0.1, a
//                      random port by default, no caching, and
//                      `Access-Control-Allow-Origin: *` on every response (module
//                      scripts are CORS requests; a sandboxed page without
//                      allow-same-origin, whose origin is "null", needs it to load
//                      any); listen() and freePort() are its parts others use.
//                      The demo's View is not served from here: it is the MCP
//                      server's ui:// resource, rendered by the sandbox proxy
//                      (www/lib/sandbox-server.mjs).
//   buildWorker(), startServer()
//                      the demo MCP server (www/server/worker.js) in real
//                      workerd, through Miniflare: an esbuild bundle against the
//                      PACKED package (js/out/consumer, made by `node
//                      js/pack.mjs`), and one instance of it:
//                      { url, mcpUrl, healthUrl, instance, readyMs, mf, dispose }.
//   startRustServer()  the Rust demo server (rust-server/, rmcp) as a child
//                      process: the same tic-tac-toe tools, sealing with the
//                      Rust crate. Build it first: `cargo build --manifest-path
//                      rust-server/Cargo.toml` (RUST_SERVER_BIN names another
//                      binary). The key goes through the environment
//                      (STATE_KEY), never argv.
//
// CLI:
//   node js/lib/servers.mjs [--port N] [--instances N] [--ttl S] [--ephemeral] [--json]
//     starts N workerd instances on ports N, N+1, ... (default: 8787, one
//     instance), all with one key (STATE_KEY from the environment, else a
//     random key for this run), prints their URLs and runs until Ctrl-C.
//     --ephemeral passes no key, so each instance draws its own dev key
//     (tokens then never cross instances).
//   node js/lib/servers.mjs --static [port]
//     serves the repository for a manual look.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { dirname, extname, isAbsolute, join, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { HTTP_NAMES } from "./http-names.mjs";
import { COMPATIBILITY_DATE, CONSUMER_NODE_MODULES, bundleForWorkerd, importTool } from "./workerd.mjs";

/** The HTTP names of the servers launched here (./http-names.mjs), for the demo too. */
export { HTTP_NAMES };

// ---- the static server --------------------------------------------------------

/** The repository this file lives in. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * URL prefix -> directory (relative to `root`, or absolute). `/pkg/` is the
 * assembled npm package (`npm --prefix js run build`); a test may mount the
 * packed copy there instead (js/out/consumer/node_modules/mcp-sealed-state).
 */
export const DEFAULT_MOUNTS = Object.freeze({
  "/pkg/": "pkg",
  "/node_modules/": "js/node_modules",
  "/www/": "www",
});

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm", // WebAssembly.instantiateStreaming insists on it
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Serve `mounts` of `root` over HTTP.
 * `cacheControl` is sent with every file ("no-store" by default, so edits show
 * at once; a test that loads the same pages many times may pass "max-age=600").
 * @param {{ root?: string, mounts?: Record<string, string>, port?: number, host?: string, cacheControl?: string }} [opts]
 * @returns {Promise<{ url: string, server: import("node:http").Server, close(): Promise<void> }>}
 *   `url` ends with "/", e.g. "http://127.0.0.1:41234/".
 */
export async function serve({ root = REPO_ROOT, mounts = DEFAULT_MOUNTS, port = 0, host = "127.0.0.1", cacheControl = "no-store" } = {}) {
  const table = Object.entries(mounts)
    .map(([prefix, dir]) => {
      if (!prefix.startsWith("/") || !prefix.endsWith("/")) throw new TypeError(`mount prefix must start and end with "/": ${prefix}`);
      return [prefix, isAbsolute(dir) ? resolve(dir) : resolve(root, dir)];
    })
    .sort((a, b) => b[0].length - a[0].length); // the longest prefix wins

  const server = createServer(async (req, res) => {
    const headers = { "access-control-allow-origin": "*", "cache-control": cacheControl };
    const fail = (status, text) => {
      res.writeHead(status, { ...headers, "content-type": "text/plain; charset=utf-8" });
      res.end(req.method === "HEAD" ? undefined : text);
    };
    if (req.method === "OPTIONS") {
      res.writeHead(204, { ...headers, "access-control-allow-methods": "GET, HEAD", "access-control-allow-headers": "*" });
      return res.end();
    }
    if (req.method !== "GET" && req.method !== "HEAD") return fail(405, "method not allowed");
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    } catch {
      return fail(400, "bad path");
    }
    if (path.includes("\0")) return fail(400, "bad path");
    const mount = table.find(([prefix]) => path.startsWith(prefix));
    if (!mount) return fail(404, "not found");
    const [prefix, dir] = mount;
    let file = resolve(dir, "." + sep + path.slice(prefix.length));
    if (file !== dir && !file.startsWith(dir + sep)) return fail(403, "outside the mount");
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, "index.html");
        info = await stat(file);
      }
      res.writeHead(200, { ...headers, "content-type": MIME[extname(file).toLowerCase()] ?? "application/octet-stream", "content-length": info.size });
      if (req.method === "HEAD") return res.end();
      createReadStream(file)
        .on("error", () => res.destroy())
        .pipe(res);
    } catch {
      fail(404, "not found");
    }
  });

  return listen(server, port, host);
}

/**
 * Start `server` on `host:port` (0: a free port).
 * @returns {Promise<{ url: string, server: import("node:http").Server, close(): Promise<void> }>}
 */
export async function listen(server, port, host) {
  await new Promise((ok, ko) => {
    server.once("error", ko);
    server.listen(port, host, () => {
      server.off("error", ko);
      ok();
    });
  });
  const { port: actual } = server.address();
  return {
    url: `http://${host}:${actual}/`,
    server,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections(); // keep-alive sockets of a closed browser would hold it open
      }),
  };
}

/** A loopback port free right now, for a child process that must be told its port (another process may still take it first). */
export async function freePort() {
  const probe = createTcpServer();
  await new Promise((ok, ko) => {
    probe.once("error", ko);
    probe.listen(0, "127.0.0.1", ok);
  });
  const { port } = probe.address();
  await new Promise((ok) => probe.close(ok));
  return port;
}

// ---- the demo MCP server in workerd ----------------------------------------------

// Module names in workerd are paths relative to the demo server's folder.
const SERVER_DIR = join(REPO_ROOT, "www/server");
export const WORKER_ENTRY = join(SERVER_DIR, "worker.js");
export { COMPATIBILITY_DATE, CONSUMER_NODE_MODULES };

/** The one-file View that worker.js imports as text (www/game/build.mjs writes it). */
export const VIEW_HTML = join(REPO_ROOT, "build/view/game.html");

/**
 * Bundle worker.js for workerd against the packed package (see ./workerd.mjs).
 * `viewHtml`: the one-file View it serves (default VIEW_HTML), e.g. the same
 * game built in another framework (www/views).
 */
export async function buildWorker({ entry = WORKER_ENTRY, packageNodeModules = CONSUMER_NODE_MODULES, viewHtml = VIEW_HTML } = {}) {
  if (entry === WORKER_ENTRY && !existsSync(viewHtml)) throw new Error(`${viewHtml} is missing: run \`node www/game/build.mjs\` first`);
  // worker.js imports VIEW_HTML as text; another View takes its place in the bundle.
  const otherView = {
    name: "the-view-to-serve",
    setup(build) {
      build.onResolve({ filter: /\/build\/view\/game\.html$/ }, (args) => (resolve(args.resolveDir, args.path) === VIEW_HTML ? { path: resolve(viewHtml) } : undefined));
    },
  };
  return bundleForWorkerd({ entry, packageNodeModules, moduleDir: SERVER_DIR, plugins: viewHtml === VIEW_HTML ? [] : [otherView] });
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
    mcpUrl: new URL(HTTP_NAMES.mcpPath, url),
    healthUrl: new URL(HTTP_NAMES.healthPath, url),
    instance,
    readyMs: performance.now() - t0,
    mf,
    dispose: () => (disposed ??= mf.dispose()),
  };
}

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

async function mainWorkerd(argv) {
  const opts = parseArgs(argv);
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
    console.log(`principal header: ${HTTP_NAMES.principalHeader} (default ${JSON.stringify(HTTP_NAMES.defaultPrincipal)}). Ctrl-C to stop.`);
  }
}

// ---- the Rust demo server ----------------------------------------------------------

/** The debug build that scripts/test and scripts/demo make. */
export const RUST_SERVER_BIN = process.env.RUST_SERVER_BIN || join(REPO_ROOT, "rust-server/target/debug/rmcp-tic-tac-toe");
/** The one-file View the Rust server serves by default: the workerd server's. */
export const DEFAULT_VIEW_HTML = VIEW_HTML;

// With `viewHtml` it serves that View; `viewUri` (the MCP Apps resource),
// `templateUri` (the Apps SDK template) and `viewMeta` (the resources' `_meta`)
// say how, as www/server/view-meta.js says it for the workerd server (the
// callers in www/ pass those; the Rust server has defaults of its own).
export async function startRustServer({ key, port = 0, ttlSeconds, instance = "rust", viewHtml, viewUri, templateUri, viewMeta, mirror, bin = RUST_SERVER_BIN, onLog } = {}) {
  if (!existsSync(bin)) throw new Error(`${bin} is not built: run \`cargo build --manifest-path rust-server/Cargo.toml\` first`);
  const env = { ...process.env, INSTANCE: instance };
  for (const name of ["STATE_KEY", "TTL_SECONDS", "VIEW_HTML", "VIEW_URI", "OUTPUT_TEMPLATE_URI", "VIEW_META", "PORT", "MIRROR_TO_STRUCTURED_CONTENT"]) delete env[name];
  if (key !== undefined) env.STATE_KEY = key;
  const args = ["--port", String(port), "--json"];
  if (ttlSeconds !== undefined) args.push("--ttl", String(ttlSeconds));
  if (viewHtml !== undefined) args.push("--view-html", viewHtml);
  if (viewUri !== undefined) args.push("--view-uri", viewUri);
  if (templateUri !== undefined) args.push("--output-template-uri", templateUri);
  if (viewMeta !== undefined) args.push("--view-meta", JSON.stringify(viewMeta)); // the resource contents' _meta
  // true: mirror _meta's token and viewUUID into structuredContent (for hosts that drop _meta).
  if (mirror !== undefined) env.MIRROR_TO_STRUCTURED_CONTENT = mirror ? "1" : "0";
  const t0 = performance.now();
  const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const log = onLog ?? ((line) => process.stderr.write(`[rust ${instance}] ${line}\n`));
  const early = []; // stderr before it listens, for the error if it never does
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (early.length < 20) early.push(line);
    log(line);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(new Error(`unexpected first line from the Rust server: ${line}`));
      }
    });
    child.once("error", reject);
    // Let the stderr reader drain first, so the message carries the reason.
    exited.then(({ code, signal }) => setImmediate(() => reject(new Error(`the Rust server exited before listening (code ${code}, signal ${signal}): ${early.join(" | ")}`))));
  });
  const info = await ready;
  let disposed;
  return {
    url: new URL(info.url),
    mcpUrl: new URL(info.mcp),
    healthUrl: new URL(info.health),
    instance,
    view: info.view,
    readyMs: performance.now() - t0,
    process: child,
    dispose: () => (disposed ??= child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : (child.kill("SIGTERM"), exited.then(() => undefined))),
  };
}

// ---- the command line --------------------------------------------------------

async function mainStatic(port) {
  const { url } = await serve({ port: Number(port ?? 0) });
  console.log(
    `serving ${REPO_ROOT} on ${url} (${Object.entries(DEFAULT_MOUNTS)
      .map(([p, d]) => `${p} -> ${d}/`)
      .join(", ")})`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  (argv[0] === "--static" ? mainStatic(argv[1]) : mainWorkerd(argv)).catch((error) => {
    console.error(error?.stack ?? error);
    process.exit(1);
  });
}
