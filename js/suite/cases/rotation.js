// Key rotation: the first key seals, every key opens; the bind tag is checked
// with the key whose MAC matched.
import * as edge from "mcp-sealed-state";
import { assert, test } from "../harness.js";
import { KEY, KEY2, PAYLOAD, T0, clearError, refused } from "../util.js";

const { StateCodec } = edge;
const oldCodec = () => new StateCodec({ key: KEY, now: () => T0 });
const rotated = () => new StateCodec({ key: [KEY2, KEY], now: () => T0 });
const newOnly = () => new StateCodec({ key: KEY2, now: () => T0 });

test("rotation: old tokens open after rotation (bound too); new tokens are sealed with the first key", () => {
  const [o, r, n] = [oldCodec(), rotated(), newOnly()];
  for (const bind of [undefined, "user-42"]) {
    const opts = bind && { bind };
    assert.deepEqual(r.open(o.seal(PAYLOAD, opts), opts), PAYLOAD);
    assert.deepEqual(r.openRequestState(o.sealRequestState(PAYLOAD, "t", opts), "t", opts), PAYLOAD);
    assert.deepEqual(r.verify(o.mint(PAYLOAD, opts), opts), PAYLOAD);
    const fresh = r.seal(PAYLOAD, opts);
    assert.equal(fresh, n.seal(PAYLOAD, opts), "the first key seals");
    assert.deepEqual(n.open(fresh, opts), PAYLOAD);
    refused(edge, () => o.open(fresh, opts), "mac", "the retired key does not open new tokens");
  }
});

test("rotation: the bind tag is checked with the key whose MAC matched", () => {
  const old = oldCodec().seal(PAYLOAD, { bind: "alice" });
  assert.deepEqual(rotated().open(old, { bind: "alice" }), PAYLOAD);
  refused(edge, () => rotated().open(old, { bind: "bob" }), "bind");
});

test("rotation: three keys; a short key anywhere in the list is refused by its index", () => {
  const three = new StateCodec({ key: [KEY2, "k".repeat(40), KEY], now: () => T0 });
  assert.equal(three.open(oldCodec().seal(1)), 1);
  clearError(() => new StateCodec({ key: [KEY, "short"] }), RangeError, /#1\b.*\b5 bytes/);
});
