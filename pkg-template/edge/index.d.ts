export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError, SealedStateReason } from "../common.js";

/**
 * A StateCodec key: a string (its UTF-8 bytes) or a Uint8Array (its bytes;
 * Buffer included). An ArrayBuffer or DataView is also read as its bytes. Any
 * other typed array (Uint16Array, Float32Array, ...) is a TypeError: its
 * elements are not bytes. At least 32 bytes; copied at construction.
 */
export type Key = string | Uint8Array;

/**
 * StateCodec's options. Each accepts `undefined` (the default), so
 * `key: env.STATE_KEY` compiles under `exactOptionalPropertyTypes`. An unknown
 * option is a TypeError listing these names; a wrong type is a TypeError
 * naming the type that came.
 */
export interface CodecOptions {
  /** HMAC keys of at least 32 bytes (strings are UTF-8 encoded). The first seals; all open. An empty list is a RangeError. Left out: `env.STATE_KEY`, else the development key (one per process or isolate, drawn at the first call). */
  key?: Key | Key[] | null | undefined;
  /** Token lifetime in seconds, a positive safe integer; default 600. Re-sealing restarts it. */
  ttlSeconds?: number | null | undefined;
  /** Extra seconds an expired token still opens; default 0. */
  leewaySeconds?: number | null | undefined;
  /** Longer tokens are refused before any hashing; default 262144. */
  maxTokenBytes?: number | null | undefined;
  /** Bound of a request's RFC 8785 canonical UTF-8 text, checked while it is built (before any copy or hash); default 65536. Over it: a RangeError sealing, reason "request" opening. */
  maxRequestBytes?: number | null | undefined;
  /**
   * Refuse to run without a key. Left out: `env.NODE_ENV === "production"`
   * when `env` has NODE_ENV, else `process.env.NODE_ENV === "production"`
   * where that can be read (a bundler's `define` included). Anything but a
   * boolean is a TypeError.
   */
  production?: boolean | undefined;
  /**
   * A Worker's bindings (the `env` of `fetch`): `STATE_KEY` is the key unless
   * `key` is given, and `NODE_ENV` decides `production` unless it is given.
   * With production on and no STATE_KEY, the constructor throws a RangeError
   * that names the binding to set.
   */
  env?: { readonly STATE_KEY?: string | undefined; readonly NODE_ENV?: string | undefined; readonly [binding: string]: unknown } | undefined;
  /** Clock in milliseconds; default Date.now. */
  now?: (() => number) | undefined;
}

export interface BindOptions {
  /** A principal (e.g. the authenticated user): a token bound to one fails for another. */
  bind?: string | undefined;
}

export interface SecretOptions extends BindOptions {
  /**
   * JSON only a key holder reads: sealed with XChaCha20-Poly1305 under a key
   * derived from the sealing key, beside the readable payload. Not
   * JSON-serializable: a TypeError.
   */
  secret?: unknown;
}

export interface RequestOptions extends BindOptions {
  /**
   * The request's arguments, a plain JSON value: bound by a digest of their
   * RFC 8785 canonical JSON (key order does not matter); reason "request"
   * when they differ or one side has none. No canonical form (a non-finite
   * number, a lone surrogate, nesting past 64, a Map, Set, Date, BigInt,
   * function or class instance, text over maxRequestBytes): a TypeError or
   * RangeError sealing, reason "request" opening.
   */
  request?: unknown;
}

/** An opened token with its secret part; `secret` is undefined when the token has none. */
export interface Opened<T = unknown, S = unknown> {
  payload: T;
  secret: S | undefined;
}

export declare class StateCodec {
  constructor(options?: CodecOptions);
  /** A view token for the widget, optionally with a secret part only a key holder reads. */
  seal(payload: unknown, opts?: SecretOptions): string;
  /** The payload of a view token (a secret part stays sealed); throws SealedStateError. */
  open<T = unknown>(token: string, opts?: BindOptions): T;
  /** The payload and the secret of a view token; throws SealedStateError ("mac" for a secret that does not decrypt). */
  openWithSecret<T = unknown, S = unknown>(token: string, opts?: BindOptions): Opened<T, S>;
  /** An MRTR requestState token that opens only for `tool` (and, with `request`, only for those arguments). */
  sealRequestState(payload: unknown, tool: string, opts?: SecretOptions & RequestOptions): string;
  openRequestState<T = unknown>(token: string, tool: string, opts?: RequestOptions): T;
  openRequestStateWithSecret<T = unknown, S = unknown>(token: string, tool: string, opts?: RequestOptions): Opened<T, S>;
  /** A raw v1 token, no purpose envelope (what the SDK's codec mints). */
  mint(payload: unknown, opts?: BindOptions): string;
  verify<T = unknown>(token: string, opts?: BindOptions): T;
  /** Retire this codec (later calls throw). Codecs of the same keys and options share one wasm codec, so a codec per request needs no free(); a codec without a key is its own, and free() releases it. */
  free(): void;
}

/**
 * A failure of the drop-in's `verify`: as in the SDK, an `Error` whose
 * `message` is the reason code. `reason` is the same code.
 */
export interface RequestStateCodecError extends Error {
  readonly message: "malformed" | "mac" | "expired" | "bind";
  readonly reason: "malformed" | "mac" | "expired" | "bind";
}

export interface RequestStateCodecOptions {
  /**
   * The HMAC key, at least 32 bytes, read as the SDK reads it: a string is
   * UTF-8; anything else goes through `Uint8Array.from(key)` (an array of
   * numbers or another typed array element by element, modulo 256; an
   * ArrayBuffer as empty, so a RangeError). Copied at construction.
   */
  key: Uint8Array | string;
  /** Token lifetime in whole seconds (default 600; a fraction is a RangeError, unlike the SDK; 0 or negative, as in the SDK, makes every token born expired). */
  ttlSeconds?: number | undefined;
  /** Bind tokens to a principal; called at mint and, for a token that passed every other check, at verify. */
  bind?: ((ctx: any) => string) | undefined;
  /** Longer tokens are refused ("malformed") before hashing, and not minted; default 262144. Not in the SDK. */
  maxTokenBytes?: number | undefined;
}

export interface RequestStateCodec<T = unknown> {
  /** Seal a payload. With `bind`, `ctx` is required (a TypeError otherwise, as in the SDK). */
  mint(payload: T, ctx?: any): Promise<string>;
  /** The payload, or a rejection with a {@link RequestStateCodecError} (message "malformed" | "mac" | "expired" | "bind"). */
  verify(state: string, ctx: any): Promise<T>;
}

/**
 * Drop-in for @modelcontextprotocol/server's createRequestStateCodec: same
 * options, async shape, tokens and failures (verify's message is the SDK's
 * reason code, not SEALED_STATE_INVALID_MESSAGE). Lenient where the SDK is
 * (unknown options ignored, any whole ttlSeconds); stricter in two ways:
 * non-canonical base64url is refused, and so is a fractional ttlSeconds. `bind`
 * is called once for every token past the shape check (the SDK: only after the
 * MAC and exp passed); docs/drop-in.md lists every difference.
 */
export declare function createRequestStateCodec<T = unknown>(options: RequestStateCodecOptions): RequestStateCodec<T>;

export interface TmcpRequestStateCodecOptions extends CodecOptions {
  /**
   * The principal the state is bound to (a string, or undefined for none),
   * called at encode and at decode. tmcp's slot gets no context, but calls
   * both inside its request: read `server.ctx.auth` or `server.ctx.custom` here.
   */
  bind?: (() => string | undefined) | undefined;
  /**
   * What the state is for, e.g. `{ name, arguments }` of the tool call (pass it
   * as tmcp's custom context): bound by a digest of its RFC 8785 JSON, called
   * at encode and at decode; a retry with other arguments is refused.
   */
  request?: (() => unknown) | undefined;
}

/** tmcp's `requestStateCodec` shape. `decode` throws SealedStateError (tmcp answers -32602). */
export interface TmcpRequestStateCodec {
  encode(state: unknown): string;
  decode(encoded: string): unknown;
}

/**
 * A sealed, expiring codec for tmcp's `requestStateCodec` option, in place of
 * its default (plain JSON the client can read and change):
 * `new McpServer(info, { requestStateCodec: tmcpRequestStateCodec({ key }) })`.
 * Throws as `new StateCodec` does (no key in production: a RangeError).
 */
export declare function tmcpRequestStateCodec(options?: TmcpRequestStateCodecOptions): TmcpRequestStateCodec;

/**
 * `result` with the token (`_meta["ng-mcp-ui/state"]`) and the `viewUUID` of
 * its `_meta` copied into its `structuredContent`, for hosts that hand a View
 * only `content` and `structuredContent` (ext-apps' basic-host). Opt-in: the
 * model reads structuredContent, so it sees the token's readable payload and
 * spends its length. `result` is not changed.
 */
export declare function mirrorToStructuredContent<R extends { _meta?: Record<string, unknown> | undefined; structuredContent?: unknown }>(result: R): R & { structuredContent: Record<string, unknown> };
