// The demo Host's sandbox origin: a second loopback HTTP server that serves
// only the sandbox proxy (www/sandbox/), with the View's Content-Security-Policy
// as a response header, built by ./view-csp.js from the query:
//
//   GET /sandbox.html?policy=wasm|spec&csp=<JSON of the resource's _meta.ui.csp>
//   GET /sandbox.js
//
// A header rather than a <meta> tag: the View's HTML cannot remove or loosen
// it, and the View's srcdoc iframe inherits it from the proxy page.
//
//   import { serveSandbox } from "./www/lib/sandbox-server.mjs";
//   const { url, close } = await serveSandbox();   // url: "http://127.0.0.1:PORT/"
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { listen } from "../../js/lib/servers.mjs";
import { POLICIES, buildViewCsp } from "./view-csp.js";

const SANDBOX_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../sandbox");

/** The CSP header for a request's query, or an Error with a message for a 400. */
export function cspForQuery(searchParams) {
  const policy = searchParams.get("policy") ?? "wasm";
  if (!POLICIES.includes(policy)) return new Error(`policy must be one of ${POLICIES.join(", ")}`);
  let csp;
  const raw = searchParams.get("csp");
  if (raw !== null) {
    try {
      csp = JSON.parse(raw);
    } catch {
      return new Error("csp must be JSON (the resource's _meta.ui.csp)");
    }
  }
  return buildViewCsp(csp, policy);
}

/**
 * Serve the sandbox proxy on 127.0.0.1 (a random port by default).
 * @returns {Promise<{ url: string, server: import("node:http").Server, close(): Promise<void> }>}
 */
export async function serveSandbox({ port = 0, host = "127.0.0.1" } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://sandbox");
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "text/plain; charset=utf-8", "method not allowed");
    if (url.pathname === "/sandbox.js") {
      return send(200, "text/javascript; charset=utf-8", await readFile(join(SANDBOX_DIR, "sandbox.js")));
    }
    if (url.pathname !== "/sandbox.html") return send(404, "text/plain; charset=utf-8", "only the sandbox proxy is served on this origin");
    const csp = cspForQuery(url.searchParams);
    if (csp instanceof Error) return send(400, "text/plain; charset=utf-8", csp.message);
    return send(200, "text/html; charset=utf-8", await readFile(join(SANDBOX_DIR, "sandbox.html")), { "content-security-policy": csp });
  });
  return listen(server, port, host);
}
