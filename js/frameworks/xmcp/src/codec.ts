import { StateCodec } from "mcp-sealed-state";

// No STATE_KEY with NODE_ENV=production: a RangeError when the server loads its tools.
export const codec = new StateCodec({ key: process.env.STATE_KEY });
// The principal: a stand-in header here; bind to the verified token's subject (extra.authInfo) in a real server.
export const userOf = (headers: Record<string, string | string[] | undefined>) => String(headers["x-user"] ?? "anonymous");
export const text = (value: object) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });
