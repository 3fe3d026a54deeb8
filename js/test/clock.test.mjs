// js/lib/clock.mjs, the tests' pinned Date.now for the SDK's codec: calls that
// overlap (a suite's async body minting while an earlier test verifies) must
// not put the real clock back under a call still in flight.
import assert from "node:assert/strict";
import { test } from "node:test";
import { atClock } from "../lib/clock.mjs";

test("overlapping calls: the first to settle leaves Date.now pinned for the other; the last puts the real one back", async () => {
  const real = Date.now;
  const gate = () => {
    let open;
    return [new Promise((resolve) => (open = resolve)), () => open()];
  };
  const [aGate, openA] = gate();
  const [bGate, openB] = gate();
  const a = atClock(1000, () => aGate.then(() => Date.now()));
  const b = atClock(2000, () => bGate.then(() => Date.now()));
  openA();
  assert.equal(await a, 2000, "the latest call in flight sets the clock");
  assert.equal(Date.now(), 2000, "b is still in flight");
  openB();
  assert.equal(await b, 2000, "not the real clock under a call still in flight");
  assert.equal(Date.now, real);
});

test("a call that throws, or returns a plain value, puts the real Date.now back at once", () => {
  const real = Date.now;
  assert.equal(
    atClock(5, () => Date.now()),
    5,
  );
  assert.throws(
    () =>
      atClock(5, () => {
        throw new Error("x");
      }),
    /x/,
  );
  assert.equal(Date.now, real);
});
