import { z } from "zod";
import { acceptedContent, inputRequired, type InferSchema, type ToolExtraArguments } from "xmcp";
import { headers } from "xmcp/headers";
import { codec, text, userOf } from "../codec";

export const schema = { amount: z.number().int() };
export const metadata = { name: "transfer", description: "Send an amount, once confirmed" };

// xmcp has no requestState seam: the tool opens the raw string itself, for
// this tool, this user and these arguments; a refusal is the tool's isError.
export default async function transfer(args: InferSchema<typeof schema>, extra: ToolExtraArguments) {
  const user = userOf(headers());
  const sealed = extra.requestState<string>();
  if (sealed === undefined || (acceptedContent(extra.inputResponses, "confirm") as { ok?: boolean } | undefined)?.ok !== true) {
    const confirm = inputRequired.elicit({ message: `Send ${args.amount}?`, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });
    return inputRequired({ inputRequests: { confirm }, requestState: codec.sealRequestState({ amount: args.amount }, "transfer", { bind: user, request: args }) });
  }
  const state = codec.openRequestState<{ amount: number }>(sealed, "transfer", { bind: user, request: args });
  return text({ sent: state.amount });
}
