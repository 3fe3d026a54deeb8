// The conformance suite's MRTR tools and prompt (js/conformance/server.mjs) on
// mcp-handler's createMcpHandler, our createRequestStateCodec behind its
// requestState option. GET /reasons: the reasons the seam refused.
import { createMcpHandler } from "mcp-handler";
import { createRequestStateCodec } from "mcp-sealed-state";
import { viaVerifySeam } from "../../conformance/request-state.mjs";
import { registerMrtr } from "../../conformance/server.mjs";

const state = viaVerifySeam(createRequestStateCodec({ key: process.env.STATE_KEY }));
const handler = createMcpHandler((server) => registerMrtr(server, state), { capabilities: { tools: {}, prompts: {} }, ...state.serverOptions });

export default {
  fetch: (request) => (new URL(request.url).pathname === "/reasons" ? Response.json(state.reasons) : handler(request)),
};
