// mcp-sealed-state/vue: useViewState and useSealedToken composables (Vue and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
import type { ComputedRef, MaybeRefOrGetter, Ref } from "vue";
import type { ViewStateValue } from "mcp-sealed-state/app";
import type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus } from "../view-binding/index.js";

export type { SealedTokenActions, SealedTokenOptions, SealedTokenSnapshot, TokenKeeperSource, ViewStateOptions, ViewStateSource, ViewStateStatus };
export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

export interface ViewStateRefs<T extends ViewStateValue> {
  /** The view state: assign it, or change the object it holds, and it is saved back debounced. */
  state: Ref<T>;
  status: Readonly<Ref<ViewStateStatus>>;
  /** Send a pending save now. */
  flush(): Promise<boolean>;
}

/** The view state as a writable ref, restored from this render's store and saved back to it (debounced); stops with the component, a pending save sent. */
export declare function useViewState<T extends ViewStateValue>(app: MaybeRefOrGetter<ViewStateSource>, initial: T | (() => T), options?: ViewStateOptions): ViewStateRefs<T>;

export type SealedTokenRefs = { readonly [K in keyof SealedTokenSnapshot]: ComputedRef<SealedTokenSnapshot[K]> } & SealedTokenActions;

/** The freshest sealed token of the View's tool results as readonly refs, and the "expired, start over" flag. */
export declare function useSealedToken(appOrKeeper: MaybeRefOrGetter<TokenKeeperSource>, options?: SealedTokenOptions): SealedTokenRefs;
