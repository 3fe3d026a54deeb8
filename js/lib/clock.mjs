// Date.now pinned for the length of a call: the SDK's codec (and code written
// against it) has no clock option and reads Date.now per call.
//
// Calls may overlap: node:test runs a suite's async body while earlier tests
// run, so one call's promise can settle while another's codec still awaits
// WebCrypto. Date.now is therefore put back only when the last call in flight
// settles; until then it reads the clock of the latest call still in flight.

const inFlight = []; // one entry ({ ms }) per call not yet settled, oldest first
let real; // Date.now as it was before the first call in flight

function pin(ms) {
  const entry = { ms };
  if (inFlight.length === 0) {
    real = Date.now;
    Date.now = () => inFlight.at(-1).ms;
  }
  inFlight.push(entry);
  return () => {
    inFlight.splice(inFlight.indexOf(entry), 1);
    if (inFlight.length === 0) Date.now = real;
  };
}

/**
 * `fn()` with Date.now returning `ms`, restored when `fn` returns, throws, or,
 * when it returns a promise, once that promise settles.
 */
export function atClock(ms, fn) {
  const release = pin(ms);
  let result;
  try {
    result = fn();
  } catch (e) {
    release();
    throw e;
  }
  if (typeof result?.then !== "function") {
    release();
    return result;
  }
  return Promise.resolve(result).finally(release);
}
