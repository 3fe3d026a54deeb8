// StateCodec over the wasm codec. Payloads cross as JSON.stringify text, so
// tokens are byte-identical to @modelcontextprotocol/server's for equal input.
import { WasmCodec, ephemeralWarningDue, initSync } from "../wasm/edge.js";
import { CONFIG_ERRORS, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TTL_SECONDS, EPHEMERAL_KEY_WARNING, IO, MAC_CHARS, MAX_CLOCK_MS, REASONS, TOKEN_PREFIX } from "../constants.js";
import { SealedStateError } from "../common.js";
import { SDK_READING } from "./sdk-reading.js";

const utf8 = new TextEncoder();
const MALFORMED = REASONS[1]; // the code of Reason::Malformed

// The one path into wasm (WasmCodec's sealIo/openIo): strings go in as UTF-8
// written straight into the codec's input buffer in wasm memory, and the
// result is read straight out of its output buffer. No allocation per call
// for arguments or results, no copy made twice, and long strings are encoded
// natively (encodeInto) instead of char by char.
const utf8Out = new TextDecoder("utf-8", { ignoreBOM: true });
// Largest input buffer to ask for: wasm32 addresses 4 GiB, and inputBuffer's
// length crosses as an i32.
const MAX_INPUT_BYTES = 0x7fff_ffff;
const FREED = Symbol("freed"); // StateCodec#broken after free()
// Looked up at first use: the entry instantiates the wasm after this module
// runs. initSync() of an instantiated glue returns its exports; an export
// of the wasm's own (wasm_bindgen::memory()) would cost an import, and each
// import a wasm-to-JS wrapper V8 compiles with the module.
let memory;
let heapBytes = null;
function heap() {
  // Growing wasm memory detaches the old buffer (its views read as empty): renew the view then.
  if (heapBytes === null || heapBytes.byteLength === 0) heapBytes = new Uint8Array((memory ??= initSync().memory).buffer);
  return heapBytes;
}

// `s` as UTF-8 into `view` at `at`: its byte count, or, when it does not
// fit, -1 - (an upper bound of the bytes it needs from `at`).
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
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair of them, 4).
  return read === n ? written : -1 - (written + 3 * (n - read));
}

// The upper bound of the UTF-8 bytes of an optional string.
const worst = (s) => (s === undefined ? 0 : 3 * s.length);

// The fewest characters of a token whose payload (and tool) JSON has
// `chars` UTF-16 units, each at least a byte: prefix, base64url(envelope),
// ".", MAC, the envelope at least `{"p":` payload `,"exp":0}`.
const minTokenChars = (chars) => TOKEN_PREFIX.length + Math.ceil(((chars + 14) * 4) / 3) + 1 + MAC_CHARS;

// NODE_ENV as bundlers' `define` spells it, so a bundle with
// process.env.NODE_ENV replaced reads "production" too. No `process`
// (browsers, workerd without nodejs_compat) or env access denied (Deno
// without --allow-env): not production; pass `production` there.
function isProduction() {
  try {
    return process.env.NODE_ENV === "production";
  } catch {
    return false;
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

function wholeNumber(value, fallback, name, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  const n = value ?? fallback;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new RangeError(`mcp-sealed-state: ${name} must be a finite number`);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min > -Number.MAX_SAFE_INTEGER ? ` >= ${min}` : "";
    throw new RangeError(`mcp-sealed-state: ${name} must be a safe integer${range}`);
  }
  return n;
}

// The text of anything a callback threw, without throwing again: `throw
// null`, a Symbol, an object with no prototype, a `message` getter that throws.
function thrownText(e) {
  try {
    const message = e !== null && typeof e === "object" ? e.message : undefined;
    return typeof message === "string" ? message : String(e);
  } catch {
    return "a thrown value that cannot be shown as text";
  }
}

// `sdk`: the SDK's mint takes what JSON.stringify leaves out (undefined, a
// function, a symbol) and writes no "p"; 0 bytes of payload tell the core so.
function payloadJson(payload, sdk = false) {
  let json;
  try {
    json = JSON.stringify(payload);
  } catch (e) {
    throw new TypeError(`mcp-sealed-state: payload is not JSON-serializable (${thrownText(e)})`, { cause: e });
  }
  if (typeof json === "string") return json;
  if (sdk) return "";
  throw new TypeError("mcp-sealed-state: payload is not JSON-serializable (undefined, a function or a symbol)");
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

// The core's words for a WasmCodec's configError (src/bindings/protocol.rs):
// the code in the low byte, a short key's index above it.
function configMessage(error, keys) {
  const index = error >>> 8;
  const text = CONFIG_ERRORS[error & 0xff] ?? `internal error (configError ${error})`;
  return text.replace("{index}", String(index)).replace("{len}", String(keys[index]?.length));
}

function productionOf(production) {
  if (production === undefined) return isProduction();
  if (typeof production !== "boolean") throw new TypeError("mcp-sealed-state: production must be true, false or undefined (undefined reads NODE_ENV)");
  return production;
}

/** Seals and opens v1 tokens. The first key seals; every key opens. */
export class StateCodec {
  #codec;
  #now;
  #maxChars;
  #broken = null; // the error of a call that trapped: this codec is not used again
  #in = null; // view of the codec's input buffer
  #inPtr = 0;
  #inCap = 0;
  #outPtr = 0;
  #outCap = -1; // the output buffer only moves when a result outgrows this
  // Byte lengths of what the last #write put in the input buffer: the
  // payload or token, the tool (0: none), the bind value (-1: none).
  #subjectBytes = 0;
  #toolBytes = 0;
  #bindBytes = -1;
  // mint/verify's operation: SPEC's raw token, or, for createRequestStateCodec
  // alone, the same token written and read as the SDK's codec does.
  #raw = IO.RAW;

  constructor(options = {}) {
    const list = options.key === undefined || options.key === null ? [] : Array.isArray(options.key) ? options.key : [options.key];
    const keys = list.map(keyBytes);
    const ttl = wholeNumber(options.ttlSeconds, DEFAULT_TTL_SECONDS, "ttlSeconds");
    const leeway = wholeNumber(options.leewaySeconds, 0, "leewaySeconds", 0);
    const maxTokenBytes = wholeNumber(options.maxTokenBytes, DEFAULT_MAX_TOKEN_BYTES, "maxTokenBytes", 1, MAX_INPUT_BYTES);
    const production = productionOf(options.production);
    // Date.now is looked up per call (as the SDK does), so fake timers installed later apply.
    const now = options.now ?? (() => Date.now());
    if (typeof now !== "function") throw new TypeError("mcp-sealed-state: now must be a function returning milliseconds");
    const lengths = new Uint32Array(keys.map((k) => k.length));
    const all = new Uint8Array(lengths.reduce((a, b) => a + b, 0));
    keys.reduce((at, k) => (all.set(k, at), at + k.length), 0);
    let codec;
    try {
      codec = new WasmCodec(all, lengths, ttl, leeway, maxTokenBytes, production);
    } catch (e) {
      // A trap, which no options should cause: a clear error all the same.
      throw new RangeError(`mcp-sealed-state: the wasm codec failed (${thrownText(e)})`, { cause: e });
    } finally {
      all.fill(0);
    }
    // The core refused the options (a short key, no key in production, no
    // CSPRNG for the ephemeral key): its code, worded from constants.js.
    const error = codec.configError;
    if (error !== 0) {
      codec.free();
      throw new RangeError(`mcp-sealed-state: ${configMessage(error, keys)}`);
    }
    this.#codec = codec;
    if (this.#codec.isEphemeral && ephemeralWarningDue()) console.warn(EPHEMERAL_KEY_WARNING);
    if (options[SDK_READING] === true) this.#raw = IO.SDK;
    this.#now = now;
    // A valid token is ASCII, so a longer JS string is refused before it is copied into wasm.
    this.#maxChars = maxTokenBytes;
  }

  // Read before anything is written into wasm: a now() that calls this codec
  // again must find the input buffer free. A clock that is not finite would
  // read as the epoch (every token fresh): refuse it.
  #clock() {
    const ms = this.#now();
    if (typeof ms !== "number" || !(Math.abs(ms) <= MAX_CLOCK_MS)) {
      throw new TypeError(`mcp-sealed-state: now() must return finite milliseconds (within ${MAX_CLOCK_MS} of the epoch)`);
    }
    return ms;
  }

  #check(token) {
    if (typeof token !== "string" || token.length > this.#maxChars) throw new SealedStateError(MALFORMED);
    return token;
  }

  // Forget every pointer into wasm memory: the next call asks afresh.
  #forget() {
    this.#in = null;
    this.#outCap = -1;
  }

  #usable() {
    if (this.#broken === FREED) throw new Error("mcp-sealed-state: this StateCodec was freed; make a new StateCodec");
    if (this.#broken !== null) {
      throw new Error("mcp-sealed-state: this StateCodec failed earlier (the wasm codec trapped) and is not used again; make a new StateCodec", { cause: this.#broken });
    }
  }

  // A trap (which no input should cause: every buffer is grown fallibly)
  // leaves wasm-bindgen's borrow of the WasmCodec taken, so this codec is
  // retired with a clear error; other codecs are unaffected.
  #trapped(e) {
    this.#forget();
    this.#broken = e;
    return new Error(`mcp-sealed-state: the wasm codec failed (${thrownText(e)}); make a new StateCodec`, { cause: e });
  }

  #grow(bytes) {
    this.#in = null;
    let ptr;
    try {
      ptr = this.#codec.inputBuffer(bytes); // may grow memory: take the buffer after it
    } catch (e) {
      throw this.#trapped(e);
    }
    if (ptr === 0) throw new RangeError(`mcp-sealed-state: out of memory: no room in wasm memory for ${bytes} bytes of input`);
    this.#inPtr = ptr;
    this.#inCap = bytes;
    return (this.#in = new Uint8Array(heap().buffer, ptr, bytes));
  }

  #view() {
    const view = this.#in;
    if (view === null) return this.#grow(256);
    // Memory grew since: the old view is detached, the buffer itself has not moved.
    if (view.byteLength === 0) return (this.#in = new Uint8Array(heap().buffer, this.#inPtr, this.#inCap));
    return view;
  }

  // Write subject, tool and bind back to back into `view`: 0 when they fit,
  // else an upper bound of the bytes they need.
  #fill(view, subject, tool, bind) {
    const s = put(view, 0, subject);
    if (s < 0) return -1 - s + 3 * tool.length + worst(bind);
    const t = tool === "" ? 0 : put(view, s, tool);
    if (t < 0) return s - 1 - t + worst(bind);
    const b = bind === undefined ? 0 : put(view, s + t, bind);
    if (b < 0) return s + t - 1 - b;
    this.#subjectBytes = s;
    this.#toolBytes = t;
    this.#bindBytes = bind === undefined ? -1 : b;
    return 0;
  }

  // Write subject, tool ("" for none) and bind (undefined for none) into the input buffer.
  #write(subject, tool, bind) {
    let need = this.#fill(this.#view(), subject, tool, bind);
    if (need === 0) return;
    if (need > MAX_INPUT_BYTES) throw new RangeError(`mcp-sealed-state: out of memory: ${need} bytes of input cannot fit in wasm memory`);
    need = this.#fill(this.#grow(need), subject, tool, bind);
    if (need !== 0) throw new Error("mcp-sealed-state: internal error (the input outgrew the buffer sized for it)");
  }

  // The `n` bytes of UTF-8 the last call left in the output buffer.
  #text(n) {
    if (n > this.#outCap) {
      this.#outPtr = this.#codec.outputBuffer();
      this.#outCap = this.#codec.outputCapacity();
    }
    return utf8Out.decode(heap().subarray(this.#outPtr, this.#outPtr + n));
  }

  // The error for a negative status of sealIo/openIo that is not a reason.
  #failed(status) {
    switch (status) {
      case IO.OUT_OF_MEMORY:
        return new RangeError("mcp-sealed-state: out of memory in the wasm codec; the call did nothing");
      case IO.TOKEN_TOO_LARGE:
        return new RangeError(`mcp-sealed-state: the sealed token is over maxTokenBytes (${this.#maxChars}); seal less, or raise maxTokenBytes`);
      case IO.INVALID_CLOCK:
        return new TypeError("mcp-sealed-state: now() must return finite milliseconds");
      default:
        return new Error(`mcp-sealed-state: internal error (the wasm codec refused its input: status ${status})`);
    }
  }

  #seal(what, json, tool, bind) {
    this.#usable();
    const chars = json.length + tool.length;
    if (minTokenChars(chars) > this.#maxChars) {
      // It could never fit: refused before a byte of it is copied into wasm.
      throw new RangeError(`mcp-sealed-state: the sealed token would be at least ${minTokenChars(chars)} bytes, over maxTokenBytes (${this.#maxChars}); seal less, or raise maxTokenBytes`);
    }
    const now = this.#clock();
    this.#write(json, tool, bind);
    let n;
    try {
      n = this.#codec.sealIo(what, this.#subjectBytes, this.#toolBytes, this.#bindBytes, now);
    } catch (e) {
      throw this.#trapped(e);
    }
    if (n < 0) throw this.#failed(n);
    return this.#text(n);
  }

  #open(what, token, tool, bind) {
    this.#usable();
    const now = this.#clock();
    this.#write(token, tool, bind);
    let n;
    try {
      n = this.#codec.openIo(what, this.#subjectBytes, this.#toolBytes, this.#bindBytes, now);
    } catch (e) {
      throw this.#trapped(e);
    }
    if (n < 0) {
      const reason = REASONS[-n];
      if (reason === undefined) throw this.#failed(n);
      throw new SealedStateError(reason);
    }
    // 0 bytes, which no JSON text is: the SDK reading's token without "p".
    return n === 0 ? undefined : JSON.parse(this.#text(n));
  }

  /** A view token for the widget (`{"p":"v","d":payload}` under the MAC). */
  seal(payload, opts) {
    return this.#seal(IO.VIEW, payloadJson(payload), "", bindOf(opts));
  }

  /** The payload of a view token, or a SealedStateError. */
  open(token, opts) {
    const bind = bindOf(opts);
    return this.#open(IO.VIEW, this.#check(token), "", bind);
  }

  /** An MRTR requestState token that opens only for `tool`. */
  sealRequestState(payload, tool, opts) {
    return this.#seal(IO.REQUEST_STATE, payloadJson(payload), toolOf(tool), bindOf(opts));
  }

  /** The payload of a requestState token minted for `tool`. */
  openRequestState(token, tool, opts) {
    const bind = bindOf(opts);
    return this.#open(IO.REQUEST_STATE, this.#check(token), toolOf(tool), bind);
  }

  /** A raw v1 token, no purpose envelope: what the SDK's codec mints. */
  mint(payload, opts) {
    return this.#seal(this.#raw, payloadJson(payload, this.#raw === IO.SDK), "", bindOf(opts));
  }

  /** The payload of a raw v1 token: what the SDK's codec verifies. */
  verify(token, opts) {
    const bind = bindOf(opts);
    return this.#open(this.#raw, this.#check(token), "", bind);
  }

  /** Free the wasm memory now instead of at garbage collection. */
  free() {
    // Forget the buffers first: writing into them after free would corrupt the wasm heap.
    this.#forget();
    if (this.#broken === FREED) return;
    this.#broken = FREED;
    this.#codec.free();
  }
}
