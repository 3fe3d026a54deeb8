// @ts-check
// Browsers, bundlers and one-file Views: the wasm bytes travel inside this
// package's JS (./wasm-inline.js, written by js/build.mjs, as hex), so nothing
// is fetched and there is no sibling file for a bundler to emit or a CSP to block.
//
// No top-level await (esbuild's default iife output refuses it): the JS twin
// serves calls made while the module graph evaluates, and the wasm takes over a
// microtask later (never, where the page's CSP refuses WebAssembly). The compile
// is deferred so that a refused one, whose violation report takes a few ms, never
// delays such a call. Both give the same results; `backend()` says which serves
// now, and `init()` resolves with the one that serves from then on.
import initWasm, { initSync, readTokenJson } from "../wasm/widget.js";
import { hexBytes } from "./hex.js";
import { readTokenJsonJs } from "./read-js.js";
import { tokenApi } from "./token.js";
import { WIDGET_WASM_HEX } from "./wasm-inline.js";

/** @type {import("./token.js").Core} */
const core = { backend: "js", read: readTokenJsonJs };

function useWasm() {
  core.read = readTokenJson;
  core.backend = "wasm";
}

// Compiled on the main thread. Chromium before 114 refuses main-thread
// compiles over 4 KB with a RangeError: those compile off it (a promise,
// the JS twin serving until it settles). A CSP without 'wasm-unsafe-eval'
// refuses both ways (CompileError): that throws, and the JS twin stays.
function load() {
  // Nothing to decode where there is no WebAssembly at all.
  if (typeof WebAssembly !== "object") return undefined;
  const bytes = hexBytes(WIDGET_WASM_HEX);
  let module;
  try {
    module = new WebAssembly.Module(/** @type {Uint8Array<ArrayBuffer>} */ (bytes));
  } catch (e) {
    if (e instanceof RangeError) return initWasm({ module_or_path: bytes }).then(useWasm);
    throw e;
  }
  initSync({ module });
  useWasm();
  return undefined;
}

// Settled once and never a rejection: importing never throws, and no
// unhandled rejection reaches the page.
function attempt() {
  try {
    return load();
  } catch {
    // The CSP refused WebAssembly (CompileError, EvalError), or instantiating failed: the JS twin stays.
    return undefined;
  }
}
const loading = Promise.resolve().then(attempt);
const settled = loading.then(
  () => core.backend,
  () => core.backend,
);

/**
 * Resolves with the backend that serves from then on, once loading has
 * settled. Never rejects; calling it is optional (every function works at once).
 * @type {() => Promise<import("./token.js").Backend>}
 */
export const init = () => settled;
const api = tokenApi(core);
/**
 * Which implementation serves this page now. In browsers the JS twin serves
 * from the first call and the wasm takes over once instantiated; where the
 * page's CSP refuses WebAssembly (no 'wasm-unsafe-eval') the JS twin serves
 * throughout, and after a wasm trap (a failed allocation) it takes over.
 * Both give the same results.
 */
export const backend = api.backend;
/**
 * What a token CLAIMS: payload, purpose, tool, exp, bound. It verifies NOTHING
 * (the widget has no key; anyone can forge these bytes): use it for display
 * only. Throws SealedStateError (reason "malformed") for anything but a v1 token.
 */
export const readTokenUnverified = api.readTokenUnverified;
/**
 * Whole seconds until the token stops opening, counting the second in
 * progress: > 0 while valid, <= 0 once expired. A token opens until the end
 * of its `exp` second, so a fresh token reads its lifetime plus one in the
 * second it was sealed. Unverified. `nowMs` (default Date.now()) must be a
 * finite number or a Date, else a TypeError.
 */
export const secondsLeft = api.secondsLeft;
/**
 * The token to keep after a tool result, by the token's own `exp` (the
 * stateless estimate of "the token the server sealed last"): the result's
 * token, unless it has none (or not a v1 token) or `current` expires
 * strictly later. The result's token is the first v1 token of its
 * `_meta["ng-mcp-ui/state"]`, then its `structuredContent["ng-mcp-ui/state"]`
 * (the mirror for hosts that drop `_meta`); a source that is not an object,
 * or whose getter throws, reads as none. A v1 token too long for this widget
 * to read (over MAX_READ_CHARS, which only a codec whose maxTokenBytes was
 * raised past it mints) throws a RangeError rather than being dropped unseen.
 * In a View prefer mcp-sealed-state/app's keepFreshestToken, which goes by
 * arrival order rather than by an `exp` it cannot verify.
 */
export const adoptToken = api.adoptToken;
/**
 * Whether a tool result is the server refusing a sealed token (ours or
 * ng-mcp-ui's stable message as the whole text of a text block of an isError
 * result, bare or as an McpError's "MCP error <code>: …", as the SDK and
 * rust-server send it; never a substring): show "expired, start over".
 */
export const isSealedStateError = api.isSealedStateError;
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";

// The types of the results above, for programs that name them.
/**
 * @template [T=unknown]
 * @typedef {import("./token.js").TokenView<T>} TokenView
 */
/** @typedef {import("./token.js").Backend} Backend */
/** @typedef {import("../common.js").SealedStateReason} SealedStateReason */
