// mcp-sealed-state/app-bridge: the Host side of ui/set-view-state over
// @modelcontextprotocol/ext-apps' AppBridge (an optional peer dependency).
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";

export declare const SET_VIEW_STATE_METHOD: "ui/set-view-state";
/** 65536: the proposal's suggested floor for maxBytes, the default maxBytes here. */
export declare const DEFAULT_VIEW_STATE_MAX_BYTES: 65536;
/** 5000 ms: how long one store load() or save() may take before it counts as failed. */
export declare const DEFAULT_STORE_TIMEOUT_MS: 5000;

/** Where a Host keeps one View instance's state. Either method may return a value or a promise. */
export interface ViewStateStore {
  /** The saved state (an object) or null; anything else, a throw or a timeout: not offered this render. */
  load(): unknown;
  /** Store `state` (null clears). A throw, a rejection or a timeout answers the View -32603. */
  save(state: Record<string, unknown> | null): unknown;
}

/** A store in localStorage under `key` (a value that does not parse makes load() throw). */
export declare function localStorageViewState(key: string, storage?: Storage): ViewStateStore;

export interface ViewStateBridgeOptions {
  storage: ViewStateStore;
  /** Default DEFAULT_VIEW_STATE_MAX_BYTES. */
  maxBytes?: number;
  /** Default DEFAULT_STORE_TIMEOUT_MS. */
  storeTimeoutMs?: number;
}

type BridgeArgs = ConstructorParameters<typeof AppBridge>;

export declare class ViewStateAppBridge extends AppBridge {
  constructor(client: BridgeArgs[0], hostInfo: BridgeArgs[1], hostCapabilities: BridgeArgs[2], options: BridgeArgs[3], viewState: ViewStateBridgeOptions);
  readonly viewStateMaxBytes: number;
  /** What the store holds: the last state saved (a save answered -32603 for its timeout counts once its store call completes), or what was read from it; null before the store was read. */
  readonly viewState: Record<string, unknown> | null;
  /** Whether the current render was offered hostCapabilities.viewState. */
  readonly viewStateOffered: boolean;
  /** Resolves once no save is in progress. */
  whenViewStateSettled(): Promise<void>;
  /** Called with the state after each successful save. */
  onviewstatesaved: ((state: Record<string, unknown> | null) => void) | undefined;
  /** Called with the error when the store could not be read for a render. */
  onviewstateunavailable: ((error: unknown) => void) | undefined;
}
