// Serves a recipe's fetch handler (its default export's `fetch`) on 127.0.0.1,
// a port of the system's choosing, in the runtime that runs this file (Node
// 20/22/24, or Bun), and prints `LISTENING <url>` once it answers. Importing
// the recipe is the server's start: a recipe that refuses its configuration
// (no key in production) throws here and the process exits 1.
//
//   node js/frameworks/serve-node.mjs recipes/mcp-handler.js
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const recipe = (await import(pathToFileURL(resolve(process.argv[2])).href)).default;

const server = createServer(async (req, res) => {
  try {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(new URL(req.url, `http://${req.headers.host}`), {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
      body: hasBody ? Readable.toWeb(req) : undefined,
      duplex: "half",
    });
    const response = await recipe.fetch(request);
    res.writeHead(response.status, [...response.headers].flat());
    if (response.body) Readable.fromWeb(response.body).pipe(res);
    else res.end();
  } catch (e) {
    console.error(e);
    res.writeHead(500).end();
  }
});
server.listen(0, "127.0.0.1", () => console.log(`LISTENING http://127.0.0.1:${server.address().port}/mcp`));
