// The Content-Security-Policy a Host puts on a View, built from the View
// resource's `_meta.ui.csp` (MCP Apps), for one of the demo Host's two policies:
//
//   "wasm"  the declared origins, plus 'wasm-unsafe-eval' so the View may
//           compile WebAssembly; connect-src admits only the declared origins.
//   "spec"  the same without 'wasm-unsafe-eval'. With nothing declared it is
//           exactly the MCP Apps spec's default policy, which refuses
//           WebAssembly (as VS Code's and goose's do).
//
// Plain JS with no imports: the sandbox server (Node) builds the header with
// it, and tests compare against it.

export const POLICIES = Object.freeze(["wasm", "spec"]);

/** The spec's default policy for a View that declares nothing. */
export const SPEC_DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

// A declared source must be one origin (scheme://host[:port], host may start
// with "*."): nothing that could end a directive (";", ",", newlines), add a
// keyword (quotes) or a second source (spaces).
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** The declared origins of one `_meta.ui.csp` field that are safe to put in a policy; others are dropped. */
export function declaredOrigins(list) {
  return Array.isArray(list) ? list.filter((d) => typeof d === "string" && ORIGIN.test(d)) : [];
}

/**
 * The policy text for `csp` (the resource's `_meta.ui.csp`, or undefined)
 * under `policy` ("wasm" or "spec"). Throws a RangeError for another policy.
 */
export function buildViewCsp(csp, policy) {
  if (!POLICIES.includes(policy)) throw new RangeError(`policy must be one of ${POLICIES.join(", ")} (got ${JSON.stringify(policy)})`);
  const resources = declaredOrigins(csp?.resourceDomains);
  const connect = declaredOrigins(csp?.connectDomains);
  const frames = declaredOrigins(csp?.frameDomains);
  const bases = declaredOrigins(csp?.baseUriDomains);
  const list = (...sources) => sources.join(" ");
  const directives = [
    "default-src 'none'",
    `script-src ${list("'self'", "'unsafe-inline'", ...(policy === "wasm" ? ["'wasm-unsafe-eval'"] : []), ...resources)}`,
    `style-src ${list("'self'", "'unsafe-inline'", ...resources)}`,
    `img-src ${list("'self'", "data:", ...resources)}`,
    ...(resources.length > 0 ? [`font-src ${list("'self'", "data:", ...resources)}`] : []),
    `media-src ${list("'self'", "data:", ...resources)}`,
    `connect-src ${connect.length > 0 ? list(...connect) : "'none'"}`,
    ...(frames.length > 0 ? [`frame-src ${list(...frames)}`] : []),
    ...(bases.length > 0 ? [`base-uri ${list(...bases)}`] : []),
  ];
  return directives.join("; ");
}
