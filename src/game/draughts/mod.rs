//! International draughts (10x10) under the rules of the world federation (FMJD), the game the
//! draughts world and its engines play, so bots written for it (and their opening books and
//! positions) work here unchanged.
//!
//! `board` holds the moves (flying kings, compulsory maximum capture, pieces removed at the end
//! of a capture); this file keeps the game around it as [`Rules`] with typed moves: the side to
//! move, the draw rules and their counters, the move texts (`notation`) and the view. The text
//! protocol, the history and the bot input are [`TextGame`]'s.

mod board;
mod notation;

#[cfg(test)]
mod tests;

use super::{
    BoardView, CellShape, DrawRule, GameInfo, Outcome, PositionError, Rules, ScoreEnd, Setup,
    TextGame, Variant,
};
use board::Board;
pub use board::Move;

/// Rule (FMJD 25-move rule): after 25 successive moves by each side (50 turns) in which only
/// kings moved and nothing was captured, the game is drawn.
pub const KING_MOVES_LIMIT: u8 = 50;
/// Rule (FMJD short endgames): three pieces including at least one king against a lone king are
/// drawn after 16 moves by each side (32 turns).
pub const LONG_ENDGAME_LIMIT: u8 = 32;
/// Rule (FMJD short endgames): two pieces or one including at least one king against a lone
/// king are drawn after 5 moves by each side (10 turns).
pub const SHORT_ENDGAME_LIMIT: u8 = 10;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The seat to move had no legal move (no piece left, or all blocked) and lost.
    Blocked { loser: usize },
    /// The same position with the same side to move occurred for the third time.
    Repetition,
    /// 25 moves by each side of kings only, without a capture.
    KingMoves,
    /// The short-endgame count ran out.
    Endgame,
}

/// A position as the repetition rule compares them: the pieces and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RepetitionKey {
    board: Board,
    to_move: u8,
}

/// A draughts position, its draw counters and whether the game has ended.
#[derive(Clone, Debug)]
pub struct Draughts {
    board: Board,
    to_move: usize,
    /// Turns in a row in which a king moved without capturing (the 25-move rule).
    king_moves: u8,
    /// Turns played since the material entered its short-endgame class (0 outside one).
    endgame_moves: u8,
    /// Every earlier position since the last man move or capture (not the current one). Neither
    /// kind of move can be undone, so no position before it can come back. Not part of the
    /// position text. Empty after most moves, so a copy for search seldom allocates.
    since_irreversible: Vec<RepetitionKey>,
    end: Option<Finish>,
}

/// Rule (FMJD short endgames): the turn limit of the material on `board`, if one applies. One
/// side has a lone king; the other has at least one king and three pieces (16 moves each) or at
/// most two (5 moves each). Other material (more pieces, no king, or no lone king) has none.
fn endgame_limit(board: &Board) -> Option<u8> {
    for lone in 0..2 {
        let strong = board.pieces[1 - lone];
        let lone_king =
            board.pieces[lone].count_ones() == 1 && board.pieces[lone] & board.kings != 0;
        if !lone_king || strong & board.kings == 0 {
            continue;
        }
        match strong.count_ones() {
            1 | 2 => return Some(SHORT_ENDGAME_LIMIT),
            3 => return Some(LONG_ENDGAME_LIMIT),
            _ => {}
        }
    }
    None
}

impl Draughts {
    /// The opening position, White to move.
    pub fn new() -> Self {
        Self::build(Board::start(), 0, 0, 0)
    }

    /// Builds a position with its counters and decides whether the game is over.
    fn build(board: Board, to_move: usize, king_moves: u8, endgame_moves: u8) -> Self {
        let mut game = Draughts {
            board,
            to_move,
            king_moves,
            endgame_moves,
            since_irreversible: Vec::new(),
            end: None,
        };
        game.settle();
        game
    }

    fn key(&self) -> RepetitionKey {
        RepetitionKey {
            board: self.board,
            to_move: self.to_move as u8,
        }
    }

    /// Decides whether the game is over.
    fn settle(&mut self) {
        self.end = if !board::has_move(&self.board, self.to_move) {
            // Rule: a player who cannot move (no pieces, or every piece blocked) loses. This is
            // checked first: a move that leaves the opponent without a move wins even if it
            // also completes a draw count.
            Some(Finish::Blocked {
                loser: self.to_move,
            })
        } else if self.repetitions() >= 3 {
            // Rule: the third occurrence of the same position with the same side to move draws.
            Some(Finish::Repetition)
        } else if self.king_moves >= KING_MOVES_LIMIT {
            // Rule: 25 moves by each side of kings only, without a capture, draw.
            Some(Finish::KingMoves)
        } else if endgame_limit(&self.board).is_some_and(|l| self.endgame_moves >= l) {
            // Rule: a short endgame not won within its 16 or 5 moves each is drawn.
            Some(Finish::Endgame)
        } else {
            None
        };
    }

    /// How many times the current position has occurred since the last irreversible move.
    fn repetitions(&self) -> usize {
        let now = self.key();
        1 + self
            .since_irreversible
            .iter()
            .filter(|k| **k == now)
            .count()
    }

    /// Why the game ended, if it has.
    pub fn end(&self) -> Option<Finish> {
        self.end
    }

    /// The counters the draw rules keep: (king-only turns, short-endgame turns).
    pub fn counters(&self) -> (u8, u8) {
        (self.king_moves, self.endgame_moves)
    }

    /// The character for square `sq` in the board lines: `w`/`b` men, `W`/`B` kings, `.` empty.
    fn square_char(&self, sq: u8) -> char {
        match (self.board.owner(sq), self.board.is_king(sq)) {
            (None, _) => '.',
            (Some(0), false) => 'w',
            (Some(0), true) => 'W',
            (Some(_), false) => 'b',
            (Some(_), true) => 'B',
        }
    }

    /// Ten lines of ten characters, the top row (squares 1-5) first; light squares are `.`.
    fn board_lines(&self, out: &mut String) {
        for r in 0..10u8 {
            for c in 0..10u8 {
                if (r + c) % 2 == 1 {
                    out.push(self.square_char(r * 5 + c / 2));
                } else {
                    out.push('.');
                }
            }
            out.push('\n');
        }
    }

    /// Reads the position line: the FEN part, then optionally the two counters.
    pub fn from_text(text: &str) -> Result<Self, PositionError> {
        let mut words = text.split_whitespace();
        let fen = words.next().ok_or(PositionError::Empty {
            example: "W:W31-50:B1-20",
        })?;
        let (board, to_move) = notation::read_fen(fen)?;
        let rest: Vec<&str> = words.collect();
        let (king_moves, endgame_moves) = match rest[..] {
            [] => (0, 0),
            [k, e] => {
                let number = |w: &str, counter: &'static str| {
                    w.parse::<u8>().map_err(|_| PositionError::Counter {
                        counter,
                        text: w.to_string(),
                    })
                };
                (number(k, "king-move")?, number(e, "endgame")?)
            }
            _ => {
                return Err(PositionError::Counters {
                    got: rest.join(" "),
                })
            }
        };
        if king_moves > KING_MOVES_LIMIT {
            return Err(PositionError::KingMovesPast {
                count: king_moves,
                limit: KING_MOVES_LIMIT,
            });
        }
        // Rule: the count grows only by king moves without a capture, so the side that just
        // moved has a king when it is 1 or more, and both sides have one when it is 2 or more.
        let has_king = |seat: usize| board.pieces[seat] & board.kings != 0;
        let needed: &[usize] = match king_moves {
            0 => &[],
            1 => &[1 - to_move],
            _ => &[0, 1],
        };
        if let Some(&seat) = needed.iter().find(|&&s| !has_king(s)) {
            return Err(PositionError::KingMovesWithoutKing {
                count: king_moves,
                side: notation::colour(seat),
            });
        }
        match endgame_limit(&board) {
            None if endgame_moves != 0 => {
                return Err(PositionError::NotAnEndgame {
                    count: endgame_moves,
                })
            }
            Some(limit) if endgame_moves > limit => {
                return Err(PositionError::EndgamePast {
                    count: endgame_moves,
                    limit,
                })
            }
            _ => {}
        }
        Ok(Self::build(board, to_move, king_moves, endgame_moves))
    }
}

impl Default for Draughts {
    fn default() -> Self {
        Self::new()
    }
}

impl Rules for Draughts {
    type Move = Move;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        "international"
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    /// By start square, end square, then the squares landed on (PDN numbers).
    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.end.is_none() {
            board::generate(&self.board, self.to_move, out);
        }
    }

    fn play(&mut self, m: Move) {
        let key = self.key();
        let class_before = endgame_limit(&self.board);
        let king_move = self.board.is_king(m.from);
        self.board.apply(self.to_move, &m);
        self.to_move = 1 - self.to_move;
        // Rule (25-move rule): count the turns in a row in which a king moved without
        // capturing; a man move or any capture starts the count again.
        let irreversible = m.is_capture() || !king_move;
        self.king_moves = if irreversible {
            0
        } else {
            self.king_moves.saturating_add(1)
        };
        // Rule (short endgames): count the turns played since the material entered its class;
        // the count starts again when a capture changes the material (choice: a man's step or
        // crowning inside the same class keeps counting).
        let class_after = endgame_limit(&self.board);
        self.endgame_moves = match class_after {
            Some(_) if !m.is_capture() && class_after == class_before => {
                self.endgame_moves.saturating_add(1)
            }
            _ => 0,
        };
        // Repetition: men never go back and captured pieces never return, so positions before
        // a man move or a capture cannot occur again.
        if irreversible {
            self.since_irreversible.clear();
        } else {
            self.since_irreversible.push(key);
        }
        self.settle();
    }

    fn write_move(&self, m: Move, out: &mut String) {
        notation::write_move(&self.board, &m, out);
    }

    fn write_board(&self, out: &mut String) {
        self.board_lines(out);
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.end? {
            Finish::Blocked { loser } => Some(Outcome::winner(2, 1 - loser)),
            _ => Some(Outcome::draw(2)),
        }
    }

    fn is_over(&self) -> bool {
        self.end.is_some()
    }

    fn draw_rule(&self) -> Option<DrawRule> {
        match self.end? {
            Finish::Blocked { .. } => None,
            Finish::Repetition => Some(DrawRule::Threefold),
            Finish::KingMoves => Some(DrawRule::TwentyFiveMove),
            Finish::Endgame => Some(match endgame_limit(&self.board) {
                Some(SHORT_ENDGAME_LIMIT) => DrawRule::FiveMove,
                _ => DrawRule::SixteenMove,
            }),
        }
    }

    /// FMJD game points: 2 for a win, 1 for a draw (also an unfinished game), 0 for a loss.
    fn scores(&self) -> Vec<i32> {
        match self.end {
            Some(Finish::Blocked { loser }) => {
                (0..2).map(|s| if s == loser { 0 } else { 2 }).collect()
            }
            _ => vec![1, 1],
        }
    }

    /// A forfeit is a loss (0 against 2), whatever the position; the turn limit is a draw (1-1).
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        match end {
            ScoreEnd::Forfeit(seat) => (0..2).map(|s| if s == seat { 0 } else { 2 }).collect(),
            ScoreEnd::Rules | ScoreEnd::TurnLimit => self.scores(),
        }
    }

    fn position_text(&self) -> String {
        let mut s = String::with_capacity(160);
        notation::write_fen(&self.board, self.to_move, &mut s);
        use std::fmt::Write as _;
        let _ = write!(s, " {} {}", self.king_moves, self.endgame_moves);
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        use std::fmt::Write as _;
        out.reshape(CellShape::Square, 100, 1);
        for r in 0..10u8 {
            for c in 0..10u8 {
                let dark = (r + c) % 2 == 1;
                let sq = r * 5 + c / 2;
                let mark = if dark { "dark" } else { "" };
                let cell = out.cell(usize::from(r * 10 + c), f32::from(c), f32::from(r), mark);
                cell.name.clear();
                if dark {
                    let _ = write!(cell.name, "{}", sq + 1);
                }
                let label = if self.board.is_king(sq) { "K" } else { "" };
                let piece = match (dark, self.board.owner(sq)) {
                    (true, Some(seat)) => Some((seat, label)),
                    _ => None,
                };
                cell.set_pieces(piece);
            }
        }
        self.write_status(out.note(0));
    }

    fn describe(&self) -> String {
        let mut s = String::with_capacity(160);
        self.board_lines(&mut s);
        s.push_str(&self.status());
        s
    }
}

impl Draughts {
    /// One line: whose turn or how the game ended, and the draw counters.
    fn status(&self) -> String {
        let mut s = String::new();
        self.write_status(&mut s);
        s
    }

    /// Appends [`Draughts::status`].
    fn write_status(&self, out: &mut String) {
        use std::fmt::Write as _;
        let side = ["White", "Black"];
        let _ = match self.end {
            None => write!(out, "{} to move", side[self.to_move]),
            Some(Finish::Blocked { loser }) => {
                write!(out, "{} wins: {} cannot move", side[1 - loser], side[loser])
            }
            Some(Finish::Repetition) => write!(out, "draw by threefold repetition"),
            Some(Finish::KingMoves) => write!(out, "draw: 25 moves each of kings only"),
            Some(Finish::Endgame) => write!(out, "draw: the short-endgame count ran out"),
        };
        let _ = write!(
            out,
            " (king-only turns {}, endgame turns {})",
            self.king_moves, self.endgame_moves
        );
    }
}

/// The registry entry: international draughts.
pub static INFO: GameInfo = GameInfo {
    name: "draughts",
    title: "International draughts",
    about: "10x10 draughts under FMJD rules: flying kings, compulsory maximum capture, PDN moves",
    variants: &[Variant {
        name: "international",
        about: "the FMJD rules on the 10x10 board, with their draw rules",
        seats: &[2],
    }],
    default_max_turns: 400,
    books: &[("draughts-3move", include_str!("openings.txt"))],
    score_name: "game points",
    statement: include_str!("statement.md"),
    new: |_: &Setup| Box::new(TextGame::new(Draughts::new())),
    from_position: |_: &Setup, text: &str| Ok(Box::new(TextGame::new(Draughts::from_text(text)?))),
};
