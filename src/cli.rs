//! Command-line definitions (clap) and their translation into validated configuration.
//! Nothing here plays, prints results or writes files.

use anyhow::{bail, Context, Result};
use arbiter::bot::{BotSpec, Limits};
use arbiter::referee::{RefereeConfig, TimeControl};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "arbiter",
    version,
    about = "A referee for bot-vs-bot games in the CodinGame line format: play games, run tournaments, rate bots.",
    long_about = None,
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Referee one game between bot programs and show who won and why.
    Play(PlayArgs),
}

/// The options every command that plays games shares: the game, its clocks and the bots' limits.
#[derive(Args, Debug, Clone)]
pub struct GameOpts {
    /// The game to play.
    #[arg(long, default_value = "impasse", value_name = "NAME")]
    pub game: String,
    /// Time limit of each bot's first turn (start-up included), in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub first_turn_ms: u64,
    /// Time limit of every later turn, in milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub turn_ms: u64,
    /// How late an answer may arrive and still count (as a strike), in milliseconds.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    pub grace_ms: u64,
    /// The late answer that loses the game: 3 means the third late answer is a timeout.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub strikes: u32,
    /// No grace and no strikes: any answer after the limit loses.
    #[arg(long)]
    pub strict: bool,
    /// The game is a draw after this many turns in all (one bot's move each, opening plies
    /// included) [default: the game's own, 250 for Impasse].
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
    /// Let the bot that is not on turn keep running (by default it is frozen with SIGSTOP).
    #[arg(long)]
    pub allow_pondering: bool,
    /// Memory limit of each bot (its data segment: heap and private mappings), in MiB; 0 = none.
    #[arg(long, default_value_t = 768, value_name = "MIB")]
    pub memory_mb: u64,
    /// Limit on processes for the bot's user (RLIMIT_NPROC), a count; none by default.
    #[arg(long, value_name = "N")]
    pub max_processes: Option<u64>,
    /// Time a bot has to exit after SIGTERM before it is killed, in milliseconds.
    #[arg(long, default_value_t = 200, value_name = "MS")]
    pub kill_grace_ms: u64,
}

impl GameOpts {
    /// The referee's settings; `default_max_turns` is the game's own limit.
    pub fn referee_config(&self, default_max_turns: u32) -> Result<RefereeConfig> {
        if self.turn_ms == 0 || self.first_turn_ms == 0 {
            bail!("--turn-ms and --first-turn-ms must be at least 1");
        }
        if self.strikes == 0 {
            bail!("--strikes must be at least 1 (1 = the first late answer loses)");
        }
        let max_turns = self.max_turns.unwrap_or(default_max_turns);
        if max_turns == 0 {
            bail!("--max-turns must be at least 1");
        }
        let (grace, strikes) = if self.strict {
            (Duration::ZERO, 1)
        } else {
            (Duration::from_millis(self.grace_ms), self.strikes)
        };
        Ok(RefereeConfig {
            time: TimeControl {
                first_turn: Duration::from_millis(self.first_turn_ms),
                turn: Duration::from_millis(self.turn_ms),
                grace,
                strikes,
            },
            max_turns,
            freeze_idle: !self.allow_pondering,
            kill_grace: Duration::from_millis(self.kill_grace_ms),
            limits: Limits {
                memory_bytes: (self.memory_mb > 0).then_some(self.memory_mb * 1024 * 1024),
                max_processes: self.max_processes,
            },
            record_turns: false,
        })
    }
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The bots, in seat order (the first moves first; for Impasse it plays White). Each is a path
    /// to an executable, a directory with a bot.toml, or a quoted command line.
    #[arg(required = true, num_args = 2.., value_name = "BOT")]
    pub bots: Vec<String>,
    #[command(flatten)]
    pub game: GameOpts,
    /// Seed of the game (drives the `random` answer) [default: random, always printed].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Write a JSON-lines record of the game to FILE: a start line, one line per turn, a result line.
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Print one JSON object on stdout instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

/// Resolves and builds every BOT argument; the first failure is the error.
pub fn resolve_bots(args: &[String]) -> Result<Vec<BotSpec>> {
    let specs = args
        .iter()
        .map(|a| BotSpec::resolve(a).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    for spec in &specs {
        spec.build()
            .with_context(|| format!("building bot '{}'", spec.name))?;
    }
    Ok(specs)
}

/// A seed from the clock and the process id, for when the user gives none.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    arbiter::rng::Rng::derive(nanos, u64::from(std::process::id()))
        >> 11 // keep it below 2^53 so JSON readers see it exactly
}
