// WasmCodecs shared by every StateCodec built with the same keys and options,
// so a server that builds its codec inside each request (a Worker reading its
// key from `env` in fetch) reuses one wasm codec instead of leaving one
// behind per request: where there is no FinalizationRegistry (workerd before
// compatibility date 2025-05-05) nothing frees them, and wasm memory never
// shrinks (js/bench/RESULTS.md, "Codecs per request", has the figures).
//
// At most LIMIT keyed codecs live in wasm. A StateCodec holds its entry; an
// entry the cache evicted is freed at once and built again, from its own
// copy of the keys, by the next call that needs it.
import { WasmCodec } from "../wasm/edge.js";

const LIMIT = 16;
const cache = new Map(); // id -> entry, least recently built first

/** Error thrown with a refused configError: the glue words it. */
export class ConfigError extends Error {
  constructor(code) {
    super(`configError ${code}`);
    this.code = code;
  }
}

function build(args) {
  const codec = new WasmCodec(args.keys, args.lengths, args.ttl, args.leeway, args.maxTokenBytes, args.production);
  const error = codec.configError;
  if (error !== 0) {
    codec.free();
    throw new ConfigError(error);
  }
  return codec;
}

function insert(entry) {
  cache.set(entry.id, entry);
  if (cache.size > LIMIT) {
    const [id, oldest] = cache.entries().next().value;
    cache.delete(id);
    oldest.wasm.free();
    oldest.wasm = null;
  }
  return entry;
}

// The keys (their lengths first, so two lists never spell the same id) and
// every option the core reads. It holds the key bytes as long as the entry
// lives, as the caller's own configuration does.
function idOf(args) {
  let id = `${args.ttl}/${args.leeway}/${args.maxTokenBytes}/${args.production ? 1 : 0}/${args.lengths.join(",")}/`;
  for (const b of args.keys) id += String.fromCharCode(b);
  return id;
}

/**
 * The entry `{ wasm }` for `args` (`keys` all key bytes back to back, a copy
 * the entry keeps; `lengths`, `ttl`, `leeway`, `maxTokenBytes`,
 * `production`), shared when it has keys. Throws ConfigError for options that
 * build no codec, or what the constructor threw. No keys: the ephemeral key,
 * which is drawn per codec, so that codec is its own (`id` null).
 */
export function codecFor(args) {
  if (args.lengths.length === 0) return { id: null, args, wasm: build(args) };
  const id = idOf(args);
  const cached = cache.get(id);
  if (cached !== undefined) return cached;
  return insert({ id, args, wasm: build(args) });
}

/** `entry`'s WasmCodec, or, once the cache evicted it, the entry that now holds one (built again if none does). */
export function live(entry) {
  if (entry.wasm !== null) return entry;
  const cached = cache.get(entry.id);
  if (cached !== undefined) return cached;
  entry.wasm = build(entry.args);
  return insert(entry);
}

/** A WasmCodec that trapped keeps wasm-bindgen's borrow: drop it (never free it) so new codecs get a fresh one. */
export function discard(entry) {
  if (entry.id !== null && cache.get(entry.id) === entry) cache.delete(entry.id);
  entry.wasm = null;
}

/** StateCodec.free(): a codec of its own is freed now; a shared one stays for its other users (at most LIMIT are kept). */
export function release(entry) {
  if (entry.id === null && entry.wasm !== null) {
    entry.wasm.free();
    entry.wasm = null;
  }
}
