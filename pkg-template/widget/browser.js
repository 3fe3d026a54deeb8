// Browsers, bundlers and one-file Views: the wasm bytes travel inside this
// package's JS (./wasm-inline.js, written by js/build.mjs) and are compiled
// and instantiated from them while this module evaluates, so the wasm serves
// from the first call where the page allows WebAssembly. Nothing is fetched,
// and there is no sibling file for a bundler to emit or a CSP to block.
//
// Measured in Chromium 156 (a Vite one-file View, module start to the end of
// the wasm's first read; main-thread CPU time from a trace, medians of 15):
// 5.1 ms when the .wasm travelled gzipped, was inflated by DecompressionStream
// and compiled after a first call on the JS twin (wall 7.7-11 ms: the stream's
// hops wait); 2.6 ms compiled at import (wall 3.7-5.6 ms): hex decode 0.1 ms,
// compile 0.9-1.7, instantiate 0.3, and the first call's lazy compile of the
// functions it reaches, about 2 (V8 compiles a wasm function when first
// called, also after an async compile).
//
// Where a CSP <meta> of the page refuses WebAssembly (./csp-meta.js) the
// attempt waits for a microtask, after the module graph has run (a first
// call made as the View evaluates comes before it): the refused compile's
// violation report costs 2-4 ms, and the JS twin serves meanwhile.
// No top-level await (esbuild's default iife output refuses it). Both
// backends give the same results; `backend()` says which serves now, and
// `init()` resolves with the one that serves from then on.
import initWasm, { initSync, readTokenJson } from "../wasm/widget.js";
import { metaPolicyRefusesWasm } from "./csp-meta.js";
import { hexBytes } from "./hex.js";
import { readTokenJsonJs } from "./read-js.js";
import { tokenApi } from "./token.js";
import { WIDGET_WASM_HEX } from "./wasm-inline.js";

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
    module = new WebAssembly.Module(bytes);
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
const loading = metaPolicyRefusesWasm() ? Promise.resolve().then(attempt) : Promise.resolve(attempt());
const settled = loading.then(
  () => core.backend,
  () => core.backend,
);

/** Resolves with the backend that serves this page once loading has settled: "wasm" or "js". Optional. */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
