// A fetch handler (`{ fetch(request) }`, a Worker's shape) served by node:http,
// which Node and Bun both have: the tests' way to run a Worker-shaped MCP
// server in a runtime without a Worker host.
import { createServer } from "node:http";
import { Readable } from "node:stream";

/**
 * A node:http server whose requests go to `handler.fetch`, the body streamed
 * both ways. A throw answers 500 with the body `errorBody(error)` returns.
 */
export function fetchServer(handler, { errorBody = () => "" } = {}) {
  return createServer(async (req, res) => {
    try {
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(new URL(req.url, `http://${req.headers.host}`), {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: "half",
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, [...response.headers].flat());
      if (response.body) Readable.fromWeb(response.body).pipe(res);
      else res.end();
    } catch (e) {
      res.writeHead(500).end(errorBody(e));
    }
  });
}
