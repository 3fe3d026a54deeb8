// The tic-tac-toe View on the workerd server: one HTML file (built by
// www/game/build.mjs into build/view/game.html) served twice, as the MCP Apps
// `ui://` resource (ext-apps' server helper) and as the Apps SDK's
// `text/html+skybridge` template, and the tools pointing at both. What is
// declared lives in ./view-meta.js. Platform-neutral: the HTML comes in as a
// string (worker.js imports it as text).
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource } from "@modelcontextprotocol/ext-apps/server";
import { OUTPUT_TEMPLATE_MIME_TYPE, OUTPUT_TEMPLATE_URI, VIEW_MIME_TYPE, VIEW_RESOURCE_META, VIEW_TOOL_META, VIEW_URI } from "./view-meta.js";

export * from "./view-meta.js";

// view-meta.js spells ext-apps' constants out (it has no imports); keep them equal.
if (RESOURCE_MIME_TYPE !== VIEW_MIME_TYPE || VIEW_TOOL_META[RESOURCE_URI_META_KEY] !== VIEW_URI) {
  throw new Error("view-meta.js disagrees with @modelcontextprotocol/ext-apps/server's constants");
}

/** A read callback that serves `html` as `uri` with `mimeType`. */
const serve = (uri, mimeType, html) => async () => ({ contents: [{ uri, mimeType, text: html, _meta: { ...VIEW_RESOURCE_META } }] });

/** Register the View's two resources on `server` (an McpServer). `html` is the one-file View. */
export function registerView(server, html) {
  if (typeof html !== "string" || html.length === 0) throw new TypeError("registerView: html must be the View's HTML text");
  registerAppResource(
    server,
    "Tic-tac-toe View",
    VIEW_URI,
    { description: "The tic-tac-toe board (MCP App View, one HTML file)", _meta: { ...VIEW_RESOURCE_META } },
    serve(VIEW_URI, VIEW_MIME_TYPE, html),
  );
  server.registerResource(
    "Tic-tac-toe View (Apps SDK)",
    OUTPUT_TEMPLATE_URI,
    { mimeType: OUTPUT_TEMPLATE_MIME_TYPE, description: "The same board as an Apps SDK template (window.openai hosts)", _meta: { ...VIEW_RESOURCE_META } },
    serve(OUTPUT_TEMPLATE_URI, OUTPUT_TEMPLATE_MIME_TYPE, html),
  );
}

/** handleRequest() options that serve the View: the tools point at it, the server lists and reads it. */
export function viewOptions(html) {
  return { toolMeta: VIEW_TOOL_META, extend: (server) => registerView(server, html) };
}
