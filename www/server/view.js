// The tic-tac-toe View as an MCP Apps resource: one HTML file (built by
// www/game/build.mjs into build/view/game.html) served as `ui://…` with the
// `text/html;profile=mcp-app` MIME type, and what the tools declare to point
// at it. Platform-neutral: the HTML comes in as a string (worker.js imports
// it as text), so Node code can register the same View from a file it read.
//
// CSP: the View needs no network at all (every script and style is inlined;
// tool calls go through the Host over postMessage), so it declares no
// origins: `connectDomains` and `resourceDomains` empty. The mcp-sealed-state
// widget inside it runs on WebAssembly where the Host's policy allows
// 'wasm-unsafe-eval', and on its JS backend where it does not; the View needs
// no declaration for either. `openai/widgetCSP` mirrors it for ChatGPT.
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource } from "@modelcontextprotocol/ext-apps/server";

export const VIEW_URI = "ui://tic-tac-toe/game.html";
export const VIEW_MIME_TYPE = RESOURCE_MIME_TYPE; // "text/html;profile=mcp-app"
/** `_meta.ui.csp` of the resource (MCP Apps): the origins the View may reach. None. */
export const VIEW_CSP = Object.freeze({ connectDomains: [], resourceDomains: [] });
/** The same for ChatGPT (Apps SDK), in its own key and spelling. */
export const OPENAI_WIDGET_CSP = Object.freeze({ connect_domains: [], resource_domains: [] });

/** The resource's `_meta`, on its listing and on its contents. */
export const VIEW_RESOURCE_META = Object.freeze({
  ui: { csp: VIEW_CSP, prefersBorder: false },
  "openai/widgetCSP": OPENAI_WIDGET_CSP,
  "openai/widgetPrefersBorder": false,
});

/**
 * `_meta` for the tools whose results this View renders: `ui.resourceUri`
 * (and the older flat "ui/resourceUri" key, as ext-apps' registerAppTool
 * writes it), and `openai/outputTemplate` for ChatGPT. The CSP is not here:
 * hosts read it from the resource.
 */
export const VIEW_TOOL_META = Object.freeze({
  ui: { resourceUri: VIEW_URI },
  [RESOURCE_URI_META_KEY]: VIEW_URI,
  "openai/outputTemplate": VIEW_URI,
});

/** Register the View's resource on `server` (an McpServer). `html` is the one-file View. */
export function registerView(server, html) {
  if (typeof html !== "string" || html.length === 0) throw new TypeError("registerView: html must be the View's HTML text");
  return registerAppResource(
    server,
    "Tic-tac-toe View",
    VIEW_URI,
    { description: "The tic-tac-toe board (MCP App View, one HTML file)", _meta: { ...VIEW_RESOURCE_META } },
    async () => ({
      contents: [{ uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, text: html, _meta: { ...VIEW_RESOURCE_META } }],
    }),
  );
}

/** handleRequest() options that serve the View: the tools point at it, the server lists and reads it. */
export function viewOptions(html) {
  return { toolMeta: VIEW_TOOL_META, extend: (server) => registerView(server, html) };
}
