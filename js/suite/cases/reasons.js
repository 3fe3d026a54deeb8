// Every reason a token fails to open, each with the one stable message; the
// reason itself is for server logs and never in the message.
import * as edge from "mcp-sealed-state";
import { assert, test } from "../harness.js";
import { KEY, KEY2, PAYLOAD, S0, T0, refused, signed } from "../util.js";
import { stillWorks } from "./codec.js";

const { StateCodec, SealedStateError, SEALED_STATE_INVALID_MESSAGE } = edge;
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });

async function cases() {
  const codec = at(T0);
  const token = codec.seal(PAYLOAD, { bind: "u" });
  const flip = (t, i) => t.slice(0, i) + (t[i] === "A" ? "B" : "A") + t.slice(i + 1);
  return {
    codec,
    token,
    reasons: {
      malformed: [
        "not a token",
        "",
        "v1.",
        "v1.abc",
        "v1.a.b.c",
        "v2.e30.AAAA",
        "v1.e30=.AAAA",
        `v1.${"!".repeat(10)}.AAAA`,
        // A correct MAC around a bad body: the body is checked after the MAC.
        await signed("not json"),
        await signed("[1,2]"),
        await signed('{"exp":9999999999}'),
        await signed(`{"p":{"p":"v","d":1},"exp":${S0 + 60}.5}`),
        await signed(`{"p":{"p":"v","d":1},"exp":"${S0 + 60}"}`),
        await signed(new Uint8Array([0x7b, 0xff, 0x7d])),
        await signed(`{"p":{"p":"v","d":1},"exp":${S0 + 60}`),
      ],
      mac: [flip(token, token.length - 5), flip(token, 10), new StateCodec({ key: KEY2, now: () => T0 }).seal(PAYLOAD, { bind: "u" })],
      expired: [at(T0 - 601_000).seal(PAYLOAD, { bind: "u" })],
      bind: [codec.seal(PAYLOAD, { bind: "v" }), codec.seal(PAYLOAD)],
      purpose: [codec.sealRequestState(PAYLOAD, "move", { bind: "u" }), codec.mint(PAYLOAD, { bind: "u" })],
    },
  };
}

for (const reason of ["malformed", "mac", "expired", "bind", "purpose"]) {
  test(`reason ${reason}: SealedStateError with the stable message; the codec keeps working`, async () => {
    const { codec, reasons } = await cases();
    for (const [i, t] of reasons[reason].entries()) {
      const e = refused(edge, () => codec.open(t, { bind: "u" }), reason, `${reason} #${i}`);
      assert.equal(e.cause, reason);
      assert.ok(!String(e).includes(reason) || SEALED_STATE_INVALID_MESSAGE.includes(reason), "the reason is not in the message");
    }
    stillWorks(codec);
  });
}

test("reasons: the good token opens, and every refusal has the same message", async () => {
  const { codec, token, reasons } = await cases();
  assert.deepEqual(codec.open(token, { bind: "u" }), PAYLOAD);
  const messages = new Set();
  for (const tokens of Object.values(reasons)) {
    for (const t of tokens) messages.add(assert.throws(() => codec.open(t, { bind: "u" })).message);
  }
  assert.deepEqual([...messages], [SEALED_STATE_INVALID_MESSAGE]);
  const e = new SealedStateError("mac");
  assert.equal(e.message, SEALED_STATE_INVALID_MESSAGE);
  assert.equal(e.reason, "mac");
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
