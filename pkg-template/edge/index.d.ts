export * from "../widget/index.js";

export type Key = string | Uint8Array;

export interface CodecOptions {
  /** HMAC keys of at least 32 bytes (strings are UTF-8 encoded). The first seals; all open. */
  key?: Key | Key[];
  /** Token lifetime; default 600. Re-sealing restarts it. */
  ttlSeconds?: number;
  /** Extra seconds an expired token still opens; default 0. */
  leewaySeconds?: number;
  /** Longer tokens are refused before any hashing; default 262144. */
  maxTokenBytes?: number;
  /**
   * Refuse to run without a key. Left out: `process.env.NODE_ENV === "production"`
   * where that can be read (a bundler's `define` included); a Worker passes
   * `env.NODE_ENV === "production"`. Anything but a boolean is a TypeError.
   */
  production?: boolean;
  /** Clock in milliseconds; default Date.now. */
  now?: () => number;
}

export interface BindOptions {
  /** A principal (e.g. the authenticated user): a token bound to one fails for another. */
  bind?: string;
}

export declare class StateCodec {
  constructor(options?: CodecOptions);
  /** A view token for the widget. */
  seal(payload: unknown, opts?: BindOptions): string;
  /** The payload of a view token; throws SealedStateError. */
  open<T = unknown>(token: string, opts?: BindOptions): T;
  /** An MRTR requestState token that opens only for `tool`. */
  sealRequestState(payload: unknown, tool: string, opts?: BindOptions): string;
  openRequestState<T = unknown>(token: string, tool: string, opts?: BindOptions): T;
  /** A raw v1 token, no purpose envelope (what the SDK's codec mints). */
  mint(payload: unknown, opts?: BindOptions): string;
  verify<T = unknown>(token: string, opts?: BindOptions): T;
  /** Release the wasm memory now rather than at garbage collection. */
  free(): void;
}

/** Drop-in for @modelcontextprotocol/server's createRequestStateCodec: same options, async shape and tokens. */
export declare function createRequestStateCodec<T = unknown>(options: {
  key: Key;
  ttlSeconds?: number;
  bind?: (ctx: any) => string;
}): { mint(payload: T, ctx?: any): Promise<string>; verify(state: string, ctx: any): Promise<T> };
