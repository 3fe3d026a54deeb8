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
import initWasm, { initSync, readTokenJson } from "../wasm/widget.js";
import { readTokenJsonJs } from "./read-js.js";
import { tokenApi } from "./token.js";
import { WIDGET_WASM_GZIP_BASE64 } from "./wasm-inline.js";

const core = { backend: "js", read: readTokenJsonJs };

// The .wasm travels gzipped (js/build.mjs measured the encodings); a platform
// without DecompressionStream fails here and keeps the JS twin. Measured in
// Chromium 156 (module start to the wasm's first read, 20.9 ms before): the
// Blob -> stream -> Response path took 8-11 ms to inflate 10 KB, writing the
// bytes straight into the DecompressionStream and reading its chunks 0.7-1 ms;
// Uint8Array.fromBase64 decodes in 0.3 ms where the atob loop takes 1.6-3.5.
function base64Bytes(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

async function readAll(readable) {
  const reader = readable.getReader();
  const chunks = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function wasmBytes() {
  // Nothing to inflate for where there is no WebAssembly at all.
  if (typeof WebAssembly !== "object") throw new Error("no WebAssembly here");
  const packed = base64Bytes(WIDGET_WASM_GZIP_BASE64);
  const gunzip = new DecompressionStream("gzip");
  const writer = gunzip.writable.getWriter();
  // Both halves awaited together: a corrupt stream rejects both, and neither goes unhandled.
  const [bytes] = await Promise.all([readAll(gunzip.readable), writer.write(packed).then(() => writer.close())]);
  return bytes;
}

// Compiled on the main thread: 1.2-1.6 ms for the 21 KB .wasm in Chromium 156,
// where WebAssembly.instantiate from bytes took 4-13 ms to come back (its
// compile waits for a background thread, and a View's iframe shares the
// machine). Chromium before 114 refuses main-thread compiles over 4 KB with a
// RangeError: those compile off it. A CSP without 'wasm-unsafe-eval' refuses
// both ways (CompileError): the JS twin stays.
function instantiate(bytes) {
  let module;
  try {
    module = new WebAssembly.Module(bytes);
  } catch (e) {
    if (e instanceof RangeError) return initWasm({ module_or_path: bytes });
    throw e;
  }
  initSync({ module });
}

// Started at import, settled once: never a rejection, so importing never throws
// and no unhandled rejection reaches the page.
const settled = Promise.resolve()
  .then(wasmBytes)
  .then(instantiate)
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
