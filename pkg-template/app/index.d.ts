// mcp-sealed-state/app: the View side of ui/set-view-state and sealed-token
// adoption over @modelcontextprotocol/ext-apps' App (an optional peer dependency).
import type { App } from "@modelcontextprotocol/ext-apps";
import type { ViewStateError } from "mcp-sealed-state/widget";

export type { ViewStateError };
type AppTransport = Parameters<App["connect"]>[0];
type AppRequestOptions = Parameters<App["request"]>[2];

/** A JSON object, or null: what a View may save. */
export type ViewStateValue = Record<string, unknown> | null;

/** Watches a transport for the RAW response to ui/initialize. Install before `app.connect(transport)`. */
export declare function captureInitializeResult(transport: AppTransport): {
  readonly promise: Promise<{ result?: unknown; error?: unknown }>;
  readonly result: unknown;
};

/** Makes every later `app.connect()` capture the raw ui/initialize result. Resolves with the ViewState once connected. */
export declare function trackViewState(app: App): Promise<ViewState>;
/** The ViewState of the app's latest connect (a promise until it is connected), or null if untracked. */
export declare function viewStateOf(app: App): Promise<ViewState> | null;
/** Calls `listener` after every connect of the app; returns the unsubscribe function. */
export declare function onViewState(app: App, listener: (viewState: ViewState) => void): () => void;

/** Connects `app` (default: PostMessageTransport to window.parent) and reads the Host's view-state offer. */
export declare function connectWithViewState(app: App, transport?: AppTransport, options?: Parameters<App["connect"]>[1]): Promise<ViewState>;

/** A View's view state for one render. */
export declare class ViewState<T extends ViewStateValue = ViewStateValue> {
  constructor(app: App, rawInitializeResult: unknown);
  /** The ui/initialize result as the Host sent it. */
  readonly rawInitializeResult: unknown;
  /** Whether the Host advertised hostCapabilities.viewState for this render. */
  readonly supported: boolean;
  /** The Host's maxBytes, or null. */
  readonly maxBytes: number | null;
  /** hostContext.viewState of this render's ui/initialize (null: nothing saved, or not supported). */
  readonly restored: T | null;
  /** The last state the Host accepted in this render, else the restored one. */
  readonly state: T | null;
  /**
   * Resolves true once the Host stored it; false when the Host has no capability (nothing sent).
   * Rejects with ViewStateError: -32602 never as given, -32603 not now, -32601 an old Host.
   */
  save(state: T | null, requestOptions?: AppRequestOptions): Promise<boolean>;
}

/** Keeps the freshest sealed token of the app's tool results. */
export interface TokenKeeper {
  readonly token: string | null;
  /** True once a result refused the token ("expired, start over"); false again when a new token is adopted. */
  readonly expired: boolean;
  /** Take a result of your own `app.callServerTool()`; returns the kept token. */
  adopt(result: unknown): string | null;
  /** Offer a token from elsewhere (e.g. the restored view state); returns the kept token. */
  offer(token: unknown): string | null;
  /** The last refusal of a notified tool result, or null. */
  readonly error: unknown;
  /** Forget the token. */
  reset(): void;
  /** `listener()` runs after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Stop listening to the app. */
  dispose(): void;
}

export declare function keepFreshestToken(
  app: App,
  options?: {
    initial?: string | null;
    onchange?: (token: string | null, previous: string | null) => void;
    onexpired?: (result: unknown) => void;
    /** A notified tool result the keeper refused (e.g. a token over the read limit); never thrown into the dispatch. */
    onerror?: (error: unknown) => void;
  },
): TokenKeeper;
