// The tools of every recipe on @modelcontextprotocol/server's McpServer
// (agents, mcp-handler): a view token sealed with a secret part and bound to
// the user, the tool that opens it, and an MRTR tool whose requestState is
// bound to the user and to the call's arguments.
import { acceptedContent, fromJsonSchema, inputRequired } from "@modelcontextprotocol/server";
import { STATE_META_KEY } from "mcp-sealed-state";

const schema = (properties) => fromJsonSchema({ type: "object", properties, required: Object.keys(properties) });
const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });

/** `ServerOptions.requestState`: opens the echoed state for this call, this user and these arguments, or the SDK answers -32602. */
export const requestStateSeam = (codec, user, call) => ({
  verify: (state) => codec.openRequestState(state, call?.name ?? "-", { bind: user, request: call?.arguments }),
});

export function registerTools(server, { codec, user }) {
  server.registerTool("seal_view", { inputSchema: schema({ count: { type: "integer" } }) }, async ({ count }) => ({
    ...text({ count }),
    _meta: { [STATE_META_KEY]: codec.seal({ count }, { bind: user, secret: { owner: user } }) },
  }));
  // A SealedStateError becomes { isError: true } with its fixed message.
  server.registerTool("open_view", { inputSchema: schema({ token: { type: "string" } }) }, async ({ token }) => text(codec.openWithSecret(token, { bind: user })));
  server.registerTool("transfer", { inputSchema: schema({ amount: { type: "integer" } }) }, async (args, ctx) => {
    const state = ctx.mcpReq.requestState(); // what the seam opened
    if (state === undefined || acceptedContent(ctx.mcpReq.inputResponses, "confirm")?.ok !== true) {
      const confirm = inputRequired.elicit({ message: `Send ${args.amount}?`, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });
      return inputRequired({ inputRequests: { confirm }, requestState: codec.sealRequestState({ amount: args.amount }, "transfer", { bind: user, request: args }) });
    }
    return text({ sent: state.amount });
  });
}
