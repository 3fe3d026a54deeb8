// The edge API over the wasm codec. Payloads cross as JSON.stringify text, so
// tokens are byte-identical to @modelcontextprotocol/server's for equal input.
import { WasmCodec, ephemeralKeyWarning, ephemeralWarningDue, wasmMemory } from "../wasm/edge.js";
import { REASONS, SealedStateError } from "../common.js";

export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError } from "../common.js";
// The reader and view-state helpers, bound to this build's wasm (js/build.mjs writes it).
export * from "./widget-api.js";
// The drop-in for @modelcontextprotocol/server's codec, in its own module.
export { createRequestStateCodec } from "./request-state-codec.js";

const DEFAULT_MAX_TOKEN_BYTES = 256 * 1024;
const utf8 = new TextEncoder();

// The fast path into wasm (WasmCodec's *Io methods): strings go in as UTF-8
// written straight into the codec's input buffer in wasm memory, and the
// result is read straight out of its output buffer. No allocation per call
// for arguments or results, no copy made twice, and long strings are encoded
// natively (encodeInto) instead of char by char.
const IO_VIEW = 0;
const IO_REQUEST_STATE = 1;
const IO_RAW = 2;
const utf8Out = new TextDecoder("utf-8", { ignoreBOM: true });
let memory; // looked up at first use: the loader instantiates the wasm after this module runs
let heapBytes = null;
function heap() {
  // Growing wasm memory detaches the old buffer (its views read as empty): renew the view then.
  if (heapBytes === null || heapBytes.byteLength === 0) heapBytes = new Uint8Array((memory ??= wasmMemory()).buffer);
  return heapBytes;
}

// `s` as UTF-8 into `view` at `at`: the byte count, or -1 when it does not fit.
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
  const { read, written } = utf8.encodeInto(s, at === 0 ? view : view.subarray(at));
  return read === n ? written : -1;
}

function isProduction() {
  try {
    return globalThis.process?.env?.NODE_ENV === "production";
  } catch {
    return false; // env access can be denied (Deno without --allow-env)
  }
}

// StateCodec's key rule: a string is its UTF-8 bytes; a Uint8Array (Buffer
// included), an ArrayBuffer or a DataView is its bytes. Any other typed array
// is a TypeError: its elements are not bytes, and reading it either element by
// element (as the SDK's Uint8Array.from does) or byte by byte would surprise.
function keyBytes(key, index) {
  if (typeof key === "string") return utf8.encode(key);
  if (ArrayBuffer.isView(key)) {
    // The tag, not instanceof: a Uint8Array from another realm is still one.
    const kind = key[Symbol.toStringTag];
    if (kind === "Uint8Array" || kind === "DataView") return new Uint8Array(key.buffer, key.byteOffset, key.byteLength);
    throw new TypeError(`mcp-sealed-state: key #${index} must be a string or a Uint8Array, not a ${kind} (its elements are not bytes; convert it explicitly)`);
  }
  if (key instanceof ArrayBuffer) return new Uint8Array(key);
  throw new TypeError(`mcp-sealed-state: key #${index} must be a string or a Uint8Array (or an ArrayBuffer or DataView of its bytes)`);
}

function wholeNumber(value, fallback, name, min) {
  const n = value ?? fallback;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new RangeError(`mcp-sealed-state: ${name} must be a finite number`);
  if (!Number.isInteger(n) || n < min) throw new RangeError(`mcp-sealed-state: ${name} must be an integer >= ${min}`);
  return n;
}

function payloadJson(payload) {
  let json;
  try {
    json = JSON.stringify(payload);
  } catch (e) {
    throw new TypeError(`mcp-sealed-state: payload is not JSON-serializable (${e.message})`, { cause: e });
  }
  if (typeof json !== "string") throw new TypeError("mcp-sealed-state: payload is not JSON-serializable (undefined, a function or a symbol)");
  return json;
}

function bindOf(opts) {
  const bind = opts?.bind;
  if (bind !== undefined && typeof bind !== "string") throw new TypeError("mcp-sealed-state: bind must be a string");
  return bind;
}

function toolOf(tool) {
  if (typeof tool !== "string" || tool === "") throw new TypeError("mcp-sealed-state: a requestState token needs the tool name (a non-empty string)");
  return tool;
}

/** Seals and opens v1 tokens. The first key seals; every key opens. */
export class StateCodec {
  #codec;
  #now;
  #maxChars;
  #in = null; // view of the codec's input buffer
  #inPtr = 0;
  #inCap = 0;
  #outPtr = 0;
  #outCap = -1; // the output buffer only moves when a result outgrows this
  #la = 0;
  #lb = 0;

  constructor(options = {}) {
    const list = options.key === undefined || options.key === null ? [] : Array.isArray(options.key) ? options.key : [options.key];
    const keys = list.map(keyBytes);
    const ttl = wholeNumber(options.ttlSeconds, 600, "ttlSeconds", -Infinity);
    const leeway = wholeNumber(options.leewaySeconds, 0, "leewaySeconds", 0);
    const maxTokenBytes = wholeNumber(options.maxTokenBytes, DEFAULT_MAX_TOKEN_BYTES, "maxTokenBytes", 1);
    // Date.now is looked up per call (as the SDK does), so fake timers installed later apply.
    const now = options.now ?? (() => Date.now());
    if (typeof now !== "function") throw new TypeError("mcp-sealed-state: now must be a function returning milliseconds");
    const lengths = new Uint32Array(keys.map((k) => k.length));
    const all = new Uint8Array(lengths.reduce((a, b) => a + b, 0));
    keys.reduce((at, k) => (all.set(k, at), at + k.length), 0);
    try {
      this.#codec = new WasmCodec(all, lengths, ttl, leeway, maxTokenBytes, options.production ?? isProduction());
    } catch (e) {
      throw new RangeError(`mcp-sealed-state: ${e.message}`);
    } finally {
      all.fill(0);
    }
    if (this.#codec.isEphemeral && ephemeralWarningDue()) console.warn(ephemeralKeyWarning());
    this.#now = now;
    // A valid token is ASCII, so a longer JS string is refused before it is copied into wasm.
    this.#maxChars = maxTokenBytes;
  }

  // A clock that is not a finite number would reach wasm as NaN and read as the
  // epoch: every token would look fresh. Refuse it instead.
  #clock() {
    const ms = this.#now();
    if (typeof ms !== "number" || !Number.isFinite(ms)) throw new TypeError("mcp-sealed-state: now() must return finite milliseconds");
    return ms;
  }

  // A token this codec could not open again is refused when it is made, not when it comes back.
  #fits(token) {
    if (token.length > this.#maxChars) {
      throw new RangeError(`mcp-sealed-state: the sealed token is ${token.length} bytes, over maxTokenBytes (${this.#maxChars}); seal less, or raise maxTokenBytes`);
    }
    return token;
  }

  #check(token) {
    if (typeof token !== "string" || token.length > this.#maxChars) throw new SealedStateError("malformed");
    return token;
  }

  #grow(bytes) {
    this.#inPtr = this.#codec.inputBuffer(bytes); // may grow memory: take the buffer after it
    this.#inCap = bytes;
    return (this.#in = new Uint8Array(heap().buffer, this.#inPtr, bytes));
  }

  // Write `a`, `b` ("" for none) and `c` (undefined for none) back to back into
  // the input buffer. Their byte lengths: #la, #lb, and the return value (-1: no c).
  #write(a, b, c) {
    let view = this.#in;
    if (view === null) view = this.#grow(256);
    else if (view.byteLength === 0) view = this.#in = new Uint8Array(heap().buffer, this.#inPtr, this.#inCap); // memory grew
    let la = put(view, 0, a);
    let lb = 0;
    let lc = -1;
    let fits = la >= 0;
    if (fits && b !== "") fits = (lb = put(view, la, b)) >= 0;
    if (fits && c !== undefined) fits = (lc = put(view, la + lb, c)) >= 0;
    if (!fits) {
      // Room for the UTF-8 worst case (3 bytes per UTF-16 unit), then write again.
      view = this.#grow(3 * (a.length + b.length + (c === undefined ? 0 : c.length)));
      la = put(view, 0, a);
      lb = b === "" ? 0 : put(view, la, b);
      lc = c === undefined ? -1 : put(view, la + lb, c);
    }
    this.#la = la;
    this.#lb = lb;
    return lc;
  }

  // The `n` bytes of UTF-8 the last call left in the output buffer.
  #text(n) {
    if (n > this.#outCap) {
      this.#outPtr = this.#codec.outputBuffer();
      this.#outCap = this.#codec.outputCapacity();
    }
    return utf8Out.decode(heap().subarray(this.#outPtr, this.#outPtr + n));
  }

  #seal(what, json, tool, bind) {
    const lc = this.#write(json, tool, bind);
    const n = this.#codec.sealIo(what, this.#la, this.#lb, lc, this.#clock());
    if (n < 0) throw new Error("mcp-sealed-state: internal error (the wasm codec refused its input)");
    return this.#fits(this.#text(n));
  }

  #open(what, token, tool, bind) {
    const lc = this.#write(token, tool, bind);
    const n = this.#codec.openIo(what, this.#la, this.#lb, lc, this.#clock());
    if (n < 0) throw new SealedStateError(REASONS[-n] ?? "malformed");
    return JSON.parse(this.#text(n));
  }

  /** A view token for the widget (`{"p":"v","d":payload}` under the MAC). */
  seal(payload, opts) {
    return this.#seal(IO_VIEW, payloadJson(payload), "", bindOf(opts));
  }

  /** The payload of a view token, or a SealedStateError. */
  open(token, opts) {
    const bind = bindOf(opts);
    return this.#open(IO_VIEW, this.#check(token), "", bind);
  }

  /** An MRTR requestState token that opens only for `tool`. */
  sealRequestState(payload, tool, opts) {
    return this.#seal(IO_REQUEST_STATE, payloadJson(payload), toolOf(tool), bindOf(opts));
  }

  /** The payload of a requestState token minted for `tool`. */
  openRequestState(token, tool, opts) {
    const bind = bindOf(opts);
    return this.#open(IO_REQUEST_STATE, this.#check(token), toolOf(tool), bind);
  }

  /** A raw v1 token, no purpose envelope: what the SDK's codec mints. */
  mint(payload, opts) {
    return this.#seal(IO_RAW, payloadJson(payload), "", bindOf(opts));
  }

  /** The payload of a raw v1 token: what the SDK's codec verifies. */
  verify(token, opts) {
    const bind = bindOf(opts);
    return this.#open(IO_RAW, this.#check(token), "", bind);
  }

  /** Free the wasm memory now instead of at garbage collection. */
  free() {
    // Forget the buffers first: writing into them after free would corrupt the wasm heap.
    this.#in = null;
    this.#outCap = -1;
    this.#codec.free();
  }
}
