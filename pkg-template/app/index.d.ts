// mcp-sealed-state/app: the View side of ui/set-view-state and sealed-token
// adoption over @modelcontextprotocol/ext-apps' App (an optional peer dependency).
import type { App } from "@modelcontextprotocol/ext-apps";
import type { ViewStateError } from "mcp-sealed-state/widget";

export type { ViewStateError };
type AppTransport = Parameters<App["connect"]>[0];
type AppRequestOptions = Parameters<App["request"]>[2];

/** A JSON object, or null: what a View may save. */
export type ViewStateValue = Record<string, unknown> | null;

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
  /**
   * Where `window.openai` exists, how long to wait for the MCP Apps bridge to
   * answer ui/initialize before deciding the store without it (default 500 ms):
   * Apps SDK hosts answer nothing.
   */
  bridgeTimeoutMs?: number | undefined;
  /** How long `ready` waits for the tool result whose viewUUID decides "local" (default 1000 ms). */
  readyTimeoutMs?: number | undefined;
}

/** How the View reached its Host: the MCP Apps bridge, or the Apps SDK's window.openai alone. */
export type HostModel = "mcp-apps" | "apps-sdk";

/**
 * For an App that something else connects (ext-apps' React `useApp`:
 * `useApp({ appInfo, capabilities: {}, onAppCreated: trackViewState })`):
 * makes every later `app.connect()` capture what view state needs, so that
 * mcp-sealed-state/react's `useViewState(app, initial)` finds this render's
 * ViewState. Returns nothing: `connectWithViewState` is the one way to hold one.
 */
export declare function trackViewState(app: App, options?: ViewStateOptions): void;

type ConnectOptions = NonNullable<Parameters<App["connect"]>[1]>;

/**
 * The one way to get a ViewState. Connects `app` (default: PostMessageTransport
 * to window.parent) and picks this render's view-state store: "host" (the Host
 * offers ui/set-view-state), "openai" (window.openai.setWidgetState; its
 * widgetState.privateContent, written through to "local" where that works),
 * "local" (a viewUUID of 1 to 128 characters, from the tool result's `_meta`,
 * window.openai.toolResponseMetadata or its `structuredContent`, and a working
 * localStorage), else "memory". `options.stores` restricts or reorders them;
 * the other options go to `app.connect`.
 */
export declare function connectWithViewState<T extends ViewStateValue = ViewStateValue>(app: App, transport?: AppTransport, options?: ConnectOptions & ViewStateOptions): Promise<ViewState<T>>;
export declare function connectWithViewState<T extends ViewStateValue = ViewStateValue>(app: App, options: ConnectOptions & ViewStateOptions): Promise<ViewState<T>>;

/**
 * Call a tool of the View's server in either host model, as ext-apps'
 * `app.callServerTool(params, options)`: through the MCP Apps bridge once the
 * Host answered ui/initialize, else through `window.openai.callTool` (Apps SDK
 * hosts), else through the bridge, which rejects when nothing is connected.
 * The app's token keepers adopt the result's token as the View's own call's
 * (so do they for every `app.callServerTool`).
 */
export declare function callTool(
  app: App,
  params: { name: string; arguments?: Record<string, unknown> | undefined },
  options?: AppRequestOptions,
): Promise<CallToolResult>;

/** A tool result as the View receives it. */
export interface CallToolResult {
  content: unknown[];
  structuredContent?: unknown;
  _meta?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
  [key: string]: unknown;
}

/** A View's view state for one render, on the best store it has. Made by connectWithViewState. */
export declare class ViewState<T extends ViewStateValue = ViewStateValue> {
  private constructor();
  /**
   * Resolves with this ViewState once `store` and `restored` are settled: at
   * once, except where "local" (or "openai"'s write-through to it, when
   * "openai" restored nothing) waits for the first tool result's viewUUID,
   * and then within `readyTimeoutMs` (default 1000 ms) whatever happens. A
   * "local" store that a later result decides joins then (it replaces
   * "memory", or becomes the write-through) and `subscribe` listeners hear of
   * it, with the state it restored. Never rejects.
   */
  readonly ready: Promise<this>;
  /** "mcp-apps" when the bridge answered ui/initialize; "apps-sdk" when the store was decided without it (window.openai only). */
  readonly hostModel: HostModel;
  /**
   * `listener(viewState)` runs when a store is decided after `ready` (a later
   * tool result named the viewUUID of a "local" store): `store`,
   * `writeThrough` and `restored` where it held a state, which no save
   * overwrites before the listeners ran. Returns the unsubscribe function.
   */
  subscribe(listener: (viewState: this) => void): () => void;
  /** Where saves go; "memory" also while a "local" store waits for the tool result. */
  readonly store: ViewStateStoreName;
  /**
   * "local" when saves to "openai" are also written to localStorage under the
   * viewUUID (a window.openai may keep state in memory only, as development
   * tools' does), else null.
   */
  readonly writeThrough: "local" | null;
  /** The store `restored` came from ("openai" first, then its write-through "local"), or null when nothing was restored. */
  readonly restoredFrom: ViewStateStoreName | null;
  /** The ui/initialize result as the Host sent it. */
  readonly rawInitializeResult: unknown;
  /** Whether the Host offered ui/set-view-state (hostCapabilities.viewState) for this render, whichever store is used. */
  readonly offered: boolean;
  /** The largest state save() takes (compact UTF-8 JSON bytes): the Host's maxBytes for "host", else 65536. */
  readonly maxBytes: number;
  /** This render's saved state, or null (nothing saved, or not decided yet). */
  readonly restored: T | null;
  /** The last state `store` accepted in this render, else the restored one. */
  readonly state: T | null;
  /** What each store answered to the last save (e.g. `{ openai: false, local: true }`), or null before the first. */
  readonly lastSave: Partial<Record<ViewStateStoreName, boolean>> | null;
  /**
   * Resolves true once `store` took it and it outlives the View; false for
   * "memory" (and before `ready`) or when window.openai / localStorage threw
   * (a write-through happens either way: see `lastSave`).
   * Rejects with ViewStateError: -32602 never as given (over maxBytes, not an
   * object: checked on the very text that is stored, so nothing is stored or
   * sent), from the Host -32603 not now, -32601 an old Host.
   */
  save(state: T | null, requestOptions?: AppRequestOptions): Promise<boolean>;
}

/** Where a kept token came from ("viewState": restored from the previous render's view state). */
export type TokenSource = "_meta" | "toolResponseMetadata" | "structuredContent" | "viewState" | "offer";

/**
 * What a View shows for its token: "waiting" (none yet, one may come),
 * "ready", "expired" (the server refused it: start over), "none" (the View
 * connected a while ago, no tool is running and no token came: start over;
 * a token arriving later makes it "ready").
 */
export type TokenStatus = "waiting" | "ready" | "expired" | "none";

/** Keeps the freshest sealed token (the one the server sealed last, by arrival order) of the app's tool results. */
export interface TokenKeeper {
  readonly token: string | null;
  /** Where the kept token came from, or null (none kept). */
  readonly source: TokenSource | null;
  /** True once a result refused the token ("expired, start over"); false again when a new token is adopted. */
  readonly expired: boolean;
  /** "waiting" | "ready" | "expired" | "none". */
  readonly status: TokenStatus;
  /**
   * Take a result of your own call obtained otherwise than through
   * `app.callServerTool` or `callTool` (those are taken without this): its
   * token replaces the kept one; returns the kept token.
   */
  adopt(result: unknown): string | null;
  /** Offer a token from elsewhere (e.g. the restored view state): kept unless the kept one came from your own call; returns the kept token. */
  offer(token: unknown): string | null;
  /** The last refusal of a result from the Host, or of a save of the token (`persist`), or null. */
  readonly error: unknown;
  /** Forget the token. */
  reset(): void;
  /** `listener()` runs after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Stop listening to the app and the window. */
  dispose(): void;
}

/** The part of a window the keeper reads: ChatGPT's `openai` globals and their `openai:set_globals` event. */
export interface OpenAiWindow {
  readonly openai?: unknown;
  addEventListener?(type: string, listener: (event: any) => void): void;
  removeEventListener?(type: string, listener: (event: any) => void): void;
}

/**
 * Keeps the token of the View's latest tool result ("freshest" = the token
 * the server sealed last, judged by arrival, never by the unverified `exp`),
 * from the first source that carries a v1 token: the result's `_meta`, then
 * `window.openai.toolResponseMetadata`, then the result's
 * `structuredContent`. The View's own calls (`app.callServerTool`,
 * `callTool`) are taken without a step of yours and replace the kept token;
 * the Host's results replace it in arrival order, never a token of your own
 * call. With `persist`, the token is kept in this app's view state and
 * restored from it on the next render, ahead of the render's replayed result.
 * The full rule: docs/views.md ("The token keeper").
 */
export declare function keepFreshestToken(
  app: App,
  options?: {
    /** A token from elsewhere (e.g. restored by your own means), kept like a restored one when it is an unexpired v1 token. */
    initial?: string | null | undefined;
    /**
     * Keep the token in this app's view state (connectWithViewState /
     * trackViewState): true (member "ng-mcp-ui/state") or the member name.
     * Every save carries it, it is saved again when it changes (null once the
     * server refused it), it is restored on the next render, and the member
     * is left out of `restored` and `state`.
     */
    persist?: boolean | string | undefined;
    /** Milliseconds, default Date.now: judges expiry. */
    now?: (() => number) | undefined;
    onchange?: ((token: string | null, previous: string | null) => void) | undefined;
    onexpired?: ((result: unknown) => void) | undefined;
    /** A result from the Host the keeper refused (e.g. a token over the read limit), or a failed save of the token; never thrown into the dispatch. */
    onerror?: ((error: unknown) => void) | undefined;
    /** The window whose `openai` is read and listened to (default globalThis). */
    window?: OpenAiWindow | undefined;
  },
): TokenKeeper;
