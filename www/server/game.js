// Tic-tac-toe rules for the demo server: pure functions, no imports, no I/O,
// so they run anywhere (workerd, Node, a browser) and are easy to test.
//
// The sealed game state (what goes into the token, readable by the client,
// never secret) is deliberately small because it rides every tool call:
//
//   { board: "X...O....", turn: 2 }
//
// `board` has 9 cells, row by row: "." empty, "X" the player, "O" the
// computer. `turn` is the number of the player's next move (1 on a new game).

/** Cells in a row, column or diagonal. */
export const LINES = Object.freeze([
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
]);

export const EMPTY_BOARD = ".........";
export const PLAYER = "X";
export const COMPUTER = "O";

/** A rule was broken (occupied cell, game over, ...): a normal tool error, not a token problem. */
export class GameError extends Error {
  constructor(message) {
    super(message);
    this.name = "GameError";
  }
}

/** A new game, the player (X) to move. */
export function newGame() {
  return { board: EMPTY_BOARD, turn: 1 };
}

/** Whether `value` is a game this module made (checked after opening a token). */
export function isGame(value) {
  return value !== null && typeof value === "object" && typeof value.board === "string" && /^[.XO]{9}$/.test(value.board) && Number.isInteger(value.turn) && value.turn >= 1 && value.turn <= 6;
}

/** `{ mark, line }` of a completed line, or null. */
export function winnerOf(board) {
  for (const line of LINES) {
    const [a, b, c] = line;
    if (board[a] !== "." && board[a] === board[b] && board[a] === board[c]) return { mark: board[a], line };
  }
  return null;
}

/** "playing", "won" (the player), "lost" or "draw". */
export function statusOf(board) {
  const w = winnerOf(board);
  if (w) return w.mark === PLAYER ? "won" : "lost";
  return board.includes(".") ? "playing" : "draw";
}

const put = (board, cell, mark) => board.slice(0, cell) + mark + board.slice(cell + 1);

/**
 * The computer's reply, deterministic so tests can predict it: win if it can,
 * else block the player, else the centre, a corner, an edge. null on a full board.
 */
export function computerMove(board) {
  for (const mark of [COMPUTER, PLAYER]) {
    for (const [a, b, c] of LINES) {
      const cells = [board[a], board[b], board[c]];
      if (cells.filter((x) => x === mark).length === 2 && cells.includes(".")) return [a, b, c][cells.indexOf(".")];
    }
  }
  for (const cell of [4, 0, 2, 6, 8, 1, 3, 5, 7]) if (board[cell] === ".") return cell;
  return null;
}

/**
 * The player's move at `cell` and the computer's reply.
 * Returns `{ game, computer }` (computer: the cell it took, or null); throws GameError.
 */
export function play(game, cell) {
  if (!isGame(game)) throw new GameError("That state is not a tic-tac-toe game.");
  if (!Number.isInteger(cell) || cell < 0 || cell > 8) throw new GameError(`Cell must be an integer from 0 to 8 (got ${cell}).`);
  if (statusOf(game.board) !== "playing") throw new GameError("The game is over: start a new one.");
  if (game.board[cell] !== ".") throw new GameError(`Cell ${cell} is already taken.`);
  let board = put(game.board, cell, PLAYER);
  let computer = null;
  if (statusOf(board) === "playing") {
    computer = computerMove(board);
    if (computer !== null) board = put(board, computer, COMPUTER);
  }
  return { game: { board, turn: game.turn + 1 }, computer };
}

/**
 * What the View renders (the tool result's `structuredContent`): the board as
 * an array of "X" | "O" | null, the status, and the winning line if any.
 */
export function publicView(game, { lastMove = null } = {}) {
  const w = winnerOf(game.board);
  return {
    board: [...game.board].map((c) => (c === "." ? null : c)),
    turn: game.turn,
    status: statusOf(game.board),
    winner: w ? w.mark : null,
    line: w ? w.line : null,
    you: PLAYER,
    lastMove,
  };
}

/** A text rendering for the model / plain clients (the tool result's `content`). */
export function describe(game, { lastMove = null } = {}) {
  const rows = [0, 3, 6].map((r) => [...game.board.slice(r, r + 3)].join(" ")).join("\n");
  const status = statusOf(game.board);
  const head = lastMove ? `You played ${lastMove.player}${lastMove.computer === null ? "" : `; I played ${lastMove.computer}`}.` : "New game: you are X, I am O. Cells are numbered 0-8, row by row.";
  const tail = { playing: "Your move.", won: "You win!", lost: "I win.", draw: "Draw." }[status];
  return `${head}\n${rows}\n${tail}`;
}
