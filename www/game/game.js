// The tic-tac-toe View (an MCP App in a sandboxed iframe). It has no key: it
// reads the sealed token only to DISPLAY what it claims, echoes it back as the
// `state` argument of `move`, keeps the freshest one (keepFreshestToken, from
// the result's `_meta`, ChatGPT's window.openai.toolResponseMetadata or the
// server's mirror in `structuredContent`, and shows which) and saves it,
// with its UI state (the selected tab), in the best view-state store this
// render has (connectWithViewState, VIEW_STATE_STORES), so that a re-rendered View keeps playing on the same tab. It
// shows that store beside its backend.
//
// Where the board comes from: the token's (unverified) payload, not the last
// structuredContent, because after a reload the Host replays only the result of
// the call that opened this View (`start`), while view state hands back the
// token of the latest move.
//
// Shipped as ONE HTML file (www/game/build.mjs: Vite + vite-plugin-singlefile)
// that the server serves as a `ui://` resource; the Host renders it in a
// sandbox under a CSP that may refuse WebAssembly, in which case the widget's
// JS backend serves it (shown under "Backend").
import "./zod-jitless.js"; // before ext-apps: see there
import { App } from "@modelcontextprotocol/ext-apps";
import { callTool, connectWithViewState, keepFreshestToken } from "mcp-sealed-state/app";
import { backend, init, isSealedStateError, readTokenUnverified, secondsLeft } from "mcp-sealed-state/widget";

const $ = (id) => document.getElementById(id);
const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
];

const ui = {
  token: null, // the freshest token (keeper.token)
  source: null, // where it came from (keeper.source)
  expired: false, // the server refused the token: "expired, start over"
  status: "waiting", // keeper.status: "waiting" | "ready" | "expired" | "none"
  busy: false, // a tool call is in flight
  message: null, // a game error (occupied cell, ...), not a token problem
  lastMove: null, // { player, computer } of the latest result of this render
  viewState: null, // ViewState of connectWithViewState, once its store is settled
  tab: "payload", // the selected details tab: the UI state a person sees survive a re-render
  saveNote: "—",
};

const TABS = ["payload", "claims", "raw"];
const SOURCES = {
  _meta: "_meta (the tool result)",
  toolResponseMetadata: "window.openai.toolResponseMetadata",
  structuredContent: "structuredContent (the server's mirror)",
  viewState: "the restored view state",
  offer: "offered",
};
const STORES = {
  host: "host (ui/set-view-state)",
  openai: "openai (window.openai widget state)",
  local: "local (this frame's localStorage, per viewUUID)",
  memory: "memory (nothing outlives this View)",
};

function claims() {
  if (!ui.token) return null;
  try {
    return readTokenUnverified(ui.token);
  } catch {
    return null;
  }
}

function boardOf(c) {
  const b = c?.payload?.board;
  return typeof b === "string" && /^[.XO]{9}$/.test(b) ? b : null;
}

function statusOf(board) {
  for (const line of LINES) {
    const [a, b, c] = line;
    if (board[a] !== "." && board[a] === board[b] && board[a] === board[c]) return { status: board[a] === "X" ? "won" : "lost", line };
  }
  return { status: board.includes(".") ? "playing" : "draw", line: null };
}

// ------------------------------------------------------------------ view state
async function persist() {
  const vs = ui.viewState;
  if (!vs) return;
  try {
    // The keeper adds the token to every save (persist: "token").
    const kept = await vs.save({ tab: ui.tab });
    ui.saveNote = kept ? `saved (${new Date().toLocaleTimeString()})` : "kept in this View only";
  } catch (e) {
    ui.saveNote = `not saved: ${e.message} (${e.code ?? "?"})`;
  }
  renderMeta();
}

function selectTab(tab) {
  if (!TABS.includes(tab) || tab === ui.tab) return;
  ui.tab = tab;
  renderTabs();
  persist();
}

// ------------------------------------------------------------------ results
// The keeper takes the Host's tool results (and window.openai's, where the
// Host speaks the Apps SDK) and the results of our own calls, keeps the token
// in the view state under "token" and restores it from there on the next
// render, ahead of the render's result that the Host replays.
const app = new App({ name: "mcp-sealed-state tic-tac-toe", version: "0.1.0" }, {}, { autoResize: true });
const keeper = keepFreshestToken(app, {
  persist: "token",
  onchange: () => {
    sync();
    render();
  },
  onexpired: () => {
    sync();
    render();
  },
});
keeper.subscribe(() => {
  sync();
  render();
});
function sync() {
  ui.token = keeper.token;
  ui.source = keeper.source;
  ui.expired = keeper.expired;
  ui.status = keeper.status;
}

app.addEventListener("toolresult", (result) => {
  ui.lastMove = result?.structuredContent?.lastMove ?? null;
  sync();
  render();
});

async function call(name, args) {
  ui.busy = true;
  ui.message = null;
  render();
  try {
    // Through the bridge, or window.openai.callTool where the Host speaks only
    // the Apps SDK; the keeper takes the result's token (a refusal: keeper.expired).
    const result = await callTool(app, { name, arguments: args });
    if (result?.isError && !isSealedStateError(result)) {
      ui.message = result.content?.find((c) => c.type === "text")?.text ?? "The server refused that move.";
    } else if (!result?.isError) {
      ui.lastMove = result?.structuredContent?.lastMove ?? null;
    }
  } catch (e) {
    ui.message = `The call failed: ${e.message}`;
  } finally {
    ui.busy = false;
    sync();
    render();
  }
}

// ------------------------------------------------------------------ rendering
const cells = [];
for (let i = 0; i < 9; i++) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "cell";
  b.dataset.cell = String(i);
  b.setAttribute("role", "gridcell");
  b.setAttribute("aria-label", `cell ${i}`);
  b.addEventListener("click", () => {
    if (ui.token && !ui.busy) call("move", { state: ui.token, cell: i });
  });
  $("board").append(b);
  cells.push(b);
}

function render() {
  const c = claims();
  const board = boardOf(c);
  const { status, line } = board ? statusOf(board) : { status: null, line: null };
  const phase = ui.status === "none" ? "none" : !ui.token ? "waiting" : ui.expired ? "expired" : status === "playing" ? "playing" : "over";
  document.body.dataset.phase = phase;
  document.body.dataset.busy = String(ui.busy);

  const text = {
    waiting: "Waiting for the game…",
    none: "No game in this View: start one.",
    expired: "Token refused",
    playing: ui.busy ? "Sending your move…" : "Your move (X)",
  };
  const over = { won: "You win!", lost: "The server wins.", draw: "Draw." };
  $("status").textContent = phase === "over" ? (over[status] ?? "Game over.") : text[phase];
  $("status").dataset.status = status ?? "";

  cells.forEach((btn, i) => {
    const mark = board ? board[i] : ".";
    btn.textContent = mark === "." ? "" : mark;
    btn.dataset.mark = mark;
    btn.classList.toggle("win", !!line?.includes(i));
    btn.classList.toggle("last", ui.lastMove?.computer === i);
    btn.disabled = phase !== "playing" || ui.busy || mark !== ".";
  });

  renderTabs();
  $("expired-banner").hidden = !ui.expired;
  $("play-again").hidden = phase !== "over" && phase !== "none";
  $("game-message").hidden = !ui.message;
  $("game-message").textContent = ui.message ?? "";
  renderMeta(c);
  renderClock();
}

function renderMeta(c = claims()) {
  const payload = $("payload");
  if (c) payload.textContent = JSON.stringify(c.payload, null, 2);
  else payload.innerHTML = '<span class="empty">no token yet</span>';
  $("purpose").textContent = c ? (c.purpose ?? "none") : "—";
  $("bound").textContent = c ? (c.bound ? "yes (to a principal)" : "no") : "—";
  $("exp").textContent = c ? new Date(c.exp * 1000).toLocaleTimeString() : "—";
  $("vs-status").textContent = ui.saveNote;
  $("source").textContent = SOURCES[ui.source] ?? "—";
  if (ui.source) document.body.dataset.source = ui.source;
  else delete document.body.dataset.source;
  const t = $("token");
  t.textContent = ui.token ?? "";
  t.dataset.token = ui.token ?? "";
  $("token-size").textContent = ui.token ? `(${ui.token.length} chars)` : "";
}

function renderTabs() {
  document.body.dataset.tab = ui.tab;
  for (const button of document.querySelectorAll("[role=tab]")) {
    const selected = button.dataset.tab === ui.tab;
    button.setAttribute("aria-selected", String(selected));
    button.tabIndex = selected ? 0 : -1;
  }
  for (const panel of document.querySelectorAll("[role=tabpanel]")) panel.hidden = panel.dataset.panel !== ui.tab;
}

function renderStore() {
  const vs = ui.viewState;
  const store = vs?.store;
  const through = vs?.writeThrough ? `, written through to ${vs.writeThrough}` : "";
  $("store").textContent = store ? `${STORES[store]}${through}` : "…";
  if (store) document.body.dataset.store = store;
  if (vs?.writeThrough) document.body.dataset.writeThrough = vs.writeThrough;
}

function renderClock() {
  const pill = $("expires");
  if (!ui.token) {
    pill.textContent = "—";
    pill.className = "pill";
    delete pill.dataset.seconds;
    return;
  }
  let left;
  try {
    left = secondsLeft(ui.token);
  } catch {
    pill.textContent = "unreadable token";
    pill.className = "pill bad";
    return;
  }
  pill.dataset.seconds = String(left);
  pill.textContent = left > 0 ? `expires in ${left} s` : "expired";
  pill.className = `pill ${left <= 0 ? "bad" : left <= 30 ? "warn" : "ok"}`;
  if (ui.expired && left > 0) {
    // It claims more time, but the server refused it: the claim is not worth showing as good news.
    pill.textContent = "refused";
    pill.className = "pill bad";
  }
}

for (const button of document.querySelectorAll("[role=tab]")) button.addEventListener("click", () => selectTab(button.dataset.tab));
$("start-over").addEventListener("click", () => call("start", {}));
$("play-again").addEventListener("click", () => call("start", {}));
setInterval(renderClock, 250);

// ------------------------------------------------------------------ connect
// In an MCP Apps host the bridge answers; in an Apps SDK host (ChatGPT's
// openai/outputTemplate, MCPJam) it never does, and the store is decided
// without it within half a second. `ready` is bounded too.
window.gameView = { ui, app, keeper }; // for tests and the curious
render();
const viewState = await connectWithViewState(app);
await viewState.ready;
ui.viewState = viewState;
window.gameView.decidedAtMs = Math.round(performance.now()); // since this document started: the time to a decided store
function showViewState() {
  const restored = viewState.restored;
  if (TABS.includes(restored?.tab)) ui.tab = restored.tab;
  const limit = ` (max ${viewState.maxBytes} bytes)`;
  const from = viewState.restoredFrom && viewState.restoredFrom !== viewState.store ? ` from ${viewState.restoredFrom}` : "";
  ui.saveNote = viewState.store === "memory" ? "kept in this View only" : `${restored ? `restored${from}` : "nothing saved yet"}${limit}`;
  document.body.dataset.hostModel = viewState.hostModel;
  renderStore();
  sync();
  render();
}
showViewState();
// A "local" store that a later tool result decided: its restored state, and the store, shown now.
viewState.subscribe(showViewState);
// Tell the Host too (it shows it beside the View); a Host without logging drops it.
if (viewState.hostModel === "mcp-apps") app.sendLog({ level: "info", logger: "mcp-sealed-state", data: { store: viewState.store } }).catch(() => {});

// Which implementation of the widget serves this page: "wasm", or "js" where
// the page's CSP refuses WebAssembly. Settled once loading has.
init().then((which) => {
  $("backend").textContent = which === "wasm" ? "wasm (WebAssembly)" : "js (this page refuses WebAssembly)";
  document.body.dataset.backend = which;
  window.gameView.backend = backend();
  // Tell the Host too (it shows it beside the View); a Host without logging drops it.
  if (viewState.hostModel === "mcp-apps") app.sendLog({ level: "info", logger: "mcp-sealed-state", data: { backend: which } }).catch(() => {});
});
