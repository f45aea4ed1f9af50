//! The one trait a game implements, [`Rules`], and the one adapter that gives every game its
//! text protocol, history and [`Game`] implementation.
//!
//! A game's rules implement [`Rules`]: legal moves are small `Copy` values written into a buffer
//! the caller owns, played without ever becoming text. Only the referee's turn input and the
//! answer's check need texts, so the adapter [`TextGame`] writes them when (and only when) they are
//! asked for, keeps the history the standard input needs, and implements [`Game`] once for every
//! game. Search (perft, MCTS playouts) runs on typed moves: no move text is written on the way.
//!
//! Every question about a position (whose turn, the outcome, the scores, the view) is asked of
//! [`Rules`] and declared there only: a `dyn Game` answers it through its rules (`dyn Game`
//! dereferences to `dyn Rules`, the object-safe part of the trait). [`Game`] adds only what needs
//! the adapter's state: the moves as texts, play by index, the turn input, copies.
//!
//! So a new game is its rules file, its statement, its view and one registry entry; everything
//! about the text protocol lives here and in [`super::standard`].

use super::standard::{self, History};
use super::view::SeatColour;
use super::{BoardView, DrawRule, Game, GameInfo, NotLegal, Outcome, ScoreEnd};
use std::cell::{Cell, OnceCell};
use std::fmt;

/// The rules of one game, with typed moves: the one trait a game implements (with `Clone`, which
/// [`TextGame`] needs to copy positions). Everything is deterministic; nothing does I/O.
///
/// The typed-move items ([`Rules::Move`], [`Rules::legal_moves`], [`Rules::play`],
/// [`Rules::write_move`]) are for the concrete game only (`where Self: Sized`); the rest is
/// object-safe, so that any game's position can be asked as a `dyn Rules` (what `dyn Game`
/// dereferences to).
///
/// The adapter keeps the legal moves of the position (from [`Rules::legal_moves`] after every
/// play), so the rules need not keep a list of their own; rules that need the list to decide the
/// end of the game (no legal move loses) may keep what they need, at the cost of a larger copy.
pub trait Rules: Send + 'static {
    /// One move: small and `Copy` (a few bytes: squares, a direction, an index).
    type Move: Copy + PartialEq + fmt::Debug + Send + 'static
    where
        Self: Sized;

    /// The registry entry of this game (name, seats, variants, statement).
    fn info(&self) -> &'static GameInfo;
    /// The variant being played (one of `info().variants`).
    fn variant(&self) -> &'static str;
    /// How many seats play.
    fn seats(&self) -> usize;
    /// The seat whose turn it is. Meaningless once [`Rules::outcome`] is `Some`.
    fn to_move(&self) -> usize;
    /// Appends the moves the seat to move may play to `out` (the caller clears it), in the order a
    /// bot receives them; their texts are unique within the list (Impasse's arena format
    /// excepted). Appends nothing only when the game is over.
    fn legal_moves(&self, out: &mut Vec<Self::Move>)
    where
        Self: Sized;
    /// Plays `mv`, one of this position's legal moves.
    fn play(&mut self, mv: Self::Move)
    where
        Self: Sized;
    /// Appends the text of `mv`, one of this position's legal moves, as a bot reads and writes it.
    fn write_move(&self, mv: Self::Move, out: &mut String)
    where
        Self: Sized;
    /// The index in `texts` (this position's legal moves as written) of the move an answer names.
    /// The default is the exact text; a game whose notation spells a move more than one way
    /// (Attangle's two capturing units in either order) accepts each spelling, and the offered
    /// list stays canonical.
    fn index_of_move(&self, text: &str, texts: &[String]) -> Option<usize> {
        texts.iter().position(|t| t == text)
    }
    /// Appends the whole input of one turn for the seat to move, every line ending in `\n`. The
    /// default is the standard input shape ([`standard::write_input`]); Impasse writes the
    /// CodinGame arena's format.
    fn write_turn_input(&self, turn: &TurnText<'_>, out: &mut String) {
        standard::write_input(turn.game, turn.history, turn.first_turn, out);
    }
    /// The fixed-format lines showing the position inside the standard input shape (a picture of
    /// the board a bot can index by row and column); the same count of lines every turn.
    fn write_board(&self, out: &mut String);
    /// `Some` once the rules end the game.
    fn outcome(&self) -> Option<Outcome>;
    /// Whether the game is over, without building its outcome (search asks this every ply).
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }
    /// The rule that ended the game in a draw, once [`Rules::outcome`] is `Some` with every seat
    /// sharing first place; `None` otherwise (and for games whose rules never draw).
    fn draw_rule(&self) -> Option<DrawRule> {
        None
    }
    /// The result when the referee's turn limit ends the game first.
    fn outcome_at_turn_limit(&self) -> Outcome {
        Outcome::draw(self.seats())
    }
    /// Per-seat scores kept in the record, as the game defines them (Impasse: checkers removed);
    /// never negative, so that a forfeit's -1 stands below every one of them.
    fn scores(&self) -> Vec<i32>;
    /// The scores a game's record shows, by how it ended. The default, every built-in game's
    /// rule unless its statement says otherwise: [`Rules::scores`], except that a forfeit that
    /// ends the game scores -1 for the forfeiting seat while every other seat keeps its own
    /// score (so the forfeiter scores below every seat ranked above it, as [`Rules::scores`] is
    /// never negative). Impasse reports the arena's (-1 against 0 for a forfeit, 0 and 0 at the
    /// turn limit), draughts FMJD game points (0 against 2 for a forfeit).
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        let mut scores = self.scores();
        if let ScoreEnd::Forfeit(seat) = end {
            if let Some(score) = scores.get_mut(seat) {
                *score = -1;
            }
        }
        scores
    }
    /// Takes `seat` out of the game after it forfeited. Returns true if the others play on (the
    /// seat never moves again and is ranked below every seat still playing), false if the
    /// forfeit ends the game. Two-seat games end; the default ends every game.
    fn eliminate(&mut self, seat: usize) -> bool {
        let _ = seat;
        false
    }
    /// The ranks when `seat`'s forfeit ended the game (after [`Rules::eliminate`] returned
    /// false). The default: `seat` last, everyone else shares first place. Team games rank the
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
    /// [`Rules::view`] written over `out` (a view of any position, or empty), whose storage is
    /// reused: a view taken after every move of a game (a replay page) allocates nothing once
    /// the first is made. The default builds a new view; the games fill `out` in place.
    fn view_into(&self, out: &mut BoardView) {
        *out = self.view();
    }
    /// The name and colours of each seat's pieces, as the rules name them, for the replay
    /// pages' pieces, swatches and legend. The default is [`SeatColour::standard`]: White, then
    /// Black, then Red, Blue and so on; a game whose first seat is Black (Abande) says so.
    fn seat_colours(&self) -> Vec<SeatColour> {
        SeatColour::standard(self.seats())
    }
    /// A human-readable picture of the position (for error messages and replays).
    fn describe(&self) -> String;
    /// The name users type after `--game`.
    fn name(&self) -> &'static str {
        self.info().name
    }
}

/// What a game's turn input may draw on besides its own position.
pub struct TurnText<'a> {
    /// The game as the protocol sees it (for [`standard::write_input`]).
    pub game: &'a dyn Game,
    /// Every move of the game as played, and what each seat has seen.
    pub history: &'a History,
    /// The legal moves as written, in order.
    pub texts: &'a [String],
    /// Whether this is that bot's first turn of the game.
    pub first_turn: bool,
}

/// A game of typed rules as the referee, the bots and the reports see it: texts written on demand,
/// the history kept, and [`Game`] implemented once.
pub struct TextGame<R: Rules> {
    rules: R,
    /// The legal moves of the position, in the order the bot receives them.
    moves: Vec<R::Move>,
    /// Their texts, written the first time they are asked for after a play.
    texts: OnceCell<Vec<String>>,
    /// The previous position's text vector, kept to reuse its strings' storage.
    spare: Cell<Vec<String>>,
    history: History,
    /// False for a search copy: moves are played without writing their texts into the history.
    record: bool,
}

impl<R: Rules + Clone> TextGame<R> {
    /// The game from `rules`' position, with an empty history.
    pub fn new(rules: R) -> Self {
        let seats = rules.seats();
        let mut g = TextGame {
            rules,
            moves: Vec::new(),
            texts: OnceCell::new(),
            spare: Cell::new(Vec::new()),
            history: History::new(seats),
            record: true,
        };
        g.rules.legal_moves(&mut g.moves);
        g
    }

    /// The rules and their position.
    pub fn rules(&self) -> &R {
        &self.rules
    }

    /// The typed legal moves, in the order of [`Game::legal_moves`].
    pub fn moves(&self) -> &[R::Move] {
        &self.moves
    }

    /// The history of the game as played through this adapter.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Plays the move whose text is `text` (any spelling the game accepts), or says which moves
    /// are legal.
    pub fn play_text(&mut self, text: &str) -> Result<(), NotLegal> {
        match self.index_of_move(text) {
            Some(i) => {
                self.play(i);
                Ok(())
            }
            None => Err(NotLegal {
                text: text.to_string(),
                legal: self.legal_moves().to_vec(),
            }),
        }
    }

    /// Plays typed move `mv` (one of [`TextGame::moves`]).
    pub fn play_move(&mut self, mv: R::Move) {
        if self.record {
            let mut text = String::new();
            self.rules.write_move(mv, &mut text);
            self.history.record(self.rules.to_move(), text);
        }
        self.rules.play(mv);
        self.refresh();
    }

    /// Lists the legal moves again after the position changed, keeping the old texts' storage.
    fn refresh(&mut self) {
        if let Some(old) = self.texts.take() {
            self.spare.set(old);
        }
        self.moves.clear();
        self.rules.legal_moves(&mut self.moves);
    }
}

/// The rules' own accessors (Attraktion's shapes, a board) read through the adapter; the position
/// only changes through [`Game::play`], so that the history and the move list follow it.
impl<R: Rules> std::ops::Deref for TextGame<R> {
    type Target = R;
    fn deref(&self) -> &R {
        &self.rules
    }
}

impl<R: Rules + Clone> Clone for TextGame<R> {
    fn clone(&self) -> Self {
        TextGame {
            rules: self.rules.clone(),
            moves: self.moves.clone(),
            texts: self.texts.clone(),
            spare: Cell::new(Vec::new()),
            history: self.history.clone(),
            record: self.record,
        }
    }
}

impl<R: Rules + fmt::Debug> fmt::Debug for TextGame<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextGame")
            .field("rules", &self.rules)
            .field("moves", &self.moves)
            .finish()
    }
}

/// Counts the leaf move sequences `depth` plies deep on typed moves, with one move buffer per ply.
pub fn perft_rules<R: Rules + Clone>(rules: &R, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<R::Move>> = (0..depth).map(|_| Vec::new()).collect();
    perft_into(rules, depth, &mut buffers)
}

fn perft_into<R: Rules + Clone>(rules: &R, depth: u32, buffers: &mut [Vec<R::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if rules.is_over() {
        return 0;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    moves.clear();
    rules.legal_moves(moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &mv in moves.iter() {
        let mut child = rules.clone();
        child.play(mv);
        total += perft_into(&child, depth - 1, rest);
    }
    total
}

impl<R: Rules + Clone> super::sealed::Sealed for TextGame<R> {}

impl<R: Rules + Clone> Game for TextGame<R> {
    fn rules(&self) -> &dyn Rules {
        &self.rules
    }
    fn legal_moves(&self) -> &[String] {
        self.texts.get_or_init(|| {
            let mut texts = self.spare.take();
            texts.truncate(self.moves.len());
            for (i, &mv) in self.moves.iter().enumerate() {
                if i == texts.len() {
                    texts.push(String::new());
                }
                let t = &mut texts[i];
                t.clear();
                self.rules.write_move(mv, t);
            }
            texts
        })
    }
    fn move_count(&self) -> usize {
        self.moves.len()
    }
    fn index_of_move(&self, text: &str) -> Option<usize> {
        self.rules.index_of_move(text, Game::legal_moves(self))
    }
    fn play(&mut self, index: usize) {
        self.play_move(self.moves[index]);
    }
    fn write_turn_input(&self, first_turn: bool, out: &mut String) {
        let turn = TurnText {
            game: self,
            history: &self.history,
            texts: Game::legal_moves(self),
            first_turn,
        };
        self.rules.write_turn_input(&turn, out);
    }
    fn eliminate(&mut self, seat: usize) -> bool {
        let on = self.rules.eliminate(seat);
        self.history.retire(seat);
        self.refresh();
        on
    }
    fn box_clone(&self) -> Box<dyn Game> {
        Box::new(self.clone())
    }
    fn search_copy(&self) -> Box<dyn Game> {
        Box::new(TextGame {
            rules: self.rules.clone(),
            moves: self.moves.clone(),
            texts: OnceCell::new(),
            spare: Cell::new(Vec::new()),
            history: History::new(self.rules.seats()),
            record: false,
        })
    }
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.rules.is_over() {
            return 0;
        }
        if depth == 1 {
            return self.moves.len() as u64;
        }
        let mut buffers: Vec<Vec<R::Move>> = (0..depth).map(|_| Vec::new()).collect();
        self.moves
            .iter()
            .map(|&mv| {
                let mut child = self.rules.clone();
                child.play(mv);
                perft_into(&child, depth - 1, &mut buffers)
            })
            .sum()
    }
}
