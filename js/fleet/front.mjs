// The fleet's front: one loopback HTTP server that sends each request to any
// instance (round robin, or at random), with no affinity. A request whose
// instance fails before its whole answer arrived (refused connection, reset,
// timeout) is sent again, with the same body and so the same token, to the
// next instance: the servers keep nothing between requests, so a retry is safe.
// Answers are read whole before they are passed on, which is what makes that
// retry possible (the demo's answers are a few KiB).
import { createServer } from "node:http";
import { HTTP_NAMES } from "../lib/http-names.mjs";

/** Request headers that belong to one hop, not to the request. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host", "content-length", "proxy-connection", "te", "trailer"]);
/** The answer's header naming the instance that served it. */
export const INSTANCE_HEADER = "x-fleet-instance";

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Start the front on 127.0.0.1 (a free port). `strategy`: "round-robin" or
 * "random" (with `random`, a () => [0, 1) function). `timeoutMs` bounds one
 * attempt. Backends are `{ name, url }` (the instance's origin) and change
 * with `add(backend)` / `remove(name)`.
 *
 * Returns `{ url, mcpUrl, add, remove, backends, stats, close }`; `stats`
 * counts `served` and `retried` by instance name, and `failed` requests that
 * no instance answered (a 502).
 */
export async function startFront({ backends = [], strategy = "round-robin", random = Math.random, timeoutMs = 15_000 } = {}) {
  if (strategy !== "round-robin" && strategy !== "random") throw new RangeError(`strategy must be round-robin or random (got ${strategy})`);
  let live = [...backends];
  let next = 0;
  const stats = { served: {}, retried: {}, failed: 0 };
  const bump = (table, name) => (table[name] = (table[name] ?? 0) + 1);
  const pick = (tried) => {
    const candidates = live.filter((b) => !tried.has(b.name));
    if (candidates.length === 0) return undefined;
    if (strategy === "random") return candidates[Math.floor(random() * candidates.length)];
    for (let i = 0; i < live.length; i++) {
      const b = live[next++ % live.length];
      if (!tried.has(b.name)) return b;
    }
    return candidates[0];
  };

  async function forward(req, res) {
    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    const tried = new Set();
    for (let backend = pick(tried); backend !== undefined; backend = pick(tried)) {
      tried.add(backend.name);
      let status;
      let answerHeaders;
      let answer;
      try {
        const r = await fetch(new URL(req.url, backend.url), {
          method: req.method,
          headers,
          body: body.length > 0 ? body : undefined,
          signal: AbortSignal.timeout(timeoutMs),
          redirect: "manual",
        });
        status = r.status;
        answerHeaders = r.headers;
        answer = Buffer.from(await r.arrayBuffer());
      } catch {
        bump(stats.retried, backend.name);
        continue;
      }
      bump(stats.served, backend.name);
      const out = {};
      // fetch has decoded the body already: its length and encoding are ours to set.
      for (const [name, value] of answerHeaders) if (!HOP_BY_HOP.has(name) && name !== "content-encoding") out[name] = value;
      out["content-length"] = String(answer.length);
      out[INSTANCE_HEADER] = backend.name;
      res.writeHead(status, out);
      res.end(answer);
      return;
    }
    stats.failed++;
    res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no instance answered" }, id: null }));
  }

  const server = createServer((req, res) => {
    forward(req, res).catch((error) => {
      stats.failed++;
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error?.message ?? error));
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const url = new URL(`http://127.0.0.1:${server.address().port}/`);
  return {
    url,
    mcpUrl: new URL(HTTP_NAMES.mcpPath, url),
    stats,
    backends: () => live.map((b) => b.name),
    add(backend) {
      live = [...live.filter((b) => b.name !== backend.name), backend];
    },
    remove(name) {
      live = live.filter((b) => b.name !== name);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
