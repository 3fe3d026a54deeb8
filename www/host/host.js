// A minimal MCP Apps Host, in the page:
// - an MCP client (@modelcontextprotocol/client, Streamable HTTP) to the demo
//   server in workerd; with several endpoints (?servers=a,b) every HTTP request
//   goes to the next one in turn, so nothing can rely on session affinity;
// - the View rendered the way MCP Apps hosts render it: the tool's
//   `_meta.ui.resourceUri` names a `ui://` resource, read with resources/read
//   (one HTML file, `text/html;profile=mcp-app`); each tool call gets an
//   iframe on a SECOND origin, the sandbox proxy (www/sandbox/, served by
//   www/lib/sandbox-server.mjs under a CSP built from the resource's
//   `_meta.ui.csp`), which loads that HTML into an inner srcdoc iframe. This
//   page never serves the View from its own files;
// - ext-apps' AppBridge to the proxy (mcp-sealed-state/app-bridge's
//   ViewStateAppBridge adds ui/set-view-state); the View's tools/call requests
//   are forwarded to the server;
// - persistence like the proposal's basic-host: the tool calls (arguments and
//   results) and each call's view state live in this page's localStorage, so a
//   reload re-renders every View from the stored result plus its restored view
//   state, without calling any tool again.
//
// Query parameters: servers (comma-separated MCP endpoint URLs), user (the
// principal the server binds tokens to, sent in the demo servers' principal
// header, ../server/http-names.json; default "demo-user"),
// sandbox (the sandbox proxy's origin; default this page's port + 1), policy
// ("wasm": the declared origins plus 'wasm-unsafe-eval', the default; "spec":
// the MCP Apps spec's default policy, which refuses WebAssembly), viewstate
// ("host": ui/set-view-state offered, the default; "off": a plain AppBridge, as
// the shipping hosts have), frame ("opaque": the View without allow-same-origin,
// the default; "storage": with it, so the View has the sandbox origin's storage,
// as on a host that keeps per-view state in the frame), meta ("keep": the
// View gets the whole tool result, the default; "drop": the tool-result
// notification carries only `content` and `structuredContent`, as ext-apps'
// basic-host sends it: github.com/modelcontextprotocol/ext-apps/issues/646), surface ("mcp", the default; "chatgpt": a
// stand-in of ChatGPT's documented surface, ./openai-surface.js: `_meta`
// stripped from what the View is given, `window.openai` injected with the
// result's `_meta` as toolResponseMetadata and a structured widgetState kept
// per call by this page, `openai:set_globals` on each later result;
// "apps-sdk": the same window.openai with `callTool`, and no MCP Apps bridge
// at all, as ChatGPT's outputTemplate widgets and the MCPJam Inspector), tool
// (the tool the "new game" button calls, with no arguments, and renders;
// default "start", the demo's).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { DEFAULT_VIEW_STATE_MAX_BYTES, ViewStateAppBridge, localStorageViewState } from "mcp-sealed-state/app-bridge";
import { adoptToken, STATE_META_KEY } from "mcp-sealed-state/widget";
import HTTP_NAMES from "../server/http-names.json" with { type: "json" };
import { CALL_TOOL_METHOD, SET_WIDGET_STATE_METHOD, answerCallTool, globalsFor, setGlobals, withOpenAi, withoutMeta } from "./openai-surface.js";

const $ = (id) => document.getElementById(id);
const qs = new URLSearchParams(location.search);
const HOST_INFO = { name: "mcp-sealed-state demo host", version: "0.1.0" };
const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
const POLICIES = { wasm: "WebAssembly allowed ('wasm-unsafe-eval')", spec: "the spec's default (no WebAssembly)" };
const STORE_PREFIX = "mcp-sealed-state-demo";
const CALLS_KEY = `${STORE_PREFIX}:calls`;
/** The Host derives each View instance's key; the View never chooses it. */
const viewStateKey = (callId) => `${STORE_PREFIX}:view-state:${callId}`;
/** surface=chatgpt: the widget state window.openai.setWidgetState gave, per call. */
const widgetStateKey = (callId) => `${STORE_PREFIX}:widget-state:${callId}`;
/**
 * surface=chatgpt: the widget state of a call's first render, structured as
 * ChatGPT's is, with `modelContent` and `imageIds` as a page would have set
 * them: a View's view state must go into `privateContent` and keep them.
 */
const FIRST_WIDGET_STATE = Object.freeze({ modelContent: { note: "set by the page: the model sees this" }, imageIds: ["file-stand-in-1"] });

const servers = (qs.get("servers") ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean)
  .map((s) => new URL(s, location.href));
const user = (qs.get("user") ?? "").trim() || "demo-user";
const policy = Object.hasOwn(POLICIES, qs.get("policy") ?? "") ? qs.get("policy") : "wasm";
const offerViewState = qs.get("viewstate") !== "off";
const viewSandbox = qs.get("frame") === "storage" ? "allow-scripts allow-same-origin" : "allow-scripts";
const sandboxOrigin = new URL(qs.get("sandbox") || `${location.protocol}//${location.hostname}:${Number(location.port) + 1}`).origin;
const dropMeta = qs.get("meta") === "drop";
// surface=apps-sdk: the Apps SDK model alone: window.openai (with callTool) and no MCP Apps bridge at all.
const appsSdk = qs.get("surface") === "apps-sdk";
const chatgpt = qs.get("surface") === "chatgpt" || appsSdk;
const newCallTool = qs.get("tool")?.trim() || "start";

// Counters for tests and for the curious: tool calls this page load made, by name.
const stats = { toolCalls: {}, requests: 0 };
window.demoHost = {
  stats,
  servers: servers.map(String),
  user,
  policy,
  offerViewState,
  viewSandbox,
  sandboxOrigin,
  dropMeta,
  surface: appsSdk ? "apps-sdk" : chatgpt ? "chatgpt" : "mcp",
  calls: () => loadCalls(),
  widgetState: (callId) => loadWidgetState(callId),
  views: new Map(),
};

function loadWidgetState(callId) {
  try {
    return JSON.parse(localStorage.getItem(widgetStateKey(callId)) ?? "null");
  } catch {
    return null;
  }
}

/** What the View is given of a result: all of it, or what this Host's meta/surface setting leaves. */
function forView(result) {
  if (chatgpt) return withoutMeta(result);
  if (dropMeta) return { content: result.content, structuredContent: result.structuredContent };
  return result;
}

// ------------------------------------------------------------------ persistence
function loadCalls() {
  try {
    const calls = JSON.parse(localStorage.getItem(CALLS_KEY) ?? "[]");
    return Array.isArray(calls) ? calls.filter((c) => c && typeof c.id === "string" && c.result) : [];
  } catch {
    return [];
  }
}
function saveCalls(calls) {
  localStorage.setItem(CALLS_KEY, JSON.stringify(calls));
}
function updateCall(id, patch) {
  saveCalls(loadCalls().map((c) => (c.id === id ? { ...c, ...patch } : c)));
}

// ------------------------------------------------------------------ transport
const traffic = [];
function noteRequest(entry) {
  traffic.unshift(entry);
  traffic.length = Math.min(traffic.length, 14);
  renderTraffic();
}

function describeBody(body) {
  if (typeof body !== "string") return {};
  try {
    const msg = JSON.parse(body);
    const one = Array.isArray(msg) ? msg[0] : msg;
    return { rpc: one?.method ?? "response", name: one?.params?.name };
  } catch {
    return {};
  }
}

// Every request to the MCP endpoint goes to the next server in turn.
let turn = 0;
function rotatingFetch(input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input));
  let index = -1;
  if (servers.length > 1 && url.origin + url.pathname === servers[0].origin + servers[0].pathname) {
    index = turn++ % servers.length;
    const target = new URL(servers[index]);
    target.search = url.search;
    input = target;
  } else {
    index = servers.findIndex((s) => s.origin === url.origin);
  }
  const { rpc, name } = describeBody(init?.body);
  const started = performance.now();
  stats.requests++;
  const entry = { server: index, method: init?.method ?? "GET", rpc, name, status: "…", ms: null };
  noteRequest(entry);
  return fetch(input, init).then(
    (res) => {
      entry.status = res.status;
      entry.ms = Math.round(performance.now() - started);
      renderTraffic();
      return res;
    },
    (error) => {
      entry.status = "failed";
      renderTraffic();
      throw error;
    },
  );
}

// ------------------------------------------------------------------ MCP client
let client = null;
let tools = [];

async function connect() {
  client = new Client({ ...HOST_INFO }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new StreamableHTTPClientTransport(servers[0], {
    fetch: rotatingFetch,
    requestInit: { headers: { [HTTP_NAMES.principalHeader]: user } },
  });
  await client.connect(transport);
  ({ tools } = await client.listTools());
}

// The View of a tool: its `_meta.ui.resourceUri`, read once per page load.
const views = new Map();
function viewResource(tool) {
  const uri = tool?._meta?.ui?.resourceUri ?? tool?._meta?.["ui/resourceUri"]; // the older flat key too
  if (typeof uri !== "string" || !uri.startsWith("ui://")) return Promise.reject(new Error(`tool ${tool?.name} declares no ui:// View`));
  if (!views.has(uri)) {
    const read = client.readResource({ uri }).then(({ contents }) => {
      const content = contents.find((c) => c.uri === uri && c.mimeType === VIEW_MIME_TYPE && typeof c.text === "string");
      if (!content) throw new Error(`${uri}: no ${VIEW_MIME_TYPE} text in resources/read`);
      return { uri, html: content.text, csp: content._meta?.ui?.csp };
    });
    read.catch(() => views.delete(uri)); // a failed read is tried again on the next render
    views.set(uri, read);
  }
  return views.get(uri);
}

/** The sandbox proxy's URL for a View: this Host's policy, and the View's declared origins. */
function sandboxUrl(csp) {
  const url = new URL("/sandbox.html", sandboxOrigin);
  url.searchParams.set("policy", policy);
  url.searchParams.set("csp", JSON.stringify(csp ?? {}));
  return url.href;
}

async function callTool(name, args) {
  stats.toolCalls[name] = (stats.toolCalls[name] ?? 0) + 1;
  return client.callTool({ name, arguments: args });
}

// ------------------------------------------------------------------ one View per tool call
function tokenOf(result) {
  const t = result?._meta?.[STATE_META_KEY];
  return typeof t === "string" ? t : null;
}

function renderCall(call, { prepend = false } = {}) {
  const node = $("call-template").content.firstElementChild.cloneNode(true);
  node.dataset.callId = call.id;
  node.querySelector(".call-tool").textContent = `${call.tool}(${JSON.stringify(call.arguments ?? {})})`;
  node.querySelector(".call-id").textContent = call.id.slice(0, 13);
  node.querySelector(".call-id").title = call.id;
  node.querySelector(".call-time").textContent = new Date(call.at).toLocaleTimeString();
  const iframe = node.querySelector("iframe");
  const inspect = node.querySelector(".call-inspect");
  const vsNote = node.querySelector(".call-vs");
  const lastNote = node.querySelector(".call-last");
  const backendNote = node.querySelector(".call-backend");
  const storeNote = node.querySelector(".call-store");

  let latestToken = call.latestToken ?? tokenOf(call.result);
  const showToken = () => {
    inspect.hidden = !latestToken;
    if (latestToken) inspect.href = `/www/inspector.html#token=${encodeURIComponent(latestToken)}`;
  };
  showToken();

  if (prepend) $("games").prepend(node);
  else $("games").append(node);
  $("no-calls").hidden = true;

  const tool = tools.find((t) => t.name === call.tool);
  const bridgeArgs = [
    null, // the Host forwards tools/call itself (below), so it sees every result
    { ...HOST_INFO },
    { serverTools: {}, logging: {} },
    {
      hostContext: {
        theme: "light",
        platform: "web",
        displayMode: "inline",
        ...(tool && { toolInfo: { id: call.id, tool } }),
      },
    },
  ];
  const bridge = offerViewState
    ? new ViewStateAppBridge(...bridgeArgs, { storage: localStorageViewState(viewStateKey(call.id)), maxBytes: DEFAULT_VIEW_STATE_MAX_BYTES })
    : new AppBridge(...bridgeArgs);
  let renders = 0;
  bridge.oninitialized = async () => {
    renders++;
    node.dataset.renders = String(renders);
    const kept = bridge.viewState;
    vsNote.textContent = !offerViewState
      ? "view state: not offered by this Host (viewstate=off)"
      : !bridge.viewStateOffered
        ? "view state: not available for this render"
        : kept === null
          ? `view state: none yet (max ${bridge.viewStateMaxBytes} bytes)`
          : `view state: ${new TextEncoder().encode(JSON.stringify(kept)).length} bytes restored`;
    // The call that opened this View, replayed on every render (no new tools/call).
    await bridge.sendToolInput({ arguments: call.arguments ?? {} });
    await bridge.sendToolResult(forView(call.result));
    node.dataset.ready = "true";
  };
  // A tool call of the View, forwarded to the server: the Host sees every result.
  const forwardCall = async (params) => {
    const t0 = performance.now();
    const result = await callTool(params.name, params.arguments ?? {});
    const next = adoptToken(latestToken, result);
    if (next !== latestToken) {
      latestToken = next;
      updateCall(call.id, { latestToken });
      showToken();
    }
    lastNote.textContent = `${params.name} → ${result.isError ? "error" : "ok"} in ${Math.round(performance.now() - t0)} ms`;
    return result;
  };
  bridge.oncalltool = async (params) => {
    const result = await forwardCall(params);
    // ChatGPT's stand-in: the later result reaches window.openai's globals, after the View has the call's answer.
    if (chatgpt) setTimeout(() => setGlobals(iframe.contentWindow, { toolOutput: result.structuredContent ?? null, toolResponseMetadata: result._meta ?? null }));
    // basic-host forwards the View's own calls whole (only its notification drops _meta); ChatGPT's bridge strips them too.
    return chatgpt ? withoutMeta(result) : result;
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && height > 0) iframe.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onloggingmessage = ({ level, data }) => {
    // The View reports which backend of mcp-sealed-state/widget serves it, and which store keeps its state.
    if (data?.backend === "wasm" || data?.backend === "js") {
      backendNote.textContent = `widget backend: ${data.backend}`;
      node.dataset.backend = data.backend;
    }
    // The View names its store (one of VIEW_STATE_STORES); the Host only shows it.
    if (typeof data?.store === "string" && data.store !== "") {
      storeNote.textContent = `view store: ${data.store}`;
      node.dataset.store = data.store;
    }
    console.debug(`[view ${call.id.slice(0, 8)}] ${level}:`, data);
  };
  bridge.onviewstatesaved = (state) => {
    const bytes = new TextEncoder().encode(JSON.stringify(state)).length;
    vsNote.textContent = state === null ? "view state: cleared" : `view state: ${bytes} bytes saved (${new Date().toLocaleTimeString()})`;
  };
  bridge.onviewstateunavailable = (e) => (vsNote.textContent = `view state: unavailable (${e.message})`);

  const view = { call, node, iframe, bridge };
  window.demoHost.views.set(call.id, view);

  // Each load of the proxy announces itself; it then gets the View's HTML.
  let resource = null;
  // The render's globals: the call's result, or the latest one of the View's own calls (an Apps SDK host updates them).
  const renderResult = () => (appsSdk && call.latestResult ? call.latestResult : call.result);
  const htmlForRender = () =>
    chatgpt
      ? withOpenAi(resource.html, globalsFor({ toolInput: call.arguments, result: renderResult(), widgetState: loadWidgetState(call.id) ?? FIRST_WIDGET_STATE }), { callTool: appsSdk })
      : resource.html;
  bridge.onsandboxready = () => bridge.sendSandboxResourceReady({ html: htmlForRender(), sandbox: viewSandbox });
  if (appsSdk) {
    // No bridge answers the View: the sandbox proxy gets its HTML from here, and window.openai.callTool comes here.
    window.addEventListener("message", async (event) => {
      if (event.source !== iframe.contentWindow || event.data?.jsonrpc !== "2.0") return;
      if (event.data.method === "ui/notifications/sandbox-proxy-ready") {
        iframe.contentWindow.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: { html: htmlForRender(), sandbox: viewSandbox } }, "*");
        renders++;
        node.dataset.renders = String(renders);
        node.dataset.ready = "true";
      } else if (event.data.method === CALL_TOOL_METHOD) {
        const { id, name, arguments: args } = event.data.params ?? {};
        try {
          const result = await forwardCall({ name, arguments: args ?? {} });
          call.latestResult = result;
          updateCall(call.id, { latestResult: result });
          // As MCPJam answers: the result without its `_meta`, then the globals updated.
          answerCallTool(iframe.contentWindow, id, { result: { ...withoutMeta(result), _meta: null } });
          setTimeout(() => setGlobals(iframe.contentWindow, { toolOutput: result.structuredContent ?? null, toolResponseMetadata: result._meta ?? null }));
        } catch (e) {
          answerCallTool(iframe.contentWindow, id, { error: e.message });
        }
      }
    });
  }
  if (chatgpt) {
    // window.openai.setWidgetState in the View: this page keeps it per call, as ChatGPT keeps it per message.
    window.addEventListener("message", (event) => {
      if (event.source !== iframe.contentWindow || event.data?.jsonrpc !== "2.0" || event.data.method !== SET_WIDGET_STATE_METHOD) return;
      localStorage.setItem(widgetStateKey(call.id), JSON.stringify(event.data.params?.state ?? null));
      node.dataset.widgetStateSaves = String(Number(node.dataset.widgetStateSaves ?? 0) + 1);
    });
  }

  // Connect to the iframe's WindowProxy before it navigates; it stays the same
  // object across reloads of the iframe, each of which is a new render.
  const ready = viewResource(tool)
    .then(async (r) => {
      resource = r;
      node.dataset.policy = policy;
      if (!appsSdk) await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
      iframe.src = sandboxUrl(r.csp);
    })
    .catch((e) => {
      vsNote.textContent = `cannot render the View: ${e.message}`;
      showError(`cannot render the View of ${call.tool}: ${e.message}`);
    });

  node.querySelector(".call-reload").addEventListener("click", () => {
    if (!resource) return;
    node.dataset.ready = "false";
    iframe.src = sandboxUrl(resource.csp);
  });
  node.querySelector(".call-close").addEventListener("click", async () => {
    await Promise.race([bridge.teardownResource({}).catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
    await bridge.close().catch(() => {});
    node.remove();
    window.demoHost.views.delete(call.id);
    saveCalls(loadCalls().filter((c) => c.id !== call.id));
    localStorage.removeItem(viewStateKey(call.id)); // closing a call deletes its view state
    localStorage.removeItem(widgetStateKey(call.id));
    $("no-calls").hidden = loadCalls().length > 0;
  });
  return ready;
}

async function newGame() {
  const button = $("new-game");
  button.disabled = true;
  try {
    const args = {};
    const result = await callTool(newCallTool, args);
    if (result.isError) throw new Error(result.content?.find((c) => c.type === "text")?.text ?? `${newCallTool} failed`);
    const call = { id: crypto.randomUUID(), tool: newCallTool, arguments: args, result, at: Date.now() };
    saveCalls([call, ...loadCalls()]);
    await renderCall(call, { prepend: true });
  } catch (e) {
    showError(`${newCallTool} failed: ${e.message}`);
  } finally {
    button.disabled = false;
  }
}

// ------------------------------------------------------------------ page chrome
function showError(text) {
  const box = $("conn-error");
  box.hidden = false;
  box.textContent = text;
}

function serverLabel(i) {
  return i >= 0 && servers[i] ? servers[i].host : "?";
}

function renderTraffic() {
  const list = $("traffic");
  list.replaceChildren(
    ...traffic.map((t) => {
      const li = document.createElement("li");
      li.dataset.server = String(t.server);
      const what = t.rpc === "tools/call" && t.name ? `tools/call ${t.name}` : (t.rpc ?? t.method);
      const ok = typeof t.status === "number" && t.status < 400;
      li.innerHTML = `<span class="srv srv-${t.server % 4}"></span><span class="what"></span><span class="where"></span><span class="st"></span>`;
      li.querySelector(".srv").textContent = String(t.server + 1);
      li.querySelector(".what").textContent = what;
      li.querySelector(".where").textContent = serverLabel(t.server);
      li.querySelector(".st").textContent = t.ms === null ? String(t.status) : `${t.status} · ${t.ms} ms`;
      li.querySelector(".st").classList.toggle("bad", !ok && t.status !== "…");
      return li;
    }),
  );
  $("traffic-count").textContent = `${stats.requests} sent`;
}

function renderServer() {
  $("user").textContent = user;
  $("principal-header").textContent = HTTP_NAMES.principalHeader;
  $("policy").textContent = POLICIES[policy];
  $("policy").dataset.policy = policy;
  $("sandbox-origin").textContent = sandboxOrigin;
  $("host-view-state").textContent =
    `${offerViewState ? "ui/set-view-state offered" : "not offered (viewstate=off)"}; View frame ${viewSandbox.includes("allow-same-origin") ? "with storage (frame=storage)" : "opaque"}` +
    (chatgpt ? "; ChatGPT's surface (a stand-in): _meta stripped, window.openai injected" : dropMeta ? "; tool-result without _meta (meta=drop, as basic-host)" : "");
  for (const a of document.querySelectorAll("[data-switch-policy]")) {
    const next = new URL(location.href);
    next.searchParams.set("policy", a.dataset.switchPolicy);
    a.href = next.href;
    a.toggleAttribute("aria-current", a.dataset.switchPolicy === policy);
  }
  $("endpoints").replaceChildren(
    ...servers.map((s, i) => {
      const li = document.createElement("li");
      li.innerHTML = `<span class="srv srv-${i % 4}"></span><code></code>`;
      li.querySelector(".srv").textContent = String(i + 1);
      li.querySelector("code").textContent = s.host + s.pathname;
      li.title = s.href;
      return li;
    }),
  );
  $("traffic-hint").hidden = servers.length < 2;
}

async function main() {
  renderServer();
  if (servers.length === 0) {
    $("connect-card").hidden = false;
    $("conn-status").textContent = "no server";
    $("conn-status").dataset.status = "none";
    $("connect-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const next = new URL(location.href);
      next.searchParams.set("servers", $("connect-urls").value.trim());
      location.assign(next);
    });
    document.documentElement.dataset.ready = "true";
    return;
  }
  const status = $("conn-status");
  try {
    await connect();
  } catch (e) {
    status.textContent = "offline";
    status.className = "badge bad";
    status.dataset.status = "error";
    showError(`Cannot reach the MCP server: ${e.message}. Is the demo running (./scripts/demo)?`);
    document.documentElement.dataset.ready = "error";
    return;
  }
  status.textContent = "connected";
  status.className = "badge ok";
  status.dataset.status = "connected";
  const info = client.getServerVersion();
  $("server-name").textContent = info ? `${info.name} ${info.version}` : "—";
  $("server-protocol").textContent = client.getNegotiatedProtocolVersion?.() ?? "—";
  $("tools").replaceChildren(
    ...tools.map((t) => {
      const span = document.createElement("span");
      span.className = "badge accent";
      span.title = t.description ?? "";
      span.textContent = t.name;
      return span;
    }),
  );
  $("new-game").disabled = !tools.some((t) => t.name === newCallTool);
  $("new-game").addEventListener("click", newGame);

  // Re-render the stored tool calls: stored results, no tools/call.
  const calls = loadCalls();
  $("no-calls").hidden = calls.length > 0;
  await Promise.all(calls.map((c) => renderCall(c)));
  document.documentElement.dataset.ready = "true";
}

main().catch((e) => {
  showError(e.message);
  document.documentElement.dataset.ready = "error";
  throw e;
});
