//! Pure game rules behind one narrow trait, so that the referee, the tournament runner and the
//! bundled bots never know which game they are playing.
//!
//! A game is one file in this folder plus a line in [`GAMES`]. Rules do no I/O, keep no clocks and
//! start no processes: everything here is deterministic given the seed and the moves played.

pub mod impasse;

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

    /// The one seat ranked alone in first place, if there is one.
    pub fn sole_winner(&self) -> Option<usize> {
        let mut firsts = self.ranks.iter().enumerate().filter(|(_, &r)| r == 0);
        match (firsts.next(), firsts.next()) {
            (Some((seat, _)), None) => Some(seat),
            _ => None,
        }
    }
}

/// The rules of one game, as the referee drives them.
///
/// The legal moves are the exact texts a bot is offered and must answer with; the referee plays a
/// move by its index in [`Game::legal_moves`], so telling a malformed answer from an illegal one is
/// the protocol's job and never the game's.
pub trait Game: Send {
    /// The name users type after `--game`.
    fn name(&self) -> &'static str;
    /// How many bots play.
    fn seats(&self) -> usize;
    /// The seat whose turn it is. Meaningless once [`Game::outcome`] is `Some`.
    fn to_move(&self) -> usize;
    /// The moves the seat to move may play, in the order the bot receives them. Empty only when
    /// the game is over.
    fn legal_moves(&self) -> &[String];
    /// Plays the legal move at `index` (an index into [`Game::legal_moves`]).
    fn play(&mut self, index: usize);
    /// Appends to `out` the whole input of one turn for the seat to move, every line ending in
    /// `\n`. `first_turn` is that bot's first turn of the game; `last_move` is the previous move
    /// as the referee applied it (`None` before any move was played).
    fn write_turn_input(&self, first_turn: bool, last_move: Option<&str>, out: &mut String);
    /// `Some` once the rules end the game.
    fn outcome(&self) -> Option<Outcome>;
    /// The result when the referee's turn limit ends the game first.
    fn outcome_at_turn_limit(&self) -> Outcome {
        Outcome::draw(self.seats())
    }
    /// A per-seat score kept in the record (for Impasse: checkers each side removed).
    fn scores(&self) -> Vec<i32>;
    /// The default limit on turns (one turn = one seat's move), as the reference arena sets it.
    fn default_max_turns(&self) -> u32;
    /// A copy of the current position, for openings and search.
    fn box_clone(&self) -> Box<dyn Game>;
    /// A human-readable picture of the position (for error messages and replays).
    fn describe(&self) -> String;
}

impl Clone for Box<dyn Game> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// Makes a game's start position from the game's seed.
pub type NewGame = fn(u64) -> Box<dyn Game>;

/// Constructors of every game arbiter knows, by the name users type.
/// Each takes the game's seed, for games whose setup is random (Impasse's is not).
pub const GAMES: &[(&str, NewGame)] = &[("impasse", |_seed| Box::new(impasse::Impasse::new()))];

/// A `--game` value that names no known game.
#[derive(Debug, thiserror::Error)]
#[error("unknown game '{name}'; known games: {known}")]
pub struct UnknownGame {
    pub name: String,
    pub known: String,
}

/// Creates the start position of the game called `name`.
pub fn new_game(name: &str, seed: u64) -> Result<Box<dyn Game>, UnknownGame> {
    GAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, make)| make(seed))
        .ok_or_else(|| UnknownGame {
            name: name.to_string(),
            known: GAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        })
}

impl fmt::Debug for dyn Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:\n{}", self.name(), self.describe())
    }
}

/// Counts the leaf move sequences `depth` plies deep, every listed move counted (duplicate texts
/// included) and a finished game ending its line. The standard check that move generation is right.
pub fn perft(game: &dyn Game, depth: u32) -> u64 {
    if depth == 0 || game.outcome().is_some() {
        return u64::from(depth == 0);
    }
    let n = game.legal_moves().len();
    if depth == 1 {
        return n as u64;
    }
    (0..n)
        .map(|i| {
            let mut child = game.box_clone();
            child.play(i);
            perft(child.as_ref(), depth - 1)
        })
        .sum()
}
