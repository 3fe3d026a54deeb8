// The tic-tac-toe View as an MCP Apps resource on the workerd server: one
// HTML file (built by www/game/build.mjs into build/view/game.html) served as
// `ui://…` with ext-apps' server helper, and the tools pointing at it. What is
// declared lives in ./view-meta.js. Platform-neutral: the HTML comes in as a
// string (worker.js imports it as text).
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource } from "@modelcontextprotocol/ext-apps/server";
import { VIEW_MIME_TYPE, VIEW_RESOURCE_META, VIEW_TOOL_META, VIEW_URI } from "./view-meta.js";

export * from "./view-meta.js";

// view-meta.js spells ext-apps' constants out (it has no imports); keep them equal.
if (RESOURCE_MIME_TYPE !== VIEW_MIME_TYPE || VIEW_TOOL_META[RESOURCE_URI_META_KEY] !== VIEW_URI) {
  throw new Error("view-meta.js disagrees with @modelcontextprotocol/ext-apps/server's constants");
}

/** Register the View's resource on `server` (an McpServer). `html` is the one-file View. */
export function registerView(server, html) {
  if (typeof html !== "string" || html.length === 0) throw new TypeError("registerView: html must be the View's HTML text");
  return registerAppResource(server, "Tic-tac-toe View", VIEW_URI, { description: "The tic-tac-toe board (MCP App View, one HTML file)", _meta: { ...VIEW_RESOURCE_META } }, async () => ({
    contents: [{ uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, text: html, _meta: { ...VIEW_RESOURCE_META } }],
  }));
}

/** handleRequest() options that serve the View: the tools point at it, the server lists and reads it. */
export function viewOptions(html) {
  return { toolMeta: VIEW_TOOL_META, extend: (server) => registerView(server, html) };
}
