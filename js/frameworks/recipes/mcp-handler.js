// Vercel `mcp-handler`: a route handler (Next.js app/api/mcp/route.js, or any (Request) => Response).
import { createMcpHandler } from "mcp-handler";
import { StateCodec } from "mcp-sealed-state";
import { registerTools, requestStateSeam } from "./sdk-tools.js";
import { toolCall } from "./tool-call.js";

// At module load: no STATE_KEY with NODE_ENV=production throws here, and the route never serves.
const codec = new StateCodec({ key: process.env.STATE_KEY });

async function handler(request) {
  // The principal: a stand-in header here; bind to the verified token's subject (withMcpAuth) in a real route.
  const user = request.headers.get("x-user") ?? "anonymous";
  const call = await toolCall(request);
  const route = createMcpHandler((server) => registerTools(server, { codec, user }), {
    serverInfo: { name: "mcp-handler-recipe", version: "1.0.0" },
    requestState: requestStateSeam(codec, user, call),
  });
  return route(request);
}

export { handler as GET, handler as POST };
export default { fetch: handler };
