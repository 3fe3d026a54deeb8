// @ts-check
// Rendered from the Rust core by tests/constants.rs: do not edit. After a change
// there, `UPDATE_CONSTANTS=1 cargo test --test constants` rewrites this file.

/** The `_meta` key of a tool result that carries the sealed token. */
export const STATE_META_KEY = "ng-mcp-ui/state";

/** The one message of every token failure. It never says which check failed. */
export const SEALED_STATE_INVALID_MESSAGE = "mcp-sealed-state: sealed state is invalid or expired";

/** Reason names by the code the wasm core reports (a tuple to the type checker: SealedStateReason is its names). */
export const REASONS = Object.freeze(/** @type {const} */ ([undefined, "malformed", "mac", "expired", "bind", "purpose", "request"]));

/** The reasons of the SDK's codec, and so of createRequestStateCodec's verify: the core's first four. */
export const SDK_REASONS = Object.freeze(/** @type {const} */ (["malformed", "mac", "expired", "bind"]));

/** Default token lifetime, seconds. */
export const DEFAULT_TTL_SECONDS = 600;

/** Default grace past a token's expiry, seconds: none. */
export const DEFAULT_LEEWAY_SECONDS = 0;

/** Default size limit of a token, bytes. */
export const DEFAULT_MAX_TOKEN_BYTES = 262144;

/** Deepest nesting of a request's arrays and objects (a scalar is depth 0, `[]` depth 1). */
export const MAX_REQUEST_DEPTH = 64;

/** Shortest key, bytes. */
export const MIN_KEY_BYTES = 32;

/** Longest token the unverified reader reads, bytes (a token is ASCII, so also chars). */
export const MAX_READ_CHARS = 1048576;

/** Characters of a token's MAC part (base64url of 32 bytes). */
export const MAC_CHARS = 43;

/** What every v1 token starts with. */
export const TOKEN_PREFIX = "v1.";

/** ng-mcp-ui's stable message, which widgets also read as "expired, start over". */
export const NG_MCP_UI_INVALID_MESSAGE = "ng-mcp-ui: sealed state is invalid or expired";

/** Largest clock either way from the epoch, ms (a JS Date's range). */
export const MAX_CLOCK_MS = 8640000000000000;

/** Logged once when a codec runs on the ephemeral development key. */
export const EPHEMERAL_KEY_WARNING = "mcp-sealed-state: no key configured; using a development key drawn at random once per process (once per isolate on Cloudflare Workers). Tokens open only in this process or isolate: not after a restart, on another instance or in another isolate. Set a key of at least 32 bytes. To make a missing key fatal: NODE_ENV=production in Node, Deno and Bun; on Workers pass the bindings (new StateCodec({ env })) and set the variable NODE_ENV = \"production\", or pass production: true.";

/** Default bound of a request's RFC 8785 canonical UTF-8 text, bytes (maxRequestBytes). */
export const DEFAULT_MAX_REQUEST_BYTES = 65536;

/** The MCP Apps request that saves view state. */
export const SET_VIEW_STATE_METHOD = "ui/set-view-state";

/** How long a Host's view-state store call may take by default, ms, before the save is answered -32603 (a JS-only rule: the save queue is JS). */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;

/** How long a View waits by default for the MCP Apps bridge to answer ui/initialize, ms, where window.openai exists, before it decides its store without the bridge (a JS-only rule). */
export const DEFAULT_BRIDGE_TIMEOUT_MS = 500;

/** How long a View's `ready` waits by default for the tool result whose viewUUID decides the "local" store, ms; a store decided later joins then (a JS-only rule). */
export const DEFAULT_READY_TIMEOUT_MS = 1000;

/** The proposal's suggested floor for a Host's maxBytes, and the size limit of the View-side stores that have no Host's maxBytes (a JS-only rule). */
export const DEFAULT_VIEW_STATE_MAX_BYTES = 65536;

/** The View's view-state stores, in the order connectWithViewState tries them (a JS-only rule). */
export const VIEW_STATE_STORES = Object.freeze(/** @type {const} */ (["host", "openai", "local", "memory"]));

/** How long a framework entry waits after a change before one save, ms, by default (a JS-only rule). */
export const DEFAULT_DEBOUNCE_MS = 300;

/** JSON-RPC error codes of `ui/set-view-state`. */
export const VIEW_STATE_ERRORS = Object.freeze({ INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603, METHOD_NOT_FOUND: -32601 });

/** Operation codes and statuses of the edge build's sealIo/openIo (src/bindings/protocol.rs). */
export const IO = Object.freeze({ VIEW: 0, REQUEST_STATE: 1, RAW: 2, SDK: 3, BAD_INPUT: -10, UNKNOWN_OP: -11, INVALID_CLOCK: -12, OUT_OF_MEMORY: -13, PAYLOAD_NOT_JSON: -14, TOKEN_TOO_LARGE: -15, NO_CODEC: -16, SECRET_NOT_JSON: -17, REQUEST_NOT_CANONICAL: -18, NO_RANDOMNESS: -19, WITH_SECRET: 128 });

/** Messages of a WasmCodec's configError by its low byte (src/bindings/protocol.rs); the key's index is above it, and {index} and {len} are that key's. */
export const CONFIG_ERRORS = Object.freeze([undefined, "key #{index} is {len} bytes; keys must be at least 32 bytes", "no key configured, and production mode refuses the ephemeral development key", "the platform's random number generator failed", "leewaySeconds must not be negative", "an option is out of range (ttlSeconds, leewaySeconds and maxTokenBytes are safe integers, maxTokenBytes positive; the key lengths add up to the key bytes)", "key #{index} is the same key as an earlier key to HMAC (which pads a key with zero bytes to 64 bytes and hashes a longer one); list each key once", "the key list is empty; give at least one key (or no key option for the development key)", "key #{index} is {len} bytes but ends in zero bytes, which HMAC ignores (it pads a key of up to 64 bytes with zeros), leaving fewer than 32; keys must be at least 32 bytes before trailing zero bytes", "key #{index} is all zero bytes, which is no secret (HMAC keys one of up to 64 bytes as the empty key); use a random key"]);
