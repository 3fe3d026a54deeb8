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

/** The View-side stores, in the order they are tried. */
export type ViewStateStoreName = "host" | "openai" | "local" | "memory";
/** ["host", "openai", "local", "memory"]. */
export declare const VIEW_STATE_STORES: readonly ViewStateStoreName[];
/** "mcp-sealed-state/view/": the "local" store keeps a view's state under this prefix + its viewUUID. */
export declare const LOCAL_KEY_PREFIX: string;

export interface ViewStateOptions {
  /**
   * The stores to try, in order (default VIEW_STATE_STORES); "memory" is always
   * the last resort. An unknown name, a name twice, or an empty list is a TypeError.
   */
  stores?: readonly ViewStateStoreName[] | undefined;
}

/** Makes every later `app.connect()` capture the raw ui/initialize result and watch for the first tool result. Resolves with the ViewState once connected. */
export declare function trackViewState(app: App, options?: ViewStateOptions): Promise<ViewState>;
/** The ViewState of the app's latest connect (a promise until it is connected), or null if untracked. */
export declare function viewStateOf(app: App): Promise<ViewState> | null;
/** Calls `listener` after every connect of the app; returns the unsubscribe function. */
export declare function onViewState(app: App, listener: (viewState: ViewState) => void): () => void;

type ConnectOptions = NonNullable<Parameters<App["connect"]>[1]>;

/**
 * Connects `app` (default: PostMessageTransport to window.parent) and picks this
 * render's view-state store: "host" (the Host offers ui/set-view-state),
 * "openai" (window.openai.setWidgetState), "local" (the first tool result's
 * `_meta.viewUUID`, 1 to 128 characters, and a working localStorage), else
 * "memory". `options.stores` restricts or reorders them; the other options go to `app.connect`.
 */
export declare function connectWithViewState(app: App, transport?: AppTransport, options?: ConnectOptions & ViewStateOptions): Promise<ViewState>;
export declare function connectWithViewState(app: App, options: ConnectOptions & ViewStateOptions): Promise<ViewState>;

/** A View's view state for one render, on the best store it has. */
export declare class ViewState<T extends ViewStateValue = ViewStateValue> {
  constructor(app: App, rawInitializeResult: unknown, options?: ViewStateOptions);
  /**
   * Resolves with this ViewState once `store` and `restored` are final: at once,
   * except for "local", which waits for the first tool result (a result without
   * a usable viewUUID, or the Host cancelling the call, settles on the next store).
   * Never rejects. It stays pending while no tool result arrives.
   */
  readonly ready: Promise<this>;
  /** Where saves go; "memory" also while a "local" store waits for the tool result. */
  readonly store: ViewStateStoreName;
  /** The ui/initialize result as the Host sent it. */
  readonly rawInitializeResult: unknown;
  /** Whether the Host advertised hostCapabilities.viewState for this render (whichever store is used). */
  readonly supported: boolean;
  /** The Host's maxBytes, or null. */
  readonly maxBytes: number | null;
  /** The largest state save() takes (compact UTF-8 JSON bytes): the Host's maxBytes for "host", else 65536. */
  readonly limitBytes: number;
  /** This render's saved state from its store, or null (nothing saved, or not decided yet). */
  readonly restored: T | null;
  /** The last state the store accepted in this render, else the restored one. */
  readonly state: T | null;
  /**
   * Resolves true once a store that outlives the View took it; false for "memory"
   * (and before `ready`) or when window.openai / localStorage threw.
   * Rejects with ViewStateError: -32602 never as given (over limitBytes, not an
   * object: nothing is stored or sent); from the Host -32603 not now, -32601 an old Host.
   */
  save(state: T | null, requestOptions?: AppRequestOptions): Promise<boolean>;
}

/** Keeps the freshest sealed token of the app's tool results. */
export interface TokenKeeper {
  readonly token: string | null;
  /** True once a result refused the token ("expired, start over"); false again when a new token is adopted. */
  readonly expired: boolean;
  /** Take a result of your own `app.callServerTool()`: its token replaces the kept one; returns the kept token. */
  adopt(result: unknown): string | null;
  /** Offer a token from elsewhere (e.g. the restored view state): kept unless the kept one came from your own call; returns the kept token. */
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

/**
 * Keeps the token of the View's latest tool result, never judging by the
 * unverified `exp`: a token that is malformed, expired by `now()`, or the one
 * kept changes nothing; your own call's result (`adopt`) replaces the kept
 * token whatever its exp (arrival order); the Host's notified results and
 * offered tokens replace it in arrival order too, but never a token from your
 * own call. So neither a replay nor a forged far-future token can pin it.
 */
export declare function keepFreshestToken(
  app: App,
  options?: {
    /** Kept (without callbacks) when it is an unexpired v1 token. */
    initial?: string | null | undefined;
    /** Milliseconds, default Date.now: judges expiry. */
    now?: (() => number) | undefined;
    onchange?: ((token: string | null, previous: string | null) => void) | undefined;
    onexpired?: ((result: unknown) => void) | undefined;
    /** A notified tool result the keeper refused (e.g. a token over the read limit); never thrown into the dispatch. */
    onerror?: ((error: unknown) => void) | undefined;
  },
): TokenKeeper;
