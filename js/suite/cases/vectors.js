// The SDK's own tokens (tests/vectors/sdk-v1.json, minted by
// @modelcontextprotocol/server 2.4.0): byte-identical when we seal the same
// input at the same clock, and every one opens to its payload.
import * as edge from "mcp-sealed-state";
import vectors from "../vectors.js";
import { assert, test } from "../harness.js";
import { refused, vectorKey } from "../util.js";

const { StateCodec } = edge;

function sealVector(v, codec) {
  const payload = JSON.parse(v.payloadJson);
  const opts = v.bind === null ? undefined : { bind: v.bind };
  if (v.kind === "raw") return codec.mint(payload, opts);
  if (v.kind === "view") return codec.seal(payload, opts);
  return codec.sealRequestState(payload, v.tool, opts);
}

function openVector(v, codec, token = v.token) {
  const opts = v.bind === null ? undefined : { bind: v.bind };
  if (v.kind === "raw") return codec.verify(token, opts);
  if (v.kind === "view") return codec.open(token, opts);
  return codec.openRequestState(token, v.tool, opts);
}

test(`SDK vectors: all ${vectors.vectors.length} seal byte-identically and open to their exact payload`, () => {
  assert.ok(vectors.vectors.length >= 50, "the vector file is complete");
  const kinds = new Set();
  for (const v of vectors.vectors) {
    kinds.add(v.kind);
    // StateCodec's ttl is positive: the SDK's ttl 0 is ttl 1 sealed a second earlier (the same exp).
    const shift = v.ttlSeconds > 0 ? 0 : 1 - v.ttlSeconds;
    const codec = new StateCodec({ key: vectorKey(v.key), ttlSeconds: v.ttlSeconds + shift, now: () => v.nowMs - shift * 1000 });
    assert.equal(sealVector(v, codec), v.token, v.name);
    assert.equal(JSON.stringify(openVector(v, codec)), v.payloadJson, v.name);
  }
  assert.deepEqual([...kinds].sort(), ["raw", "requestState", "view"]);
});

test("SDK vectors: each one expires one second after its exp, and fails on a wrong bind or key", () => {
  for (const v of vectors.vectors) {
    const late = new StateCodec({ key: vectorKey(v.key), now: () => (v.exp + 1) * 1000 });
    refused(edge, () => openVector(v, late), "expired", v.name);
    const fresh = new StateCodec({ key: vectorKey(v.key), now: () => v.nowMs });
    const wrong = v.bind === null ? { bind: "someone" } : { bind: `${v.bind}!` };
    const opened = () => (v.kind === "raw" ? fresh.verify(v.token, wrong) : v.kind === "view" ? fresh.open(v.token, wrong) : fresh.openRequestState(v.token, v.tool, wrong));
    refused(edge, opened, "bind", v.name);
    const other = new StateCodec({ key: "another key, also at least 32 bytes long", now: () => v.nowMs });
    refused(edge, () => openVector(v, other), "mac", v.name);
  }
});
