// @ts-check
// mcp-sealed-state/app: the View side of view state (the draft MCP Apps
// request `ui/set-view-state`) and sealed-token adoption, over
// @modelcontextprotocol/ext-apps' `App` (an optional peer dependency), in
// MCP Apps hosts and in Apps SDK hosts (window.openai only) alike.
//
//   const app = new App({ name: "my-view", version: "1.0.0" }, {});
//   const tokens = keepFreshestToken(app, { persist: true });   // before connect
//   const viewState = await connectWithViewState(app);
//   await viewState.ready;          // bounded; store and restored settled
//   viewState.store;                // one of VIEW_STATE_STORES
//   viewState.restored;             // this render's saved state, or null
//   await viewState.save({ tab });  // true once a store that outlives the View took it
//   await callTool(app, { name: "move", arguments: { state: tokens.token } }); // its token is kept
//
// ext-apps 2.0.4's App drops hostCapabilities keys it does not know, so
// `app.getHostCapabilities()` never shows `viewState`: the RAW ui/initialize
// result is read off the transport and handed to the widget's viewStateSupport().
import { PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { openaiOf } from "./openai.js";
import { track, viewStateOf } from "./tracking.js";

export { LOCAL_KEY_PREFIX, VIEW_STATE_STORES } from "./stores.js";
export { ViewState } from "./view-state.js";
export { keepFreshestToken } from "./token-keeper.js";
export { callTool } from "./tool-calls.js";

/** @import { App } from "@modelcontextprotocol/ext-apps" */
/** @import { ViewState } from "./view-state.js" */

/** What ext-apps' `app.connect` takes as its options. @typedef {NonNullable<Parameters<App["connect"]>[1]>} ConnectOptions */
/** connectWithViewState's options: ext-apps' connect options and the view-state ones. @typedef {ConnectOptions & ViewStateOptions} ConnectWithViewStateOptions */

// The types of the exports above, for programs that name them.
/** @typedef {import("./stores.js").ViewStateValue} ViewStateValue */
/** @typedef {import("./stores.js").ViewStateStoreName} ViewStateStoreName */
/** @typedef {import("./tracking.js").ViewStateOptions} ViewStateOptions */
/** @typedef {import("./tracking.js").AppTransport} AppTransport */
/** @typedef {import("./view-state.js").HostModel} HostModel */
/** @typedef {import("./tool-calls.js").CallToolResult} CallToolResult */
/** @typedef {import("./tool-calls.js").AppRequestOptions} AppRequestOptions */
/** @typedef {import("./token-keeper.js").TokenSource} TokenSource */
/** @typedef {import("./token-keeper.js").TokenStatus} TokenStatus */
/** @typedef {import("./token-keeper.js").TokenKeeper} TokenKeeper */
/** @typedef {import("./token-keeper.js").TokenKeeperState} TokenKeeperState */
/** @typedef {import("./token-keeper.js").TokenKeeperActions} TokenKeeperActions */
/** @typedef {import("./token-keeper.js").OpenAiWindow} OpenAiWindow */
/** @typedef {import("./token-keeper.js").KeepFreshestTokenOptions} KeepFreshestTokenOptions */
/** @typedef {import("mcp-sealed-state/widget").ViewStateError} ViewStateError */

/**
 * Make every later `app.connect()` of an App that something else connects
 * (ext-apps' React `useApp`: `onAppCreated: trackViewState`) capture what
 * the view state needs, so that the React hooks `useViewState(app)` find
 * this render's ViewState. `options` as for connectWithViewState (`stores`,
 * `bridgeTimeoutMs`, `readyTimeoutMs`). Returns nothing: connectWithViewState
 * is the one way to hold a ViewState.
 * @param {App} app
 * @param {ViewStateOptions} [options]
 * @returns {void}
 */
export function trackViewState(app, options) {
  void track(app, options === undefined ? undefined : { stores: options?.stores, bridgeTimeoutMs: options?.bridgeTimeoutMs, readyTimeoutMs: options?.readyTimeoutMs });
}

const isTransport = (/** @type {any} */ value) => typeof value?.send === "function" && typeof value?.start === "function";

/**
 * Connect `app` (default transport: PostMessageTransport to window.parent) and
 * pick the view-state store of this render: the first of VIEW_STATE_STORES
 * (constants.js) that it has. Where `window.openai` exists and the bridge has not
 * answered ui/initialize within `options.bridgeTimeoutMs` (an Apps SDK host
 * answers nothing), it resolves without the bridge (`hostModel` "apps-sdk")
 * and never rejects for the bridge. `options.stores` restricts or reorders
 * the stores ("memory" is always the last resort); `options.readyTimeoutMs`
 * bounds `ready`; the other options go to `app.connect`.
 * `connectWithViewState(app, options)` works too.
 * @template {ViewStateValue} [T=ViewStateValue]
 * @overload
 * @param {App} app
 * @param {AppTransport} [transport]
 * @param {ConnectWithViewStateOptions} [options]
 * @returns {Promise<ViewState<T>>}
 */
/**
 * @template {ViewStateValue} [T=ViewStateValue]
 * @overload
 * @param {App} app
 * @param {ConnectWithViewStateOptions} options
 * @returns {Promise<ViewState<T>>}
 */
/**
 * @param {App} app
 * @param {any} [transport]
 * @param {ConnectWithViewStateOptions} [options]
 * @returns {Promise<ViewState<any>>}
 */
export async function connectWithViewState(app, transport, options) {
  if (options === undefined && transport != null && !isTransport(transport)) [transport, options] = [undefined, transport];
  const { stores, bridgeTimeoutMs, readyTimeoutMs, ...connectOptions } = options ?? {};
  track(app, { stores, bridgeTimeoutMs, readyTimeoutMs });
  const connecting = app.connect(transport ?? new PostMessageTransport(window.parent, window.parent), options === undefined ? undefined : connectOptions);
  if (openaiOf(globalThis) === null) {
    await connecting;
    return /** @type {Promise<ViewState<any>>} */ (viewStateOf(app));
  }
  // The ViewState settles without the bridge if it does not answer in time; its late failure is ext-apps' timeout, expected here.
  connecting.catch(() => {});
  return /** @type {Promise<ViewState<any>>} */ (viewStateOf(app));
}
