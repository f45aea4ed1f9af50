//! Pure game rules behind one trait, so that the referee, the tournament runner and the bundled
//! bots never know which game they are playing.
//!
//! A game is one folder in this folder whose rules implement [`Rules`] (the one trait a game
//! implements), plus one entry in [`registry::GAMES`]. [`TextGame`] turns any rules into the
//! [`Game`] in play that the referee, the bots and the reports drive. Rules do no I/O, keep no
//! clocks and start no processes: everything here is deterministic given the setup (seats,
//! variant, seed) and the moves played. Nothing assumes two seats or a square board: results are
//! rankings, positions are shown through a neutral [`view::BoardView`].

pub mod abande;
pub mod accasta;
pub mod alva;
pub mod attangle;
pub mod attraktion;
pub mod draughts;
pub mod hex37;
pub mod impasse;
pub mod moscow_ice;
pub mod position_error;
pub mod registry;
pub mod rules;
pub mod stackboard;
pub mod standard;
pub mod view;

#[cfg(test)]
mod conformance;

pub use position_error::{NotLegal, PositionError};
pub use registry::{
    find, lookup, start_default as new_game, GameError, GameInfo, RulesChoice, Setup, Variant,
    GAMES,
};
pub use rules::{perft_rules, Rules, TextGame, TurnText};
pub use standard::History;
pub use view::{BoardView, CellShape, CellView, PieceView, SeatColour};

use std::fmt;

/// The final standing of every seat: `ranks[seat]` is 0 for first place; equal ranks are a tie.
/// A two-seat draw is `[0, 0]`, a win for seat 1 is `[1, 0]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub ranks: Vec<u8>,
}

impl Outcome {
    /// Seat `winner` first, everyone else shares second place.
    pub fn winner(seats: usize, winner: usize) -> Self {
        let ranks = (0..seats).map(|s| u8::from(s != winner)).collect();
        Outcome { ranks }
    }

    /// Everyone shares first place.
    pub fn draw(seats: usize) -> Self {
        Outcome {
            ranks: vec![0; seats],
        }
    }

    /// Ranks from per-seat values where higher is better (equal values tie): the competition
    /// ranking "1224" with 0 for first, so ranks count the seats strictly ahead.
    pub fn from_values(values: &[i64]) -> Self {
        let ranks = values
            .iter()
            .map(|v| values.iter().filter(|w| *w > v).count() as u8)
            .collect();
        Outcome { ranks }
    }

    /// The one seat ranked alone in first place, if there is one.
    pub fn sole_winner(&self) -> Option<usize> {
        let mut firsts = self.ranks.iter().enumerate().filter(|(_, &r)| r == 0);
        match (firsts.next(), firsts.next()) {
            (Some((seat, _)), None) => Some(seat),
            _ => None,
        }
    }
}

/// The rule that ended a game in a draw: the record's reason names it (`draw-threefold`, ...), so a
/// draw is never mistaken for a win and the rule that ended the game is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawRule {
    /// Draughts: the same position with the same side to move for the third time.
    Threefold,
    /// Draughts: 25 moves by each side of kings only, without a capture.
    TwentyFiveMove,
    /// Draughts: three pieces with a king against a lone king, not won within 16 moves each.
    SixteenMove,
    /// Draughts: one or two pieces with a king against a lone king, not won within 5 moves each.
    FiveMove,
    /// Abande, Alva: the game ended with equal points.
    EqualPoints,
    /// Attangle: both players passed in a row.
    TwoPasses,
    /// Attraktion: the board (or the hand of the player to move) ran out with equal shapes.
    FullBoard,
    /// An external referee's `###End` ranked every player equal.
    Referee,
}

impl DrawRule {
    pub const ALL: [DrawRule; 8] = [
        DrawRule::Threefold,
        DrawRule::TwentyFiveMove,
        DrawRule::SixteenMove,
        DrawRule::FiveMove,
        DrawRule::EqualPoints,
        DrawRule::TwoPasses,
        DrawRule::FullBoard,
        DrawRule::Referee,
    ];

    /// The rule's name in a reason (after `draw-`).
    pub fn as_str(self) -> &'static str {
        match self {
            DrawRule::Threefold => "threefold",
            DrawRule::TwentyFiveMove => "25-move",
            DrawRule::SixteenMove => "16-move",
            DrawRule::FiveMove => "5-move",
            DrawRule::EqualPoints => "equal-points",
            DrawRule::TwoPasses => "two-passes",
            DrawRule::FullBoard => "full-board",
            DrawRule::Referee => "referee",
        }
    }
}

/// How a game ended, for [`Rules::record_scores`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreEnd {
    /// The rules ended it.
    Rules,
    /// The referee's turn limit ended it.
    TurnLimit,
    /// This seat forfeited and the game ended.
    Forfeit(usize),
}

/// A game in play, as the referee, the bots and the reports drive it: any game's [`Rules`] with
/// its moves as texts, its history and its copies. Games never implement it: [`TextGame`] does,
/// once for every [`Rules`] (the trait is sealed).
///
/// The legal moves are the exact texts a bot is offered and must answer with; the referee plays a
/// move by its index in [`Game::legal_moves`], so telling a malformed answer from an illegal one is
/// the protocol's job and never the game's. The game keeps whatever history its turn input needs
/// (with N seats, every move since the seat's own previous turn: see [`standard::History`]).
///
/// Everything else about the position (whose turn, the outcome, the scores, the view, the seat
/// colours) is asked of its rules: `dyn Game` dereferences to `dyn Rules`, so `game.to_move()`
/// reads as before and each question is declared once, in [`Rules`].
pub trait Game: Send + sealed::Sealed {
    /// The position's rules, for every question that needs no move texts.
    fn rules(&self) -> &dyn Rules;
    /// The moves the seat to move may play, in the order the bot receives them; texts are unique
    /// within the list (Impasse's arena format excepted). Empty only when the game is over.
    fn legal_moves(&self) -> &[String];
    /// How many legal moves there are: what search asks, without writing the moves' texts.
    fn move_count(&self) -> usize;
    /// The index in [`Game::legal_moves`] of the move an answer's text names (any spelling
    /// [`Rules::index_of_move`] accepts).
    fn index_of_move(&self, text: &str) -> Option<usize>;
    /// Plays the legal move at `index` (an index into [`Game::legal_moves`]).
    fn play(&mut self, index: usize);
    /// Appends to `out` the whole input of one turn for the seat to move, every line ending in
    /// `\n` ([`Rules::write_turn_input`]). `first_turn` is that bot's first turn of the game.
    fn write_turn_input(&self, first_turn: bool, out: &mut String);
    /// Takes `seat` out of the game after it forfeited ([`Rules::eliminate`]); it sees no more
    /// moves. Returns true if the others play on.
    fn eliminate(&mut self, seat: usize) -> bool;
    /// A copy of the current position and its history, for openings.
    fn box_clone(&self) -> Box<dyn Game>;
    /// A copy for search: the same position and legal moves, but moves played on it are not
    /// written into a history, so its turn input lists no moves played before.
    fn search_copy(&self) -> Box<dyn Game>;
    /// Counts the leaf move sequences `depth` plies deep (see [`perft`]) on typed moves, without
    /// writing a move's text.
    fn perft(&self, depth: u32) -> u64;
}

/// Keeps [`Game`] to the one implementation, [`TextGame`]: a game implements [`Rules`].
mod sealed {
    pub trait Sealed {}
}

/// `game.to_move()`, `game.outcome()`, ... on any game in play: its rules answer.
impl<'a> std::ops::Deref for dyn Game + 'a {
    type Target = dyn Rules;
    fn deref(&self) -> &(dyn Rules + 'static) {
        self.rules()
    }
}

impl Clone for Box<dyn Game> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

impl fmt::Debug for dyn Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:\n{}", self.name(), self.describe())
    }
}

/// Counts the leaf move sequences `depth` plies deep, every listed move counted (duplicate texts
/// included) and a finished game ending its line. The standard check that move generation is right.
pub fn perft(game: &dyn Game, depth: u32) -> u64 {
    game.perft(depth)
}

/// [`perft`] through the text interface only: copies of the position, moves played by index.
pub fn perft_by_text(game: &dyn Game, depth: u32) -> u64 {
    if depth == 0 || game.is_over() {
        return u64::from(depth == 0);
    }
    let n = game.move_count();
    if depth == 1 {
        return n as u64;
    }
    (0..n)
        .map(|i| {
            let mut child = game.search_copy();
            child.play(i);
            perft_by_text(&*child, depth - 1)
        })
        .sum()
}
