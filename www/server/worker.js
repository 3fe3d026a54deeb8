// The demo MCP server's workerd entry (Cloudflare Workers module syntax).
// Everything lives in app.js (platform-neutral), game.js (pure rules) and
// view.js (the View as a `ui://` resource); see app.js for the env bindings
// (STATE_KEY, TTL_SECONDS, ALLOWED_ORIGINS, INSTANCE), the principal and the
// routes; http-names.json for the HTTP names.
//
// Bundle and run it with js/lib/servers.mjs (esbuild against the packed
// mcp-sealed-state package, whose "workerd" export condition imports the
// wasm as a module; Miniflare supplies it as CompiledWasm). The View is the
// one-file build of www/game (`node www/game/build.mjs`), imported as text.
import VIEW_HTML from "../../build/view/game.html" with { type: "text" };
import { handleRequest } from "./app.js";
import { viewOptions } from "./view.js";

const options = viewOptions(VIEW_HTML);

export default {
  fetch(request, env) {
    return handleRequest(request, env, options);
  },
};
