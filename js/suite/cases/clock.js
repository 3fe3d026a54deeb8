// The clock: now() in ms, exp in seconds; expiry and leeway at their edges.
import * as edge from "mcp-sealed-state";
import { assert, test } from "../harness.js";
import { KEY, PAYLOAD, S0, T0, clearError, envelope, refused } from "../util.js";
import { stillWorks } from "./codec.js";

const { StateCodec } = edge;
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });

test("clock: exp = floor(now / 1000) + ttlSeconds for every carrier", () => {
  for (const [now, ttl] of [
    [T0, 600],
    [T0, 30],
    [S0 * 1000, 1],
    [S0 * 1000 + 999, 1],
  ]) {
    const c = at(now, { ttlSeconds: ttl });
    for (const t of [c.seal(1), c.sealRequestState(1, "x"), c.mint(1)]) assert.equal(envelope(t).exp, Math.floor(now / 1000) + ttl);
  }
});

test("clock: a token opens through its exp second and is expired from the next", () => {
  const token = at(T0, { ttlSeconds: 30 }).seal(PAYLOAD);
  const exp = S0 + 30;
  assert.deepEqual(at(exp * 1000 + 999).open(token), PAYLOAD);
  refused(edge, () => at((exp + 1) * 1000).open(token), "expired");
  const one = at(T0, { ttlSeconds: 1 }).seal(PAYLOAD); // good for the rest of this second and the next
  assert.deepEqual(at((S0 + 1) * 1000 + 999).open(one), PAYLOAD);
  refused(edge, () => at((S0 + 2) * 1000).open(one), "expired");
});

test("leeway: leewaySeconds widens acceptance, not exp", () => {
  const token = at(T0, { ttlSeconds: 30 }).seal(PAYLOAD);
  assert.equal(envelope(at(T0, { ttlSeconds: 30, leewaySeconds: 5 }).seal(PAYLOAD)).exp, S0 + 30);
  const exp = S0 + 30;
  assert.deepEqual(at((exp + 5) * 1000 + 999, { leewaySeconds: 5 }).open(token), PAYLOAD);
  refused(edge, () => at((exp + 6) * 1000, { leewaySeconds: 5 }).open(token), "expired");
  const rs = at(T0, { ttlSeconds: 30 }).sealRequestState(1, "t");
  assert.equal(at((exp + 2) * 1000, { leewaySeconds: 2 }).openRequestState(rs, "t"), 1);
  refused(edge, () => at((exp + 1) * 1000).verify(at(T0, { ttlSeconds: 30 }).mint(1)), "expired");
});

test("clock: now() is read on every call", () => {
  let now = T0;
  const c = new StateCodec({ key: KEY, ttlSeconds: 10, now: () => now });
  const t = c.seal(1);
  now += 11_000;
  refused(edge, () => c.open(t), "expired");
  assert.equal(envelope(c.seal(1)).exp, S0 + 11 + 10);
});

test("clock: a clock that is not a finite number is refused, not read as the epoch", () => {
  const token = at(T0).seal(1);
  for (const bad of [NaN, Infinity, undefined, "1796032481000", 1n, new Date(T0)]) {
    const c = new StateCodec({ key: KEY, now: () => bad });
    clearError(() => c.open(token), TypeError, /now\(\) must return finite milliseconds/, String(bad));
    clearError(() => c.seal(1), TypeError, /now\(\) must return finite milliseconds/, String(bad));
  }
  clearError(() => new StateCodec({ key: KEY, now: 5 }), TypeError, /now must be a function/);
  stillWorks(at(T0));
});
