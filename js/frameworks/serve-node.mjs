// Serves a recipe's fetch handler (its default export's `fetch`) on 127.0.0.1,
// a port of the system's choosing, in the runtime that runs this file (Node
// 20/22/24, or Bun), and prints `LISTENING <url>` once it answers. Importing
// the recipe is the server's start: a recipe that refuses its configuration
// (no key in production) throws here and the process exits 1.
//
//   node js/frameworks/serve-node.mjs recipes/mcp-handler.js
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { fetchServer } from "../lib/node-fetch.mjs";

const recipe = (await import(pathToFileURL(resolve(process.argv[2])).href)).default;

// A throw is logged (the tests read the server's stderr) and answered with a bare 500.
const server = fetchServer(recipe, { errorBody: (e) => (console.error(e), "") });
server.listen(0, "127.0.0.1", () => console.log(`LISTENING http://127.0.0.1:${server.address().port}/mcp`));
