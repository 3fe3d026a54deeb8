// mcp-sealed-state/preact: useViewState and useSealedToken over preact/hooks (preact and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
import type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus } from "../view-binding/index.js";
import type { ViewStateValue } from "mcp-sealed-state/app";

export type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus };
export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

/**
 * Like useState, restored from this render's view-state store and saved back to it (debounced).
 * `app`: an App connected with connectWithViewState, or one that ext-apps' `useApp` connects with
 * `onAppCreated: trackViewState`; or a ViewState.
 */
export declare function useViewState<T extends ViewStateValue>(app: ViewStateSource, initial: T | (() => T), options?: ViewStateOptions): [T, (next: StateUpdate<T>) => void, ViewStateStatus];

export interface SealedToken extends SealedTokenSnapshot, SealedTokenActions {}

/** The freshest sealed token of the View's tool results (the one the server sealed last, by arrival: see keepFreshestToken), and the "expired, start over" flag. */
export declare function useSealedToken(appOrKeeper: TokenKeeperSource, options?: SealedTokenOptions): SealedToken;
