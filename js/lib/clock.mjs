// Date.now pinned for the length of a call: the SDK's codec (and code written
// against it) has no clock option and reads Date.now per call.

/**
 * `fn()` with Date.now returning `ms`, restored when `fn` returns, throws, or,
 * when it returns a promise, once that promise settles.
 */
export function atClock(ms, fn) {
  const real = Date.now;
  Date.now = () => ms;
  let result;
  try {
    result = fn();
  } catch (e) {
    Date.now = real;
    throw e;
  }
  if (typeof result?.then !== "function") {
    Date.now = real;
    return result;
  }
  return Promise.resolve(result).finally(() => {
    Date.now = real;
  });
}
