//! Why a position cannot be read: one error type for every game's position text (what
//! `--position` and the standard input's position line hold) and for the arena's board lines.
//! The same mistake is one variant whichever game makes it (a side to move that is not one, a
//! row of the wrong length, a number out of range); the rest are the rules' own checks that no
//! play can reach the position. Each variant's text is what the game's reader always said, and
//! [`super::GameError::Position`] names the game in front of it.

use std::borrow::Cow;

/// Why a position text (or a board read from a bot's input) is not a position of its game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    // The text's form.
    /// Nothing to read.
    #[error("empty position text; expected e.g. {example}")]
    Empty { example: &'static str },
    /// The text does not split into the fields of the game's form (`got`: the text, where it is
    /// quoted back).
    #[error("expected {expected}{}", got_text(got))]
    Form {
        expected: Cow<'static, str>,
        got: Option<String>,
    },
    /// A part of the form has the wrong number of items (rows, numbers).
    #[error("expected {expected} {what}, got {got}")]
    Count {
        expected: usize,
        what: &'static str,
        got: usize,
    },
    /// Draughts: what follows the FEN part is neither nothing nor two counters.
    #[error(
        "after the FEN part expect nothing or two counters (king-only turns, endgame turns), \
         got {got:?}"
    )]
    Counters { got: String },

    // Who is to move.
    /// The side to move is not one of the two letters (`note`: how the game writes them).
    #[error("the side to move is {} or {}{note}, not {got:?}", sides[0], sides[1])]
    SideToMove {
        sides: [char; 2],
        note: &'static str,
        got: String,
    },
    /// The seat to move is not a seat of the game.
    #[error("the seat to move must be 0 to {max}, not {got:?}")]
    SeatToMove { max: usize, got: String },
    /// The arena's boards: a seat that is neither White nor Black.
    #[error("seat {seat} does not exist (0 White, 1 Black)")]
    NoSuchSeat { seat: usize },

    // The board's rows and cells.
    /// A row of stacks with the wrong number of cells.
    #[error("row {row} needs {expected} cells joined by ',', got {got}")]
    RowCells {
        row: char,
        expected: usize,
        got: usize,
    },
    /// A row of characters of the wrong length (`what`: "row" or "board row"; rows counted
    /// from the bottom).
    #[error("{what} {row} is not {expected} characters: {line:?}")]
    RowLength {
        what: &'static str,
        row: usize,
        expected: usize,
        line: String,
    },
    /// A character that is no piece (`what`: the game's word for a place on its board; `hint`:
    /// the characters to use, if the message gives them).
    #[error("unknown {what} character {ch:?}{hint}")]
    Character {
        what: &'static str,
        ch: char,
        hint: &'static str,
    },
    /// A stack that is not `.` nor one to the most pieces a stack holds.
    #[error("bad stack {stack:?}")]
    Stack { stack: String },
    /// A stack with a letter that names no seat.
    #[error("bad piece {piece:?} in stack {stack:?}")]
    Piece { piece: char, stack: String },
    /// A square written twice.
    #[error("square {square} is listed twice")]
    SquareTwice { square: String },

    // Numbers.
    /// A number out of its range (pieces in hand, passes).
    #[error("{text:?} is not a number from 0 to {max}")]
    Number { text: String, max: u32 },
    /// A number that is not one (`what`: what it counts).
    #[error("{text:?} is not a {what}")]
    NotANumber { what: &'static str, text: String },
    /// Draughts: a counter that is not a number.
    #[error("the {counter} counter {text:?} is not a number")]
    Counter { counter: &'static str, text: String },

    // How many pieces.
    /// Accasta: more pieces than a side has.
    #[error("{side} has {count} pieces, more than {max}")]
    TooManyPieces {
        side: &'static str,
        count: usize,
        max: usize,
    },
    /// Impasse soldier-king: more pieces than a side starts with.
    #[error("{side} has {count} pieces, more than the {max} it starts with")]
    MoreThanAtStart {
        side: &'static str,
        count: u8,
        max: u8,
    },
    /// The hand games: pieces on the board and in hand, more than the set.
    #[error("{side} has {on_board} pieces on the board and {in_hand} in hand, more than {max}")]
    TooManyWithHand {
        side: &'static str,
        on_board: usize,
        in_hand: u8,
        max: u8,
    },
    /// Alva: pieces on the board, in hand and captured, more than the set.
    #[error("{side} pieces add up to {count} (board, hand, captured), more than {max}")]
    TooManyAccounted {
        side: &'static str,
        count: u32,
        max: u32,
    },
    /// Attraktion: more pieces on the board than a player has.
    #[error("{side} has {count} pieces on the board; each player has only {max}")]
    TooManyOnBoard {
        side: &'static str,
        count: u32,
        max: u32,
    },
    /// Draughts: more pieces than a side has.
    #[error("{side} has {count} pieces; a side has at most {max}")]
    TooManyForASide {
        side: &'static str,
        count: usize,
        max: usize,
    },
    /// The arena's Impasse: more checkers than a seat has.
    #[error("seat {seat} has more than {max} checkers")]
    TooManyCheckers { seat: usize, max: i32 },

    // Stacks.
    /// Abande: a stack taller than the rules allow.
    #[error("a stack is taller than {max}")]
    TooTall { max: usize },
    /// Accasta: a stack with more pieces of a colour than the rules allow.
    #[error("the stack on {cell} holds more than {max} pieces of a colour")]
    StackColour { cell: String, max: usize },
    /// Attangle: a stack that play cannot build.
    #[error("the stack on {cell} is not a single, a 2:1 triple or a 3:2 five")]
    StackShape { cell: String },
    /// Abande: pieces in more than one group.
    #[error("the pieces do not form one connected group")]
    NotConnected,

    // Positions that no play reaches.
    /// Accasta: both players have won.
    #[error("both players hold three stacks in the enemy castle")]
    BothInCastle,
    /// Attangle: both players have won.
    #[error("both players have enough five-stacks to win")]
    BothHaveFives,
    /// Impasse soldier-king: both players have won.
    #[error("both sides are down to one piece or none; only one can have won")]
    BothDown,
    /// The arena's Impasse: no checker of either side.
    #[error(
        "the board is empty: play never reaches a position without the checkers of both sides \
         (the game ends when one side has removed all twelve); give a position with checkers of \
         both colours"
    )]
    EmptyBoard,
    /// The arena's Impasse: a side has removed all its checkers, so the game is over.
    #[error(
        "{side} has no checkers left: it has removed all twelve and the game is already over; \
         give a position where both sides still have checkers"
    )]
    NoCheckersLeft { side: &'static str },
    /// Impasse soldier-king: a king where it would have been demoted.
    #[error("{side} has a king on its first row ({square}), where a king is demoted")]
    KingOnFirstRow { side: &'static str, square: String },
    /// Impasse soldier-king: more than one soldier on a side's last row.
    #[error("{side} has {count} soldiers on its last row; at most one can stand there")]
    SoldiersOnLastRow { side: &'static str, count: u8 },

    // Draughts.
    /// A piece list without its colour.
    #[error("a piece list starts with W or B (the colour), got {got:?}")]
    PieceList { got: String },
    /// A colour's pieces given twice.
    #[error("the pieces of {side} are listed twice")]
    PiecesTwice { side: &'static str },
    /// A square that is no square of the board.
    #[error("{text:?} in {item:?} is not a square number 1-50")]
    SquareNumber { text: String, item: String },
    /// A range of squares from high to low.
    #[error("the range {item:?} runs backwards")]
    Backwards { item: String },
    /// A man on the row where it would have been crowned.
    #[error(
        "{side} has a man on {square}, its crowning row: it would be a king (write K{square})"
    )]
    ManOnCrowningRow { side: &'static str, square: u8 },
    /// The king-move counter past the draw it counts to.
    #[error("the king-move counter {count} is past its limit {limit}")]
    KingMovesPast { count: u8, limit: u8 },
    /// A king-move counter where the side(s) it counts have no king.
    #[error(
        "the king-move counter is {count}, but {side} has no king: the count grows only by king \
         moves without a capture ({}), so play cannot reach this position; give 0",
        if *count == 1 { "the side that just moved must have a king" } else { "both sides must have a king" }
    )]
    KingMovesWithoutKing { count: u8, side: &'static str },
    /// An endgame counter outside a short endgame.
    #[error(
        "the endgame counter is {count} but the material is not a short endgame (a lone king \
         against at most three pieces with a king); it must be 0"
    )]
    NotAnEndgame { count: u8 },
    /// An endgame counter past the draw it counts to.
    #[error("the endgame counter {count} is past this endgame's limit {limit}")]
    EndgamePast { count: u8, limit: u8 },

    // Moscow Ice.
    /// An eliminated seat in a game of two.
    #[error("no seat can be eliminated in a two-seat game")]
    EliminatedOfTwo,
    /// The eliminated seats are not seats.
    #[error("eliminated seats are digits below {seats}: {got:?}")]
    EliminatedSeats { seats: usize, got: String },
    /// A seat eliminated twice.
    #[error("seat {seat} listed twice as eliminated")]
    EliminatedTwice { seat: usize },
    /// An eliminated seat to move.
    #[error("seat {seat} is eliminated and cannot be to move")]
    EliminatedToMove { seat: usize },
    /// More passes in a row than seats playing.
    #[error("passes must be 0 to {max}, not {got:?}")]
    Passes { max: usize, got: String },
    /// A square's item without its `:`.
    #[error("a square is `name:pieces`, not {item:?}")]
    SquareItem { item: String },
    /// A square name that is no square of the board.
    #[error("{name:?} is not one of the {squares} squares")]
    NoSuchSquare { name: String, squares: usize },
    /// A square's pieces that are not one to three seat-and-size pairs.
    #[error("{square}: one to three pieces, each a seat digit and S, M or L: {pieces:?}")]
    SquarePieces { square: String, pieces: String },
    /// A piece of no seat.
    #[error("{square}: bad seat {seat:?}")]
    PieceSeat { square: String, seat: char },
    /// A piece of no size.
    #[error("{square}: size must be S, M or L, not {size:?}")]
    PieceSize { square: String, size: char },
    /// A piece on one of its size or larger.
    #[error("{square}: pieces must get larger upwards: {pieces}")]
    NotNested { square: String, pieces: String },
    /// A piece of an eliminated seat.
    #[error("{square}: seat {seat} is eliminated and has no pieces")]
    EliminatedPieces { square: String, seat: usize },
    /// More pieces of a size than a seat has.
    #[error("seat {seat} has more than {max} pieces of size {size}")]
    TooManyOfSize { seat: usize, max: u8, size: char },
}

impl PositionError {
    /// The side to move of the games that write it `w` or `b`, given as `got`.
    pub fn side_w_or_b(got: &str) -> PositionError {
        PositionError::SideToMove {
            sides: ['w', 'b'],
            note: "",
            got: got.to_string(),
        }
    }
}

/// `, got "TEXT"` where the text is quoted back.
fn got_text(got: &Option<String>) -> String {
    got.as_ref()
        .map(|g| format!(", got {g:?}"))
        .unwrap_or_default()
}

/// A move text that is not one of the legal moves (playing by text: openings, tests).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a legal move here; legal: {}", legal.join(", "))]
pub struct NotLegal {
    pub text: String,
    pub legal: Vec<String>,
}
