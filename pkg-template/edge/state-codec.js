// @ts-check
// StateCodec over the wasm codec. Payloads cross as JSON.stringify text, so
// tokens are byte-identical to @modelcontextprotocol/server's for equal input.
import { DEFAULT_LEEWAY_SECONDS, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TTL_SECONDS, IO, MAX_CLOCK_MS, REASONS } from "../constants.js";
import { SealedStateError } from "../common.js";
import { SDK_READING } from "./sdk-reading.js";
import { ConfigError, codecFor, discard, live } from "./codec-cache.js";
import { MAX_INPUT_BYTES, forgetBuffers, readOutput, readOutputWithSecret, writeInput, written } from "./wasm-io.js";
import { CONFIG_KEY_EMPTY, CONFIG_NO_RANDOMNESS, KEY_BINDING, checkNames, configMessage, envOf, keyBytes, missingKey, productionOf, typeOf, wholeNumber } from "./codec-options.js";
import {
  NO_REQUEST,
  NO_SECRET_HERE,
  RAW_NO_REQUEST,
  RAW_NO_SECRET,
  bindOf,
  minSecretChars,
  minTokenChars,
  payloadJson,
  requestToOpen,
  requestToSeal,
  secretJson,
  thrownText,
  toolOf,
} from "./call-arguments.js";

/** @import { CodecOptions } from "./codec-options.js" */
/** @import { BindOptions, RequestOptions, SecretOptions } from "./call-arguments.js" */

/**
 * An opened token with its secret part; `secret` is undefined when the token has none.
 * @template [T=unknown]
 * @template [S=unknown]
 * @typedef {{ payload: T, secret: S | undefined }} Opened
 */

const MALFORMED = REASONS[1]; // the code of Reason::Malformed
const FREED = Symbol("freed"); // StateCodec#broken after free()
const CODEC_OPTIONS = ["key", "ttlSeconds", "leewaySeconds", "maxTokenBytes", "maxRequestBytes", "production", "now", "env"];
/**
 * Seals and opens v1 tokens (docs/format.md). The first key seals; every key
 * opens. A failed open throws SealedStateError, whose message never says which
 * check failed. docs/server.md shows it in a server.
 */
export class StateCodec {
  /** @type {import("./codec-cache.js").Entry} */
  #entry; // this codec's shared WasmCodec (codec-cache.js)
  /** @type {() => number} */
  #now;
  /** @type {number} */
  #maxRequestBytes;
  /** @type {number} */
  #maxChars;
  /** @type {unknown} */
  #broken = null; // the error of a call that trapped: this codec is not used again
  // mint/verify's operation: docs/format.md's raw token, or, for createRequestStateCodec
  // alone, the same token written and read as the SDK's codec does.
  /** @type {number} */
  #raw = IO.RAW;

  /** @param {CodecOptions} [options] */
  constructor(options = {}) {
    checkNames(options, CODEC_OPTIONS, "StateCodec");
    const sdk = /** @type {{ [SDK_READING]?: unknown }} */ (options)[SDK_READING] === true;
    const env = envOf(options.env);
    // null is no key, as it is no value for every other option: env's then.
    const key = options.key ?? env?.[KEY_BINDING];
    const list = key === undefined || key === null ? [] : Array.isArray(key) ? key : [key];
    // An empty list is a configuration mistake (an unset variable split into []), never the development key.
    if (Array.isArray(key) && list.length === 0) {
      throw new RangeError(`mcp-sealed-state: ${configMessage(CONFIG_KEY_EMPTY, [])}`);
    }
    const keys = list.map(keyBytes);
    // The drop-in takes any whole ttl, as the SDK does.
    const ttl = wholeNumber(options.ttlSeconds, DEFAULT_TTL_SECONDS, "ttlSeconds", sdk ? -Number.MAX_SAFE_INTEGER : 1);
    const leeway = wholeNumber(options.leewaySeconds, DEFAULT_LEEWAY_SECONDS, "leewaySeconds", 0);
    const maxTokenBytes = wholeNumber(options.maxTokenBytes, DEFAULT_MAX_TOKEN_BYTES, "maxTokenBytes", 1, MAX_INPUT_BYTES);
    this.#maxRequestBytes = wholeNumber(options.maxRequestBytes, DEFAULT_MAX_REQUEST_BYTES, "maxRequestBytes", 1, MAX_INPUT_BYTES);
    const production = productionOf(options.production, env);
    if (keys.length === 0 && production) throw missingKey(env);
    // Date.now is looked up per call (as the SDK does), so fake timers installed later apply.
    const now = options.now ?? (() => Date.now());
    if (typeof now !== "function") throw new TypeError(`mcp-sealed-state: now must be a function returning milliseconds, not ${typeOf(now)}`);
    const lengths = new Uint32Array(keys.map((k) => k.length));
    // A copy: the caller may change or zero its key after this (the drop-in does).
    const all = new Uint8Array(lengths.reduce((a, b) => a + b, 0));
    keys.reduce((at, k) => (all.set(k, at), at + k.length), 0);
    // The UTF-8 of a string key is this constructor's own copy (a caller's bytes are not).
    list.forEach((k, i) => typeof k === "string" && /** @type {Uint8Array} */ (keys[i]).fill(0));
    try {
      this.#entry = codecFor({ keys: all, lengths, ttl, leeway, maxTokenBytes, production });
      if (this.#entry.args.keys !== all) all.fill(0); // a shared codec keeps the copy it was built from
    } catch (e) {
      all.fill(0);
      // The core refused the options (a short key, no key in production, no
      // CSPRNG for the ephemeral key): its code, worded from constants.js.
      if (e instanceof ConfigError) throw new RangeError(`mcp-sealed-state: ${configMessage(e.code, keys)}`);
      // A trap, which no options should cause: a clear error all the same.
      throw new RangeError(`mcp-sealed-state: the wasm codec failed (${thrownText(e)})`, { cause: e });
    }
    if (sdk) this.#raw = IO.SDK;
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

  /** @param {unknown} token */
  #check(token) {
    if (typeof token !== "string" || token.length > this.#maxChars) throw new SealedStateError(MALFORMED);
    return token;
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
  /** @param {unknown} e */
  #trapped(e) {
    forgetBuffers();
    discard(this.#entry);
    this.#broken = e;
    return new Error(`mcp-sealed-state: the wasm codec failed (${thrownText(e)}); make a new StateCodec`, { cause: e });
  }

  // The WasmCodec to call, read after the clock: a now() that builds other
  // codecs may have made the cache evict this one's.
  #wasm() {
    try {
      return (this.#entry = live(this.#entry)).wasm;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      // The development key is drawn at first use. workerd refuses random
      // values outside a request (at a module's top level), and so may
      // another platform without a CSPRNG.
      if (e.code === CONFIG_NO_RANDOMNESS) {
        throw new Error(
          "mcp-sealed-state: no random values here to draw the development key (workerd refuses them at global scope, outside a request): build or use the codec inside fetch, or give it a key",
        );
      }
      throw new RangeError(`mcp-sealed-state: ${configMessage(e.code, [])}`);
    }
  }

  // The error for a negative status of sealIo/openIo that is not a reason.
  /** @param {number} status */
  #failed(status) {
    switch (status) {
      case IO.OUT_OF_MEMORY:
        return new RangeError("mcp-sealed-state: out of memory in the wasm codec; the call did nothing");
      case IO.TOKEN_TOO_LARGE:
        return new RangeError(`mcp-sealed-state: the sealed token is over maxTokenBytes (${this.#maxChars}); seal less, or raise maxTokenBytes`);
      case IO.INVALID_CLOCK:
        return new TypeError("mcp-sealed-state: now() must return finite milliseconds");
      case IO.REQUEST_NOT_CANONICAL:
        return new TypeError("mcp-sealed-state: request has no canonical JSON form (RFC 8785: a number out of the double range, or nesting too deep)");
      case IO.NO_RANDOMNESS:
        return new Error("mcp-sealed-state: the platform's random number generator failed; nothing was sealed");
      default:
        return new Error(`mcp-sealed-state: internal error (the wasm codec refused its input: status ${status})`);
    }
  }

  /**
   * @param {number} what
   * @param {string} json
   * @param {string} tool
   * @param {string | undefined} bind
   * @param {string | undefined} [secret]
   * @param {string | undefined} [request]
   * @returns {string}
   */
  #seal(what, json, tool, bind, secret, request) {
    this.#usable();
    const chars = json.length + tool.length + minSecretChars(secret);
    if (minTokenChars(chars) > this.#maxChars) {
      // It could never fit: refused before a byte of it is copied into wasm.
      throw new RangeError(`mcp-sealed-state: the sealed token would be at least ${minTokenChars(chars)} bytes, over maxTokenBytes (${this.#maxChars}); seal less, or raise maxTokenBytes`);
    }
    const now = this.#clock();
    const wasm = this.#wasm();
    writeInput(json, tool, bind, secret, request);
    let n;
    try {
      n = wasm.sealIo(what, written.subject, written.tool, written.bind, written.secret, written.request, now);
    } catch (e) {
      throw this.#trapped(e);
    }
    if (n < 0) throw this.#failed(n);
    return readOutput(n);
  }

  // `what` with IO.WITH_SECRET: { payload, secret }, else the payload.
  /**
   * @param {number} what
   * @param {string} token
   * @param {string} tool
   * @param {string | undefined} bind
   * @param {string | undefined} [request]
   * @returns {any}
   */
  #open(what, token, tool, bind, request) {
    this.#usable();
    const now = this.#clock();
    const wasm = this.#wasm();
    writeInput(token, tool, bind, undefined, request);
    let n;
    try {
      n = wasm.openIo(what, written.subject, written.tool, written.bind, written.request, now);
    } catch (e) {
      throw this.#trapped(e);
    }
    if (n < 0) {
      const reason = REASONS[-n];
      if (reason === undefined) throw this.#failed(n);
      throw new SealedStateError(reason);
    }
    if ((what & IO.WITH_SECRET) !== 0) {
      const [payload, secret] = readOutputWithSecret(n);
      return { payload: JSON.parse(payload), secret: secret === "" ? undefined : JSON.parse(secret) };
    }
    // 0 bytes, which no JSON text is: the SDK reading's token without "p".
    return n === 0 ? undefined : JSON.parse(readOutput(n));
  }

  /**
   * A view token for the widget (`{"p":"v","d":payload}` under the MAC),
   * optionally with a `secret` part only a key holder reads.
   * @param {unknown} payload
   * @param {SecretOptions} [opts]
   * @returns {string}
   */
  seal(payload, opts) {
    checkNames(opts, ["bind", "secret"], "seal", { request: NO_REQUEST });
    return this.#seal(IO.VIEW, payloadJson(payload), "", bindOf(opts), secretJson(opts));
  }

  /**
   * The payload of a view token; throws SealedStateError. A secret part stays sealed.
   * @template [T=unknown]
   * @param {string} token
   * @param {BindOptions} [opts]
   * @returns {T}
   */
  open(token, opts) {
    checkNames(opts, ["bind"], "open", { request: NO_REQUEST, secret: NO_SECRET_HERE });
    const bind = bindOf(opts);
    return this.#open(IO.VIEW, this.#check(token), "", bind);
  }

  /**
   * The payload and the secret of a view token; throws SealedStateError ("mac" for a secret that does not decrypt).
   * @template [T=unknown]
   * @template [S=unknown]
   * @param {string} token
   * @param {BindOptions} [opts]
   * @returns {Opened<T, S>}
   */
  openWithSecret(token, opts) {
    checkNames(opts, ["bind"], "openWithSecret", { request: NO_REQUEST, secret: NO_SECRET_HERE });
    const bind = bindOf(opts);
    return this.#open(IO.VIEW | IO.WITH_SECRET, this.#check(token), "", bind);
  }

  /**
   * An MRTR requestState token that opens only for `tool` (and, given `request`, only for those arguments).
   * @param {unknown} payload
   * @param {string} tool
   * @param {SecretOptions & RequestOptions} [opts]
   * @returns {string}
   */
  sealRequestState(payload, tool, opts) {
    checkNames(opts, ["bind", "secret", "request"], "sealRequestState");
    return this.#seal(IO.REQUEST_STATE, payloadJson(payload), toolOf(tool), bindOf(opts), secretJson(opts), requestToSeal(opts, this.#maxRequestBytes));
  }

  /**
   * The payload of a requestState token minted for `tool` (and, if it was sealed with `request`, for those arguments); throws SealedStateError.
   * @template [T=unknown]
   * @param {string} token
   * @param {string} tool
   * @param {RequestOptions} [opts]
   * @returns {T}
   */
  openRequestState(token, tool, opts) {
    checkNames(opts, ["bind", "request"], "openRequestState", { secret: NO_SECRET_HERE });
    const bind = bindOf(opts);
    toolOf(tool);
    const request = requestToOpen(opts, this.#maxRequestBytes);
    return this.#open(IO.REQUEST_STATE, this.#check(token), toolOf(tool), bind, request);
  }

  /**
   * The payload and the secret of a requestState token minted for `tool`; throws SealedStateError.
   * @template [T=unknown]
   * @template [S=unknown]
   * @param {string} token
   * @param {string} tool
   * @param {RequestOptions} [opts]
   * @returns {Opened<T, S>}
   */
  openRequestStateWithSecret(token, tool, opts) {
    checkNames(opts, ["bind", "request"], "openRequestStateWithSecret", { secret: NO_SECRET_HERE });
    const bind = bindOf(opts);
    toolOf(tool);
    const request = requestToOpen(opts, this.#maxRequestBytes);
    return this.#open(IO.REQUEST_STATE | IO.WITH_SECRET, this.#check(token), toolOf(tool), bind, request);
  }

  /**
   * A raw v1 token, no purpose envelope: what the SDK's codec mints.
   * @param {unknown} payload
   * @param {BindOptions} [opts]
   * @returns {string}
   */
  mint(payload, opts) {
    checkNames(opts, ["bind"], "mint", { secret: RAW_NO_SECRET, request: RAW_NO_REQUEST });
    return this.#seal(this.#raw, payloadJson(payload, this.#raw === IO.SDK), "", bindOf(opts));
  }

  /**
   * The payload of a raw v1 token (what the SDK's codec verifies); throws SealedStateError.
   * @template [T=unknown]
   * @param {string} token
   * @param {BindOptions} [opts]
   * @returns {T}
   */
  verify(token, opts) {
    checkNames(opts, ["bind"], "verify", { secret: RAW_NO_SECRET, request: RAW_NO_REQUEST });
    const bind = bindOf(opts);
    return this.#open(this.#raw, this.#check(token), "", bind);
  }

  /**
   * Retire this codec: later calls throw. Its wasm codec is shared by every
   * StateCodec of the same keys and options (the development key included),
   * and stays in the cache of the 64 most recently used, so a codec per
   * request needs no free().
   */
  free() {
    this.#broken = FREED;
  }
}
