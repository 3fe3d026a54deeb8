// Options: one rule per input, and what a call cannot honour refused, never dropped.
import * as edge from "mcp-sealed-state";
import { assert, test } from "../harness.js";
import { KEY, S0, T0, clearError, envelope } from "../util.js";

const { StateCodec } = edge;
const at = (ms, opts = {}) => new StateCodec({ key: KEY, now: () => ms, ...opts });

// A ttl of 0 or less would make every token born expired, and "600" (a string
// from an env binding) must be told apart from a number in the message.
test("options: ttlSeconds is a positive safe integer; a wrong type names the type that came", () => {
  for (const ttlSeconds of [0, -1, -0, 1.5, Number.MAX_SAFE_INTEGER + 1]) clearError(() => at(T0, { ttlSeconds }), RangeError, /^mcp-sealed-state: ttlSeconds must be a safe integer \(positive\)/);
  clearError(() => at(T0, { ttlSeconds: "600" }), TypeError, /ttlSeconds must be a safe integer \(positive\), not a string \("600": convert it with Number\(\)\)/);
  clearError(() => at(T0, { leewaySeconds: [] }), TypeError, /leewaySeconds .* not an array/);
  clearError(() => at(T0, { maxTokenBytes: 1n }), TypeError, /maxTokenBytes .* not a bigint/);
  clearError(() => at(T0, { maxRequestBytes: "1" }), TypeError, /maxRequestBytes .* not a string/);
  clearError(() => at(T0, { production: "true" }), TypeError, /production must be true, false or undefined .* not a string/);
  clearError(() => at(T0, { now: 5 }), TypeError, /now must be a function .* not a number/);
  clearError(() => at(T0, { env: "x" }), TypeError, /env must be the Worker's bindings \(an object\), not a string/);
  clearError(() => at(T0).seal(1, { bind: 7 }), TypeError, /bind must be a string, not a number/);
  // Explicit undefined is no option (exactOptionalPropertyTypes).
  assert.equal(envelope(at(T0, { ttlSeconds: undefined, leewaySeconds: undefined, production: undefined }).seal(1)).exp, S0 + 600);
});

// A misspelt option such as `ttl` must not be ignored silently.
test("options: an unknown option is refused with the known names listed (constructor and every call)", () => {
  clearError(() => at(T0, { ttl: 60 }), TypeError, /StateCodec has no option "ttl"; its options are key, ttlSeconds, leewaySeconds, maxTokenBytes, maxRequestBytes, production, now, env/);
  clearError(() => new StateCodec(null), TypeError, /options must be an object \(got null\)/);
  const c = at(T0);
  const view = c.seal(1);
  const rs = c.sealRequestState(1, "t");
  for (const [call, names] of [
    [() => c.seal(1, { bnd: "u" }), "bind, secret"],
    [() => c.open(view, { bnd: "u" }), "bind"],
    [() => c.openWithSecret(view, { bnd: "u" }), "bind"],
    [() => c.sealRequestState(1, "t", { requests: {} }), "bind, secret, request"],
    [() => c.openRequestState(rs, "t", { requests: {} }), "bind, request"],
    [() => c.openRequestStateWithSecret(rs, "t", { requests: {} }), "bind, request"],
    [() => c.mint(1, { bnd: "u" }), "bind"],
    [() => c.verify(c.mint(1), { bnd: "u" }), "bind"],
  ]) {
    clearError(call, TypeError, new RegExp(`has no option "\\w+"; its options are ${names}$`));
  }
  clearError(() => c.open(view, "u"), TypeError, /open's options must be an object \(got a string\)/);
});

// A request or secret that a call cannot check or carry (open, openWithSecret
// and verify with a request; mint with either) must be refused, not dropped.
test("options: what a call cannot honour is a TypeError naming the option", () => {
  const c = at(T0);
  const view = c.seal(1);
  const raw = c.mint(1);
  const rs = c.sealRequestState(1, "t", { request: { a: 1 } });
  clearError(() => c.seal(1, { request: { a: 1 } }), TypeError, /seal takes no request option: request binds requestState tokens only/);
  clearError(() => c.open(view, { request: { a: 1 } }), TypeError, /open takes no request option/);
  clearError(() => c.openWithSecret(view, { request: { a: 1 } }), TypeError, /openWithSecret takes no request option/);
  clearError(() => c.verify(raw, { request: { a: 1 } }), TypeError, /verify takes no request option: a raw token binds no request/);
  clearError(() => c.mint(1, { request: { a: 1 } }), TypeError, /mint takes no request option/);
  clearError(() => c.mint(1, { secret: "s" }), TypeError, /mint takes no secret option: a raw token has no secret part/);
  clearError(() => c.verify(raw, { secret: "s" }), TypeError, /verify takes no secret option/);
  clearError(() => c.open(view, { secret: "s" }), TypeError, /open takes no secret option/);
  clearError(() => c.openRequestState(rs, "t", { request: { a: 1 }, secret: "s" }), TypeError, /openRequestState takes no secret option/);
  // An explicit undefined is no option.
  assert.equal(c.open(view, { request: undefined, secret: undefined }), 1);
  assert.equal(c.verify(raw, { request: undefined }), 1);
});
