//! Before a run's first game: its settings are made from the command's request (checked) or
//! taken from its results folder (the same run again, `--resume`, `--grow`), options that a
//! continued run would ignore are refused, and the bots that can play are counted
//! (`start/field.rs`). New runs' settings are made from requests in `start/new_run.rs`. Every
//! refusal is a [`StartError`] that says what to do; nothing here prints.

use super::settings::{self, GrowError, OpeningsError, Recorded, SettingsError};
use super::{CheckBotsError, GameSettingsError};
use crate::options::Opt;
use crate::results::games_csv::{DoneSet, GamesCsv};
use crate::results::lock::LockError;
use crate::tournament::openings::BookError;
use crate::tournament::Shard;
use std::path::{Path, PathBuf};

/// Why a run cannot begin.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Game(#[from] GameSettingsError),
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    #[error(transparent)]
    Grow(#[from] GrowError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    CheckBots(#[from] CheckBotsError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("opening {}", path.display())]
    GamesCsv {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} {} continues the run with its recorded settings ({}), so {} would be \
         ignored; leave {} out, or start a new run with another {}",
        Opt::Resume, dir.display(), dir.join(file).display(), changed.join(", "),
        if changed.len() == 1 { "it" } else { "them" }, Opt::Out
    )]
    ResumeChanges {
        dir: PathBuf,
        file: &'static str,
        changed: Vec<String>,
    },
    #[error(
        "{} adds games or bots to a run and keeps its other settings; {} cannot change",
        Opt::Grow, changed.join(", ")
    )]
    GrowChanges { changed: Vec<String> },
    #[error("a tournament of {game} needs {seats} or more bots (got {got})")]
    TooFewBots {
        game: String,
        seats: usize,
        got: usize,
    },
    #[error(
        "{} must be a positive multiple of {seats}: each table of {seats} bots plays \
         rounds of {seats} games with the same seed and opening, each bot in every seat once \
         (got {got})",
        Opt::Games
    )]
    Games { seats: usize, got: u32 },
    #[error(
        "{} must be a positive multiple of {seats}, the seat count (got {got})",
        Opt::Games
    )]
    GradeGames { seats: usize, got: u32 },
    #[error("{} must be at least 1", Opt::Tables)]
    Tables,
    #[error(
        "{} {shard} needs {}: every shard must compute the same schedule \
         (choose any number and give it to all {} shards)",
        Opt::Shard, Opt::Seed, shard.count()
    )]
    ShardSeed { shard: Shard },
    #[error(
        "{} cannot play (see above); fix {}, or pass {} to play without {}",
        names.join(", "), them(names), Opt::SkipBrokenBots, them(names)
    )]
    Broken { names: Vec<String> },
    #[error(
        "fewer bots can play ({playing}) than a game of {game} seats ({seats}); see the messages above"
    )]
    FewerPlaying {
        playing: usize,
        game: String,
        seats: usize,
    },
    #[error("{} must be at least 1", Opt::MaxPairs)]
    MaxPairs,
    #[error("{} is too large", Opt::MaxPairs)]
    TooManyPairs(#[source] std::num::TryFromIntError),
    #[error(
        "an SPRT compares two bots in two-seat games; {game} is played by {seats} seats here \
         (use `arbiter tournament {} gauntlet` to compare bots in games of more seats)",
        Opt::Format
    )]
    SprtSeats { game: String, seats: usize },
    #[error("bot '{origin}' cannot play (see above)")]
    SprtBot { origin: String },
    #[error("the baseline '{name}' cannot play: {why}")]
    Baseline { name: String, why: String },
    #[error(
        "games of {seats} seats need {} or more baselines, to seat each student with baselines only",
        seats - 1
    )]
    FewBaselines { seats: usize },
}

fn them(names: &[String]) -> &'static str {
    if names.len() == 1 {
        "it"
    } else {
        "them"
    }
}

/// Options that may change when a run is continued: where and how fast it runs, not which
/// games it plays.
pub const RESUME_MAY_CHANGE: &[&str] = &[
    "resume",
    "concurrency",
    "pin-cpus",
    "anchor",
    "skip-broken-bots",
    "no-build",
    "build-memory-mb",
    "build-tmp-mb",
    "build-disk-mb",
    "trust-builds",
];

/// What `--grow` may change besides [`RESUME_MAY_CHANGE`].
pub const GROW_MAY_CHANGE: &[&str] = &["grow", "games", "add-bot"];

/// With `--resume dir`, options given that would change the recorded settings (`changed`, as
/// typed) are an error, not ignored.
pub fn check_resume(
    resume: Option<&Path>,
    file: &'static str,
    changed: Vec<String>,
) -> Result<(), StartError> {
    match resume {
        Some(dir) if !changed.is_empty() => Err(StartError::ResumeChanges {
            dir: dir.to_path_buf(),
            file,
            changed,
        }),
        _ => Ok(()),
    }
}

/// With `--grow`, options given that it cannot change (`changed`, as typed) are an error.
pub fn check_grow(changed: Vec<String>) -> Result<(), StartError> {
    if changed.is_empty() {
        Ok(())
    } else {
        Err(StartError::GrowChanges { changed })
    }
}

/// A run's settings and its results folder, as [`open`] decided them.
pub struct Opened<S> {
    pub settings: S,
    /// The results folder, absolute.
    pub dir: PathBuf,
    /// Whether the folder already holds this run (it is continued).
    pub resuming: bool,
}

/// Decides the settings and the results folder: the recorded ones with `resume`; else `fresh`,
/// resuming when `out` (by default `default_out`) already holds the same run (a seed the user
/// did not give is taken from the record).
pub fn open<S: Recorded, E: From<SettingsError> + From<std::io::Error>>(
    resume: Option<&Path>,
    out: Option<&Path>,
    default_out: impl FnOnce() -> PathBuf,
    seed_given: bool,
    fresh: impl FnOnce() -> Result<S, E>,
) -> Result<Opened<S>, E> {
    let (settings, dir, resuming) = match resume {
        Some(dir) => (settings::load(dir)?, dir.to_path_buf(), true),
        None => {
            let out = out.map_or_else(default_out, Path::to_path_buf);
            let (settings, resuming) = settings::continue_or_start(&out, fresh()?, seed_given)?;
            (settings, out, resuming)
        }
    };
    Ok(Opened {
        settings,
        dir: std::path::absolute(&dir)?,
        resuming,
    })
}

/// Opens the games.csv of results folder `dir` for games of `seats` seats (made if missing, a
/// torn last line cut off), with the games it already holds.
pub fn open_games(dir: &Path, seats: usize) -> Result<(GamesCsv, DoneSet), StartError> {
    let path = dir.join("games.csv");
    GamesCsv::open(&path, seats).map_err(|source| StartError::GamesCsv { path, source })
}

/// A seed from the clock and the process id, for when the user gives none.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::rng::Rng::derive(nanos, u64::from(std::process::id())) >> 11 // keep it below 2^53 so JSON readers see it exactly
}

mod field;
mod new_run;
pub use field::check_baseline_count;
pub use new_run::{SprtRequest, TournamentRequest};

#[cfg(test)]
mod tests;
