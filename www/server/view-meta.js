// What the demo servers declare about the tic-tac-toe View: its `ui://` URIs,
// MIME types, the resources' `_meta` (CSP for MCP Apps and for ChatGPT) and
// the tools' `_meta` that point at them. No imports: the workerd server
// (./view.js), the Rust server's launcher (js/lib/servers.mjs) and the tests share it.
//
// One View, two host models, two resources of the same HTML: MCP Apps hosts
// (the ext-apps bridge over postMessage) follow the tools' `ui.resourceUri` to
// a `text/html;profile=mcp-app` resource; Apps SDK hosts (ChatGPT's
// `window.openai`, and emulations such as the MCPJam Inspector) follow
// `openai/outputTemplate` to a `text/html+skybridge` one. A host that speaks
// one model reads its own key, and so renders the resource declared for it.
//
// CSP: the View needs no network at all (every script and style is inlined;
// tool calls go through the Host over postMessage), so it declares no
// origins: `connectDomains` and `resourceDomains` empty. The mcp-sealed-state
// widget inside it runs on WebAssembly where the Host's policy allows
// 'wasm-unsafe-eval', and on its JS backend where it does not; the View needs
// no declaration for either. `openai/widgetCSP` mirrors it for ChatGPT.

export const VIEW_URI = "ui://tic-tac-toe/game.html";
/** ext-apps' RESOURCE_MIME_TYPE. */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
/** The same HTML as an Apps SDK template: its own URI, the Apps SDK's MIME type. */
export const OUTPUT_TEMPLATE_URI = "ui://tic-tac-toe/game.skybridge.html";
export const OUTPUT_TEMPLATE_MIME_TYPE = "text/html+skybridge";
/** `_meta.ui.csp` of the resource (MCP Apps): the origins the View may reach. None. */
export const VIEW_CSP = Object.freeze({ connectDomains: [], resourceDomains: [] });
/** The same for ChatGPT (Apps SDK), in its own key and spelling. */
export const OPENAI_WIDGET_CSP = Object.freeze({ connect_domains: [], resource_domains: [] });

/** Both resources' `_meta`, on their listing and on their contents (each model reads its own keys). */
export const VIEW_RESOURCE_META = Object.freeze({
  ui: { csp: VIEW_CSP, prefersBorder: false },
  "openai/widgetCSP": OPENAI_WIDGET_CSP,
  "openai/widgetPrefersBorder": false,
});

/**
 * `_meta` for the tools whose results this View renders: `ui.resourceUri`
 * (and the older flat "ui/resourceUri" key, as ext-apps' registerAppTool
 * writes it) for MCP Apps hosts, and `openai/outputTemplate` (the skybridge
 * resource) for Apps SDK hosts. The CSP is not here: hosts read it from the resource.
 */
export const VIEW_TOOL_META = Object.freeze({
  ui: { resourceUri: VIEW_URI },
  "ui/resourceUri": VIEW_URI,
  "openai/outputTemplate": OUTPUT_TEMPLATE_URI,
});

/** The View's declarations as the Rust server's launcher (js/lib/servers.mjs startRustServer) takes them. */
export const VIEW_DECLARATION = Object.freeze({ viewUri: VIEW_URI, templateUri: OUTPUT_TEMPLATE_URI, viewMeta: VIEW_RESOURCE_META });
