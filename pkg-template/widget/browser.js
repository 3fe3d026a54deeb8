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
 * @returns {Promise<import("./token.js").Backend>}
 */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";

// The types of the results above, for programs that name them.
/**
 * @template [T=unknown]
 * @typedef {import("./token.js").TokenView<T>} TokenView
 */
/** @typedef {import("./token.js").Backend} Backend */
/** @typedef {import("../common.js").SealedStateReason} SealedStateReason */
