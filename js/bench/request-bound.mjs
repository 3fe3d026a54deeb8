// Oversized requests: opening a requestState token with a request
// at the default 64 KiB bound of its canonical text, and with a 16 MiB one,
// which is refused (reason "request") once its canonical text passes the
// bound. The ratio over/at says whether the refusal costs the bound or the
// request's size. Rust's figures: the ignored test request_bound_figures in
// tests/request_canonical.rs (js/bench/RESULTS.md has the command).
//
//   node js/pack.mjs && node js/bench/request-bound.mjs
import { importPackage } from "../test/support.mjs";

const { StateCodec } = await importPackage();
const MAX = 64 * 1024;
const item = (n) => ({ id: n, name: `item ${n}`, on: true, tags: ["a", "b"] });
// The arguments with as many items as keep their canonical JSON within `bytes`.
function requestOf(bytes) {
  const items = [];
  let size = '{"items":[]}'.length;
  for (let n = 0; ; n++) {
    const more = JSON.stringify(item(n)).length + (n > 0 ? 1 : 0);
    if (size + more > bytes) break;
    items.push(item(n));
    size += more;
  }
  return { request: { items }, bytes: size };
}

// CPU time (user + system) of one call, milliseconds: the best of 15 rounds.
function best(fn) {
  let min = Infinity;
  for (let r = 0; r < 15; r++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    min = Math.min(min, (used.user + used.system) / 1000);
  }
  return min;
}

const codec = new StateCodec({ key: "request-bound bench: at least thirty-two bytes", maxRequestBytes: MAX });
const at = requestOf(MAX);
const over = requestOf(16 << 20);
const token = codec.sealRequestState(1, "t", { request: at.request });
// The same items in arrays of 500 under their own names: no array is long
// enough for the walk's early refusal (an array of n items needs 2n + 1
// bytes), so this one is refused by the bytes written, as Rust refuses text.
const chunked = {};
for (let i = 0; i < over.request.items.length; i += 500) chunked[`c${String(i).padStart(8, "0")}`] = over.request.items.slice(i, i + 500);
const refused = (request) => () => {
  try {
    codec.openRequestState(token, "t", { request });
  } catch (e) {
    if (e.reason === "request") return;
    throw e;
  }
  throw new Error("an oversized request opened");
};
const atMs = best(() => codec.openRequestState(token, "t", { request: at.request }));
const overMs = best(refused(over.request));
const chunkedMs = best(refused(chunked));
const ms = (x) => `${x.toFixed(3)} ms`;
console.log(
  `request bound, JS (${process.version}): at limit ${at.bytes} B ${ms(atMs)}; over, ${over.bytes} B: one array ${ms(overMs)} (ratio ${(overMs / atMs).toFixed(2)}), arrays of 500 ${ms(chunkedMs)} (ratio ${(chunkedMs / atMs).toFixed(2)})`,
);
