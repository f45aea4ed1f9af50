//! Pure game rules behind one narrow trait, so that the referee, the tournament runner and the
//! bundled bots never know which game they are playing.
//!
//! A game is one file or folder in this folder plus one entry in [`registry::GAMES`]. Rules do no
//! I/O, keep no clocks and start no processes: everything here is deterministic given the setup
//! (seats, variant, seed) and the moves played. Nothing assumes two seats or a square board:
//! results are rankings, positions are shown through a neutral [`view::BoardView`].

pub mod abande;
pub mod accasta;
pub mod alva;
pub mod attangle;
pub mod attraktion;
pub mod draughts;
pub mod hex37;
pub mod impasse;
pub mod moscow_ice;
pub mod registry;
pub mod rules;
pub mod stackboard;
pub mod standard;
pub mod view;

#[cfg(test)]
mod conformance;

pub use registry::{
    find, lookup, start_default as new_game, GameError, GameInfo, RulesChoice, Setup, Variant,
    GAMES,
};
pub use rules::{perft_rules, Rules, TextGame, TurnText};
pub use standard::History;
pub use view::{BoardView, CellShape, CellView, PieceView};

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

/// How a game ended, for [`Game::record_scores`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreEnd {
    /// The rules ended it.
    Rules,
    /// The referee's turn limit ended it.
    TurnLimit,
    /// This seat forfeited and the game ended.
    Forfeit(usize),
}

/// The rules of one game, as the referee drives them.
///
/// The legal moves are the exact texts a bot is offered and must answer with; the referee plays a
/// move by its index in [`Game::legal_moves`], so telling a malformed answer from an illegal one is
/// the protocol's job and never the game's. The game keeps whatever history its turn input needs
/// (with N seats, every move since the seat's own previous turn: see [`standard::History`]).
pub trait Game: Send {
    /// The registry entry of this game (name, seats, variants, statement).
    fn info(&self) -> &'static GameInfo;
    /// The variant being played (one of `info().variants`).
    fn variant(&self) -> &'static str;
    /// How many seats play.
    fn seats(&self) -> usize;
    /// The seat whose turn it is. Meaningless once [`Game::outcome`] is `Some`.
    fn to_move(&self) -> usize;
    /// The moves the seat to move may play, in the order the bot receives them; texts are unique
    /// within the list (Impasse's arena format excepted). Empty only when the game is over.
    fn legal_moves(&self) -> &[String];
    /// How many legal moves there are: what search asks, without writing the moves' texts.
    fn move_count(&self) -> usize {
        self.legal_moves().len()
    }
    /// The index in [`Game::legal_moves`] of the move an answer's text names. The default is the
    /// exact offered text; a game whose notation has more than one spelling of a move (Attangle's
    /// two capturing units in either order) accepts each of them, and the offered list stays
    /// canonical.
    fn index_of_move(&self, text: &str) -> Option<usize> {
        self.legal_moves().iter().position(|m| m == text)
    }
    /// Plays the legal move at `index` (an index into [`Game::legal_moves`]).
    fn play(&mut self, index: usize);
    /// Appends to `out` the whole input of one turn for the seat to move, every line ending in
    /// `\n`. `first_turn` is that bot's first turn of the game. New games use
    /// [`standard::write_input`]; Impasse writes the CodinGame arena's format.
    fn write_turn_input(&self, first_turn: bool, out: &mut String);
    /// The fixed-format lines showing the position inside the standard input shape (a picture of
    /// the board a bot can index by row and column); the same count of lines every turn.
    fn write_board(&self, out: &mut String);
    /// `Some` once the rules end the game.
    fn outcome(&self) -> Option<Outcome>;
    /// Whether the game is over, without building its outcome (search asks this every ply).
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }
    /// The rule that ended the game in a draw, once [`Game::outcome`] is `Some` with every seat
    /// sharing first place; `None` otherwise (and for games whose rules never draw).
    fn draw_rule(&self) -> Option<DrawRule> {
        None
    }
    /// The result when the referee's turn limit ends the game first.
    fn outcome_at_turn_limit(&self) -> Outcome {
        Outcome::draw(self.seats())
    }
    /// Per-seat scores kept in the record, as the game defines them (Impasse: checkers removed).
    fn scores(&self) -> Vec<i32>;
    /// The scores a game's record shows, by how it ended. The default is [`Game::scores`] in
    /// every case; Impasse reports the arena's (-1 for a forfeit, 0 and 0 at the turn limit).
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        let _ = end;
        self.scores()
    }
    /// Takes `seat` out of the game after it forfeited. Returns true if the others play on (the
    /// seat never moves again and is ranked below every seat still playing), false if the
    /// forfeit ends the game. Two-seat games end; the default ends every game.
    fn eliminate(&mut self, seat: usize) -> bool {
        let _ = seat;
        false
    }
    /// The ranks when `seat`'s forfeit ended the game (after [`Game::eliminate`] returned false).
    /// The default: `seat` last, everyone else shares first place. Team games rank the
    /// forfeiting seat's team below every intact team.
    fn outcome_of_forfeit(&self, seat: usize) -> Outcome {
        Outcome {
            ranks: (0..self.seats()).map(|s| u8::from(s == seat)).collect(),
        }
    }
    /// The position in the game's one-line text form: what `--position` accepts and what
    /// [`GameInfo::from_position`] reads back to an equal position.
    fn position_text(&self) -> String;
    /// A neutral picture of the position, from which the viewer and the terminal draw every game.
    fn view(&self) -> BoardView;
    /// [`Game::view`] written over `out` (a view of any position, or empty), whose storage is
    /// reused: a view taken after every move of a game (a replay page) allocates nothing once
    /// the first is made. The default builds a new view.
    fn view_into(&self, out: &mut BoardView) {
        *out = self.view();
    }
    /// A copy of the current position and its history, for openings.
    fn box_clone(&self) -> Box<dyn Game>;
    /// A copy for search: the same position and legal moves, but moves played on it are not
    /// written into a history, so its turn input lists no moves played before.
    fn search_copy(&self) -> Box<dyn Game> {
        self.box_clone()
    }
    /// Counts the leaf move sequences `depth` plies deep (see [`perft`]). Games of typed rules
    /// count on typed moves, without writing a move's text.
    fn perft(&self, depth: u32) -> u64 {
        perft_by_text(self, depth)
    }
    /// A human-readable picture of the position (for error messages and replays).
    fn describe(&self) -> String;
    /// The name users type after `--game`.
    fn name(&self) -> &'static str {
        self.info().name
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
pub fn perft_by_text<G: Game + ?Sized>(game: &G, depth: u32) -> u64 {
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
            perft_by_text(child.as_ref(), depth - 1)
        })
        .sum()
}
