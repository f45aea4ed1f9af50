//! A run's settings file in its results folder (`tournament.toml`, `sprt.toml`, ...): everything
//! that decides which games the run plays and how, written when it begins so that the same
//! command again, or `--resume`, continues exactly that run, and a different run is refused with
//! the settings that differ named. A tournament's settings also grow (`--grow`: more games per
//! table, more bots) and give its schedule.

mod grade;
mod sprt;

pub use grade::{GradeSettings, OtherClass};
pub use sprt::{SprtSettings, SprtTestSettings};

use super::GameSettings;
use crate::options::Opt;
use crate::referee::GameChoice;
use crate::tournament::openings::{Book, BookError, Order};
use crate::tournament::{schedule_grown, Format, GameSpec, Plan, Shard, Stage};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Settings saved in a results folder so that a run can be continued exactly.
pub trait Recorded: Serialize + DeserializeOwned + PartialEq {
    /// The file name in the results folder.
    const FILE: &'static str;
    fn seed_mut(&mut self) -> &mut u64;
}

/// A settings file that cannot be read, written, or continued.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("reading {} (is {} a results folder of this command?): {source}", path.display(), dir.display())]
    Read {
        path: PathBuf,
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a valid settings file: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("encoding the settings: {0}")]
    Encode(#[from] toml::ser::Error),
    #[error(
        "{} already holds a different run ({}); choose another {}, or continue that one with {} {}",
        dir.display(), changed.join("; "), Opt::Out, Opt::Resume, dir.display()
    )]
    Different { dir: PathBuf, changed: Vec<String> },
}

/// Reads the settings recorded in `dir`.
pub fn load<S: Recorded>(dir: &Path) -> Result<S, SettingsError> {
    let path = dir.join(S::FILE);
    let text = std::fs::read_to_string(&path).map_err(|source| SettingsError::Read {
        path: path.clone(),
        dir: dir.to_path_buf(),
        source,
    })?;
    toml::from_str(&text).map_err(|source| SettingsError::Parse { path, source })
}

/// Writes the settings into `dir` (made if missing).
pub fn save<S: Recorded>(dir: &Path, settings: &S) -> Result<(), SettingsError> {
    let path = dir.join(S::FILE);
    let write = |source| SettingsError::Write {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(write)?;
    std::fs::write(&path, toml::to_string_pretty(settings)?).map_err(write)
}

/// The settings of a new run given for folder `out`: when `out` already holds a run, the same
/// run is continued (returns true; a seed the user did not give is taken from the record) and a
/// different one is refused, naming what differs.
pub fn continue_or_start<S: Recorded>(
    out: &Path,
    mut settings: S,
    seed_given: bool,
) -> Result<(S, bool), SettingsError> {
    if !out.join(S::FILE).exists() {
        return Ok((settings, false));
    }
    let mut old: S = load(out)?;
    if !seed_given {
        *settings.seed_mut() = *old.seed_mut();
    }
    if old != settings {
        return Err(SettingsError::Different {
            dir: out.to_path_buf(),
            changed: changed(&old, &settings)?,
        });
    }
    Ok((settings, true))
}

/// What differs between two settings, one `key: old -> new` each (nested keys dotted, as
/// `game.turn_ms`; `none` for a setting one of them lacks).
pub fn changed<S: Serialize>(old: &S, new: &S) -> Result<Vec<String>, toml::ser::Error> {
    let (old, new) = (toml::Table::try_from(old)?, toml::Table::try_from(new)?);
    let mut out = Vec::new();
    diff("", &old, &new, &mut out);
    Ok(out)
}

fn diff(prefix: &str, old: &toml::Table, new: &toml::Table, out: &mut Vec<String>) {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let text = |v: Option<&toml::Value>| v.map_or("none".to_string(), toml::Value::to_string);
    for key in keys {
        let name = format!("{prefix}{key}");
        match (old.get(key), new.get(key)) {
            (Some(toml::Value::Table(a)), Some(toml::Value::Table(b))) => {
                diff(&format!("{name}."), a, b, out)
            }
            (a, b) if a != b => out.push(format!("{name}: {} -> {}", text(a), text(b))),
            _ => {}
        }
    }
}

/// A run's opening book as recorded: the book (a file or a built-in name), its order, and its
/// content's fingerprint when the run began, so that a continued run notices a changed book.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpeningsSettings {
    #[serde(default)]
    pub openings: Option<String>,
    #[serde(default)]
    pub openings_order: Order,
    #[serde(default)]
    pub openings_fingerprint: Option<String>,
}

/// A run's opening book that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(
        "the openings {spec} changed since this run began; restore the file or start a new run"
    )]
    Changed { spec: String },
}

impl OpeningsSettings {
    /// The book `spec` (if any) of a new run of `choice`, with its fingerprint.
    pub fn new(spec: Option<String>, order: Order, choice: &GameChoice) -> Result<Self, BookError> {
        let fingerprint = match &spec {
            Some(spec) => Some(Book::load(spec, choice, order, 0)?.fingerprint()),
            None => None,
        };
        Ok(OpeningsSettings {
            openings: spec,
            openings_order: order,
            openings_fingerprint: fingerprint,
        })
    }

    /// The run's book, ordered by `seed`, checked against the fingerprint recorded when the
    /// run began (a book file changed since would give other games the same ids).
    pub fn book(&self, choice: &GameChoice, seed: u64) -> Result<Option<Book>, OpeningsError> {
        let Some(spec) = &self.openings else {
            return Ok(None);
        };
        let book = Book::load(spec, choice, self.openings_order, seed)?;
        match &self.openings_fingerprint {
            Some(fp) if *fp != book.fingerprint() => {
                Err(OpeningsError::Changed { spec: spec.clone() })
            }
            _ => Ok(Some(book)),
        }
    }
}

/// Everything that decides which games a tournament plays and how; saved as tournament.toml.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentSettings {
    /// The BOT arguments as typed.
    pub bots: Vec<String>,
    /// Where they were typed (relative bot paths are resolved from here).
    pub workdir: PathBuf,
    pub format: Format,
    pub games: u32,
    /// Sampled tables instead of every table (large fields).
    #[serde(default)]
    pub tables: Option<usize>,
    /// How the run was grown after it began (`--grow`), in order; `bots` and `games` above
    /// are those of the first stage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<Stage>,
    /// How many of `bots` the run began with, once it has grown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_bots: Option<usize>,
    pub opening_plies: u32,
    #[serde(flatten)]
    pub openings: OpeningsSettings,
    pub seed: u64,
    pub replays: bool,
    /// Only this slice of the schedule (`--shard K/N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub game: GameSettings,
}

impl Recorded for TournamentSettings {
    const FILE: &'static str = "tournament.toml";
    fn seed_mut(&mut self) -> &mut u64 {
        &mut self.seed
    }
}

/// Why a run cannot grow as asked.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GrowError {
    #[error(
        "a run of sampled tables ({}) cannot grow; start a new run with more tables",
        Opt::Tables
    )]
    Sampled,
    #[error(
        "{} {} {asked}: the run plays {now} games per table; give a larger multiple of {seats}",
        Opt::Grow,
        Opt::Games
    )]
    Fewer { asked: u32, now: u32, seats: u32 },
    #[error(
        "{} needs {} above {now} or {} BOT",
        Opt::Grow,
        Opt::Games,
        Opt::AddBot
    )]
    Nothing { now: u32 },
}

impl TournamentSettings {
    /// The games per table the run plays now (after its last growth).
    pub fn games_now(&self) -> u32 {
        self.stages.last().map_or(self.games, |s| s.games_per_table)
    }

    /// These settings with one more stage: `games` per table (`None`: as now) and `add_bots`
    /// (BOT arguments) after the others, for games of `seats` seats. Games already played keep
    /// their ids, seeds and openings.
    pub fn grow(
        mut self,
        games: Option<u32>,
        add_bots: &[String],
        seats: u32,
    ) -> Result<Self, GrowError> {
        if self.tables.is_some() {
            return Err(GrowError::Sampled);
        }
        let bots_now = self.stages.last().map_or(self.bots.len(), |s| s.bots);
        let now = self.games_now();
        let games = games.unwrap_or(now);
        if games < now || !games.is_multiple_of(seats) {
            return Err(GrowError::Fewer {
                asked: games,
                now,
                seats,
            });
        }
        if games == now && add_bots.is_empty() {
            return Err(GrowError::Nothing { now });
        }
        self.first_bots.get_or_insert(self.bots.len());
        self.bots.extend(add_bots.iter().cloned());
        self.stages.push(Stage {
            bots: bots_now + add_bots.len(),
            games_per_table: games,
        });
        Ok(self)
    }

    /// Every game of the run (all shards), for games of `seats` seats: the one place that turns
    /// settings into a schedule, for the run, `merge` and `slurm`.
    pub fn schedule(&self, seats: usize) -> Vec<GameSpec> {
        // Bots added by --grow come last in the list; the first plan had the others.
        schedule_grown(
            &Plan {
                bots: self.first_bots.unwrap_or(self.bots.len()),
                seats,
                format: self.format,
                games_per_table: self.games,
                tables: self.tables,
                master_seed: self.seed,
            },
            &self.stages,
        )
    }

    /// The games this run (or its shard) still has to play, for games of `seats` seats: those
    /// not in `done` whose bots can all play (`active[bot]`).
    pub fn games_to_play(
        &self,
        seats: usize,
        active: &[bool],
        done: &crate::results::games_csv::DoneSet,
    ) -> Vec<GameSpec> {
        let all = self.schedule(seats);
        let all = match self.shard {
            Some(shard) => shard.slice(&all),
            None => all,
        };
        all.into_iter()
            .filter(|g| g.seats.iter().all(|&s| active[s]) && !done.contains(g.game_id))
            .collect()
    }
}

#[cfg(test)]
mod tests;
