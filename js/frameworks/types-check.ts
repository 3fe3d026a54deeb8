// Type-checked by types.test.mjs: tmcpRequestStateCodec fits tmcp's own
// `requestStateCodec` option type, and its options are typed.
import { McpServer } from "tmcp";
import { tmcpRequestStateCodec, type TmcpRequestStateCodec } from "mcp-sealed-state";

const codec: TmcpRequestStateCodec = tmcpRequestStateCodec({ key: "k".repeat(32), ttlSeconds: 60, bind: () => "alice", request: () => ({ name: "transfer", arguments: {} }) });
export const server = new McpServer({ name: "types", version: "1.0.0", description: "types" }, { adapter: undefined, capabilities: {}, requestStateCodec: codec });

// @ts-expect-error bind returns the principal as a string
tmcpRequestStateCodec({ bind: () => 1 });
// @ts-expect-error the key is a string or bytes
tmcpRequestStateCodec({ key: 32 });
