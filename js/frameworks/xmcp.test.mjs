// xmcp (its compiler, `xmcp build`, and the HTTP server it builds) in Node:
// js/frameworks/xmcp, whose tools open requestState themselves (xmcp has no
// seam), two processes sharing a key, driven by the SDK's client.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startXmcp } from "./node-servers.mjs";
import { FRAMEWORKS } from "./setup.mjs";
import { KEY, SEALED_STATE_INVALID_MESSAGE, checkRecipe, connect } from "./support.mjs";

// Built in a copy under js/out (xmcp writes .xmcp/, dist/ and a .d.ts beside
// its sources), its node_modules the frameworks' own.
const SOURCE = join(FRAMEWORKS, "xmcp");
const DIR = join(FRAMEWORKS, "../out/frameworks/xmcp");
const servers = [];

before(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  for (const f of ["src", "package.json", "tsconfig.json", "xmcp.config.json"]) cpSync(join(SOURCE, f), join(DIR, f), { recursive: true });
  symlinkSync(join(FRAMEWORKS, "node_modules"), join(DIR, "node_modules"), "dir");
  const env = { ...process.env, NO_COLOR: "1", XMCP_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };
  await promisify(execFile)(process.execPath, [join(DIR, "node_modules/xmcp/dist/cli.js"), "build"], { cwd: DIR, env, timeout: 300_000 }).catch((e) => {
    throw new Error(`xmcp build failed:\n${e.stdout}${e.stderr}`);
  });
  for (let i = 0; i < 2; i++) servers.push(await startXmcp(DIR, { STATE_KEY: KEY, NODE_ENV: "production" }));
});
after(() => Promise.allSettled(servers.map((s) => s.stop())));

/** xmcp's answer: the tool's own refusal, isError with our fixed message. */
function toolRefusal(result, what) {
  assert.equal(result.isError, true, `${what}: ${JSON.stringify(result)}`);
  assert.equal(result.content[0].text, SEALED_STATE_INVALID_MESSAGE, what);
}

test("xmcp in Node: view tokens and MRTR requestState across two processes, every bad token refused", async (t) => {
  await checkRecipe(t, { a: servers[0].url, b: servers[1].url, requestStateRefusal: toolRefusal, requestStateRefusedAs: "isError" });
});

// xmcp loads the tools (and so makes the codec) per request and answers a
// tool module that throws with a bare 500: the RangeError is not even logged.
// What is tested is that nothing falls open: no tool is served, no token minted.
test("xmcp in Node: no STATE_KEY in production serves nothing (xmcp answers 500 and swallows our error)", async () => {
  const server = await startXmcp(DIR, { STATE_KEY: undefined, NODE_ENV: "production" });
  try {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "seal_view", arguments: { count: 1 } } });
    const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: 1 });
    const refused = await connect(server.url, "alice").then(
      (client) => client.close().then(() => assert.fail("a client connected")),
      (e) => e,
    );
    assert.match(refused.message, /HTTP 500/);
  } finally {
    await server.stop();
  }
});
