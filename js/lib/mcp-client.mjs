// An MCP client of the demo servers (js/lib/servers.mjs: workerd and Rust)
// and the few reads of their tool results that the tests of both make.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HTTP_NAMES } from "./http-names.mjs";

/** The demo's `_meta` key of the sealed token (the package's STATE_META_KEY). */
const STATE_META_KEY = "ng-mcp-ui/state";

/**
 * A client connected to the MCP endpoint `url`, sending `user` in the demo
 * servers' principal header (./http-names.mjs) on every request when given.
 * `options` are the Client's; `fetch` is the one the transport calls (default:
 * the global). Returns `{ client, transport, close }`.
 */
export async function connectClient(url, { user, name = "test", options = {}, fetch: send = fetch } = {}) {
  const client = new Client({ name, version: "0.0.0" }, options);
  const withUser = (input, init = {}) => {
    if (user === undefined) return send(input, init);
    const headers = new Headers(init.headers);
    headers.set(HTTP_NAMES.principalHeader, user);
    return send(input, { ...init, headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: withUser });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** The sealed token of a tool result (fails the test when there is none). */
export function tokenOf(result) {
  const token = result?._meta?.[STATE_META_KEY];
  assert.equal(typeof token, "string", `no token in ${JSON.stringify(result)}`);
  return token;
}

/** The text content of a tool result, joined by newlines. */
/** A result's `_meta.viewUUID`, asserted to be a random (v4) UUID string. */
export function viewUUIDOf(result) {
  const id = result?._meta?.viewUUID;
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, `no viewUUID in ${JSON.stringify(result?._meta)}`);
  return id;
}

export const textOf = (result) => result.content.map((c) => c.text).join("\n");

/** The demo's `start` tool: a new game. */
export const start = (client) => client.callTool({ name: "start", arguments: {} });

/** The demo's `move` tool: play `cell` on the game sealed in `state`. */
export const move = (client, state, cell) => client.callTool({ name: "move", arguments: { state, cell } });

/** The stable refusal of a sealed token: isError, exactly `message`, and no token. */
export function assertRefused(result, message) {
  assert.equal(result.isError, true, JSON.stringify(result));
  assert.equal(textOf(result), message);
  assert.equal(result._meta?.[STATE_META_KEY], undefined);
}

/** The token with one character of its body changed, kept in the base64url alphabet. */
export function tamper(token) {
  const i = 10;
  return token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
}
