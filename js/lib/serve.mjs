// A tiny static server for the browser pages and tests: 127.0.0.1, a random
// port by default, no caching, and `Access-Control-Allow-Origin: *` on every
// response (module scripts are CORS requests; a sandboxed page without
// allow-same-origin, whose origin is "null", needs it to load any). The demo's
// View is not served from here: it is the server's ui:// resource, rendered
// by the sandbox proxy (www/lib/sandbox-server.mjs).
//
//   import { serve } from "./js/lib/serve.mjs";
//   const { url, close } = await serve({ root: "/path/to/repo" });
//   // url + "www/e2e/fixtures/host.html", ...; await close();
//
//   node js/lib/serve.mjs [port]      serves the repo for a manual look
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { dirname, extname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

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

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { url } = await serve({ port: Number(process.argv[2] ?? 0) });
  console.log(
    `serving ${REPO_ROOT} on ${url} (${Object.entries(DEFAULT_MOUNTS)
      .map(([p, d]) => `${p} -> ${d}/`)
      .join(", ")})`,
  );
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
