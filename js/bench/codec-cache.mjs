// The codec cache: the cost per seal when every request
// builds its StateCodec for one of N tenants (keys) in turn, the per-request
// pattern of a multi-tenant server, against the same seals on codecs built
// once per tenant and kept, side by side in one run. (Kept codecs share the
// cache too: past its 64 entries they are rebuilt like the others.) Also one hot
// tenant among one-off tenants, and the wasm memory each cached codec costs.
//
//   node js/pack.mjs && node js/bench/codec-cache.mjs [--json]
import { edgeWasmMemory, importPackage } from "../test/support.mjs";

const { StateCodec } = await importPackage();
const json = process.argv.includes("--json");
const PAYLOAD = { board: [0, 1, 2, 0, 1, 2, 0, 0, 0], turn: 4 };
const keyOf = (tenant) => `tenant-${tenant}-key: at least thirty-two bytes long`;
const T = 1_796_000_000_000;

// CPU time (this process's user + system) per call, microseconds: the median
// of `rounds` timings of `n` calls of fn(i). CPU time, not wall time, because
// the machine is shared; the two sides alternate round by round.
function cpuPerCall(n, fn) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}
function sideBySide(n, a, b, rounds = 7) {
  const ta = [];
  const tb = [];
  for (let r = 0; r < rounds; r++) {
    ta.push(cpuPerCall(n, a));
    tb.push(cpuPerCall(n, b));
  }
  const median = (t) => t.sort((x, y) => x - y)[Math.floor(rounds / 2)];
  return [median(ta), median(tb)];
}

const rows = [];
for (const tenants of [1, 16, 17, 64, 65, 1000]) {
  const n = Math.max(20_000, tenants * 5);
  const kept = Array.from({ length: tenants }, (_, t) => new StateCodec({ key: keyOf(t), now: () => T }));
  const perRequest = (i) => new StateCodec({ key: keyOf(i % tenants), now: () => T }).seal(PAYLOAD);
  const keptSeal = (i) => kept[i % tenants].seal(PAYLOAD);
  cpuPerCall(n, perRequest); // warm
  cpuPerCall(n, keptSeal);
  const [a, b] = sideBySide(n, perRequest, keptSeal);
  rows.push({ tenants, perRequestUs: a, keptUs: b, ratio: a / b });
}

// One hot tenant every other call, among one-off tenants that never return.
let oneOff = 0;
const hot = new StateCodec({ key: keyOf("hot"), now: () => T });
const hotRequest = (i) => (i % 2 === 0 ? new StateCodec({ key: keyOf("hot"), now: () => T }).seal(PAYLOAD) : new StateCodec({ key: keyOf(`once-${oneOff++}`), now: () => T }).seal(PAYLOAD));
const [hotUs, hotKeptUs] = sideBySide(2000, hotRequest, () => hot.seal(PAYLOAD));

// Memory: wasm memory grows by what 64 more cached codecs need (it never shrinks, so this is the high-water mark).
const memory = await edgeWasmMemory();
const before = memory.buffer.byteLength;
for (let t = 0; t < 64; t++) new StateCodec({ key: keyOf(`memory-${t}`) }).seal(1);
const after = memory.buffer.byteLength;

if (json) {
  console.log(JSON.stringify({ rows, hot: { perRequestUs: hotUs, keptUs: hotKeptUs }, memory: { before, after } }));
} else {
  console.log("tenants | per-request codec, us/seal | kept codecs, us/seal | ratio");
  for (const r of rows) console.log(`${String(r.tenants).padStart(7)} | ${r.perRequestUs.toFixed(2).padStart(26)} | ${r.keptUs.toFixed(2).padStart(20)} | ${r.ratio.toFixed(2)}`);
  console.log(`hot tenant every other call among one-off tenants: ${hotUs.toFixed(2)} us per call (half of them one-off builds); the hot codec kept: ${hotKeptUs.toFixed(2)} us`);
  console.log(`wasm memory: ${before} bytes before 64 more cached codecs, ${after} after`);
}
