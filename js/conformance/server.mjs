// A Streamable HTTP MCP server on loopback (@modelcontextprotocol/server's
// createMcpHandler) with the tools and the prompt the conformance suite's
// `input-required-result-*` scenarios call (SEP-2322, protocol 2026-07-28).
// Every tool asks for its input as an InputRequiredResult until the retry
// carries it; requestState goes through `state` (request-state.mjs), so the
// same tools run on each codec.
import { randomUUID } from "node:crypto";
import { CLIENT_CAPABILITIES_META_KEY, McpServer, acceptedContent, createMcpHandler, fromJsonSchema, inputRequired } from "@modelcontextprotocol/server";
import { fetchServer } from "../lib/node-fetch.mjs";

const NO_ARGUMENTS = fromJsonSchema({ type: "object", properties: {} });

const askString = (message, field) => inputRequired.elicit({ message, requestedSchema: { type: "object", properties: { [field]: { type: "string" } }, required: [field] } });
const askConfirm = () => inputRequired.elicit({ message: "Please confirm", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });
const askSampling = (text, maxTokens) => inputRequired.createMessage({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens });
const text = (t) => ({ content: [{ type: "text", text: t }] });

/** The tools, by name: each `(ctx, state, tool)` returns a result or an InputRequiredResult; `ctx.mcpReq.requestState()` is what the seam opened. */
const TOOLS = {
  // Also the tool of the missing-input-response, result-type, ignore-extra-params and validate-input scenarios.
  test_input_required_result_elicitation(ctx) {
    const name = acceptedContent(ctx.mcpReq.inputResponses, "user_name")?.name;
    if (typeof name !== "string") return inputRequired({ inputRequests: { user_name: askString("What is your name?", "name") } });
    return text(`Hello, ${name}!`);
  },
  test_input_required_result_sampling(ctx) {
    const answer = ctx.mcpReq.inputResponses?.capital_question?.content?.text;
    if (typeof answer !== "string") return inputRequired({ inputRequests: { capital_question: askSampling("What is the capital of France?", 100) } });
    return text(`The model answered: ${answer}`);
  },
  test_input_required_result_list_roots(ctx) {
    const roots = ctx.mcpReq.inputResponses?.client_roots?.roots;
    if (!Array.isArray(roots)) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return text(`Roots: ${roots.map((r) => r?.uri).join(", ")}`);
  },
  async test_input_required_result_request_state(ctx, state, tool) {
    const sealed = ctx.mcpReq.requestState();
    if (sealed?.tool !== tool || acceptedContent(ctx.mcpReq.inputResponses, "confirm") === undefined) {
      return inputRequired({ inputRequests: { confirm: askConfirm() }, requestState: await state.mint({ tool, nonce: randomUUID() }, tool, ctx) });
    }
    return text("state-ok: the requestState opened and the confirmation arrived");
  },
  async test_input_required_result_multiple_inputs(ctx, state, tool) {
    const responses = ctx.mcpReq.inputResponses;
    const name = acceptedContent(responses, "user_name")?.name;
    const greeting = responses?.greeting?.content?.text;
    const roots = responses?.client_roots?.roots;
    if (ctx.mcpReq.requestState()?.tool !== tool || typeof name !== "string" || typeof greeting !== "string" || !Array.isArray(roots)) {
      const inputRequests = { user_name: askString("What is your name?", "name"), greeting: askSampling("Generate a greeting", 50), client_roots: inputRequired.listRoots() };
      return inputRequired({ inputRequests, requestState: await state.mint({ tool, nonce: randomUUID() }, tool, ctx) });
    }
    return text(`${greeting}, ${name} (${roots.length} roots)`);
  },
  // The round lives in the sealed state only: nothing is kept between requests.
  async test_input_required_result_multi_round(ctx, state, tool) {
    const sealed = ctx.mcpReq.requestState();
    const round = sealed?.tool === tool ? sealed.round : 0;
    if (round === 1) {
      const name = acceptedContent(ctx.mcpReq.inputResponses, "step1")?.name;
      if (typeof name === "string") {
        return inputRequired({ inputRequests: { step2: askString("Step 2: What is your favorite color?", "color") }, requestState: await state.mint({ tool, round: 2, name }, tool, ctx) });
      }
    }
    if (round === 2) {
      const color = acceptedContent(ctx.mcpReq.inputResponses, "step2")?.color;
      if (typeof color === "string") return text(`${sealed.name} likes ${color}`);
    }
    return inputRequired({ inputRequests: { step1: askString("Step 1: What is your name?", "name") }, requestState: await state.mint({ tool, round: 1 }, tool, ctx) });
  },
  // A tampered state never gets here: the seam refuses it.
  async test_input_required_result_tampered_state(ctx, state, tool) {
    if (ctx.mcpReq.requestState()?.tool === tool && acceptedContent(ctx.mcpReq.inputResponses, "confirm") !== undefined) return text("integrity-ok");
    return inputRequired({ inputRequests: { confirm: askConfirm() }, requestState: await state.mint({ tool, nonce: randomUUID() }, tool, ctx) });
  },
  // Asks only for the kinds of input the request's declared client capabilities cover.
  test_input_required_result_capabilities(ctx) {
    if (ctx.mcpReq.inputResponses !== undefined) return text("the declared capabilities' inputs arrived");
    const declared = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {};
    const inputRequests = {};
    if (declared.elicitation !== undefined) inputRequests.user_name = askString("What is your name?", "name");
    if (declared.sampling !== undefined) inputRequests.greeting = askSampling("Generate a greeting", 50);
    if (declared.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
    if (Object.keys(inputRequests).length === 0) return text("no declared capability takes an input request");
    return inputRequired({ inputRequests });
  },
};

// InputRequiredResult on prompts/get (the non-tool-request scenario).
function promptAskingContext(ctx) {
  const context = acceptedContent(ctx.mcpReq.inputResponses, "user_context")?.context;
  if (typeof context !== "string") return inputRequired({ inputRequests: { user_context: askString("What context should the prompt use?", "context") } });
  return { messages: [{ role: "user", content: { type: "text", text: `Context: ${context}` } }] };
}

/** The scenarios' tools and prompt on `server` (an McpServer, also a framework's), on `state`. */
export function registerMrtr(server, state) {
  server.server.onerror = state.onerror;
  for (const [name, tool] of Object.entries(TOOLS)) {
    server.registerTool(name, { description: `MRTR: ${name}`, inputSchema: NO_ARGUMENTS }, (_args, ctx) => tool(ctx, state, name));
  }
  server.registerPrompt("test_input_required_result_prompt", { description: "MRTR: a prompt that asks for its context" }, promptAskingContext);
  return server;
}

/** A fresh McpServer per call (the 2026-07-28 path), on `state`: the factory a createMcpHandler takes. */
export const mrtrFactory = (state) => () =>
  registerMrtr(new McpServer({ name: "mcp-sealed-state-conformance", version: "0.0.0" }, { capabilities: { tools: {}, prompts: {} }, ...state.serverOptions }), state);

/** The MCP handler: a fresh McpServer per request (the 2026-07-28 path), on `state`. */
export function mrtrHandler(state) {
  return createMcpHandler(mrtrFactory(state));
}

/** Serves a fetch handler on 127.0.0.1 (an ephemeral port): { url, close }. */
export async function listen(handler) {
  const server = fetchServer(handler, { errorBody: String });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
