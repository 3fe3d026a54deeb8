// The tic-tac-toe game as the six framework Views of www/views play it: what
// each View shows, computed from the freshest token and the view state, and
// the tool calls. Framework-free: each View only renders this.
//
// The board comes from the token's UNVERIFIED payload (the View has no key),
// as in www/game/game.js: after a reload the Host replays only the result of
// the call that opened the View, while the view state brings back the token
// of the latest move.
import "../../game/zod-jitless.js"; // before ext-apps defines its schemas: see there
import { callTool } from "mcp-sealed-state/app";
import { isSealedStateError, readTokenUnverified } from "mcp-sealed-state/widget";
// The server's own rules (pure functions): the View shows the outcome they decide.
import { statusOf, winnerOf } from "../../server/game.js";

export const APP_INFO = { name: "mcp-sealed-state tic-tac-toe", version: "0.1.0" };
/** The View's UI state: the selected details tab, saved and restored. */
export const INITIAL_UI = { tab: "payload" };
export const TABS = ["payload", "claims", "raw"];
/** A burst of tab clicks sends one save; long enough that closing the View right after a click finds the save still pending. */
export const DEBOUNCE_MS = 1000;
/** The keeper keeps the token in the view state, so a re-rendered View plays on from the latest move. */
export const TOKEN_OPTIONS = { persist: true };

const TEXT = { waiting: "Waiting for the game…", none: "No game in this View: start one.", expired: "Expired, start over.", playing: "Your move (X)" };
const OVER = { won: "You win!", lost: "The server wins.", draw: "Draw." };

function claimsOf(token) {
  try {
    return token ? readTokenUnverified(token) : null;
  } catch {
    return null;
  }
}

/**
 * What the View shows: `token` is the sealed-token binding's snapshot
 * ({ token, source, expired, status }), `ui` the view state, `status` the
 * view state's status, `busy` whether a call is in flight. `data` holds the
 * attributes every View puts on its #game element (the e2e reads them).
 */
export function describe(token, ui, status, busy) {
  const claims = claimsOf(token.token);
  const board = typeof claims?.payload?.board === "string" && /^[.XO]{9}$/.test(claims.payload.board) ? claims.payload.board : null;
  const result = board ? statusOf(board) : null;
  const line = (board && winnerOf(board)?.line) ?? [];
  const phase = token.status === "none" ? "none" : !token.token ? "waiting" : token.expired ? "expired" : result === "playing" ? "playing" : "over";
  const cells = [...(board ?? ".........")].map((mark, i) => ({
    i,
    mark,
    label: mark === "." ? "" : mark,
    className: line.includes(i) ? "cell win" : "cell",
    disabled: phase !== "playing" || busy || mark !== ".",
  }));
  const panel = !claims
    ? "no token yet"
    : ui.tab === "claims"
      ? `purpose: ${claims.purpose ?? "none"}\nbound: ${claims.bound ? "yes" : "no"}\nexpires: ${new Date(claims.exp * 1000).toLocaleTimeString()}`
      : ui.tab === "raw"
        ? token.token
        : JSON.stringify(claims.payload, null, 2);
  const through = status.writeThrough ? `, written through to ${status.writeThrough}` : "";
  return {
    text: phase === "over" ? OVER[result] : busy && phase === "playing" ? "Sending your move…" : TEXT[phase],
    cells,
    canStart: phase === "over" || phase === "none" || phase === "expired",
    panel,
    store: status.store ? `store: ${status.store}${through}${status.restoredFrom ? `, restored from ${status.restoredFrom}` : ""}` : "store: …",
    data: {
      "data-phase": phase,
      "data-busy": String(busy),
      "data-tab": ui.tab,
      "data-store": status.store ?? "",
      "data-write-through": status.writeThrough ?? "",
      "data-host-model": status.hostModel ?? "",
      "data-source": token.source ?? "",
      "data-token": token.token ?? "",
    },
  };
}

/** The text of a game error (an occupied cell, ...), or null: a refused token shows as the keeper's "expired" instead. */
async function call(app, name, args) {
  try {
    const result = await callTool(app, { name, arguments: args });
    return result?.isError && !isSealedStateError(result) ? (result.content?.find((c) => c.type === "text")?.text ?? "The server refused that move.") : null;
  } catch (e) {
    return `The call failed: ${e.message}`;
  }
}

/** Play `cell` with the freshest token; the keeper takes the result's token. Resolves with a game error or null. */
export const move = (app, token, cell) => call(app, "move", { state: token, cell });
/** A new game. */
export const startOver = (app) => call(app, "start", {});

/** When the Host tears the View down, `unmount` the framework's root: a pending save is sent then. */
export function unmountOnTeardown(app, unmount) {
  app.onteardown = async () => {
    unmount();
    return {};
  };
}
