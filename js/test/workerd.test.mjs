// The demo MCP server (www/server) in REAL workerd, through Miniflare, driven by
// the real MCP client (@modelcontextprotocol/client) over Streamable HTTP.
// The worker bundles the PACKED mcp-sealed-state (its "workerd" export
// condition, wasm imported as a CompiledWasm module) and the SDK's McpServer +
// createMcpHandler, which builds a fresh server on every request.
//
// Instances: A and B share one key (no session affinity: a game moves between
// them), C has the same key and TTL_SECONDS=0 (tokens expire at the next
// second), D has no key (the package's dev ephemeral key).
// Every scenario runs in both protocol eras: the client's default negotiation
// (2025 initialize handshake, served by the SDK's stateless fallback) and a
// 2026-07-28 pin (per-request envelope).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CORS_ALLOW_HEADERS, HTTP_NAMES } from "../lib/http-names.mjs";
import { assertRefused, connectClient, move, start, tamper, textOf, tokenOf, viewUUIDOf } from "../lib/mcp-client.mjs";
import { importPackage } from "./support.mjs";
import { buildWorker, startServer } from "../lib/servers.mjs";

const { SEALED_STATE_INVALID_MESSAGE } = await importPackage();
const { readTokenUnverified } = await importPackage("/widget");

const KEY = "workerd-test-key: at least thirty-two bytes long!";
const ERAS = [
  { era: "2025 (default negotiation)", options: {}, version: /^2025-/ },
  { era: "2026-07-28 (pinned)", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } }, version: /^2026-07-28$/ },
];

const servers = {};
const logs = { a: [], b: [], c: [], d: [] };
let buildInfo;

before(async () => {
  buildInfo = await buildWorker();
  const start = (instance, opts) => startServer({ instance, build: buildInfo, onLog: (entry) => logs[instance].push(entry), ...opts });
  const started = await Promise.allSettled([start("a", { key: KEY }), start("b", { key: KEY }), start("c", { key: KEY, ttlSeconds: 1 }), start("d", {})]);
  for (const r of started) if (r.status === "fulfilled") servers[r.value.instance] = r.value;
  const failed = started.find((r) => r.status === "rejected");
  if (failed) throw failed.reason; // after() still disposes the ones that started
});

after(async () => {
  await Promise.allSettled(Object.values(servers).map((s) => s.dispose()));
});

const connect = (server, opts) => connectClient(server.mcpUrl, { name: "workerd-test", ...opts });

/** The stable refusal of a sealed token: the one message, no token. */
const refusedByServer = (result) => assertRefused(result, SEALED_STATE_INVALID_MESSAGE);

/** The worker logged a refusal with this reason (server-side only), after log entry `since`. */
function assertLogged(instance, reason, since) {
  const line = logs[instance].slice(since).find((l) => l.message.includes(`reason=${reason}`));
  assert.ok(line, `no "reason=${reason}" in ${instance}'s log: ${JSON.stringify(logs[instance])}`);
}

async function waitForNextSecond() {
  const ms = 1000 - (Date.now() % 1000) + 60;
  await new Promise((r) => setTimeout(r, ms));
}

test("the worker bundle uses the package's workerd entry and one CompiledWasm module", () => {
  assert.equal(buildInfo.modules[0].type, "ESModule");
  const wasm = buildInfo.modules.filter((m) => m.type === "CompiledWasm");
  assert.equal(wasm.length, 1);
  assert.match(wasm[0].path, /edge_bg\.wasm$/);
  assert.match(buildInfo.wasm[0], /out\/consumer\/node_modules\/mcp-sealed-state\/wasm\/edge_bg\.wasm$/);
  const code = new TextDecoder().decode(buildInfo.modules[0].contents);
  assert.match(code, /from "\.\/edge_bg\.wasm"/);
});

test("GET /health, CORS preflight for a browser Host, foreign Origin refused", async () => {
  const health = await fetch(servers.a.healthUrl);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { ok: true, instance: "a", codec: "mcp-sealed-state", ttlSeconds: 600, leewaySeconds: 0, ephemeralKey: false, principalHeader: HTTP_NAMES.principalHeader });
  assert.equal((await (await fetch(servers.c.healthUrl)).json()).ttlSeconds, 1);
  assert.equal((await (await fetch(servers.d.healthUrl)).json()).ephemeralKey, true);

  const pre = await fetch(servers.a.mcpUrl, {
    method: "OPTIONS",
    headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": CORS_ALLOW_HEADERS.join(", ").toLowerCase() },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.match(pre.headers.get("access-control-allow-methods"), /POST/);
  assert.equal(pre.headers.get("access-control-allow-headers"), CORS_ALLOW_HEADERS.join(", "));
  assert.equal(pre.headers.get("access-control-expose-headers"), HTTP_NAMES.corsExposeHeaders.join(", "));

  const cross = await fetch(servers.a.healthUrl, { headers: { Origin: "http://127.0.0.1:4000" } });
  assert.equal(cross.headers.get("access-control-allow-origin"), "http://127.0.0.1:4000");
  await cross.body?.cancel();
  const evil = await fetch(servers.a.mcpUrl, { method: "POST", headers: { Origin: "http://evil.example", "content-type": "application/json" }, body: "{}" });
  assert.equal(evil.status, 403);
  assert.equal(evil.headers.get("access-control-allow-origin"), null);
  await evil.body?.cancel();
});

for (const { era, options, version } of ERAS) {
  describe(`MCP client → workerd, ${era}`, () => {
    test("the SDK's McpServer answers: era, server info, tools", async () => {
      const { client, transport, close } = await connect(servers.a, { options });
      try {
        assert.match(transport.protocolVersion ?? client.getNegotiatedProtocolVersion?.() ?? "", version);
        assert.equal(client.getServerVersion().name, "mcp-sealed-state-tic-tac-toe");
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ["move", "start"]);
        const moveTool = tools.find((t) => t.name === "move");
        assert.deepEqual(moveTool.inputSchema.required, ["state", "cell"]);
      } finally {
        await close();
      }
    });

    test("start → move → move: the state travels in the token", async () => {
      const { client, close } = await connect(servers.a, { user: "alice", options });
      try {
        const s = await start(client);
        assert.equal(s.isError, undefined);
        assert.deepEqual(s.structuredContent.board, Array(9).fill(null));
        assert.equal(s.structuredContent.status, "playing");
        const t0 = tokenOf(s);
        // What the widget sees (unverified): the game, a view token, bound.
        const seen = readTokenUnverified(t0);
        assert.deepEqual(seen.payload, { board: ".........", turn: 1 });
        assert.equal(seen.purpose, "view");
        assert.equal(seen.bound, true);

        const m1 = await move(client, t0, 4);
        assert.equal(m1.isError, undefined, JSON.stringify(m1));
        // X at the centre; the computer takes a corner.
        assert.deepEqual(m1.structuredContent.board, ["O", null, null, null, "X", null, null, null, null]);
        assert.deepEqual(m1.structuredContent.lastMove, { player: 4, computer: 0 });
        const t1 = tokenOf(m1);
        assert.notEqual(t1, t0);

        const m2 = await move(client, t1, 8);
        assert.equal(m2.isError, undefined, JSON.stringify(m2));
        assert.deepEqual(m2.structuredContent.board, ["O", null, "O", null, "X", null, null, null, "X"]);
        assert.equal(m2.structuredContent.turn, 3);
        assert.deepEqual(readTokenUnverified(tokenOf(m2)).payload, { board: "O.O.X...X", turn: 3 });
        assert.match(textOf(m2), /You played 8; I played 2\./);
        // Each result carries a fresh viewUUID beside the token, for a View's per-result UI state.
        assert.equal(new Set([s, m1, m2].map(viewUUIDOf)).size, 3);
        // The server's own game id rides in the secret part: there, and unreadable without the key.
        assert.equal(readTokenUnverified(tokenOf(m2)).hasSecret, true);
        assert.ok(!JSON.stringify(m2).includes("gameId"), "nothing of the secret in the result");

        // A rule error is an ordinary tool error, distinguishable from a bad token.
        const taken = await move(client, tokenOf(m2), 4);
        assert.equal(taken.isError, true);
        assert.equal(textOf(taken), "Cell 4 is already taken.");
      } finally {
        await close();
      }
    });

    test("a tampered token: isError with the stable message", async () => {
      const { client, close } = await connect(servers.a, { options });
      const since = logs.a.length;
      try {
        const t = tokenOf(await start(client));
        refusedByServer(await move(client, tamper(t), 0));
        assertLogged("a", "mac", since);
        refusedByServer(await move(client, "not a token", 0));
        assertLogged("a", "malformed", since);
      } finally {
        await close();
      }
    });

    test("a token bound to another principal (the principal header): isError with the stable message", async () => {
      const bob = await connect(servers.a, { user: "bob", options });
      const alice = await connect(servers.a, { user: "alice", options });
      const anonymous = await connect(servers.a, { options });
      const since = logs.a.length;
      try {
        const bobs = tokenOf(await start(bob.client));
        refusedByServer(await move(alice.client, bobs, 0));
        refusedByServer(await move(anonymous.client, bobs, 0));
        assertLogged("a", "bind", since);
        // Bob himself still plays it.
        assert.equal((await move(bob.client, bobs, 0)).isError, undefined);
      } finally {
        await Promise.all([bob.close(), alice.close(), anonymous.close()]);
      }
    });

    test("two instances sharing the key: start on A, move on B, move on A", async () => {
      const a = await connect(servers.a, { user: "carol", options });
      const b = await connect(servers.b, { user: "carol", options });
      try {
        const t0 = tokenOf(await start(a.client));
        const m1 = await move(b.client, t0, 4);
        assert.equal(m1.isError, undefined, JSON.stringify(m1));
        const m2 = await move(a.client, tokenOf(m1), 8);
        assert.equal(m2.isError, undefined, JSON.stringify(m2));
        assert.deepEqual(readTokenUnverified(tokenOf(m2)).payload, { board: "O.O.X...X", turn: 3 });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test("no key: the dev ephemeral key works within an instance, and its tokens open nowhere else", async () => {
      const d = await connect(servers.d, { options });
      const a = await connect(servers.a, { options });
      try {
        const t0 = tokenOf(await start(d.client));
        const m1 = await move(d.client, t0, 4);
        assert.equal(m1.isError, undefined, JSON.stringify(m1));
        refusedByServer(await move(a.client, t0, 4));
        refusedByServer(await move(d.client, tokenOf(await start(a.client)), 4));
      } finally {
        await Promise.all([d.close(), a.close()]);
      }
    });
  });
}

// TTL_SECONDS=1 (the least: ttlSeconds is positive): a token sealed in second S is expired from S + 2 on.
test("an expired token (TTL_SECONDS=1, two seconds on): isError with the stable message, both eras", async () => {
  const clients = await Promise.all(ERAS.map(({ options }) => connect(servers.c, { options })));
  const since = logs.c.length;
  try {
    const tokens = [];
    for (const { client } of clients) tokens.push(tokenOf(await start(client)));
    await waitForNextSecond();
    await waitForNextSecond();
    for (const [i, { client }] of clients.entries()) refusedByServer(await move(client, tokens[i], 4));
    assertLogged("c", "expired", since);
    assert.equal(logs.c.slice(since).filter((l) => l.message.includes("reason=expired")).length, 2);
    // The same token at the same moment on A (ttl 600, same key) is expired too: exp is in the token.
    const a = await connect(servers.a);
    try {
      refusedByServer(await move(a.client, tokens[0], 4));
    } finally {
      await a.close();
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
});

test("the dev ephemeral key warning is logged once per isolate, and only there", () => {
  const warnings = (instance) => logs[instance].filter((l) => l.message.includes("no key configured; using a development key"));
  assert.equal(warnings("d").length, 1, JSON.stringify(logs.d));
  assert.equal(warnings("a").length, 0);
});
