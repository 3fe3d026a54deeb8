// @ts-check
// What the widget helpers accept as a message: a result (CallToolResult, the
// ui/initialize result), the params of a notification such as
// ui/notifications/tool-result, or either wrapped in its JSON-RPC message.

/** The result or params inside `x`, `x` itself when it is neither wrapper, or undefined for a non-object. */
/**
 * @param {any} x a message of any shape
 * @returns {any}
 */
export function resultOf(x) {
  if (x === null || typeof x !== "object") return undefined;
  if (typeof x.method === "string" && x.params && typeof x.params === "object") return x.params;
  if (typeof x.jsonrpc === "string" && x.result && typeof x.result === "object") return x.result;
  return x;
}
