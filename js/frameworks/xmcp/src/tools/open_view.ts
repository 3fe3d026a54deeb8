import { z } from "zod";
import { type InferSchema } from "xmcp";
import { headers } from "xmcp/headers";
import { codec, text, userOf } from "../codec";

export const schema = { token: z.string() };
export const metadata = { name: "open_view", description: "Open a view token" };

// A SealedStateError becomes { isError: true } with its fixed message.
export default async function openView({ token }: InferSchema<typeof schema>) {
  return text(codec.openWithSecret(token, { bind: userOf(headers()) }));
}
