// @ts-check
// The one path into wasm (sealIo/openIo): strings go in as UTF-8 written
// straight into the instance's input buffer in wasm memory, and the result is
// read straight out of its output buffer. No allocation per call for
// arguments or results, no copy made twice, and long strings are encoded
// natively (encodeInto) instead of char by char. The buffers are the wasm
// instance's, shared by every codec (src/bindings/edge.rs says why).
import { initSync, inputBuffer, outputBuffer, outputCapacity } from "../wasm/edge.js";

const utf8 = new TextEncoder();
const utf8Out = new TextDecoder("utf-8", { ignoreBOM: true });
// Largest input buffer to ask for: wasm32 addresses 4 GiB, and inputBuffer's
// length crosses as an i32.
export const MAX_INPUT_BYTES = 0x7fff_ffff;

// Looked up at first use: the entry instantiates the wasm after this module
// runs. initSync() of an instantiated glue returns its exports; an export
// of the wasm's own (wasm_bindgen::memory()) would cost an import, and each
// import a wasm-to-JS wrapper V8 compiles with the module.
/** @type {WebAssembly.Memory | undefined} */
let memory;
/** @type {Uint8Array | null} */
let heapBytes = null;
function heap() {
  // Growing wasm memory detaches the old buffer (its views read as empty): renew the view then.
  if (heapBytes === null || heapBytes.byteLength === 0)
    heapBytes = new Uint8Array((memory ??= /** @type {() => import("../wasm/edge.js").InitOutput} */ (/** @type {unknown} */ (initSync))().memory).buffer);
  return heapBytes;
}

/** @type {Uint8Array | null} */
let inView = null; // view of the input buffer
let inPtr = 0;
let inCap = 0;
let outPtr = 0;
let outCap = -1; // the output buffer only moves when a result outgrows this

/** Byte lengths of what the last writeInput put in the input buffer: the payload or token, the tool (0: none), then the bind value, the secret and the request (-1: none). */
export const written = { subject: 0, tool: 0, bind: -1, secret: -1, request: -1 };

/** Forget every pointer into wasm memory (after a trap): the next call asks afresh. */
export function forgetBuffers() {
  inView = null;
  outCap = -1;
}

// `s` as UTF-8 into `view` at `at`: its byte count, or, when it does not
// fit, -1 - (an upper bound of the bytes it needs from `at`).
/**
 * @param {Uint8Array} view
 * @param {number} at
 * @param {string} s
 */
function put(view, at, s) {
  const n = s.length;
  if (n <= 48 && at + n <= view.length) {
    // Short ASCII (tool names, bind values): a loop is cheaper than a native call.
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) break;
      view[at + i] = c;
    }
    if (i === n) return n;
  }
  const { read, written: bytes } = utf8.encodeInto(s, at === 0 ? view : view.subarray(at));
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair of them, 4).
  return read === n ? bytes : -1 - (bytes + 3 * (n - read));
}

// The upper bound of the UTF-8 bytes of an optional string.
const worst = (/** @type {string | undefined} */ s) => (s === undefined ? 0 : 3 * s.length);

/** @param {number} bytes */
function grow(bytes) {
  inView = null;
  let ptr;
  try {
    ptr = inputBuffer(bytes); // may grow memory: take the buffer after it
  } catch (e) {
    // A trap, which no length should cause: the next call starts afresh.
    forgetBuffers();
    throw new Error("mcp-sealed-state: the wasm codec failed growing its input buffer", { cause: e });
  }
  if (ptr === 0) throw new RangeError(`mcp-sealed-state: out of memory: no room in wasm memory for ${bytes} bytes of input`);
  inPtr = ptr;
  inCap = bytes;
  return (inView = new Uint8Array(heap().buffer, ptr, bytes));
}

function view() {
  if (inView === null) return grow(256);
  // Memory grew since: the old view is detached, the buffer itself has not moved.
  if (inView.byteLength === 0) inView = new Uint8Array(heap().buffer, inPtr, inCap);
  return inView;
}

// `s` (undefined: none) into `into` at `at`: its byte count (-1: none), or,
// when it does not fit, below -1 (and the bytes it and `rest` need from 0 in optionalNeed).
let optionalNeed = 0;
/**
 * @param {Uint8Array} into
 * @param {number} at
 * @param {string | undefined} s
 * @param {number} rest
 */
function putOptional(into, at, s, rest) {
  if (s === undefined) return -1;
  const n = put(into, at, s);
  if (n < 0) optionalNeed = at - 1 - n + rest;
  return n;
}

// Write subject, tool, bind, secret and request back to back into `into`:
// 0 when they fit, else an upper bound of the bytes they need.
/**
 * @param {Uint8Array} into
 * @param {string} subject
 * @param {string} tool
 * @param {string | undefined} bind
 * @param {string | undefined} secret
 * @param {string | undefined} request
 */
function fill(into, subject, tool, bind, secret, request) {
  const s = put(into, 0, subject);
  if (s < 0) return -1 - s + 3 * tool.length + worst(bind) + worst(secret) + worst(request);
  const t = tool === "" ? 0 : put(into, s, tool);
  if (t < 0) return s - 1 - t + worst(bind) + worst(secret) + worst(request);
  let at = s + t;
  const b = putOptional(into, at, bind, worst(secret) + worst(request));
  if (b < -1) return optionalNeed;
  at += Math.max(b, 0);
  const c = putOptional(into, at, secret, worst(request));
  if (c < -1) return optionalNeed;
  at += Math.max(c, 0);
  const r = putOptional(into, at, request, 0);
  if (r < -1) return optionalNeed;
  written.subject = s;
  written.tool = t;
  written.bind = b;
  written.secret = c;
  written.request = r;
  return 0;
}

/** Write subject, tool ("" for none), then bind, secret and request (undefined for none) into the input buffer; their lengths go to `written`. */
/**
 * @param {string} subject
 * @param {string} tool
 * @param {string | undefined} bind
 * @param {string | undefined} secret
 * @param {string | undefined} request
 */
export function writeInput(subject, tool, bind, secret, request) {
  let need = fill(view(), subject, tool, bind, secret, request);
  if (need === 0) return;
  if (need > MAX_INPUT_BYTES) throw new RangeError(`mcp-sealed-state: out of memory: ${need} bytes of input cannot fit in wasm memory`);
  need = fill(grow(need), subject, tool, bind, secret, request);
  if (need !== 0) throw new Error("mcp-sealed-state: internal error (the input outgrew the buffer sized for it)");
}

// The output buffer, at least `n` bytes of it valid.
/** @param {number} n */
function output(n) {
  if (n > outCap) {
    outPtr = outputBuffer();
    outCap = outputCapacity();
  }
  return heap().subarray(outPtr, outPtr + n);
}

/** The `n` bytes of UTF-8 the last call left in the output buffer. */
/** @param {number} n */
export function readOutput(n) {
  return utf8Out.decode(output(n));
}

/**
 * What an open with the secret flag left (`n` bytes): `[payload JSON, secret
 * JSON or ""]` (protocol.rs OP_WITH_SECRET). The decrypted secret is zeroed in
 * the shared output buffer once copied out, so it does not wait there for the
 * next call to overwrite it.
 */
/**
 * @param {number} n
 * @returns {[string, string]}
 */
export function readOutputWithSecret(n) {
  const bytes = output(n);
  const len = bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24);
  const secret = bytes.subarray(4 + len);
  /** @type {[string, string]} */
  const texts = [utf8Out.decode(bytes.subarray(4, 4 + len)), utf8Out.decode(secret)];
  secret.fill(0);
  return texts;
}
