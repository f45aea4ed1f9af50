//! What a bundled bot needs to play any registered game without game-specific code: read each
//! turn from its input (the Impasse arena's format or the standard shape of every other game),
//! get back its seat, the position rebuilt with the library's rules and the offered moves, and
//! write its answer. The generic bots (random, first, mcts) are a few lines on top of this.
//!
//! Which format a game speaks is told by the first line of the bot's first turn: `w` or `b` is the
//! arena's colour line; anything else is the standard intro line `seat seats game variant`.

pub mod mcts;
#[cfg(test)]
mod nim;
pub mod seed;
#[cfg(test)]
mod tests;

use crate::game::impasse::Impasse;
use crate::game::standard::{self, InputError, Intro};
use crate::game::Game;
use std::io::{self, BufRead, Write};
use std::time::Instant;

pub use seed::Seed;

/// One turn as the bot sees it.
#[derive(Debug)]
pub struct Turn {
    /// The bot's own seat.
    pub seat: usize,
    /// The position, rebuilt from the input with the library's rules; the bot's seat is to move.
    pub game: Box<dyn Game>,
    /// The moves offered, in the input's order: the answer is one of these texts.
    pub moves: Vec<String>,
    /// The moves played since the bot's previous turn, each with the seat that played it (in the
    /// arena's format only the opponent's last move is known).
    pub since: Vec<(usize, String)>,
    /// Turns played in the game before this one, as far as the input tells: what counts
    /// towards the turn limit. A lower bound when the referee played opening plies: the
    /// arena's input names only the last move, and the standard history leaves out what the
    /// bot's own seat played in the opening (and the moves before it), so up to that many turns
    /// are not counted.
    pub turns_played: u32,
    /// Whether this is the bot's first turn (which has the longer time limit).
    pub first: bool,
    /// When the turn's input was fully read: the bot's clock starts about here.
    pub read_at: Instant,
}

impl Turn {
    /// The offered text of the game's legal move `index`, if the input offered it (it always does
    /// unless the input and the library's rules disagree).
    pub fn offered(&self, index: usize) -> Option<&str> {
        let text = self.game.legal_moves().get(index)?;
        self.moves.iter().find(|m| *m == text).map(String::as_str)
    }
}

/// Why the input could not be read as a turn.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error("reading the input: {0}")]
    Io(#[from] io::Error),
    #[error("the input ended in the middle of a turn (while reading {0})")]
    Truncated(&'static str),
    #[error("{0}")]
    Input(#[from] InputError),
    #[error("bad Impasse input: {0}")]
    Arena(crate::game::PositionError),
}

/// The format learned from the first turn.
enum InputFormat {
    /// The Impasse arena's lines; the colour came on the first turn.
    Arena { seat: usize },
    /// The standard shape, with the intro line read on the first turn.
    Standard { intro: Intro },
}

/// Reads turns, one call each, from a bot's input.
pub struct TurnReader<R> {
    input: R,
    line: String,
    format: Option<InputFormat>,
    /// The bot's turns so far.
    own_turns: u32,
    /// Other seats' moves reported so far (the standard shape's history lines).
    others_moves: u32,
    /// Reads the standard intro line (the registry's lookup; tests add their own games).
    parse_intro: fn(&str) -> Result<Intro, InputError>,
}

impl TurnReader<io::StdinLock<'static>> {
    /// A reader of the process's standard input.
    pub fn stdin() -> Self {
        TurnReader::new(io::stdin().lock())
    }
}

impl<R: BufRead> TurnReader<R> {
    pub fn new(input: R) -> Self {
        TurnReader {
            input,
            line: String::with_capacity(128),
            format: None,
            own_turns: 0,
            others_moves: 0,
            parse_intro: standard::parse_intro,
        }
    }

    /// The next line without its line ending, or `None` at the end of input.
    fn read_line(&mut self) -> Result<Option<&str>, io::Error> {
        self.line.clear();
        if self.input.read_line(&mut self.line)? == 0 {
            return Ok(None);
        }
        Ok(Some(self.line.trim_end_matches(['\n', '\r'])))
    }

    /// The next line, owned; the end of input here is a truncated turn.
    fn need(&mut self, what: &'static str) -> Result<String, BotError> {
        match self.read_line()? {
            Some(l) => Ok(l.to_string()),
            None => Err(BotError::Truncated(what)),
        }
    }

    /// The next line as a count.
    fn count(&mut self, what: &'static str) -> Result<usize, BotError> {
        let l = self.need(what)?;
        l.trim().parse().map_err(|_| {
            BotError::Input(InputError::Shape(format!(
                "expected the number of {what}, got {l:?}"
            )))
        })
    }

    /// Reads the next turn; `Ok(None)` when the input ends between turns (the game is over).
    pub fn next_turn(&mut self) -> Result<Option<Turn>, BotError> {
        let Some(first_line) = self.read_line()?.map(str::to_string) else {
            return Ok(None);
        };
        let first = self.format.is_none();
        let turn = match &self.format {
            None => match first_line.trim() {
                colour @ ("w" | "b") => {
                    let seat = usize::from(colour == "b");
                    self.format = Some(InputFormat::Arena { seat });
                    let top = self.need("the board")?;
                    self.arena_turn(seat, top)?
                }
                intro_line => {
                    let intro = (self.parse_intro)(intro_line)?;
                    self.format = Some(InputFormat::Standard { intro });
                    let position = self.need("the position")?;
                    self.standard_turn(position)?
                }
            },
            Some(InputFormat::Arena { seat }) => self.arena_turn(*seat, first_line)?,
            Some(InputFormat::Standard { .. }) => self.standard_turn(first_line)?,
        };
        self.own_turns += 1;
        Ok(Some(Turn { first, ..turn }))
    }

    /// The rest of an arena turn after its top board row.
    fn arena_turn(&mut self, seat: usize, top: String) -> Result<Turn, BotError> {
        let mut rows = Vec::with_capacity(8);
        rows.push(top);
        for _ in 1..8 {
            rows.push(self.need("the board")?);
        }
        let last = self.need("the last move")?;
        let n = self.count("legal moves")?;
        let mut moves = Vec::with_capacity(n);
        for _ in 0..n {
            moves.push(self.need("the legal moves")?);
        }
        let read_at = Instant::now();
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let game = Impasse::from_rows(&refs, seat).map_err(BotError::Arena)?;
        let since = if last.trim() == "null" {
            Vec::new()
        } else {
            vec![(1 - seat, last.trim().to_string())]
        };
        Ok(Turn {
            seat,
            game: Box::new(crate::game::TextGame::new(game)),
            moves,
            since,
            // The seats alternate, White first.
            turns_played: 2 * self.own_turns + seat as u32,
            first: false,
            read_at,
        })
    }

    /// The rest of a standard turn after its position line.
    fn standard_turn(&mut self, position: String) -> Result<Turn, BotError> {
        let Some(InputFormat::Standard { intro }) = &mut self.format else {
            unreachable!("standard_turn is called for the standard format");
        };
        let (info, setup, seat) = (intro.info, intro.setup.clone(), intro.seat);
        // Gather the turn's lines (every section is counted), then let the standard parser
        // read them.
        let mut lines = Vec::with_capacity(48);
        lines.push(position);
        for what in [
            "board lines",
            "moves since the previous turn",
            "legal moves",
        ] {
            let n = self.count(what)?;
            lines.push(n.to_string());
            for _ in 0..n {
                lines.push(self.need(what)?);
            }
        }
        let read_at = Instant::now();
        let parsed = standard::parse_input(info, &setup, &mut lines.iter().map(String::as_str))?;
        let turns_played = self.others_moves + parsed.since.len() as u32 + self.own_turns;
        self.others_moves += parsed.since.len() as u32;
        Ok(Turn {
            seat,
            game: parsed.game,
            moves: parsed.moves,
            since: parsed.since,
            turns_played,
            first: false,
            read_at,
        })
    }
}

/// Writes one answer line and flushes it.
pub fn answer(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Plays a whole game on stdin/stdout: asks `choose` for each turn's answer (a move text, maybe
/// followed by a space and a comment). Returns the process's exit code: 0 when the input ends or
/// the referee stops reading, 1 (with a message on stderr naming `bot`) on unreadable input.
pub fn play(bot: &str, mut choose: impl FnMut(&Turn) -> String) -> std::process::ExitCode {
    let mut reader = TurnReader::stdin();
    let mut out = io::stdout().lock();
    loop {
        match reader.next_turn() {
            Ok(Some(turn)) => {
                let text = if turn.moves.is_empty() {
                    // Nothing offered (cannot happen in a game still running): the protocol's
                    // own escape.
                    "random".to_string()
                } else {
                    choose(&turn)
                };
                if answer(&mut out, &text).is_err() {
                    return std::process::ExitCode::SUCCESS;
                }
            }
            Ok(None) => return std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{bot}: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
}
