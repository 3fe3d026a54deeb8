// The types the framework entries share (react, preact, vue, svelte, solid,
// angular); view-binding itself is not a public entry.
import type { App } from "@modelcontextprotocol/ext-apps";
import type { HostModel, TokenKeeper, TokenSource, TokenStatus, ViewState, ViewStateStoreName, ViewStateValue } from "mcp-sealed-state/app";

/** 300 ms. */
export declare const DEFAULT_DEBOUNCE_MS: number;

/** What a framework entry's view state follows: an App connected with connectWithViewState (or tracked by trackViewState), or the ViewState; null until connected. */
export type ViewStateSource = App | ViewState | null | undefined;
/** What a framework entry's token follows: an App (a keeper is made for it) or a keeper made before connect; null until there is one. */
export type TokenKeeperSource = App | TokenKeeper | null | undefined;

export interface ViewStateOptions {
  /** How long updates wait before one save (default 300 ms); read once. */
  debounceMs?: number | undefined;
}

export interface SealedTokenOptions {
  /** A token from elsewhere, offered once per source. */
  initial?: string | null | undefined;
  /** As keepFreshestToken's: the token kept in the app's view state and restored from it (an App only; a keeper has its own). */
  persist?: boolean | string | undefined;
}

export interface ViewStateStatus {
  /** Where saves go ("host" | "openai" | "local" | "memory"); null until the store is decided. */
  readonly store: ViewStateStoreName | null;
  /** How the View reached its Host; null until the store is decided. */
  readonly hostModel: HostModel | null;
  /** "local" when saves to "openai" are also written to localStorage, else null. */
  readonly writeThrough: "local" | null;
  /** The store the restored state came from, or null. */
  readonly restoredFrom: ViewStateStoreName | null;
  /** Whether the Host offered ui/set-view-state for this render. */
  readonly offered: boolean;
  /** The size limit saves apply (compact UTF-8 JSON bytes); null until the store is decided. */
  readonly maxBytes: number | null;
  readonly restored: ViewStateValue;
  readonly saving: boolean;
  /** The error of the last failed save (a ViewStateError), cleared by the next good one. */
  readonly error: unknown;
  /** Send a pending save now; resolves true once stored, false when nothing was sent or it failed. */
  flush(): Promise<boolean>;
}

/** The token as every framework entry shows it. */
export interface SealedTokenSnapshot {
  readonly token: string | null;
  /** Where the token came from, or null. */
  readonly source: TokenSource | null;
  readonly expired: boolean;
  /** "waiting" | "ready" | "expired" | "none" ("none": no token came: start over). */
  readonly status: TokenStatus;
}

/** The keeper's actions, as every framework entry passes them on. */
export interface SealedTokenActions {
  /** Take a result of your own call obtained otherwise than through app.callServerTool or callTool; returns the kept token. */
  adopt(result: unknown): string | null;
  /** Offer a token from elsewhere; returns the kept token. */
  offer(token: unknown): string | null;
  /** Forget the token. */
  reset(): void;
}

/** A state update: the next state, or a function of the previous one. */
export type StateUpdate<T> = T | ((previous: T) => T);
