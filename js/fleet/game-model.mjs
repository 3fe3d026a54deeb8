// A simulated user's own record of one game: the marks it has seen and the
// turn. Every result must continue it (all earlier marks kept, X where the
// user played, at most one new O, the turn one on), so a lost move, a replayed
// older token or another user's game shows up as a break in the record. It
// knows nothing of the computer's strategy: which cell O takes is the
// server's business, that the game goes on from where it was is the user's.

const CELLS = 9;

export class GameModel {
  board = Array(CELLS).fill(null);
  turn = 1;
  status = "playing";

  /** Why `view` (a `start` result's structuredContent) is not a new game, or null. */
  static checkStart(view) {
    if (!Array.isArray(view?.board) || view.board.length !== CELLS || view.board.some((c) => c !== null)) return `start: board ${JSON.stringify(view?.board)} is not empty`;
    if (view.turn !== 1 || view.status !== "playing") return `start: turn ${view.turn}, status ${view.status}`;
    return null;
  }

  /** The empty cells. */
  free() {
    return this.board.flatMap((c, i) => (c === null ? [i] : []));
  }

  /**
   * Why `view` (the structuredContent of a move at `cell`) does not continue
   * this game, or null; when it does, the model takes it on.
   */
  advance(cell, view) {
    const board = view?.board;
    if (!Array.isArray(board) || board.length !== CELLS) return `move ${cell}: no board in ${JSON.stringify(view)}`;
    if (view.turn !== this.turn + 1) return `move ${cell}: turn ${view.turn} after ${this.turn}`;
    const newO = [];
    for (let i = 0; i < CELLS; i++) {
      const before = this.board[i];
      const after = board[i];
      if (before !== null && after !== before) return `move ${cell}: cell ${i} was ${before}, now ${after}`;
      if (before !== null) continue;
      if (i === cell) {
        if (after !== "X") return `move ${cell}: the cell holds ${after}, not X`;
      } else if (after === "O") newO.push(i);
      else if (after !== null) return `move ${cell}: a new ${after} at ${i}`;
    }
    if (newO.length > 1) return `move ${cell}: ${newO.length} new Os (${newO})`;
    const computer = newO[0] ?? null;
    if (view.lastMove?.player !== cell || view.lastMove?.computer !== computer) return `move ${cell}: lastMove ${JSON.stringify(view.lastMove)}, board says O at ${computer}`;
    this.board = [...board];
    this.turn = view.turn;
    this.status = view.status;
    return null;
  }
}
