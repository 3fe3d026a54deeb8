// mcp-use: its MCPServer (Node >= 22.22), a fresh SDK McpServer per request inside.
import { AsyncLocalStorage } from "node:async_hooks";
import { MCPServer, acceptedContent, inputRequired } from "mcp-use";
import { z } from "zod";
import { STATE_META_KEY, StateCodec } from "mcp-sealed-state";
import { toolCall } from "./tool-call.js";

// No STATE_KEY with NODE_ENV=production: a RangeError here, and the server never listens.
const codec = new StateCodec({ key: process.env.STATE_KEY });
// The request's principal and tool call, for the requestState seam, which is given neither.
const requests = new AsyncLocalStorage();
// The principal: a stand-in header here; bind to the verified OAuth subject (ctx.auth) in a real server.
const userOf = (request) => request.headers.get("x-user") ?? "anonymous";

const server = new MCPServer({
  name: "mcp-use-recipe",
  version: "1.0.0",
  requestState: {
    verify: (state) => {
      const { user, call } = requests.getStore() ?? {};
      return codec.openRequestState(state, call?.name ?? "-", { bind: user, request: call?.arguments });
    },
  },
});
server.use(async (c, next) => requests.run({ user: userOf(c.req.raw), call: await toolCall(c.req.raw) }, next));

const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });

server.tool({ name: "seal_view", inputSchema: z.object({ count: z.number().int() }) }, async ({ count }, ctx) => {
  const user = userOf(ctx.req.raw);
  return { ...text({ count }), _meta: { [STATE_META_KEY]: codec.seal({ count }, { bind: user, secret: { owner: user } }) } };
});
// A SealedStateError becomes { isError: true } with its fixed message.
server.tool({ name: "open_view", inputSchema: z.object({ token: z.string() }) }, async ({ token }, ctx) => text(codec.openWithSecret(token, { bind: userOf(ctx.req.raw) })));

server.tool({ name: "transfer", inputSchema: z.object({ amount: z.number().int() }) }, async (args, ctx) => {
  const state = ctx.requestState(); // what the seam opened
  if (state === undefined || acceptedContent(ctx.inputResponses, "confirm")?.ok !== true) {
    const confirm = inputRequired.elicit({ message: `Send ${args.amount}?`, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });
    return inputRequired({ inputRequests: { confirm }, requestState: codec.sealRequestState({ amount: args.amount }, "transfer", { bind: userOf(ctx.req.raw), request: args }) });
  }
  return text({ sent: state.amount });
});

export default { fetch: (request) => server.fetch(request) };
