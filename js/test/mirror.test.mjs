// The demo servers' mirror for hosts that drop a tool result's `_meta`
// (ChatGPT's View notification, ext-apps' basic-host): with
// MIRROR_TO_STRUCTURED_CONTENT, or the mirror query set to 1 on the MCP URL, each result's
// structuredContent also carries the sealed token and the viewUUID of its
// `_meta`, under the same names. Never by default (structuredContent is
// model-visible). Both servers, real: workerd (Miniflare) and the rmcp server.
// Needs the packed package, the one-file View and `cargo build --manifest-path rust-server/Cargo.toml`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { importPackage } from "./support.mjs";
import { HTTP_NAMES } from "../lib/http-names.mjs";
import { connectClient, move, start, tokenOf, viewUUIDOf } from "../lib/mcp-client.mjs";
import { buildWorker, startRustServer, startServer } from "../lib/servers.mjs";

const KEY = "mirror test key: at least thirty-two bytes long";
const STATE_META_KEY = "ng-mcp-ui/state";
const servers = {};
const MIRROR = HTTP_NAMES.mirrorQuery;

before(async () => {
  const quiet = () => {};
  const build = await buildWorker();
  const started = await Promise.allSettled([
    startServer({ key: KEY, instance: "workerd", build, onLog: quiet }),
    startServer({ key: KEY, instance: "workerd-mirror", mirror: true, build, onLog: quiet }),
    startRustServer({ key: KEY, instance: "rust", onLog: quiet }),
    startRustServer({ key: KEY, instance: "rust-mirror", mirror: true, onLog: quiet }),
  ]);
  for (const s of started) if (s.status === "fulfilled") servers[s.value.instance] = s.value;
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
});

after(() => Promise.allSettled(Object.values(servers).map((s) => s.dispose())));

/** The MCP URL of a server, with the mirror query set to `mirror` when given. */
function mcpUrl(server, mirror) {
  const url = new URL(server.mcpUrl);
  if (mirror !== undefined) url.searchParams.set(MIRROR, mirror);
  return url;
}

/** A start and a move on `url`: both results. */
async function play(url) {
  const { client, close } = await connectClient(url, { user: "u" });
  try {
    const first = await start(client);
    const second = await move(client, tokenOf(first), 0);
    assert.equal(second.isError, undefined, JSON.stringify(second));
    return [first, second];
  } finally {
    await close();
  }
}

const mirrored = (result) => ({ [STATE_META_KEY]: result.structuredContent[STATE_META_KEY], viewUUID: result.structuredContent.viewUUID });

for (const impl of ["workerd", "rust"]) {
  describe(`${impl}: the token and the viewUUID in structuredContent`, () => {
    test("not by default: structuredContent is the public view only", async () => {
      for (const result of await play(mcpUrl(servers[impl]))) {
        assert.equal(result.structuredContent[STATE_META_KEY], undefined);
        assert.equal(result.structuredContent.viewUUID, undefined);
        assert.ok(Array.isArray(result.structuredContent.board));
        tokenOf(result);
      }
    });

    for (const [how, url] of [
      ["MIRROR_TO_STRUCTURED_CONTENT=1", () => mcpUrl(servers[`${impl}-mirror`])],
      [`?${MIRROR}=1 on the MCP URL`, () => mcpUrl(servers[impl], "1")],
    ]) {
      test(`${how}: the same token and viewUUID as _meta, beside the public view; _meta unchanged`, async () => {
        for (const result of await play(url())) {
          assert.deepEqual(mirrored(result), { [STATE_META_KEY]: tokenOf(result), viewUUID: viewUUIDOf(result) });
          assert.deepEqual(Object.keys(result._meta).sort(), [STATE_META_KEY, "viewUUID"].sort());
          assert.ok(Array.isArray(result.structuredContent.board), "the public view is still there");
          assert.equal(typeof result.structuredContent.status, "string");
        }
      });
    }

    test(`?${MIRROR}=0 turns it off for a request of a mirroring server`, async () => {
      for (const result of await play(mcpUrl(servers[`${impl}-mirror`], "0"))) assert.equal(result.structuredContent[STATE_META_KEY], undefined);
    });

    test(`?${MIRROR}=2 is refused with a 400 before MCP; a refused token is an error result without a mirror`, async () => {
      const response = await fetch(mcpUrl(servers[impl], "2"), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(response.status, 400);
      assert.match((await response.json()).error.message, new RegExp(`^${MIRROR} must be 1 or 0`));

      const { client, close } = await connectClient(mcpUrl(servers[`${impl}-mirror`]), { user: "u" });
      try {
        const refused = await move(client, "v1.not.a-token", 0);
        assert.equal(refused.isError, true);
        assert.equal(refused.structuredContent?.[STATE_META_KEY], undefined);
      } finally {
        await close();
      }
    });
  });
}

test("a token mirrored by one server plays on the other (same key): the mirror is the same token", async () => {
  const [first] = await play(mcpUrl(servers["workerd-mirror"]));
  const { client, close } = await connectClient(mcpUrl(servers["rust-mirror"]), { user: "u" });
  try {
    const next = await move(client, first.structuredContent[STATE_META_KEY], 4);
    assert.equal(next.isError, undefined, JSON.stringify(next));
    assert.equal(next.structuredContent[STATE_META_KEY], tokenOf(next));
  } finally {
    await close();
  }
});

test("mirrorToStructuredContent (the package's): copies the token and the viewUUID, leaves the rest and the input unchanged", async () => {
  const { mirrorToStructuredContent } = await importPackage("");
  const result = { content: [], structuredContent: { board: "........." }, _meta: { [STATE_META_KEY]: "v1.a.b", viewUUID: "u-1", other: 1 } };
  const mirrored = mirrorToStructuredContent(result);
  assert.deepEqual(mirrored.structuredContent, { board: ".........", [STATE_META_KEY]: "v1.a.b", viewUUID: "u-1" });
  assert.deepEqual(mirrored._meta, result._meta);
  assert.deepEqual(result.structuredContent, { board: "........." }, "the input is not changed");
  assert.equal(mirrorToStructuredContent({ content: [] }).structuredContent, undefined, "no _meta: as it was");
  assert.deepEqual(mirrorToStructuredContent({ content: [], _meta: { viewUUID: "u" } }).structuredContent, { viewUUID: "u" });
  assert.deepEqual(mirrorToStructuredContent({ content: [], structuredContent: [1], _meta: { viewUUID: 7 } }).structuredContent, [1], "nothing to mirror: unchanged");
});
