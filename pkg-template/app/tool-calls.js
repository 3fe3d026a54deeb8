// @ts-check
// The View's own tool calls, in both host models: through the MCP Apps bridge
// (ext-apps' `app.callServerTool`) or, where the Host speaks only the Apps
// SDK, through `window.openai.callTool`. Every result of either reaches the
// app's token keepers as the View's own call, so a View that drops a result
// still keeps its token.
import { callToolResultOf, openaiCallTool } from "./openai.js";

/** @import { App } from "@modelcontextprotocol/ext-apps" */

/**
 * A tool result as the View receives it.
 * @typedef {object} CallToolResult
 * @property {unknown[]} content
 * @property {unknown} [structuredContent]
 * @property {Record<string, unknown> | undefined} [_meta]
 * @property {boolean | undefined} [isError]
 */

/** What ext-apps' `app.request` takes as its options (a timeout, a signal). @typedef {Parameters<App["request"]>[2]} AppRequestOptions */

/** @typedef {(result: unknown, via: "bridge" | "openai") => void} OwnToolResultListener */

// App -> the listeners of its own calls' results.
/** @type {WeakMap<App, Set<OwnToolResultListener>>} */
const listenersOf = new WeakMap();

/** Whether `app`'s MCP Apps bridge is up: the Host answered ui/initialize. */
/** @param {App} app */
export function bridgeConnected(app) {
  try {
    return app.getHostCapabilities?.() !== undefined;
  } catch {
    return false;
  }
}

/**
 * @param {App} app
 * @param {unknown} result
 * @param {"bridge" | "openai"} via
 */
function dispatch(app, result, via) {
  for (const listener of listenersOf.get(app) ?? []) {
    try {
      listener(result, via);
    } catch (error) {
      // A keeper reports its own failures; a listener that still throws must not fail the View's call.
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/**
 * Call `listener(result, via)` with the result of each of the View's own tool
 * calls (`via`: "bridge" or "openai"); returns the function that stops. The
 * first listener of an app wraps its `callServerTool`, so calls made with it
 * directly are seen too.
 */
/**
 * @param {App} app
 * @param {OwnToolResultListener} listener
 * @returns {() => boolean}
 */
export function onOwnToolResult(app, listener) {
  let listeners = listenersOf.get(app);
  if (listeners === undefined) {
    listeners = new Set();
    listenersOf.set(app, listeners);
    const callServerTool = app.callServerTool;
    if (typeof callServerTool === "function") {
      app.callServerTool = async function (/** @type {Parameters<App["callServerTool"]>} */ ...args) {
        const result = await callServerTool.apply(this, args);
        dispatch(app, result, "bridge");
        return result;
      };
    }
  }
  listeners.add(listener);
  return () => /** @type {Set<OwnToolResultListener>} */ (listeners).delete(listener);
}

/**
 * Call a tool of the View's server in either host model, with the arguments
 * of ext-apps' `app.callServerTool(params, options)`: through the bridge once
 * the Host answered ui/initialize, else through `window.openai.callTool`
 * (Apps SDK hosts: ChatGPT's `openai/outputTemplate` widgets, the MCPJam
 * Inspector), else through the bridge, which rejects as ext-apps does when
 * nothing is connected. Resolves with a CallToolResult either way; the app's
 * token keepers adopt its token as the View's own call's (so do they for
 * every `app.callServerTool`).
 * @param {App} app
 * @param {{ name: string, arguments?: Record<string, unknown> | undefined }} params
 * @param {AppRequestOptions} [options]
 * @param {unknown} [scope] the window whose `openai` is read (default globalThis)
 * @returns {Promise<CallToolResult>}
 */
export async function callTool(app, params, options, scope = globalThis) {
  const viaOpenai = bridgeConnected(app) ? null : openaiCallTool(scope);
  if (viaOpenai === null) return app.callServerTool(params, options);
  const result = callToolResultOf(await viaOpenai(params?.name, params?.arguments ?? {}));
  dispatch(app, result, "openai");
  return result;
}
