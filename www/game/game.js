// The tic-tac-toe View (an MCP App in a sandboxed iframe). It has no key: it
// reads the sealed token only to DISPLAY what it claims, echoes it back as the
// `state` argument of `move`, keeps the freshest one (adoptToken) and saves it,
// with its UI state (the selected tab), in the best view-state store this
// render has (connectWithViewState: "host", "openai", "local" per viewUUID, or
// "memory"), so that a re-rendered View keeps playing on the same tab. It
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
import { connectWithViewState } from "mcp-sealed-state/app";
import { STATE_META_KEY, adoptToken, backend, init, isSealedStateError, readTokenUnverified, secondsLeft } from "mcp-sealed-state/widget";

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
  token: null, // the freshest token
  expired: false, // the server refused the token: "expired, start over"
  busy: false, // a tool call is in flight
  message: null, // a game error (occupied cell, ...), not a token problem
  lastMove: null, // { player, computer } of the latest result of this render
  viewState: null, // ViewState of connectWithViewState, once its store is settled
  tab: "payload", // the selected details tab: the UI state a person sees survive a re-render
  saveNote: "—",
};

const tokenResult = (token) => ({ _meta: { [STATE_META_KEY]: token } });
const TABS = ["payload", "claims", "raw"];
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
    const kept = await vs.save({ token: ui.token, expired: ui.expired, tab: ui.tab });
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
// The result the Host sends for the call that opened this View. On a re-render
// the Host replays the same result, and the restored token came from it or
// from a later move; so the restored token counts as the newer one (it also
// wins a tie of expiry seconds, which adoptToken gives to the newer token).
let firstHostResult = true;
function onHostResult(result) {
  const restored = ui.viewState?.restored;
  if (firstHostResult && typeof restored?.token === "string") {
    firstHostResult = false;
    ui.token = adoptToken(adoptToken(null, result), tokenResult(restored.token));
    ui.expired = restored.expired === true && ui.token === restored.token;
    render();
    if (ui.token !== restored.token) persist();
    return;
  }
  firstHostResult = false;
  onResult(result);
}

function onResult(result, { fresh = false } = {}) {
  ui.message = null;
  if (isSealedStateError(result)) {
    ui.expired = true;
  } else if (result?.isError) {
    ui.message = result.content?.find((c) => c.type === "text")?.text ?? "The server refused that move.";
  } else {
    // `fresh`: a new game replaces whatever we held, even a (forged) token claiming a later expiry.
    const next = adoptToken(fresh ? null : ui.token, result);
    if (next !== ui.token) ui.expired = false;
    ui.token = next;
    ui.lastMove = result?.structuredContent?.lastMove ?? null;
  }
  render();
  persist();
}

async function call(name, args) {
  ui.busy = true;
  ui.message = null;
  render();
  try {
    const result = await app.callServerTool({ name, arguments: args });
    onResult(result, { fresh: name === "start" });
  } catch (e) {
    ui.message = `The call failed: ${e.message}`;
    render();
  } finally {
    ui.busy = false;
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
  const phase = !ui.token ? "waiting" : ui.expired ? "expired" : status === "playing" ? "playing" : "over";
  document.body.dataset.phase = phase;
  document.body.dataset.busy = String(ui.busy);

  const text = {
    waiting: "Waiting for the game…",
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
  $("play-again").hidden = phase !== "over";
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
  const store = ui.viewState?.store;
  $("store").textContent = STORES[store] ?? "…";
  if (store) document.body.dataset.store = store;
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
const app = new App({ name: "mcp-sealed-state tic-tac-toe", version: "0.1.0" }, {}, { autoResize: true });
// Register before connect. The Host's tool-result may arrive before connect()
// resolves in our code, so it waits for the store and the restored view state
// (for "local" those are settled by that very result, which carries the viewUUID).
let settled;
const ready = new Promise((r) => (settled = r));
app.ontoolresult = (params) => ready.then(() => onHostResult(params));
app.ontoolinput = () => {};

window.gameView = { ui, app }; // for tests and the curious
render();
const viewState = await connectWithViewState(app);
await viewState.ready;
ui.viewState = viewState;
const restored = viewState.restored;
if (TABS.includes(restored?.tab)) ui.tab = restored.tab;
const limit = viewState.maxBytes === null ? "" : ` (max ${viewState.maxBytes} bytes)`;
ui.saveNote = viewState.store === "memory" ? "kept in this View only" : `${restored ? "restored" : "nothing saved yet"}${limit}`;
settled();
renderStore();
render();
// Tell the Host too (it shows it beside the View); a Host without logging drops it.
app.sendLog({ level: "info", logger: "mcp-sealed-state", data: { store: viewState.store } }).catch(() => {});

// Which implementation of the widget serves this page: "wasm", or "js" where
// the page's CSP refuses WebAssembly. Settled once loading has.
init().then((which) => {
  $("backend").textContent = which === "wasm" ? "wasm (WebAssembly)" : "js (this page refuses WebAssembly)";
  document.body.dataset.backend = which;
  window.gameView.backend = backend();
  // Tell the Host too (it shows it beside the View); a Host without logging drops it.
  app.sendLog({ level: "info", logger: "mcp-sealed-state", data: { backend: which } }).catch(() => {});
});
