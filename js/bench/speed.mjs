// Speed rows: every codec, every payload, unbound and bound, plus the
// SHA-256 throughput figures. Ratios are computed in report.mjs.
import { createHash, createHmac } from "node:crypto";
import { BIND, CTX, TOOL } from "./codecs.mjs";
import { timeRows } from "./harness.mjs";

const SECRET = { cursor: "c-0123456789abcdef", seed: 42 }; // 41 bytes of JSON

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
    // The secret part: a 32-byte secret encrypted beside the payload.
    const so = { ...o, secret: SECRET };
    const vs = c.ours.seal(payload, so);
    add("ours, with a secret", "seal", "make", "seal", bound, { sync: () => c.ours.seal(payload, so) });
    add("ours, with a secret", "open", "take", "open", bound, { sync: () => c.ours.openWithSecret(vs, o) });
    add("ours", "mint", "make", "mint", bound, { sync: () => c.ours.mint(payload, o) });
    add("ours", "verify", "take", "verify", bound, { sync: () => c.ours.verify(m, o) });
    // ours, the async drop-in
    const di = bound ? c.dropInBound : c.dropIn;
    add("ours createRequestStateCodec (async)", "mint", "make", "mint", bound, { async: () => di.mint(payload, CTX) });
    add("ours createRequestStateCodec (async)", "verify", "take", "verify", bound, { async: () => di.verify(m, CTX) });
    // Servers overlap requests: 32 calls in flight through each codec's async
    // API, compared with each other (report.mjs), not with sequential calls.
    add("ours createRequestStateCodec (async), 32 in flight", "mint", "make", "mint", bound, { async: () => di.mint(payload, CTX), inFlight: 32 });
    add("ours createRequestStateCodec (async), 32 in flight", "verify", "take", "verify", bound, { async: () => di.verify(m, CTX), inFlight: 32 });
    // the SDK
    const sdk = bound ? c.sdkBound : c.sdk;
    add("SDK codec", "mint", "make", "mint", bound, { async: () => sdk.mint(payload, CTX), sdkRef: true });
    add("SDK codec", "verify", "take", "verify", bound, { async: () => sdk.verify(m, CTX), sdkRef: true });
    add("SDK codec, 32 in flight", "mint", "make", "mint", bound, { async: () => sdk.mint(payload, CTX), inFlight: 32, sdkRef32: true });
    add("SDK codec, 32 in flight", "verify", "take", "verify", bound, { async: () => sdk.verify(m, CTX), inFlight: 32, sdkRef32: true });
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

// The rows `run.mjs --quick` keeps: seal and open, unbound, of ours against
// the SDK codec and both node:crypto codecs (what the ratios need).
const QUICK_ROWS = new Set(["ours|seal", "ours|open", "ours, with a secret|seal", "ours, with a secret|open", "SDK codec|mint", "SDK codec|verify"]);
const quickRow = (r) => !r.bound && (QUICK_ROWS.has(`${r.group}|${r.op}`) || (r.nodeRef && (r.op === "seal" || r.op === "open")));

/** Every row of every payload; `timing` (harness QUICK) and `quick` (the key rows only) for a before/after check. */
export async function measureSpeed(c, payloads, log, { quick = false, timing } = {}) {
  const results = [];
  for (const p of payloads) {
    const rows = rowsFor(c, p.value).filter((r) => !quick || quickRow(r));
    for (const row of rows) if (row.prepare) await row.prepare();
    const times = await timeRows(rows, timing);
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
 * Hash throughput. Ours, in wasm: a view token sealed with a 64 KiB bind value
 * against the same with a 1-byte one. The bind value is only hashed (the bind
 * tag stays 22 chars, so the token does not grow), so the difference is the
 * HMAC-SHA256 of 64 KiB plus copying it into wasm and checking it is UTF-8:
 * a slight overestimate of SHA-256's time, so a lower bound on its MB/s.
 * node:crypto (OpenSSL): createHash over a 64 KiB Buffer, and createHmac over
 * a 64 KiB string.
 */
export async function measureHash(c) {
  const BYTES = 65536;
  const long = "b".repeat(BYTES);
  const payload = { board: [0, 0, 0, 0, 0, 0, 0, 0, 0], turn: 1 };
  const buf = Buffer.alloc(BYTES, 7);
  const [short, big, h, hm] = await timeRows([
    { sync: () => c.ours.seal(payload, { bind: "b" }) },
    { sync: () => c.ours.seal(payload, { bind: long }) },
    { sync: () => createHash("sha256").update(buf).digest() },
    { sync: () => createHmac("sha256", "k".repeat(46)).update(long).digest() },
  ]);
  return {
    bytes: BYTES,
    oursMBs: BYTES / (big.usPerOp - short.usPerOp), // bytes/µs = MB/s
    oursDeltaUs: big.usPerOp - short.usPerOp,
    nodeSha256MBs: BYTES / h.usPerOp,
    nodeHmacMBs: BYTES / hm.usPerOp,
  };
}
