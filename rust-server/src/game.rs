//! Tic-tac-toe rules, the same as www/server/game.js (pure functions, so the
//! Rust and the workerd servers answer every move alike).
//!
//! The sealed state is `{"board":"X...O....","turn":2}`: `board` has 9 cells,
//! row by row ("." empty, "X" the player, "O" the computer), `turn` the number
//! of the player's next move (1 on a new game). Field order is the JS
//! object's, so serde_json writes the same JSON text as `JSON.stringify`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];
pub const EMPTY_BOARD: &str = ".........";
pub const PLAYER: u8 = b'X';
pub const COMPUTER: u8 = b'O';

/// The game as sealed into the token.
/// What the server keeps from the client, the Host and the model, in the
/// token's secret part: its own id for the game and the move count
/// (app.js writes the same shape).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Secret {
    #[serde(rename = "gameId")]
    pub game_id: String,
    pub moves: u64,
}

impl Secret {
    /// A new game's: a fresh id, no moves.
    pub fn new() -> Secret {
        Secret {
            game_id: uuid::Uuid::new_v4().to_string(),
            moves: 0,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub board: String,
    pub turn: u32,
}

/// The player's and the computer's cells of the last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastMove {
    pub player: usize,
    pub computer: Option<usize>,
}

/// A broken rule: an ordinary tool error, not a token problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError(pub String);

impl core::fmt::Display for GameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

pub const NOT_A_GAME: &str = "That state is not a tic-tac-toe game.";

pub fn new_game() -> Game {
    Game {
        board: EMPTY_BOARD.into(),
        turn: 1,
    }
}

/// game.js `isGame`: 9 cells of `.XO`, turn 1..=6.
pub fn is_game(game: &Game) -> bool {
    game.board.len() == 9
        && game.board.bytes().all(|c| matches!(c, b'.' | b'X' | b'O'))
        && (1..=6).contains(&game.turn)
}

fn cell(board: &[u8], i: usize) -> u8 {
    board.get(i).copied().unwrap_or(b'.')
}

/// The mark and line of a completed line.
pub fn winner_of(board: &[u8]) -> Option<(u8, [usize; 3])> {
    LINES.iter().find_map(|&[a, b, c]| {
        let m = cell(board, a);
        (m != b'.' && m == cell(board, b) && m == cell(board, c)).then_some((m, [a, b, c]))
    })
}

pub fn status_of(board: &[u8]) -> &'static str {
    match winner_of(board) {
        Some((PLAYER, _)) => "won",
        Some(_) => "lost",
        None if board.contains(&b'.') => "playing",
        None => "draw",
    }
}

/// Deterministic reply: win if it can, else block, else centre, corner, edge.
pub fn computer_move(board: &[u8]) -> Option<usize> {
    for mark in [COMPUTER, PLAYER] {
        for line in LINES {
            let marks = line.iter().filter(|&&i| cell(board, i) == mark).count();
            if marks == 2 {
                if let Some(&free) = line.iter().find(|&&i| cell(board, i) == b'.') {
                    return Some(free);
                }
            }
        }
    }
    [4, 0, 2, 6, 8, 1, 3, 5, 7]
        .into_iter()
        .find(|&i| cell(board, i) == b'.')
}

/// The player's move at `at` and the computer's reply (game.js `play`).
pub fn play(game: &Game, at: i64) -> Result<(Game, Option<usize>), GameError> {
    if !is_game(game) {
        return Err(GameError(NOT_A_GAME.into()));
    }
    let at = usize::try_from(at)
        .ok()
        .filter(|&i| i <= 8)
        .ok_or_else(|| GameError(format!("Cell must be an integer from 0 to 8 (got {at}).")))?;
    let mut board = game.board.clone().into_bytes();
    if status_of(&board) != "playing" {
        return Err(GameError("The game is over: start a new one.".into()));
    }
    if cell(&board, at) != b'.' {
        return Err(GameError(format!("Cell {at} is already taken.")));
    }
    put(&mut board, at, PLAYER);
    let mut computer = None;
    if status_of(&board) == "playing" {
        computer = computer_move(&board);
        if let Some(c) = computer {
            put(&mut board, c, COMPUTER);
        }
    }
    let board = String::from_utf8(board).map_err(|_| GameError(NOT_A_GAME.into()))?;
    Ok((
        Game {
            board,
            turn: game.turn + 1,
        },
        computer,
    ))
}

fn put(board: &mut [u8], i: usize, mark: u8) {
    if let Some(c) = board.get_mut(i) {
        *c = mark;
    }
}

fn mark(c: u8) -> Value {
    match c {
        b'X' => json!("X"),
        b'O' => json!("O"),
        _ => Value::Null,
    }
}

/// The tool result's `structuredContent` (game.js `publicView`), keys in its order.
pub fn public_view(game: &Game, last: Option<LastMove>) -> Value {
    let board = game.board.as_bytes();
    let w = winner_of(board);
    json!({
        "board": board.iter().map(|&c| mark(c)).collect::<Vec<_>>(),
        "turn": game.turn,
        "status": status_of(board),
        "winner": w.map_or(Value::Null, |(m, _)| mark(m)),
        "line": w.map_or(Value::Null, |(_, line)| json!(line)),
        "you": "X",
        "lastMove": last.map_or(Value::Null, |m| json!({ "player": m.player, "computer": m.computer })),
    })
}

/// The text for the model (game.js `describe`).
pub fn describe(game: &Game, last: Option<LastMove>) -> String {
    let board = game.board.as_bytes();
    let rows: Vec<String> = [0, 3, 6]
        .iter()
        .map(|&r| {
            (r..r + 3)
                .map(|i| char::from(cell(board, i)).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let head = match last {
        Some(LastMove {
            player,
            computer: None,
        }) => format!("You played {player}."),
        Some(LastMove {
            player,
            computer: Some(c),
        }) => format!("You played {player}; I played {c}."),
        None => "New game: you are X, I am O. Cells are numbered 0-8, row by row.".into(),
    };
    let tail = match status_of(board) {
        "playing" => "Your move.",
        "won" => "You win!",
        "lost" => "I win.",
        _ => "Draw.",
    };
    format!("{head}\n{}\n{tail}", rows.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_the_computer_wins() {
        let g = new_game();
        let (g, c) = play(&g, 0).unwrap();
        assert_eq!((g.board.as_str(), c), ("X...O....", Some(4)));
        let (g, c) = play(&g, 1).unwrap();
        assert_eq!((g.board.as_str(), c), ("XXO.O....", Some(2)));
        let (g, c) = play(&g, 8).unwrap();
        assert_eq!((g.board.as_str(), c), ("XXO.O.O.X", Some(6)));
        assert_eq!(status_of(g.board.as_bytes()), "lost");
        assert_eq!(g.turn, 4);
        let view = public_view(
            &g,
            Some(LastMove {
                player: 8,
                computer: Some(6),
            }),
        );
        assert_eq!(
            view.to_string(),
            r#"{"board":["X","X","O",null,"O",null,"O",null,"X"],"turn":4,"status":"lost","winner":"O","line":[2,4,6],"you":"X","lastMove":{"player":8,"computer":6}}"#
        );
        assert_eq!(
            describe(
                &g,
                Some(LastMove {
                    player: 8,
                    computer: Some(6)
                })
            ),
            "You played 8; I played 6.\nX X O\n. O .\nO . X\nI win."
        );
        assert_eq!(
            play(&g, 3).unwrap_err().0,
            "The game is over: start a new one."
        );
    }

    #[test]
    fn rule_errors() {
        let (g, _) = play(&new_game(), 4).unwrap();
        assert_eq!(play(&g, 4).unwrap_err().0, "Cell 4 is already taken.");
        assert_eq!(
            play(&g, 9).unwrap_err().0,
            "Cell must be an integer from 0 to 8 (got 9)."
        );
        let bad = Game {
            board: "XXXXXXXXXX".into(),
            turn: 1,
        };
        assert_eq!(play(&bad, 0).unwrap_err().0, NOT_A_GAME);
        let bad = Game {
            board: EMPTY_BOARD.into(),
            turn: 7,
        };
        assert!(!is_game(&bad));
    }

    #[test]
    fn the_sealed_json_is_what_json_stringify_writes() {
        assert_eq!(
            serde_json::to_string(&new_game()).unwrap(),
            r#"{"board":".........","turn":1}"#
        );
        assert_eq!(
            public_view(&new_game(), None).to_string(),
            r#"{"board":[null,null,null,null,null,null,null,null,null],"turn":1,"status":"playing","winner":null,"line":null,"you":"X","lastMove":null}"#
        );
    }
}
