// A stand-in of ChatGPT's surface for Views, as its Apps SDK documents it,
// for the demo Host's `surface=chatgpt` and `surface=apps-sdk` (and the e2e
// tests named so): it is not ChatGPT, only what a View sees there.
//
// - `surface=apps-sdk`: the Apps SDK model alone (ChatGPT's widgets declared
//   by `openai/outputTemplate`, the MCPJam Inspector): no MCP Apps bridge
//   answers; `window.openai.callTool(name, args)` calls the tool through the
//   Host, which answers with the result without `_meta` and then updates
//   `toolResponseMetadata` with a set_globals event;
//
// - `_meta` is stripped from the tool result the View is given (as developers
//   report of ChatGPT's ui/notifications/tool-result, and of its bridge's
//   tools/call results);
// - `window.openai` is injected into the View's document before its scripts:
//   `toolInput`, `toolOutput` (the result's structuredContent),
//   `toolResponseMetadata` (the result's `_meta`), `widgetState` and
//   `setWidgetState(state)`, plus `theme`, `displayMode`, `locale`;
// - a later result updates those globals and fires `openai:set_globals` on
//   the View's window (`detail.globals`: what changed).
//
// The Host and the injected script talk over the View's postMessage channel
// with JSON-RPC notifications of their own methods (the proxy relays every
// message; ext-apps' transports ignore notifications they have no handler for).

/** Host -> View: `params.globals` changed. */
export const SET_GLOBALS_METHOD = "openai-stand-in/set_globals";
/** View -> Host: `params.state` is the widget state the View set. */
export const SET_WIDGET_STATE_METHOD = "openai-stand-in/set_widget_state";
/** View -> Host: `params` is `{ id, name, arguments }` of a window.openai.callTool (surface=apps-sdk). */
export const CALL_TOOL_METHOD = "openai-stand-in/call_tool";
/** Host -> View: `params` is `{ id, result }` or `{ id, error }` for that call. */
export const CALL_TOOL_RESULT_METHOD = "openai-stand-in/call_tool_result";

/** A tool result as this surface hands it to the View: everything but `_meta`. */
export function withoutMeta(result) {
  if (result === null || typeof result !== "object") return result;
  const { _meta, ...rest } = result;
  return rest;
}

/** The globals of a render: the call's input and result, and the saved widget state. */
export function globalsFor({ toolInput, result, widgetState }) {
  return {
    toolInput: toolInput ?? {},
    toolOutput: result?.structuredContent ?? null,
    toolResponseMetadata: result?._meta ?? null,
    widgetState: widgetState ?? null,
    theme: "light",
    displayMode: "inline",
    locale: "en-US",
  };
}

// Runs in the View's document (serialized into an inline script): the
// window.openai a ChatGPT View sees. No imports, no closure over this module.
function installOpenAi(initial, methods) {
  const globals = { ...initial };
  const post = (method, params) => window.parent.postMessage({ jsonrpc: "2.0", method, params }, "*");
  const openai = {};
  for (const name of Object.keys(globals)) Object.defineProperty(openai, name, { enumerable: true, get: () => globals[name] });
  openai.setWidgetState = async (state) => {
    globals.widgetState = state;
    post(methods.setWidgetState, { state });
  };
  const pending = new Map();
  if (methods.callTool) {
    let next = 0;
    openai.callTool = (name, args) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        post(methods.callTool, { id, name, arguments: args ?? {} });
      });
  }
  Object.defineProperty(window, "openai", { value: Object.freeze(openai), enumerable: true });
  window.addEventListener("message", (event) => {
    const message = event.data;
    if (event.source !== window.parent || message?.jsonrpc !== "2.0") return;
    if (message.method === methods.callToolResult && pending.has(message.params?.id)) {
      const { resolve, reject } = pending.get(message.params.id);
      pending.delete(message.params.id);
      if (message.params.error) reject(new Error(message.params.error));
      else resolve(message.params.result);
      return;
    }
    if (message.method !== methods.setGlobals) return;
    const changed = message.params?.globals ?? {};
    Object.assign(globals, changed);
    window.dispatchEvent(new CustomEvent("openai:set_globals", { detail: { globals: changed } }));
  });
}

// JSON inside an inline script: "<" escaped so no "</script>" can end it early.
const scriptJson = (value) => JSON.stringify(value).replaceAll("<", "\\u003c");

/** The View's HTML with window.openai installed first thing in its <head>; `callTool`: with window.openai.callTool (surface=apps-sdk). */
export function withOpenAi(html, globals, { callTool = false } = {}) {
  const methods = { setGlobals: SET_GLOBALS_METHOD, setWidgetState: SET_WIDGET_STATE_METHOD, ...(callTool && { callTool: CALL_TOOL_METHOD, callToolResult: CALL_TOOL_RESULT_METHOD }) };
  const script = `<script>(${installOpenAi})(${scriptJson(globals)}, ${scriptJson(methods)});</script>`;
  const head = /<head[^>]*>/i.exec(html);
  return head ? html.slice(0, head.index + head[0].length) + script + html.slice(head.index + head[0].length) : script + html;
}

/** Answer the View's window.openai.callTool `id` in `frame`: `{ result }` or `{ error }`. */
export function answerCallTool(frame, id, answer) {
  frame?.postMessage({ jsonrpc: "2.0", method: CALL_TOOL_RESULT_METHOD, params: { id, ...answer } }, "*");
}

/** Tell the View in `frame` (the sandbox proxy's window, which relays) that globals changed. */
export function setGlobals(frame, changed) {
  frame?.postMessage({ jsonrpc: "2.0", method: SET_GLOBALS_METHOD, params: { globals: changed } }, "*");
}
