// Cloudflare `agents`: a stateless MCP Worker (wrangler.jsonc: compatibility_flags ["nodejs_compat"]).
import { createMcpHandler } from "agents/mcp/server";
import { McpServer } from "@modelcontextprotocol/server";
import { StateCodec } from "mcp-sealed-state";
import { registerTools, requestStateSeam } from "./sdk-tools.js";
import { toolCall } from "./tool-call.js";

let codec; // one per isolate, made on the first request (a Worker's env is not at module scope)

export default {
  async fetch(request, env, ctx) {
    // The key from the STATE_KEY secret, production from the NODE_ENV variable. No STATE_KEY
    // with NODE_ENV=production: a RangeError naming the secret to set, and no request is served.
    codec ??= new StateCodec({ env });
    // The principal: a stand-in header here; bind to the authenticated user (getMcpAuthContext()) in a real Worker.
    const user = request.headers.get("x-user") ?? "anonymous";
    const call = await toolCall(request);
    const server = () => {
      const mcp = new McpServer({ name: "agents-recipe", version: "1.0.0" }, { requestState: requestStateSeam(codec, user, call) });
      registerTools(mcp, { codec, user });
      return mcp;
    };
    return createMcpHandler(server)(request, env, ctx);
  },
};
