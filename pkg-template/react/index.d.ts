// mcp-sealed-state/react: useViewState and useSealedToken (React and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
import type { App } from "@modelcontextprotocol/ext-apps";
import type { HostModel, TokenKeeper, TokenSource, TokenStatus, ViewState, ViewStateStoreName, ViewStateValue } from "mcp-sealed-state/app";

/** 300 ms. */
export declare const DEFAULT_DEBOUNCE_MS: number;

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

/**
 * Like useState, restored from this render's view-state store and saved back to it (debounced).
 * `app`: an App connected with connectWithViewState, or one that ext-apps' `useApp` connects with
 * `onAppCreated: trackViewState`; or a ViewState.
 */
export declare function useViewState<T extends ViewStateValue>(
  app: App | ViewState | null | undefined,
  initial: T | (() => T),
  options?: { debounceMs?: number | undefined },
): [T, (next: T | ((previous: T) => T)) => void, ViewStateStatus];

export interface SealedToken {
  readonly token: string | null;
  /** Where the token came from, or null. */
  readonly source: TokenSource | null;
  readonly expired: boolean;
  /** "waiting" | "ready" | "expired" | "none" ("none": no token came: start over). */
  readonly status: TokenStatus;
  adopt(result: unknown): string | null;
  offer(token: unknown): string | null;
  reset(): void;
}

/** The freshest sealed token of the View's tool results (the one the server sealed last, by arrival: see keepFreshestToken), and the "expired, start over" flag. */
export declare function useSealedToken(
  appOrKeeper: App | TokenKeeper | null | undefined,
  options?: {
    initial?: string | null | undefined;
    /** As keepFreshestToken's: the token kept in the app's view state and restored from it (an App only; a keeper has its own). */
    persist?: boolean | string | undefined;
  },
): SealedToken;
