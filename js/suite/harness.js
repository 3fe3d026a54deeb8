// The behaviour suite's own harness: tests are plain (async) functions and
// assertions throw. It uses nothing but ES2022 and the web platform's
// TextEncoder/atob, so the same test modules run unchanged in Node, Deno, Bun,
// workerd and a browser page (node:test and node:assert exist in only some).

const tests = [];

/** Register a test; `fn` may return a promise. Names must be unique. */
export function test(name, fn) {
  if (tests.some((t) => t.name === name)) throw new Error(`two tests are named ${JSON.stringify(name)}`);
  tests.push({ name, fn });
}

export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

const show = (v) => {
  if (typeof v === "string") return JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v);
  if (typeof v === "bigint") return `${v}n`;
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s.length > 300 ? `${s.slice(0, 300)}…` : s;
  } catch {
    return Object.prototype.toString.call(v);
  }
};
const fail = (message, detail) => {
  throw new AssertionError(message ? `${message}: ${detail}` : detail);
};

// Structural equality of what the package returns: JSON values, arrays, plain
// objects and typed arrays. Prototypes must match; -0 and 0 differ (Object.is).
function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (ArrayBuffer.isView(a)) return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
}

function caught(fn) {
  try {
    fn();
  } catch (e) {
    return { error: e };
  }
  return null;
}

// `check` is a constructor (instanceof), a RegExp (against the message), or a
// function that returns true or throws.
function checkError(error, check, message) {
  if (check === undefined) return;
  if (check instanceof RegExp) {
    if (!check.test(String(error?.message))) fail(message, `error message ${show(error?.message)} does not match ${check}`);
  } else if (check === Error || check.prototype instanceof Error) {
    if (!(error instanceof check)) fail(message, `expected a ${check.name}, got ${error?.constructor?.name}: ${error?.message}`);
  } else if (check(error) !== true) {
    fail(message, `the error did not pass the check: ${error?.constructor?.name}: ${error?.message}`);
  }
}

export const assert = {
  ok(value, message) {
    if (!value) fail(message, `expected a truthy value, got ${show(value)}`);
  },
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) fail(message, `${show(actual)} !== ${show(expected)}`);
  },
  notEqual(actual, expected, message) {
    if (Object.is(actual, expected)) fail(message, `both are ${show(actual)}`);
  },
  deepEqual(actual, expected, message) {
    if (!same(actual, expected)) fail(message, `${show(actual)} is not deeply equal to ${show(expected)}`);
  },
  match(string, pattern, message) {
    if (typeof string !== "string" || !pattern.test(string)) fail(message, `${show(string)} does not match ${pattern}`);
  },
  /** `fn` must throw; returns what it threw. */
  throws(fn, check, message) {
    const r = caught(fn);
    if (r === null) fail(message, "expected an error, nothing was thrown");
    checkError(r.error, check, message);
    return r.error;
  },
  /** `promise` (or what `fn()` returns) must reject; resolves to the reason. */
  async rejects(promiseOrFn, check, message) {
    let error;
    let rejected = false;
    try {
      await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
    } catch (e) {
      rejected = true;
      error = e;
    }
    if (!rejected) fail(message, "expected a rejection, the promise resolved");
    checkError(error, check, message);
    return error;
  },
};

/**
 * Run every registered test, one at a time, in registration order.
 * Returns `{ passed, failed, names, failures: [{ name, error }] }`.
 */
export async function run() {
  const summary = { passed: 0, failed: 0, names: [], failures: [] };
  for (const { name, fn } of tests) {
    summary.names.push(name);
    try {
      await fn();
      summary.passed++;
    } catch (e) {
      summary.failed++;
      summary.failures.push({ name, error: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : show(e) });
    }
  }
  return summary;
}
