// Every reason a token fails to open, each with the one stable message; the
// reason itself is for server logs and never in the message.
import * as edge from "mcp-sealed-state";
import * as widget from "mcp-sealed-state/widget";
import { reasons } from "../tables.js";
import { assert, test } from "../harness.js";
import { runTable } from "../table.js";
import { KEY, PAYLOAD, T0 } from "../util.js";
import { stillWorks } from "./codec.js";

const { StateCodec, SealedStateError, SEALED_STATE_INVALID_MESSAGE } = edge;
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });

test("the reasons table (tests/vectors/reasons.json): each input gives its reason, with the one message", async () => {
  const { cases, tokens, failures } = await runTable(reasons, edge, widget);
  assert.ok(cases >= 14 && tokens >= 35, `the table is complete: ${cases} cases, ${tokens} tokens`);
  assert.equal(failures.length, 0, `${failures.length} checks failed:\n${failures.slice(0, 20).join("\n")}`);
});

test("reasons: a SealedStateError made by hand has the stable message and the reason; a codec keeps working after refusals", () => {
  const e = new SealedStateError("mac");
  assert.equal(e.message, SEALED_STATE_INVALID_MESSAGE);
  assert.equal(e.reason, "mac");
  assert.ok(!String(e).includes("mac") || SEALED_STATE_INVALID_MESSAGE.includes("mac"), "the reason is not in the message");
  const codec = at(T0);
  const token = codec.seal(PAYLOAD, { bind: "u" });
  for (const t of ["", token.slice(0, -1), token]) {
    try {
      codec.open(t);
    } catch {
      // refused as the table says; what matters here is the codec afterwards
    }
  }
  stillWorks(codec);
});

test("junk of every shape opens as malformed or mac, never traps", () => {
  const codec = at(T0);
  const good = codec.seal(PAYLOAD);
  const [, body, mac] = good.split(".");
  const junk = ["v1..", "v1.." + "A".repeat(43), "v1.\u0000.A", "v1.😀.A", `v1.${"_".repeat(1000)}.${"-".repeat(43)}`, "v1.e30." + "A".repeat(44), "V1.e30.AAAA", " v1.e30.AAAA"];
  junk.push(".", "..", "v1", "v1.e30.", "v1..AAAA", "v1.e30.AAAA.AAAA", "v1.e3.AAAA", "v1.e30+.AAAA", "v1.e30/.AAAA", "v1.é.AAAA", "v1.\ud800.AAAA", `v1.e30.${"A".repeat(42)}`);
  junk.push(good.slice(0, -1), good + "A", good + ".", `v1.${body}=.${mac}`);
  for (let i = 0; i < 200; i++) junk.push(`v1.${"AbC_-".repeat(i % 17)}${String.fromCharCode(33 + (i % 90))}.${"Q".repeat(i % 50)}`);
  for (const t of junk) {
    for (const open of [(x) => codec.verify(x), (x) => codec.open(x)]) {
      let e;
      try {
        open(t);
      } catch (err) {
        e = err;
      }
      assert.ok(e instanceof SealedStateError, `${JSON.stringify(t).slice(0, 40)}: ${e}`);
      assert.ok(e.reason === "malformed" || e.reason === "mac", `${JSON.stringify(t).slice(0, 40)}: ${e.reason}`);
    }
  }
  stillWorks(codec);
});
