// @ts-check
// Reads of ChatGPT's `window.openai` (its Apps SDK globals) that never throw:
// a page or a development tool may inject one whose getters throw or whose
// members have any shape, and the View must keep working. Whatever is not the
// documented shape reads as nothing.
import { STATE_META_KEY } from "mcp-sealed-state/widget";
import { resultOf } from "../widget/rpc.js";

/** A JSON-like object (not null, not an array). False where asking throws (Array.isArray throws on a revoked Proxy). */
/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
export function isRecord(value) {
  try {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** `record[name]`, or undefined where reading it throws. */
/**
 * @param {unknown} record
 * @param {string} name
 * @returns {any} whatever a page or a Host put there
 */
export function field(record, name) {
  try {
    return isRecord(record) ? record[name] : undefined;
  } catch {
    return undefined;
  }
}

/** The result or params inside a message, or undefined where its getters throw. */
/**
 * @param {unknown} message
 * @returns {any}
 */
export function safeResultOf(message) {
  try {
    return resultOf(message);
  } catch {
    return undefined;
  }
}

/** `scope.openai` when it is an object, else null. */
/**
 * @param {unknown} scope
 * @returns {Record<string, any> | null}
 */
export function openaiOf(scope) {
  const openai = field(scope, "openai");
  return openai !== null && typeof openai === "object" ? openai : null;
}

/**
 * A toolResponseMetadata as the tool result's `_meta`, or null when it is not
 * an object. Development tools (the mcp-use Inspector) put the whole result
 * there, `{ _meta, content, structuredContent }`: its `_meta` is read then,
 * where the object has no token and no viewUUID of its own.
 */
/**
 * @param {unknown} metadata
 * @returns {Record<string, any> | null}
 */
function metadataRecord(metadata) {
  if (!isRecord(metadata)) return null;
  const inner = field(metadata, "_meta");
  if (!isRecord(inner)) return metadata;
  try {
    return Object.hasOwn(metadata, STATE_META_KEY) || Object.hasOwn(metadata, "viewUUID") ? metadata : inner;
  } catch {
    return null; // a Proxy whose traps throw
  }
}

/**
 * `window.openai.toolResponseMetadata` (ChatGPT's copy of the render's tool
 * result `_meta`, which it strips from ui/notifications/tool-result) when it
 * is an object, else null.
 */
/** @param {unknown} scope */
export function toolResponseMetadataOf(scope) {
  return metadataRecord(field(openaiOf(scope), "toolResponseMetadata"));
}

/**
 * The toolResponseMetadata an `openai:set_globals` event brings: its
 * `detail.globals.toolResponseMetadata` where the event names it, else the
 * one `window.openai` holds now. null when that is not an object.
 */
/**
 * @param {unknown} event
 * @param {unknown} scope
 */
export function toolResponseMetadataOfEvent(event, scope) {
  const globals = field(field(event, "detail"), "globals");
  let named = false;
  try {
    named = isRecord(globals) && Object.hasOwn(globals, "toolResponseMetadata");
  } catch {
    named = false; // a Proxy whose traps throw
  }
  if (!named) return toolResponseMetadataOf(scope);
  return metadataRecord(field(globals, "toolResponseMetadata"));
}

/**
 * The events hosts fire on window when any of window.openai's globals changes
 * (theme, display mode, tool output, widget state): ChatGPT's, and the older
 * name that Apps SDK emulators still fire (the MCPJam Inspector's Tools tab).
 */
const SET_GLOBALS_EVENTS = Object.freeze(["openai:set_globals", "webplus:set_globals"]);

/** Listen to every SET_GLOBALS_EVENTS name on `scope`; returns the function that stops. Never throws. */
/**
 * @param {any} scope a window, or what stands for one
 * @param {(event: any) => void} listener
 * @returns {() => void}
 */
export function onSetGlobals(scope, listener) {
  /** @type {string[]} */
  const names = [];
  for (const name of SET_GLOBALS_EVENTS) {
    try {
      if (typeof scope?.addEventListener !== "function") break;
      scope.addEventListener(name, listener);
      names.push(name);
    } catch {
      // a window whose addEventListener throws: the other sources still serve
    }
  }
  return () => {
    for (const name of names) {
      try {
        scope.removeEventListener(name, listener);
      } catch {
        // a window whose removeEventListener throws: nothing more to stop
      }
    }
  };
}

/** `window.openai.callTool` when it is a function (the Apps SDK's way to call a tool), else null. */
/**
 * @param {unknown} scope
 * @returns {((name: string, args: unknown) => unknown) | null}
 */
export function openaiCallTool(scope) {
  const openai = openaiOf(scope);
  const call = field(openai, "callTool");
  return typeof call === "function" ? (/** @type {string} */ name, /** @type {unknown} */ args) => call.call(openai, name, args) : null;
}

const RESULT_MEMBERS = ["content", "structuredContent", "_meta", "isError"];

/**
 * What `window.openai.callTool` resolved with, as a CallToolResult. Hosts
 * answer with the result itself (ChatGPT, the MCPJam Inspector) or wrap it in
 * `{ result }`; a `result` that is a string is the text content. The MCPJam
 * Inspector 1.0.24 answers a tool's error result with `isError: false` and the
 * result in `structuredContent` (`{ content, isError: true }`), and a
 * protocol error with `{ isError: true, error }`: both are read as the error
 * results they are. Anything else is an empty result, which carries no token.
 */
/**
 * @param {unknown} response
 * @returns {import("./tool-calls.js").CallToolResult}
 */
export function callToolResultOf(response) {
  const looksLikeResult = (/** @type {unknown} */ value) => isRecord(value) && RESULT_MEMBERS.some((name) => field(value, name) !== undefined);
  const inner = field(response, "result");
  const picked = looksLikeResult(response) ? response : looksLikeResult(inner) ? inner : null;
  if (picked === null) return { content: typeof inner === "string" ? [{ type: "text", text: inner }] : [] };
  const wrapped = field(picked, "structuredContent");
  if (field(picked, "isError") !== true && field(wrapped, "isError") === true && Array.isArray(field(wrapped, "content"))) {
    return { content: field(wrapped, "content"), isError: true };
  }
  /** @type {Record<string, any>} */
  const result = {};
  for (const name of RESULT_MEMBERS) {
    const value = field(picked, name);
    if (value !== undefined && value !== null) result[name] = value;
  }
  if (!Array.isArray(result.content)) {
    const message = field(picked, "error");
    result.content = result.isError === true && typeof message === "string" ? [{ type: "text", text: message }] : [];
  }
  return /** @type {import("./tool-calls.js").CallToolResult} */ (result);
}
