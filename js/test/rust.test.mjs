// The Rust side against the JS side, all real: the `mcp-sealed-state` command
// (target/debug, `cargo build --features cli`) and the rmcp demo server
// (rust-server/, `cargo build --manifest-path rust-server/Cargo.toml`) against
// the SDK's createRequestStateCodec (@modelcontextprotocol/server 2.4.0), the
// packed package, the real MCP client (@modelcontextprotocol/client 2.4.0) and
// the workerd demo server (Miniflare).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { CORS_ALLOW_HEADERS, HTTP_NAMES } from "../lib/http-names.mjs";
import { assertRefused, connectClient, move, start, tamper, textOf, tokenOf, viewUUIDOf } from "../lib/mcp-client.mjs";
import * as sdk from "@modelcontextprotocol/server";
import { ROOT, importPackage } from "./support.mjs";
import { DEFAULT_VIEW_HTML, buildWorker, startRustServer, startServer } from "../lib/servers.mjs";
import { atClock as at } from "../lib/clock.mjs";

const { SEALED_STATE_INVALID_MESSAGE, StateCodec } = await importPackage();
const { readTokenUnverified } = await importPackage("/widget");

const KEY = "rust-interop-key: at least thirty-two bytes long";
const CLI = join(ROOT, "target/debug/mcp-sealed-state");
if (!existsSync(CLI)) throw new Error(`${CLI} is not built: run \`cargo build --features cli\` first`);
const ERAS = [
  { era: "2025 (default negotiation)", options: {}, version: /^2025-/ },
  { era: "2026-07-28 (pinned)", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } }, version: /^2026-07-28$/ },
];

// ---- helpers -------------------------------------------------------------------

const run = promisify(execFile);
/** Run the command with STATE_KEY = key; resolves { code, stdout, stderr }. */
async function cli(args, { key = KEY } = {}) {
  const env = { ...process.env, STATE_KEY: key };
  try {
    const { stdout, stderr } = await run(CLI, args, { env });
    return { code: 0, stdout: stdout.trimEnd(), stderr };
  } catch (error) {
    if (typeof error.code !== "number") throw error;
    return { code: error.code, stdout: error.stdout.trimEnd(), stderr: error.stderr };
  }
}

/** The SDK's codec; binds to ctx.user when `bind`. */
const sdkCodec = ({ key = KEY, bind = false } = {}) => sdk.createRequestStateCodec({ key, ...(bind && { bind: (ctx) => ctx.user }) });

/** The clock at which a token with this exp was sealed (default TTL 600 s). */
const sealedAtMs = (token) => (readTokenUnverified(token).exp - 600) * 1000;

const servers = {};
const logs = { rust: [], rust2: [] };

/** The View as `server` declares it: the tools' two URIs and the resource contents' `_meta`, read over MCP. */
async function viewDeclaration(server) {
  const { client, close } = await connectClient(server.mcpUrl, { name: "rust-test" });
  try {
    const [{ _meta: toolMeta }] = (await client.listTools()).tools;
    const viewUri = toolMeta.ui.resourceUri;
    const [{ _meta: viewMeta }] = (await client.readResource({ uri: viewUri })).contents;
    return { viewUri, templateUri: toolMeta["openai/outputTemplate"], viewMeta };
  } finally {
    await close();
  }
}

before(async () => {
  // The workerd server first: the Rust server is told to declare the View as it does (www/server/view-meta.js).
  servers.workerd = await buildWorker().then((build) => startServer({ key: KEY, instance: "w", build, onLog: () => {} }));
  const declared = await viewDeclaration(servers.workerd);
  const started = await Promise.allSettled([
    startRustServer({ key: KEY, instance: "rust", viewHtml: DEFAULT_VIEW_HTML, ...declared, onLog: (l) => logs.rust.push(l) }),
    startRustServer({ instance: "rust2", onLog: (l) => logs.rust2.push(l) }), // no key: dev ephemeral, no View
  ]);
  const [rust, rust2] = started;
  if (rust.status === "fulfilled") servers.rust = rust.value;
  if (rust2.status === "fulfilled") servers.rust2 = rust2.value;
  const failed = started.find((r) => r.status === "rejected");
  if (failed) throw failed.reason; // after() still stops the ones that started
});

after(async () => {
  await Promise.allSettled(Object.values(servers).map((s) => s.dispose()));
});

const connect = (server, opts) => connectClient(server.mcpUrl, { name: "rust-test", ...opts });

/** The stable refusal of a sealed token: the one message, no token. */
const refusedByServer = (result) => assertRefused(result, SEALED_STATE_INVALID_MESSAGE);
function assertLogged(instance, reason, since) {
  const line = logs[instance].slice(since).find((l) => l.includes(`reason=${reason}`));
  assert.ok(line, `no "reason=${reason}" in ${instance}'s log: ${JSON.stringify(logs[instance])}`);
  assert.ok(!line.includes("v1."), "the log holds no token");
}

// ---- the command against the SDK's codec ------------------------------------------

describe("mcp-sealed-state (the Rust command) ↔ the SDK's codec", () => {
  const GAME = '{"board":"X...O....","turn":2}';

  test("tokens the command seals are byte-identical to the SDK's, and open there", async () => {
    for (const [args, envelope, bind] of [
      [["--raw"], JSON.parse(GAME), undefined],
      [["--raw", "--bind", "user-42"], JSON.parse(GAME), "user-42"],
      [[], { p: "v", d: JSON.parse(GAME) }, undefined],
      [["--bind", "ünï 🎲"], { p: "v", d: JSON.parse(GAME) }, "ünï 🎲"],
      [["--tool", "move", "--bind", "u"], { p: "r", d: JSON.parse(GAME), o: "move" }, "u"],
    ]) {
      const { code, stdout: token } = await cli(["seal", ...args, GAME]);
      assert.equal(code, 0);
      const s = sdkCodec({ bind: bind !== undefined });
      const ctx = bind === undefined ? undefined : { user: bind };
      assert.deepEqual(await s.verify(token, ctx), envelope, args.join(" "));
      assert.equal(await at(sealedAtMs(token), () => s.mint(envelope, ctx)), token, args.join(" "));
    }
  });

  test("the command verifies the SDK's tokens and names the reason of a refusal", async () => {
    const s = sdkCodec({ bind: true });
    const raw = await s.mint({ n: [1, "two"] }, { user: "alice" });
    assert.deepEqual(await cli(["verify", "--raw", "--bind", "alice", raw]), { code: 0, stdout: '{"n":[1,"two"]}', stderr: "" });
    const view = await s.mint({ p: "v", d: null }, { user: "alice" });
    assert.equal((await cli(["verify", "--bind", "alice", view])).stdout, "null");
    const json = await cli(["verify", "--json", "--tool", "move", "--bind", "alice", await s.mint({ p: "r", d: 1, o: "move" }, { user: "alice" })]);
    assert.deepEqual(JSON.parse(json.stdout), { ok: true, payload: 1, purpose: "requestState", tool: "move" });

    const refused = async (args, reason) => {
      const r = await cli(args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, new RegExp(`refused: ${reason} `));
    };
    await refused(["verify", "--raw", "--bind", "alice", tamper(raw)], "mac");
    await refused(["verify", "--raw", "--bind", "bob", raw], "bind");
    await refused(["verify", "--bind", "alice", raw], "purpose");
    await refused(["verify", "--raw", "--bind", "alice", await sdkCodec({ key: "x".repeat(32), bind: true }).mint(1, { user: "alice" })], "mac");
    const old = await at(Date.now() - 3_600_000, () => s.mint({ p: "v", d: 0 }, { user: "alice" }));
    await refused(["verify", "--bind", "alice", old], "expired");
  });

  test("inspect reads the SDK's token, unverified", async () => {
    const token = await sdkCodec({ bind: true }).mint({ p: "r", d: { step: 2 }, o: "wizard" }, { user: "u" });
    const { code, stdout } = await cli(["inspect", "--json", token], { key: "" });
    assert.equal(code, 0);
    const { verified, ...view } = JSON.parse(stdout);
    assert.equal(verified, false);
    assert.deepEqual(view, readTokenUnverified(token));
  });

  // Where serde_json and JSON.stringify write one value differently
  // (tests/typed.rs pins the serde text and proves the Rust half): the tokens
  // differ, and each side opens the other's into the same value.
  test("number formats: serde_json's text and JSON.stringify's give different tokens, both open on both sides", async () => {
    const serdeText = '{"big":1e+21,"whole":1e+20,"small":1e-6,"one":1.0,"neg_zero":-0.0,"exact":9007199254740993}';
    const value = { big: 1e21, whole: 1e20, small: 1e-6, one: 1, neg_zero: -0, exact: 9007199254740993 };
    const jsText = JSON.stringify(value);
    assert.equal(jsText, '{"big":1e+21,"whole":100000000000000000000,"small":0.000001,"one":1,"neg_zero":0,"exact":9007199254740992}');

    const fromRust = (await cli(["seal", "--raw", serdeText])).stdout;
    const s = sdkCodec();
    const fromSdk = await at(sealedAtMs(fromRust), () => s.mint(value));
    assert.equal(readTokenUnverified(fromSdk).exp, readTokenUnverified(fromRust).exp);
    assert.notEqual(fromRust, fromSdk);
    // JS side: the SDK and our package open the Rust token into the same value.
    const opened = await s.verify(fromRust);
    assert.equal(JSON.stringify(opened), jsText);
    assert.ok(Object.is(opened.neg_zero, -0), "JSON.parse keeps serde_json's -0.0");
    assert.equal(JSON.stringify(new StateCodec({ key: KEY }).verify(fromRust)), jsText);
    // Rust side: the command opens the SDK's token, payload text as the SDK wrote it.
    assert.equal((await cli(["verify", "--raw", fromSdk])).stdout, jsText);
    assert.equal((await cli(["verify", "--raw", fromRust])).stdout, serdeText);
  });
});

// ---- the rmcp server -----------------------------------------------------------------

test("GET /health, CORS preflight for a browser Host, foreign Origin refused", async () => {
  assert.deepEqual(await (await fetch(servers.rust.healthUrl)).json(), {
    ok: true,
    instance: "rust",
    ttlSeconds: 600,
    ephemeralKey: false,
    principalHeader: HTTP_NAMES.principalHeader,
    implementation: "rmcp",
  });
  assert.equal((await (await fetch(servers.rust2.healthUrl)).json()).ephemeralKey, true);
  const pre = await fetch(servers.rust.mcpUrl, {
    method: "OPTIONS",
    headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": CORS_ALLOW_HEADERS.join(", ").toLowerCase() },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.match(pre.headers.get("access-control-allow-methods"), /POST/);
  assert.equal(pre.headers.get("access-control-allow-headers"), CORS_ALLOW_HEADERS.join(", "));
  assert.equal(pre.headers.get("access-control-expose-headers"), HTTP_NAMES.corsExposeHeaders.join(", "));
  const evil = await fetch(servers.rust.mcpUrl, { method: "POST", headers: { Origin: "http://evil.example", "content-type": "application/json" }, body: "{}" });
  assert.equal(evil.status, 403);
  assert.equal(evil.headers.get("access-control-allow-origin"), null);
  assert.deepEqual(await evil.json(), { jsonrpc: "2.0", error: { code: -32000, message: "Origin not allowed" }, id: null });
});

for (const { era, options, version } of ERAS) {
  describe(`MCP client → the rmcp server, ${era}`, () => {
    test("the same tools as the workerd server, linked to the ui:// View it serves for both host models", async () => {
      const rust = await connect(servers.rust, { options });
      const w = await connect(servers.workerd, { options });
      try {
        assert.match(rust.client.getNegotiatedProtocolVersion?.() ?? rust.transport.protocolVersion ?? "", version);
        assert.equal(rust.client.getServerVersion().name, w.client.getServerVersion().name);
        const { tools } = await rust.client.listTools();
        const { tools: wTools } = await w.client.listTools();
        const strip = ({ execution, ...t }) => t; // eslint-disable-line no-unused-vars
        assert.deepEqual(tools.map(strip), wTools.map(strip));
        const [{ _meta: meta }] = wTools;
        assert.notEqual(meta.ui.resourceUri, meta["openai/outputTemplate"], "two resources, one per MIME type");

        // MCP Apps' resource and the Apps SDK's template: the same HTML, each with its MIME type.
        const resources = [
          [meta.ui.resourceUri, "text/html;profile=mcp-app"],
          [meta["openai/outputTemplate"], "text/html+skybridge"],
        ];
        const listed = ({ resources }) => resources.map((r) => [r.uri, r.mimeType, r._meta]).sort();
        assert.deepEqual(listed(await rust.client.listResources()), listed(await w.client.listResources()));
        assert.deepEqual(
          (await rust.client.listResources()).resources.map((r) => [r.uri, r.mimeType]),
          resources,
        );
        for (const [uri, mimeType] of resources) {
          const { contents } = await rust.client.readResource({ uri });
          const { contents: wContents } = await w.client.readResource({ uri });
          assert.equal(contents.length, 1);
          assert.equal(contents[0].mimeType, mimeType);
          assert.equal(contents[0].text, readFileSync(DEFAULT_VIEW_HTML, "utf8"));
          assert.deepEqual(contents, wContents, uri);
        }
        await assert.rejects(rust.client.readResource({ uri: "ui://other" }));
      } finally {
        await Promise.all([rust.close(), w.close()]);
      }
    });

    test("a whole game against the rmcp server, result for result the workerd server's", async () => {
      const rust = await connect(servers.rust, { user: "alice", options });
      const w = await connect(servers.workerd, { user: "alice", options });
      try {
        let [r, x] = await Promise.all([start(rust.client), start(w.client)]);
        const viewUUIDs = new Set();
        const same = (a, b) => {
          assert.equal(a.isError, b.isError);
          assert.deepEqual(a.content, b.content);
          assert.deepEqual(a.structuredContent, b.structuredContent);
          assert.deepEqual(readTokenUnverified(tokenOf(a)).payload, readTokenUnverified(tokenOf(b)).payload);
          // Both put a fresh viewUUID beside the token.
          assert.notEqual(viewUUIDOf(a), viewUUIDOf(b));
          assert.ok(!viewUUIDs.has(viewUUIDOf(a)), "a fresh viewUUID per result");
          viewUUIDs.add(viewUUIDOf(a));
        };
        same(r, x);
        const seen = readTokenUnverified(tokenOf(r));
        assert.deepEqual([seen.payload, seen.purpose, seen.bound], [{ board: ".........", turn: 1 }, "view", true]);
        for (const cell of [0, 1, 8]) {
          [r, x] = await Promise.all([move(rust.client, tokenOf(r), cell), move(w.client, tokenOf(x), cell)]);
          assert.equal(r.isError, undefined, JSON.stringify(r));
          same(r, x);
        }
        assert.equal(r.structuredContent.status, "lost");
        assert.deepEqual(r.structuredContent.line, [2, 4, 6]);
        // The servers' own game id and move count ride in the secret part, in the same shape:
        // the widget sees that it is there, never what; each server opens the other's.
        const holder = new StateCodec({ key: KEY });
        const [rs, xs] = [r, x].map((t) => holder.openWithSecret(tokenOf(t), { bind: "alice" }).secret);
        assert.equal(readTokenUnverified(tokenOf(r)).hasSecret, true);
        assert.deepEqual([rs.moves, xs.moves, typeof rs.gameId, rs.gameId === xs.gameId], [3, 3, "string", false]);
        assert.ok(!JSON.stringify([r.content, r.structuredContent]).includes(rs.gameId), "the id is not in what the model sees");
        const crossed = await move(w.client, tokenOf(await move(rust.client, tokenOf(await start(rust.client)), 4)), 8);
        assert.deepEqual(holder.openWithSecret(tokenOf(crossed), { bind: "alice" }).secret.moves, 2, "the workerd server carries the rmcp server's secret on");
        assert.match(textOf(r), /You played 8; I played 6\.\nX X O\n\. O \.\nO \. X\nI win\./);
        // Rule errors are ordinary tool errors, with the workerd server's text.
        const [over, wOver] = await Promise.all([move(rust.client, tokenOf(r), 3), move(w.client, tokenOf(x), 3)]);
        assert.equal(over.isError, true);
        assert.equal(textOf(over), "The game is over: start a new one.");
        assert.equal(textOf(over), textOf(wOver));
        const s = await start(rust.client);
        const taken = await move(rust.client, tokenOf(await move(rust.client, tokenOf(s), 4)), 4);
        assert.equal(textOf(taken), "Cell 4 is already taken.");
        const outOfRange = await move(rust.client, tokenOf(s), 9);
        assert.equal(outOfRange.isError, true);
        assert.match(textOf(outOfRange), /^Input validation error: Invalid arguments for tool move: /);
      } finally {
        await Promise.all([rust.close(), w.close()]);
      }
    });

    test("bad tokens: isError with the stable message, the reason in the server log only", async () => {
      const { client, close } = await connect(servers.rust, { user: "alice", options });
      const since = logs.rust.length;
      try {
        const t = tokenOf(await start(client));
        refusedByServer(await move(client, tamper(t), 0));
        assertLogged("rust", "mac", since);
        refusedByServer(await move(client, "not a token", 0));
        assertLogged("rust", "malformed", since);
        const bob = await connect(servers.rust, { user: "bob", options });
        try {
          refusedByServer(await move(bob.client, t, 0));
          assertLogged("rust", "bind", since);
        } finally {
          await bob.close();
        }
        const s = sdkCodec({ bind: true });
        const old = await at(Date.now() - 3_600_000, () => s.mint({ p: "v", d: { board: ".........", turn: 1 } }, { user: "alice" }));
        refusedByServer(await move(client, old, 0));
        assertLogged("rust", "expired", since);
        refusedByServer(await move(client, await s.mint({ p: "r", d: { board: ".........", turn: 1 }, o: "move" }, { user: "alice" }), 0));
        assertLogged("rust", "purpose", since);
        // A genuine token that holds no game: a game error, not a token refusal.
        const notGame = await move(client, await s.mint({ p: "v", d: { board: 7 } }, { user: "alice" }), 0);
        assert.equal(notGame.isError, true);
        assert.equal(textOf(notGame), "That state is not a tic-tac-toe game.");
        // The keyless instance's dev key opens its own tokens only.
        const dev = await connect(servers.rust2, { user: "alice", options });
        try {
          const devToken = tokenOf(await start(dev.client));
          assert.equal((await move(dev.client, devToken, 4)).isError, undefined);
          refusedByServer(await move(client, devToken, 4));
          refusedByServer(await move(dev.client, t, 4));
        } finally {
          await dev.close();
        }
      } finally {
        await close();
      }
    });

    test("the SDK's codec opens the rmcp server's tokens byte for byte, and the server opens the SDK's", async () => {
      const { client, close } = await connect(servers.rust, { user: "alice", options });
      try {
        const s = sdkCodec({ bind: true });
        const t = tokenOf(await move(client, tokenOf(await start(client)), 4));
        const envelope = { p: "v", d: { board: "O...X....", turn: 2 } };
        // The server's secret part is an opaque string to the SDK; minted again, the same bytes.
        const inner = await s.verify(t, { user: "alice" });
        assert.deepEqual({ p: inner.p, d: inner.d }, envelope);
        assert.equal(typeof inner.s, "string");
        assert.equal(await at(sealedAtMs(t), () => s.mint(inner, { user: "alice" })), t);
        assert.deepEqual(new StateCodec({ key: KEY }).open(t, { bind: "alice" }), envelope.d);
        // A game the SDK sealed, played on by the Rust server.
        const mid = await s.mint({ p: "v", d: { board: "XX..O....", turn: 3 } }, { user: "alice" });
        const r = await move(client, mid, 8);
        assert.equal(r.isError, undefined, JSON.stringify(r));
        assert.deepEqual(readTokenUnverified(tokenOf(r)).payload, { board: "XXO.O...X", turn: 4 });
        // Our JS package's tokens too.
        const ours = new StateCodec({ key: KEY }).seal({ board: ".........", turn: 1 }, { bind: "alice" });
        assert.equal((await move(client, ours, 0)).isError, undefined);
      } finally {
        await close();
      }
    });

    test("one game alternating between the rmcp server and the workerd server (one key)", async () => {
      const rust = await connect(servers.rust, { user: "carol", options });
      const w = await connect(servers.workerd, { user: "carol", options });
      try {
        // Start on Rust, then every move on the other server than the last.
        let r = await start(rust.client);
        const order = [];
        for (const [i, cell] of [4, 8, 1].entries()) {
          const side = i % 2 === 0 ? w : rust;
          order.push(side === w ? "workerd" : "rust");
          r = await move(side.client, tokenOf(r), cell);
          assert.equal(r.isError, undefined, JSON.stringify(r));
        }
        assert.deepEqual(order, ["workerd", "rust", "workerd"]);
        // X 4 → O 0; X 8 → O 2; X 1 → O blocks at 7.
        assert.deepEqual(readTokenUnverified(tokenOf(r)).payload, { board: "OXO.X..OX", turn: 4 });
        // And the other way round: start on workerd, finish on Rust.
        let g = await start(w.client);
        for (const [i, cell] of [0, 1, 8].entries()) {
          g = await move((i % 2 === 0 ? rust : w).client, tokenOf(g), cell);
          assert.equal(g.isError, undefined, JSON.stringify(g));
        }
        assert.equal(g.structuredContent.status, "lost");
        assert.deepEqual(g.structuredContent.board, ["X", "X", "O", null, "O", null, "O", null, "X"]);
        // Another principal is refused on both.
        const dave = await connect(servers.workerd, { user: "dave", options });
        try {
          refusedByServer(await move(dave.client, tokenOf(r), 0));
        } finally {
          await dave.close();
        }
      } finally {
        await Promise.all([rust.close(), w.close()]);
      }
    });
  });
}

test("the Rust server refuses to start without a key in production, or with a short key", async () => {
  const prod = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await assert.rejects(startRustServer({ instance: "prod", onLog: () => {} }), /exited before listening/);
  } finally {
    if (prod === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = prod;
  }
  const lines = [];
  const short = "a-31-byte-key-that-is-too-short";
  assert.equal(short.length, 31);
  await assert.rejects(startRustServer({ key: short, instance: "short", onLog: (l) => lines.push(l) }), /exited before listening/);
  assert.match(lines.join("\n"), /key #0 is 31 bytes; keys must be at least 32 bytes/);
  assert.ok(!lines.join("\n").includes(short), "the key is not printed");
});
