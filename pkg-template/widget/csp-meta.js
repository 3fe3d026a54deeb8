// Whether one of this document's own Content-Security-Policy <meta> elements
// refuses WebAssembly. It decides only WHEN the browser entry tries its wasm,
// never whether: the browser judges every attempt, and a wrong answer here
// costs time, not the backend. Measured in Chromium 156: the first refused
// compile in a document takes 2-4 ms (the violation report), a second one
// 0.1 ms; trying while the module evaluates would put that before a View's
// first call. A policy from an HTTP header (or inherited by a srcdoc iframe
// from its parent) is invisible here: there the attempt runs at import.

// The keywords that let script-src (or default-src) admit a wasm compile.
const ADMITS_WASM = ["'wasm-unsafe-eval'", "'unsafe-eval'"];

// No regular expression and no selector: on a View's first use in Chromium 156
// a regex split costs 0.2 ms and querySelectorAll 1.3 ms, getElementsByTagName 0.09.
const tokens = (text) =>
  ["\t", "\n", "\f", "\r"]
    .reduce((t, ws) => t.replaceAll(ws, " "), text)
    .split(" ")
    .filter((t) => t !== "");

/** Whether the policy text `policy` (one serialized CSP) refuses WebAssembly. */
export function policyRefusesWasm(policy) {
  const directives = new Map();
  for (const directive of String(policy).split(";")) {
    const [name = "", ...sources] = tokens(directive);
    const key = name.toLowerCase();
    // The first of two directives with one name counts, as in the CSP spec.
    if (key !== "" && !directives.has(key))
      directives.set(
        key,
        sources.map((s) => s.toLowerCase()),
      );
  }
  const sources = directives.get("script-src") ?? directives.get("default-src");
  return sources !== undefined && !sources.some((s) => ADMITS_WASM.includes(s));
}

/** Whether a CSP <meta> in `doc`'s head refuses WebAssembly (false where there is no document). Never throws. */
export function metaPolicyRefusesWasm(doc = globalThis.document) {
  try {
    const metas = doc?.head?.getElementsByTagName?.("meta") ?? [];
    for (const meta of metas) {
      if (String(meta.getAttribute("http-equiv")).toLowerCase() === "content-security-policy" && policyRefusesWasm(meta.getAttribute("content") ?? "")) return true;
    }
  } catch {
    // Not a DOM this can read: try at import, and let the browser judge.
  }
  return false;
}
