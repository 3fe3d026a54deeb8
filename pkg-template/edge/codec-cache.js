// @ts-check
// WasmCodecs shared by every StateCodec built with the same keys and options,
// so a server that builds its codec inside each request (a Worker reading its
// key from `env` in fetch) reuses one wasm codec instead of leaving one
// behind per request: where there is no FinalizationRegistry (workerd before
// compatibility date 2025-05-05) nothing frees them, and wasm memory never
// shrinks (js/bench/RESULTS.md, "Codecs per request", has the figures).
//
// At most LIMIT codecs live in wasm, least recently used first out: a call
// moves its codec to the back, so a hot tenant among many one-off keys stays
// built (js/bench/RESULTS.md, "Codec cache", has the cost per tenant count).
// A StateCodec holds its entry; an entry the cache evicted is freed at once
// and built again, from its own copy of the keys, by the next call that needs
// it. That copy lives as long as some StateCodec or the cache holds the entry,
// as the caller's own configuration does: free() does not zero it, because
// other codecs of the same keys share it. No JS string ever holds key bytes
// (a string cannot be zeroed): an entry is found by the options and a 64-bit
// hash of the keys, and its own copy is compared byte for byte.
//
// The keyless codecs share the process's development key, drawn by the core
// at their first call (never at construction: workerd refuses random values
// at a module's top level), so codecs built per request open each other's
// tokens.
import { EPHEMERAL_KEY_WARNING } from "../constants.js";
import { WasmCodec, ephemeralWarningDue } from "../wasm/edge.js";

/**
 * What a WasmCodec is built from: every key's bytes back to back, their
 * lengths, and the options the core reads.
 * @typedef {{ keys: Uint8Array, lengths: Uint32Array, ttl: number, leeway: number, maxTokenBytes: number, production: boolean }} CodecArgs
 */
/**
 * A cached codec: `wasm` is null while unbuilt (keyless, or evicted).
 * @typedef {{ id: string, args: CodecArgs, wasm: WasmCodec | null }} Entry
 */

/** Most WasmCodecs kept built. */
export const LIMIT = 64;
/** @type {Map<string, Entry>} */
const cache = new Map(); // id -> entry, least recently used first (ids: idOf)
/** @type {Entry | null} */
let newest = null; // the last entry used, which needs no move

/** Error thrown with a refused configError: the glue words it. */
export class ConfigError extends Error {
  /** @param {number} code */
  constructor(code) {
    super(`configError ${code}`);
    this.code = code;
  }
}

/** @param {CodecArgs} args */
function build(args) {
  const codec = new WasmCodec(args.keys, args.lengths, args.ttl, args.leeway, args.maxTokenBytes, args.production);
  const error = codec.configError;
  if (error !== 0) {
    codec.free();
    throw new ConfigError(error);
  }
  if (codec.isEphemeral && ephemeralWarningDue()) console.warn(EPHEMERAL_KEY_WARNING);
  return codec;
}

/** @param {Entry & { wasm: WasmCodec }} entry */
function insert(entry) {
  cache.set(entry.id, entry);
  newest = entry;
  if (cache.size > LIMIT) {
    const [id, oldest] = /** @type {[string, Entry & { wasm: WasmCodec }]} */ (cache.entries().next().value);
    cache.delete(id);
    oldest.wasm.free();
    /** @type {Entry} */ (oldest).wasm = null;
  }
  return entry;
}

// A hit: to the back of the line.
/**
 * @template {Entry} E
 * @param {E} entry
 */
function touch(entry) {
  if (entry !== newest) {
    cache.delete(entry.id);
    cache.set(entry.id, entry);
    newest = entry;
  }
  return entry;
}

// Every option the core reads, the key lengths, and two 32-bit FNV-1a
// hashes of the key bytes (of different offset bases): the id to look an
// entry up by, which holds no key byte. "" for the keyless ones (the
// development key).
/** @param {CodecArgs} args */
function idOf(args) {
  const keys = args.keys;
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < keys.length; i++) {
    a = Math.imul(a ^ keys[i], 0x01000193);
    b = Math.imul(b ^ keys[i], 0x01000193);
  }
  return `${args.ttl}/${args.leeway}/${args.maxTokenBytes}/${args.production ? 1 : 0}/${args.lengths.join(",")}/${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/**
 * @param {Uint8Array} x
 * @param {Uint8Array} y
 */
function sameBytes(x, y) {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

// The cached entry of `args` under `id` (keys compared byte for byte), or
// undefined; a different key list under the same hashes is a miss, and
// `freeId` is then an id of its own (they never share a codec).
let freeId = "";
/**
 * @param {string} id
 * @param {CodecArgs} args
 */
function lookup(id, args) {
  for (let n = 0; ; n++) {
    freeId = n === 0 ? id : `${id}#${n}`;
    const cached = cache.get(freeId);
    if (cached === undefined) return undefined;
    if (sameBytes(cached.args.keys, args.keys)) return cached;
  }
}

/**
 * The entry `{ id, args, wasm }` for `args` (`keys` all key bytes back to
 * back, a copy the entry keeps; `lengths`, `ttl`, `leeway`, `maxTokenBytes`,
 * `production`). Throws ConfigError for options that build no codec. A
 * keyless entry is built at its first call (live), not here.
 */
/**
 * @param {CodecArgs} args
 * @returns {Entry}
 */
export function codecFor(args) {
  const cached = lookup(idOf(args), args);
  if (cached !== undefined) return touch(cached);
  if (args.lengths.length === 0) return { id: freeId, args, wasm: null };
  return insert({ id: freeId, args, wasm: build(args) });
}

/** `entry`'s WasmCodec, or, once the cache evicted it, the entry that now holds one (built again if none does). */
/**
 * @param {Entry} entry
 * @returns {Entry & { wasm: WasmCodec }}
 */
export function live(entry) {
  if (entry.wasm !== null) return /** @type {Entry & { wasm: WasmCodec }} */ (entry === newest ? entry : touch(entry));
  const cached = lookup(idOf(entry.args), entry.args);
  if (cached !== undefined) return /** @type {Entry & { wasm: WasmCodec }} */ (touch(cached));
  entry.id = freeId;
  entry.wasm = build(entry.args);
  return insert(/** @type {Entry & { wasm: WasmCodec }} */ (entry));
}

/** A WasmCodec that trapped keeps wasm-bindgen's borrow: drop it (never free it) so new codecs get a fresh one. */
/** @param {Entry} entry */
export function discard(entry) {
  if (cache.get(entry.id) === entry) cache.delete(entry.id);
  if (newest === entry) newest = null;
  entry.wasm = null;
}
