// @ts-check
// What the widget helpers accept as a message: a result (CallToolResult, the
// ui/initialize result), the params of a notification such as
// ui/notifications/tool-result, or either wrapped in its JSON-RPC message.

/** The result or params inside `x`, `x` itself when it is neither wrapper, or undefined for a non-object. */
/**
 * @param {unknown} x
 * @returns {any}
 */
export function resultOf(x) {
  if (x === null || typeof x !== "object") return undefined;
  const m = /** @type {{ method?: unknown, params?: unknown, jsonrpc?: unknown, result?: unknown }} */ (x);
  if (typeof m.method === "string" && m.params && typeof m.params === "object") return m.params;
  if (typeof m.jsonrpc === "string" && m.result && typeof m.result === "object") return m.result;
  return x;
}
