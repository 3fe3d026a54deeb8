// Speed rows: every codec, every payload, unbound and bound, plus the
// SHA-256 throughput figures. Ratios are computed in report.mjs.
import { createHash, createHmac } from "node:crypto";
import { BIND, CTX, TOOL } from "./codecs.mjs";
import { timeRows } from "./harness.mjs";

// op: what the row does; family: the node:crypto row it is compared with;
// kind: make (seal-like, compared with the SDK's mint) or take (open-like, verify).
function rowsFor(c, payload) {
  const rows = [];
  const add = (group, op, kind, family, bound, spec) => rows.push({ group, op, kind, family, bound, ...spec });
  for (const bound of [false, true]) {
    const o = bound ? { bind: BIND } : undefined;
    // ours, sync
    const v = c.ours.seal(payload, o);
    const r = c.ours.sealRequestState(payload, TOOL, o);
    const m = c.ours.mint(payload, o);
    add("ours", "seal", "make", "seal", bound, { sync: () => c.ours.seal(payload, o) });
    add("ours", "open", "take", "open", bound, { sync: () => c.ours.open(v, o) });
    add("ours", "sealRequestState", "make", "sealRequestState", bound, { sync: () => c.ours.sealRequestState(payload, TOOL, o) });
    add("ours", "openRequestState", "take", "openRequestState", bound, { sync: () => c.ours.openRequestState(r, TOOL, o) });
    add("ours", "mint", "make", "mint", bound, { sync: () => c.ours.mint(payload, o) });
    add("ours", "verify", "take", "verify", bound, { sync: () => c.ours.verify(m, o) });
    // ours, the async drop-in
    const di = bound ? c.dropInBound : c.dropIn;
    add("ours createRequestStateCodec (async)", "mint", "make", "mint", bound, { async: () => di.mint(payload, CTX) });
    add("ours createRequestStateCodec (async)", "verify", "take", "verify", bound, { async: () => di.verify(m, CTX) });
    // the SDK
    const sdk = bound ? c.sdkBound : c.sdk;
    add("SDK codec", "mint", "make", "mint", bound, { async: () => sdk.mint(payload, CTX), sdkRef: true });
    add("SDK codec", "verify", "take", "verify", bound, { async: () => sdk.verify(m, CTX), sdkRef: true });
    add("SDK codec, 32 in flight", "mint", "make", "mint", bound, { async: () => sdk.mint(payload, CTX), inFlight: 32 });
    add("SDK codec, 32 in flight", "verify", "take", "verify", bound, { async: () => sdk.verify(m, CTX), inFlight: 32 });
    // node:crypto, both ways of keying
    for (const [group, node] of [
      ["node:crypto createHmac per call", c.nodeHmac],
      ["node:crypto keyed once (Hash#copy)", c.nodeKeyed],
    ]) {
      add(group, "seal", "make", "seal", bound, { sync: () => node.seal(payload, o), nodeRef: true });
      add(group, "open", "take", "open", bound, { sync: () => node.open(v, o), nodeRef: true });
      add(group, "sealRequestState", "make", "sealRequestState", bound, { sync: () => node.sealRequestState(payload, TOOL, o), nodeRef: true });
      add(group, "openRequestState", "take", "openRequestState", bound, { sync: () => node.openRequestState(r, TOOL, o), nodeRef: true });
      add(group, "mint", "make", "mint", bound, { sync: () => node.mint(payload, o), nodeRef: true });
      add(group, "verify", "take", "verify", bound, { sync: () => node.verify(m, o), nodeRef: true });
    }
  }
  // jose HS256 (no binding in JWT terms; compared with the unbound rows)
  let jwt;
  rows.push({ group: "jose HS256 JWT", op: "sign", kind: "make", family: "mint", bound: false, async: () => c.jose.sign(payload), prepare: async () => (jwt = await c.jose.sign(payload)) });
  rows.push({ group: "jose HS256 JWT", op: "verify", kind: "take", family: "verify", bound: false, async: () => c.jose.verify(jwt) });
  return rows;
}

export async function measureSpeed(c, payloads, log) {
  const results = [];
  for (const p of payloads) {
    const rows = rowsFor(c, p.value);
    for (const row of rows) if (row.prepare) await row.prepare();
    const times = await timeRows(rows);
    rows.forEach((row, i) => {
      const { sync, async: _a, prepare, ...meta } = row;
      results.push({ payload: p.name, ...meta, ...times[i] });
    });
    const ours = (op) => times[rows.findIndex((r) => r.group === "ours" && r.op === op && !r.bound)].usPerOp.toFixed(2);
    log(`  ${p.name}: ${rows.length} rows (ours seal ${ours("seal")} µs, open ${ours("open")} µs)`);
  }
  return results;
}

/**
 * Hash throughput. Ours: verify of a token whose MAC is wrong (copy into wasm,
 * shape scan, HMAC over the token, compare; no body decoding, no JSON), for the
 * large and the small token: the marginal cost per byte is an upper bound on
 * in-wasm SHA-256 time (a lower bound on its MB/s). node:crypto: createHash
 * over a 64 KiB Buffer, and createHmac over the same large token string.
 */
export async function measureHash(c, payloads) {
  const badMac = (t) => {
    const i = t.lastIndexOf(".") + 10;
    return t.slice(0, i) + (t[i] === "A" ? "B" : "A") + t.slice(i + 1);
  };
  const small = payloads[0].value;
  const large = payloads[payloads.length - 1].value;
  const ts = badMac(c.ours.mint(small));
  const tl = badMac(c.ours.mint(large));
  const fails = (t) => () => {
    try {
      c.ours.verify(t);
    } catch (e) {
      return e;
    }
    throw new Error("a bad MAC verified");
  };
  const [s, l] = await timeRows([{ sync: fails(ts) }, { sync: fails(tl) }]);
  const oursMBs = (tl.length - ts.length) / (l.usPerOp - s.usPerOp); // bytes/µs = MB/s
  const buf = Buffer.alloc(65536, 7);
  const [h, hm] = await timeRows([{ sync: () => createHash("sha256").update(buf).digest() }, { sync: () => createHmac("sha256", "k".repeat(46)).update(tl).digest() }]);
  return {
    tokenBytes: tl.length,
    oursMarginalMBs: oursMBs,
    oursWholeMBs: tl.length / l.usPerOp,
    oursLargeFailUs: l.usPerOp,
    nodeSha256MBs: buf.length / h.usPerOp,
    nodeHmacTokenMBs: tl.length / hm.usPerOp,
  };
}
