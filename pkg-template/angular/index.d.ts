// mcp-sealed-state/angular: injectViewState and injectSealedToken (@angular/core
// and @modelcontextprotocol/ext-apps are optional peer dependencies).
import type { Signal } from "@angular/core";
import type { ViewStateValue } from "mcp-sealed-state/app";
import type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus } from "../view-binding/index.js";

export type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus };
export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

export interface InjectViewStateResult<T extends ViewStateValue> {
  value: Signal<T>;
  /** Set the state and save it back, debounced. */
  set(next: StateUpdate<T>): void;
  status: Signal<ViewStateStatus>;
  /** Send a pending save now. */
  flush(): Promise<boolean>;
}

/** The view state as a signal, restored from this render's store and saved back to it (debounced). In an injection context; stops with its DestroyRef, a pending save sent. */
export declare function injectViewState<T extends ViewStateValue>(app: ViewStateSource, initial: T | (() => T), options?: ViewStateOptions): InjectViewStateResult<T>;

export type InjectSealedTokenResult = { readonly [K in keyof SealedTokenSnapshot]: Signal<SealedTokenSnapshot[K]> } & SealedTokenActions;

/** The freshest sealed token of the View's tool results as signals. In an injection context. */
export declare function injectSealedToken(appOrKeeper: TokenKeeperSource, options?: SealedTokenOptions): InjectSealedTokenResult;
