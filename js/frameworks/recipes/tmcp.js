// tmcp: its own McpServer and HttpTransport (Node, Bun, or a Worker with nodejs_compat).
import { McpServer } from "tmcp";
import { ValibotJsonSchemaAdapter } from "@tmcp/adapter-valibot";
import { HttpTransport } from "@tmcp/transport-http";
import * as v from "valibot";
import { STATE_META_KEY, SealedStateError, StateCodec, tmcpRequestStateCodec } from "mcp-sealed-state";
import { toolCall } from "./tool-call.js";

const key = process.env.STATE_KEY; // none with NODE_ENV=production: both constructors throw, at startup
const codec = new StateCodec({ key });
const server = new McpServer(
  { name: "tmcp-recipe", version: "1.0.0", description: "sealed state with tmcp" },
  {
    adapter: new ValibotJsonSchemaAdapter(),
    capabilities: { tools: {} },
    // The one line that replaces tmcp's readable JSON: the principal and the call come from the request's custom context.
    requestStateCodec: tmcpRequestStateCodec({ key, bind: () => server.ctx.custom?.user, request: () => server.ctx.custom?.call }),
  },
);
const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });
const user = () => server.ctx.custom.user;

server.tool({ name: "seal_view", description: "Seal a view token", schema: v.object({ count: v.number() }) }, async ({ count }) => ({
  ...text({ count }),
  _meta: { [STATE_META_KEY]: codec.seal({ count }, { bind: user(), secret: { owner: user() } }) },
}));

server.tool({ name: "open_view", description: "Open a view token", schema: v.object({ token: v.string() }) }, async ({ token }) => {
  try {
    return text(codec.openWithSecret(token, { bind: user() }));
  } catch (error) {
    // As the SDK answers a tool that throws: isError, and the fixed message (the reason stays here).
    if (error instanceof SealedStateError) return { isError: true, content: [{ type: "text", text: error.message }] };
    throw error;
  }
});

// tmcp runs the tool again from the top on the retry, with the state it sealed.
server.tool({ name: "transfer", description: "Send an amount, once confirmed", schema: v.object({ amount: v.number() }), replayable: true }, async ({ amount }) => {
  const saved = server.ctx.requestState ?? { amount };
  server.setRequestState(saved);
  const answer = await server.elicitation(`Send ${amount}?`, v.object({ ok: v.boolean() }), { key: "confirm" });
  if (answer.action !== "accept" || answer.content?.ok !== true) return text({ sent: 0 });
  return text({ sent: saved.amount });
});

const transport = new HttpTransport(server, { path: "/mcp" });

export default {
  async fetch(request) {
    // The principal: a stand-in header here; bind to the verified OAuth subject (server.ctx.auth) in a real server.
    const custom = { user: request.headers.get("x-user") ?? "anonymous", call: await toolCall(request) };
    return (await transport.respond(request, custom)) ?? new Response("Not Found", { status: 404 });
  },
};
