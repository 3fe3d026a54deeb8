// mcp-sealed-state/svelte: the viewState and sealedToken stores (Svelte and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
import type { Readable, Writable } from "svelte/store";
import type { ViewStateValue } from "mcp-sealed-state/app";
import type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus } from "../view-binding/index.js";

export type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus };
export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

export interface ViewStateStore<T extends ViewStateValue> extends Writable<T> {
  status: Readable<ViewStateStatus>;
  /** Send a pending save now. */
  flush(): Promise<boolean>;
}

/** A writable store of the view state, restored from this render's store and saved back to it (debounced); followed while subscribed, a pending save sent at the last unsubscribe. */
export declare function viewState<T extends ViewStateValue>(app: ViewStateSource, initial: T | (() => T), options?: ViewStateOptions): ViewStateStore<T>;

export interface SealedTokenStore extends Readable<SealedTokenSnapshot>, SealedTokenActions {}

/** A readable store of the freshest sealed token and its status. */
export declare function sealedToken(appOrKeeper: TokenKeeperSource, options?: SealedTokenOptions): SealedTokenStore;
