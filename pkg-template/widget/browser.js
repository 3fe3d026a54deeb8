// Browsers, bundlers and one-file Views: the wasm bytes travel inside this
// package's JS (./wasm-inline.js, written by js/build.mjs) and are
// instantiated from bytes, so nothing is fetched and there is no sibling file
// for a bundler to emit or a CSP to block.
//
// No top-level await (esbuild's default iife output refuses it): the JS twin
// serves from the first call, and the wasm takes over once it is
// instantiated, which a page whose CSP refuses WebAssembly never allows.
// Both give the same results; `backend()` says which serves now, and
// `init()` resolves with the one that serves from then on.
import initWasm, { readTokenJson } from "../wasm/widget.js";
import { readTokenJsonJs } from "./read-js.js";
import { tokenApi } from "./token.js";
import { WIDGET_WASM_GZIP_BASE64 } from "./wasm-inline.js";

const core = { backend: "js", read: readTokenJsonJs };

// The .wasm travels gzipped (js/build.mjs measured the encodings); a platform
// without DecompressionStream fails here and keeps the JS twin.
async function wasmBytes() {
  // Nothing to inflate for where there is no WebAssembly at all.
  if (typeof WebAssembly !== "object") throw new Error("no WebAssembly here");
  const bin = atob(WIDGET_WASM_GZIP_BASE64);
  const packed = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) packed[i] = bin.charCodeAt(i);
  const inflated = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(inflated).arrayBuffer());
}

// Started at import, settled once: never a rejection, so importing never throws
// and no unhandled rejection reaches the page.
const settled = Promise.resolve()
  .then(wasmBytes)
  .then((bytes) => initWasm({ module_or_path: bytes }))
  .then(
    () => {
      core.read = readTokenJson;
      core.backend = "wasm";
    },
    () => {
      // The CSP refused WebAssembly (CompileError, EvalError), or there is none: the JS twin stays.
    },
  )
  .then(() => core.backend);

/** Resolves with the backend that serves this page once loading has settled: "wasm" or "js". Optional. */
export const init = () => settled;
export const { backend, readTokenUnverified, secondsLeft, adoptToken, isSealedStateError } = tokenApi(core);
export * from "./view-state.js";
export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
