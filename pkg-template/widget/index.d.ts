export { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, SealedStateError, SealedStateReason } from "../common.js";

/** What a token CLAIMS. UNVERIFIED: anyone can forge it; for display only. */
export interface TokenView<T = unknown> {
  payload: T;
  /** null for a raw `mint` token without a purpose envelope. */
  purpose: "view" | "requestState" | null;
  /** The tool of a requestState token. */
  tool: string | null;
  /** Expiry, unix seconds. */
  exp: number;
  /** Whether the token carries a bind tag. */
  bound: boolean;
  /** Whether it carries a secret part (only the server reads it; the widget sees that there is one, never what). */
  hasSecret: boolean;
}

/**
 * Which implementation serves this page now. In browsers the JS twin serves
 * from the first call and the wasm takes over once instantiated; where the
 * page's CSP refuses WebAssembly (no 'wasm-unsafe-eval') the JS twin serves
 * throughout, and after a wasm trap (a failed allocation) it takes over.
 * Both give the same results.
 */
export declare function backend(): "wasm" | "js";
/**
 * Resolves with the backend that serves from then on, once loading has
 * settled. Never rejects; calling it is optional (every function works at once).
 */
export declare function init(): Promise<"wasm" | "js">;

/** Decodes a token WITHOUT verifying anything. Throws SealedStateError("malformed") for anything but a v1 token. */
export declare function readTokenUnverified<T = unknown>(token: string): TokenView<T>;
/**
 * Whole seconds until the token stops opening, counting the second in
 * progress: > 0 while valid, <= 0 once expired. A token opens until the end
 * of its `exp` second, so a fresh 600 s token reads 601 in the second it was
 * sealed. Unverified. `nowMs` (default Date.now()) must be a finite number or
 * a Date, else a TypeError.
 */
export declare function secondsLeft(token: string, nowMs?: number | Date): number;
/**
 * The token to keep after a tool result (a CallToolResult, the params of
 * ui/notifications/tool-result, or a JSON-RPC message carrying either).
 * "Freshest" means the token the server sealed last; this pure function
 * estimates it by the later `exp` (which it cannot verify: in a View prefer
 * mcp-sealed-state/app's keepFreshestToken, which goes by arrival order).
 * The result's token is the first v1 token of its `_meta["ng-mcp-ui/state"]`
 * and its `structuredContent["ng-mcp-ui/state"]` (a server's mirror for hosts
 * that drop `_meta`); it is kept unless there is none, or `current` expires
 * strictly later. Throws a RangeError for a v1 token longer than the widget
 * reads (1 MiB), which only a codec whose maxTokenBytes was raised past it mints.
 */
export declare function adoptToken(current: string | null, toolResult: unknown): string | null;
/** An isError tool result with a text block whose whole text is our stable message or ng-mcp-ui's, bare or as an McpError's "MCP error <code>: …" (as the SDK and rust-server send it; not a substring): "expired, start over". */
export declare function isSealedStateError(toolResult: unknown): boolean;

/** JSON-RPC error codes of `ui/set-view-state`. */
export declare const VIEW_STATE_ERRORS: {
  /** -32602: never as given (e.g. over maxBytes, not an object). */
  readonly INVALID_PARAMS: -32602;
  /** -32603: not now (the Host could not store it). */
  readonly INTERNAL_ERROR: -32603;
  /** -32601: an older Host without the method. */
  readonly METHOD_NOT_FOUND: -32601;
};
/** A refused view-state save. */
export declare class ViewStateError extends Error {
  readonly code: -32602 | -32603;
}

/** Bytes of compact UTF-8 JSON: `new TextEncoder().encode(JSON.stringify(state)).length`. */
export declare function viewStateBytes(state: unknown): number;
/**
 * Throws ViewStateError (-32602) unless `state` is an object or null of at most
 * `maxBytes`; returns the compact JSON text it checked. Store that text (or what
 * parses from it), never a second serialization: a `toJSON` may answer differently.
 */
export declare function checkViewState(state: unknown, maxBytes: number): string;
/** 65536: the proposal's suggested floor for a Host's maxBytes, and the limit of the View-side stores without one. */
export declare const DEFAULT_VIEW_STATE_MAX_BYTES: 65536;
/** 5000: how long a Host's view-state store call may take by default (ms) before the save is answered -32603. */
export declare const DEFAULT_STORE_TIMEOUT_MS: 5000;
/**
 * The Host's offer from the RAW ui/initialize result (older ext-apps View SDKs
 * strip unknown hostCapabilities keys): null when not advertised, so send nothing.
 */
export declare function viewStateSupport(initializeResult: unknown): { maxBytes: number; state: Record<string, unknown> | null } | null;
/** The `ui/set-view-state` JSON-RPC request. Errors: -32602 never as given, -32603 not now, -32601 old Host. */
export declare function setViewStateRequest(
  id: number | string,
  state: Record<string, unknown> | null,
): { jsonrpc: "2.0"; id: number | string; method: "ui/set-view-state"; params: { state: Record<string, unknown> | null } };

/** Host side of `ui/set-view-state`: one store at a time, in order; queued saves coalesce to the newest. */
export declare class ViewStateSaveQueue {
  constructor(
    store: (state: Record<string, unknown> | null) => Promise<void> | void,
    opts: {
      maxBytes: number;
      initial?: Record<string, unknown> | null | undefined;
      /**
       * A store call that has not settled by then fails its saves with -32603
       * (default DEFAULT_STORE_TIMEOUT_MS, 5000 ms). If it completes later, its
       * state becomes `lastSaved` then (the store holds it).
       */
      storeTimeoutMs?: number | undefined;
    },
  );
  /** Rejects with ViewStateError: code -32602 (never as given) or -32603 (the store threw, rejected or timed out). */
  save(state: unknown): Promise<void>;
  /** A copy of the last state the store holds (`opts.initial`, or the last store call that completed, late ones included), for the next ui/initialize. */
  readonly lastSaved: Record<string, unknown> | null;
  /** Resolves once no save is being stored or waiting. */
  idle(): Promise<void>;
  readonly maxBytes: number;
}
