// recipes/tool-call.js, the recipes' read of the tool call for the seam.
import assert from "node:assert/strict";
import { test } from "node:test";
import { toolCall } from "./recipes/tool-call.js";

const post = (body) => new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json" }, body });

test("toolCall: a tools/call's name and arguments, the body left readable for the framework", async () => {
  const request = post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "transfer", arguments: { amount: 5 }, requestState: "x" } }));
  assert.deepEqual(await toolCall(request), { name: "transfer", arguments: { amount: 5 } });
  assert.equal((await request.json()).params.name, "transfer");
  assert.deepEqual(await toolCall(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } }))), { name: "t", arguments: {} });
});

test("toolCall: nothing for another method, a GET, a body that is not JSON or over the SDK's 4 MiB", async () => {
  assert.equal(await toolCall(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "p" } }))), undefined);
  assert.equal(await toolCall(new Request("http://127.0.0.1/mcp")), undefined);
  assert.equal(await toolCall(post("{not json")), undefined);
  assert.equal(await toolCall(post("null")), undefined);
  const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: { pad: "x".repeat(4 * 1024 * 1024) } } });
  const request = post(huge);
  assert.equal(await toolCall(request), undefined);
  assert.equal((await request.text()).length, huge.length); // still the framework's to read (and refuse)
});
