// The import map of the browser pages, as a CLASSIC script that inserts it:
//
//   <script src="/www/lib/importmap.js"></script>   <!-- before any module script -->
//
// Why an import map and not a bundle: the Host page and the inspector load the
// package as published, module by module, which is what a page without a
// bundler gets; serving the package unchanged tests exactly that.
// URLs are the mounts of js/lib/servers.mjs: /pkg/ (the package), /node_modules/
// (js/node_modules), /www/.
//
// The Host side needs ext-apps' app-bridge, whose bare imports (SDK client,
// core, zod and the client's own deps) are listed here; js/test/app.browser.test.mjs
// checks this list against what esbuild resolves, so a dependency update
// cannot drift silently. The View side needs only the self-contained
// app-with-deps build. (The demo's game View is not served through this map:
// it is one HTML file built by Vite, see www/game/build.mjs.)
(() => {
  const NM = "/node_modules/";
  const imports = {
    "mcp-sealed-state/widget": "/pkg/widget/browser.js",
    // The ext-apps adapters of the package (they import ext-apps and the widget entry by name).
    "mcp-sealed-state/app": "/pkg/app/index.js",
    "mcp-sealed-state/app-bridge": "/pkg/app-bridge/index.js",
    // View: the self-contained build (no bare imports) under the package's own name.
    "@modelcontextprotocol/ext-apps": NM + "@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js",
    "@modelcontextprotocol/ext-apps/app-with-deps": NM + "@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js",
    // Host: app-bridge and its dependencies (browser conditions).
    "@modelcontextprotocol/ext-apps/app-bridge": NM + "@modelcontextprotocol/ext-apps/dist/src/app-bridge.js",
    "@modelcontextprotocol/client": NM + "@modelcontextprotocol/client/dist/index.mjs",
    "@modelcontextprotocol/client/_shims": NM + "@modelcontextprotocol/client/dist/shimsBrowser.mjs",
    "@modelcontextprotocol/core": NM + "@modelcontextprotocol/core/dist/index.mjs",
    "@modelcontextprotocol/core/internal": NM + "@modelcontextprotocol/core/dist/internal.mjs",
    "zod/v4": NM + "zod/v4/index.js",
    eventsource: NM + "eventsource/dist/index.js",
    "eventsource-parser": NM + "eventsource-parser/dist/index.js",
    "eventsource-parser/stream": NM + "eventsource-parser/dist/stream.js",
    jose: NM + "jose/dist/webapi/index.js",
    "pkce-challenge": NM + "pkce-challenge/dist/index.browser.js",
  };
  globalThis.MCP_SEALED_STATE_IMPORT_MAP = { imports };
  if (typeof document === "undefined") return; // read by www/e2e in Node
  const script = document.createElement("script");
  script.type = "importmap";
  script.textContent = JSON.stringify({ imports });
  document.currentScript.after(script);
})();
