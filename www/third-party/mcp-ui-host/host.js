// A tiny Host page around @mcp-ui/client's AppRenderer (the renderer goose
// and others embed), for www/e2e/mcp-ui-client.test.mjs: it connects to the
// MCP server with the MCP SDK 1.x client that @mcp-ui/client depends on, calls
// `start`, and lets AppRenderer read the tool's `ui://` View, render it through
// the sandbox proxy (the demo's own, www/sandbox: @mcp-ui/client ships none)
// and forward the View's tools/call to the server. Bundled by the test with
// esbuild (from js/node_modules) against www/third-party/node_modules.
//
// Query: server (the MCP endpoint), sandbox (the proxy page's URL).
import { AppRenderer } from "@mcp-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createElement } from "react";
import { createRoot } from "react-dom/client";

const qs = new URLSearchParams(location.search);
const host = { logs: [], errors: [], toolResult: null, calls: 0 };
window.mcpUiHost = host;

async function main() {
  const client = new Client({ name: "mcp-ui AppRenderer host (e2e)", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(qs.get("server"))));
  host.toolResult = await client.callTool({ name: "start", arguments: {} });
  const onError = (error) => {
    host.errors.push(String(error?.message ?? error));
    console.error(error);
  };
  createRoot(document.getElementById("root")).render(
    createElement(AppRenderer, {
      client,
      toolName: "start",
      sandbox: { url: new URL(qs.get("sandbox")) },
      toolInput: {},
      toolResult: host.toolResult,
      hostInfo: { name: "mcp-ui AppRenderer host (e2e)", version: "0.0.0" },
      onLoggingMessage: (params) => host.logs.push(params.data),
      onError,
    }),
  );
  document.documentElement.dataset.ready = "true";
}

main().catch((error) => {
  host.errors.push(String(error?.message ?? error));
  document.documentElement.dataset.ready = "error";
  throw error;
});
