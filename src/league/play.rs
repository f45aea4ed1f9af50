//! The league's one door into the run engine: the game and referee configuration from the
//! league's settings, checking (building, test-starting) a bot, playing one leased game with the
//! same engine, sandbox and clock as `tournament`, and recording it as every run records. Kept
//! to this file so that a reshaped engine changes the league in one place.

use super::folder::{BotEntry, LeagueSettings};
use super::scheduler::Game;
use crate::bot::BotSpec;
use crate::referee::{GameChoice, RefereeConfig};
use crate::tournament::{Finished, GameSpec, Runner};

pub use crate::engine::Recorder;
pub use crate::results::games_csv::{DoneSet, GamesCsv};

/// What every game of the league is played with.
pub struct Table {
    pub choice: GameChoice,
    pub referee: RefereeConfig,
}

/// The league's game, its referee configuration (turns kept for the replay pages), checked
/// before any game: an external referee that cannot start stops the server at once.
pub fn table(settings: &LeagueSettings) -> anyhow::Result<Table> {
    let workdir = Some(settings.workdir.as_path());
    let choice = settings.game.choice_in(workdir)?;
    let mut referee = settings
        .game
        .referee_config_in(choice.default_max_turns(), workdir)?;
    referee.record_turns = true;
    choice.check(&referee)?;
    Ok(Table { choice, referee })
}

/// Resolves, builds (in the build box unless builds are trusted) and test-starts a bot: its spec
/// to play with, or why it cannot play.
pub fn check(entry: &BotEntry, referee: &RefereeConfig) -> Result<BotSpec, String> {
    let resolved = crate::engine::resolve_in(std::slice::from_ref(&entry.origin), &entry.workdir);
    let mut checked =
        crate::engine::check_bots(resolved, referee, true, &mut []).map_err(|e| e.to_string())?;
    match checked.problems.pop().flatten() {
        Some(problem) => Err(problem),
        None => Ok(checked.specs.pop().expect("one bot checked")),
    }
}

/// The name a BOT argument resolves to (from `NAME=`, its bot.toml or its file name).
pub fn name_of(origin: &str, workdir: &std::path::Path) -> Result<String, String> {
    BotSpec::resolve_named_in(origin, Some(workdir))
        .map(|s| s.name)
        .map_err(|e| crate::errors::chain_text(&e))
}

/// Plays `game` with `bots` (by seat) on the calling thread.
pub fn play(table: &Table, bots: &[BotSpec], game: &Game) -> Finished {
    let runner = Runner {
        bots,
        game: &table.choice,
        opening_plies: 0,
        book: None,
        referee: &table.referee,
        concurrency: 1,
        pin_cpus: false,
    };
    let spec = GameSpec {
        game_id: game.game_id,
        pair_id: game.pair_id,
        seed: game.seed,
        seats: (0..bots.len()).collect(),
    };
    let result = runner.play_one(&spec);
    Finished { spec, result }
}

/// Opens the records (games.csv, cut after its last whole row) and the ids recorded.
pub fn open_games(dir: &std::path::Path, seats: usize) -> anyhow::Result<(GamesCsv, DoneSet)> {
    Ok(crate::engine::start::open_games(dir, seats)?)
}
