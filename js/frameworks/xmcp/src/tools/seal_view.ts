import { z } from "zod";
import { type InferSchema } from "xmcp";
import { headers } from "xmcp/headers";
import { STATE_META_KEY } from "mcp-sealed-state";
import { codec, text, userOf } from "../codec";

export const schema = { count: z.number().int() };
export const metadata = { name: "seal_view", description: "Seal a view token" };

export default async function sealView({ count }: InferSchema<typeof schema>) {
  const user = userOf(headers());
  return { ...text({ count }), _meta: { [STATE_META_KEY]: codec.seal({ count }, { bind: user, secret: { owner: user } }) } };
}
