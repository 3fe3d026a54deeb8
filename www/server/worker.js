// The demo MCP server's workerd entry (Cloudflare Workers module syntax).
// Everything lives in app.js (platform-neutral) and game.js (pure rules);
// see app.js for the env bindings (STATE_KEY, TTL_SECONDS, ALLOWED_ORIGINS,
// INSTANCE), the X-Demo-User principal and the routes (/mcp, /health).
//
// Bundle and run it with ./miniflare.mjs (esbuild against the packed
// mcp-sealed-state package, whose "workerd" export condition imports the
// wasm as a module; Miniflare supplies it as CompiledWasm).
import { handleRequest } from "./app.js";

export default {
  fetch(request, env) {
    return handleRequest(request, env);
  },
};
