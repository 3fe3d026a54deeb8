// mcp-sealed-state/solid: createViewState and createSealedToken (solid-js and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
import type { Accessor } from "solid-js";
import type { ViewStateValue } from "mcp-sealed-state/app";
import type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus } from "../view-binding/index.js";

export type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, StateUpdate, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus };
export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

/** Like createSignal, restored from this render's view-state store and saved back to it (debounced); stops with its owner, a pending save sent. */
export declare function createViewState<T extends ViewStateValue>(
  app: ViewStateSource | Accessor<ViewStateSource>,
  initial: T | (() => T),
  options?: ViewStateOptions,
): [Accessor<T>, (next: StateUpdate<T>) => void, Accessor<ViewStateStatus>];

export type SealedTokenAccessors = { readonly [K in keyof SealedTokenSnapshot]: Accessor<SealedTokenSnapshot[K]> } & SealedTokenActions;

/** The freshest sealed token of the View's tool results as accessors. */
export declare function createSealedToken(appOrKeeper: TokenKeeperSource | Accessor<TokenKeeperSource>, options?: SealedTokenOptions): SealedTokenAccessors;
