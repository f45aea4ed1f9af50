//! The league's one door into the run engine: the game and referee configuration from the
//! league's settings, checking (building, test-starting) a bot, playing one leased game with the
//! same engine, sandbox and clock as `tournament`, and recording it as every run records. Kept
//! to this file so that a reshaped engine changes the league in one place.

use super::folder::BotEntry;
use super::scheduler::LeagueGame;
use super::settings::LeagueSettings;
use crate::bot::BotSpec;
#[cfg(doc)]
use crate::engine::session::Session;
use crate::engine::session::{GameRequest, GameSetup, SessionError};
use crate::game::GameError;
use crate::referee::{GameChoice, RefereeConfig};
use crate::tournament::openings::Book;
use crate::tournament::schedule::opening_from;
use crate::tournament::{Dealt, Finished, GameSpec, Opening, Runner, Unplayed};

pub use crate::engine::Recorder;
pub use crate::results::games_csv::{DoneSet, GamesCsv};

/// What every game of the league is played with.
pub struct PlaySetup {
    pub choice: GameChoice,
    pub referee: RefereeConfig,
    /// Random plies each table's games start with, after the book's line (the server's; a
    /// worker is told each game's opening instead).
    pub opening_plies: u32,
    /// The league's opening book, checked against the fingerprint recorded with it.
    pub book: Option<Book>,
}

/// The league's game, its referee configuration (turns kept for the replay pages) and its
/// openings, opened as every run opens its game ([`GameSetup::open`]) and checked before any
/// game: an external referee that cannot start, or a book that changed since the league began,
/// stops the server at once.
pub fn table(settings: &LeagueSettings) -> Result<PlaySetup, SessionError> {
    let GameSetup { choice, cfg, book } = GameSetup::open(&request(settings), keep_turns)?;
    Ok(PlaySetup::of(choice, cfg, book, settings))
}

/// What the league's game is opened from.
pub fn request(settings: &LeagueSettings) -> GameRequest<'_> {
    GameRequest {
        game: &settings.game,
        workdir: &settings.workdir,
        seed: settings.seed,
        openings: Some(&settings.openings),
    }
}

/// What the league's referee keeps of each game: its turns, for the replay pages.
pub fn keep_turns(cfg: &mut RefereeConfig) {
    cfg.record_turns = true;
}

impl PlaySetup {
    /// The league's setup from its game as opened ([`table`], [`Session::open_claimed`]).
    pub fn of(
        choice: GameChoice,
        referee: RefereeConfig,
        book: Option<Book>,
        settings: &LeagueSettings,
    ) -> PlaySetup {
        PlaySetup {
            choice,
            referee,
            opening_plies: settings.opening_plies,
            book,
        }
    }

    /// Whether the league's games start from openings (random plies or a book's lines).
    pub fn has_openings(&self) -> bool {
        self.opening_plies > 0 || self.book.is_some()
    }

    /// The opening `game` starts from, as the tournament's paired openings give it: the
    /// book's line of its table, then the random plies of its table's seed; the same for
    /// every game of a table (seats swapped), so a pair differs only by seat.
    pub fn opening(&self, game: &LeagueGame) -> Result<Vec<String>, GameError> {
        if !self.has_openings() {
            return Ok(Vec::new());
        }
        let book = self.book.as_ref().map(|b| (b, game.pair_id));
        let (_, moves) = opening_from(&self.choice, game.seed, self.opening_plies, book)?;
        Ok(moves)
    }
}

/// Why a bot could not be checked.
#[derive(Clone, Debug)]
pub enum NotChecked {
    /// It cannot play (it did not resolve, build or start): why.
    Broken(String),
    /// The machine could not start it (see [`crate::bot::MachineFault`]): no verdict on the
    /// bot; it is checked again later.
    Machine {
        fault: crate::bot::MachineFault,
        detail: String,
    },
}

impl std::fmt::Display for NotChecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotChecked::Broken(why) => f.write_str(why),
            NotChecked::Machine { detail, .. } => f.write_str(detail),
        }
    }
}

/// Resolves, builds (in the build box unless builds are trusted) and test-starts a bot: its spec
/// to play with, or why it cannot play.
/// The engine's events of the check are told to `listener` (the league's page and streams).
pub fn check(
    entry: &BotEntry,
    referee: &RefereeConfig,
    listener: &mut dyn crate::engine::Consumer,
) -> Result<BotSpec, NotChecked> {
    use crate::engine::CheckBotsError;
    let resolved = crate::engine::resolve_in(std::slice::from_ref(&entry.origin), &entry.workdir);
    let mut checked = crate::engine::check_bots(resolved, referee, true, &mut [listener]).map_err(
        |e| match e {
            CheckBotsError::Machine { fault, .. } => NotChecked::Machine {
                fault,
                detail: e.to_string(),
            },
            CheckBotsError::Clash(clash) => NotChecked::Broken(clash.to_string()),
        },
    )?;
    match checked.problems.pop().flatten() {
        Some(problem) => Err(NotChecked::Broken(problem)),
        None => Ok(checked.specs.pop().expect("one bot checked")),
    }
}

/// The name a BOT argument resolves to (from `NAME=`, its bot.toml or its file name).
pub fn name_of(
    origin: &str,
    workdir: &std::path::Path,
) -> Result<String, super::error::LeagueError> {
    BotSpec::resolve_named_in(origin, Some(workdir))
        .map(|s| s.name)
        .map_err(|e| super::error::LeagueError::Unresolved(crate::errors::chain_text(&e)))
}

/// Plays `game` from the opening the league's server told (a remote worker's game: the
/// worker has neither the book nor the plies, only the moves) on the calling thread, as a
/// tournament plays it; `Unplayed` where the machine could not start its processes (the game
/// goes back to the queue: no bot is at fault).
pub fn play_told(
    table: &PlaySetup,
    bots: &[BotSpec],
    game: &LeagueGame,
    opening: &[String],
) -> Result<Finished, Unplayed> {
    let dealt = Dealt {
        spec: spec_of(game, bots.len()),
        bots: bots.to_vec(),
        opening: Opening::Told(opening.to_vec()),
    };
    let result = Runner::dealt(&table.choice, &table.referee, 1).play(&dealt)?;
    Ok(Finished {
        spec: dealt.spec,
        result,
    })
}

/// The engine's spec of league game `game`, its bots in seats `0..seats`.
pub fn spec_of(game: &LeagueGame, seats: usize) -> GameSpec {
    GameSpec {
        game_id: game.game_id,
        pair_id: game.pair_id,
        seed: game.seed,
        seats: (0..seats).collect(),
    }
}
