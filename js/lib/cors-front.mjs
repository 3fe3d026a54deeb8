// A CORS front for a server that sends no CORS headers (the README's counter
// server), so that a page on another origin (the demo Host, which runs its MCP
// client in the browser) can reach it: every request is passed through to
// `target` as it is, streamed both ways, and every response gets
// `Access-Control-Allow-Origin: *` and exposes its headers; preflights are
// answered here. Loopback only.
//
//   const front = await corsFront("http://127.0.0.1:3000/");
//   front.url; await front.close();
import { createServer, request } from "node:http";

const ALLOW = { "access-control-allow-origin": "*", "access-control-expose-headers": "*" };

/** Start a CORS front for `target` (an http: URL on loopback) on a free loopback port: { url, close() }. */
export async function corsFront(target) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (req.method === "OPTIONS") {
      res.writeHead(204, { ...ALLOW, "access-control-allow-methods": "GET, POST, DELETE, OPTIONS", "access-control-allow-headers": "*", "access-control-max-age": "600" });
      return res.end();
    }
    const { host, origin, referer, ...headers } = req.headers; // the upstream sees a same-origin request
    const out = request({ hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...ALLOW });
      answer.pipe(res);
    });
    out.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502, { ...ALLOW, "content-type": "text/plain" });
      res.end(`cors front: ${e.message}`);
    });
    req.pipe(out);
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
