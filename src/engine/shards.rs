//! A tournament cut into shards (`--shard K/N`, `arbiter slurm`) and put back together
//! (`arbiter merge`): whether two results folders hold shards of one run, whether a folder may
//! take a shard, which recorded games belong where, which games each shard still lacks, and what
//! a game costs (for a batch job's time limit). The command lines that play a shard are the
//! CLI's (they are its flags).

use super::settings::{self, Recorded, SettingsError, TournamentSettings};
use crate::options::Opt;
use crate::results::games_csv::DoneSet;
use crate::tournament::shard::GameClock;
use crate::tournament::{GameSpec, Runner, Shard};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What differs between two runs' settings besides the shard and the folder the bots were named
/// from, as `name: A vs B` lines (empty when they are shards of one run).
pub fn differences(
    a: &TournamentSettings,
    b: &TournamentSettings,
) -> Result<Vec<String>, toml::ser::Error> {
    let flat = |s: &TournamentSettings| -> Result<Vec<(String, String)>, toml::ser::Error> {
        let mut s = s.clone();
        s.shard = None;
        s.workdir = Default::default();
        let mut out = Vec::new();
        flatten(
            "",
            &toml::Value::Table(toml::Table::try_from(&s)?),
            &mut out,
        );
        Ok(out)
    };
    let (fa, fb) = (flat(a)?, flat(b)?);
    let value = |f: &[(String, String)], key: &str| {
        f.iter()
            .find(|(k, _)| k == key)
            .map_or("(none)".to_string(), |(_, v)| v.clone())
    };
    let mut keys: Vec<&String> = fa.iter().chain(&fb).map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        let (va, vb) = (value(&fa, key), value(&fb, key));
        if va != vb {
            out.push(format!("{key}: {va} vs {vb}"));
        }
    }
    if a.shard.map(|s| s.count()) != b.shard.map(|s| s.count()) {
        let n =
            |s: Option<Shard>| s.map_or("not sharded".into(), |s| format!("{} shards", s.count()));
        out.push(format!("shards: {} vs {}", n(a.shard), n(b.shard)));
    }
    Ok(out)
}

fn flatten(prefix: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

/// A shard's folder that holds something else.
#[derive(Debug, thiserror::Error)]
pub enum ShardFolderError {
    #[error("{} holds another run ({}); choose another {}", dir.display(), what, Opt::Out)]
    OtherRun { dir: PathBuf, what: String },
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("encoding the settings: {0}")]
    Encode(#[from] toml::ser::Error),
}

/// Whether folder `dir` may take `shard` of the run `settings`: it holds nothing yet, or that
/// very shard (a rerun of the same command).
pub fn check_shard_folder(
    dir: &Path,
    shard: Shard,
    settings: &TournamentSettings,
) -> Result<(), ShardFolderError> {
    if !dir.join(TournamentSettings::FILE).exists() {
        return Ok(());
    }
    let old: TournamentSettings = settings::load(dir)?;
    let diff = differences(&old, settings)?;
    if !diff.is_empty() || old.shard != Some(shard) {
        return Err(ShardFolderError::OtherRun {
            dir: dir.to_path_buf(),
            what: if diff.is_empty() {
                format!("shard {:?}", old.shard.map(|s| s.to_string()))
            } else {
                diff.join("; ")
            },
        });
    }
    Ok(())
}

/// A recorded game that does not belong in a merge of shards.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("game {id} is not in the run's schedule (settings edited after the run?)")]
    NotScheduled { id: u64 },
    #[error("game {id} belongs to shard {belongs}, not to this folder's shard {shard}")]
    OtherShard {
        id: u64,
        belongs: Shard,
        shard: Shard,
    },
    #[error(
        "bot #{} ({origin}) is '{known}' in {} but '{name}' here: the shards did not play the \
         same bots",
        bot + 1, from.display()
    )]
    OtherBot {
        bot: usize,
        origin: String,
        known: String,
        from: PathBuf,
        name: String,
    },
}

/// The games of shards checked as they are merged: each must be a game of the run's schedule,
/// of its folder's shard, with the same bot in each seat as the other shards say (a name that
/// changes between shards means a different bot under the same argument).
pub struct Merging<'a> {
    run: &'a TournamentSettings,
    by_id: HashMap<u64, &'a GameSpec>,
    /// Each bot's name, and the folder it was first seen in.
    names: Vec<Option<(String, PathBuf)>>,
    /// The games merged.
    pub recorded: DoneSet,
}

impl<'a> Merging<'a> {
    /// Checks games of the run `run`, whose games are `schedule`.
    pub fn new(run: &'a TournamentSettings, schedule: &'a [GameSpec]) -> Merging<'a> {
        Merging {
            run,
            by_id: schedule.iter().map(|g| (g.game_id, g)).collect(),
            names: vec![None; run.bots.len()],
            recorded: DoneSet::default(),
        }
    }

    /// Checks game `id` with `bots` by seat, read from folder `dir` of shard `shard` (`None`: a
    /// folder of the whole run), and counts it as merged.
    pub fn check(
        &mut self,
        dir: &Path,
        shard: Option<Shard>,
        id: u64,
        bots: &[String],
    ) -> Result<(), MergeError> {
        let Some(spec) = self.by_id.get(&id) else {
            return Err(MergeError::NotScheduled { id });
        };
        if let Some(shard) = shard {
            if !shard.holds(spec) {
                return Err(MergeError::OtherShard {
                    id,
                    belongs: Shard::of_pair(spec.pair_id, shard.count()),
                    shard,
                });
            }
        }
        for (&bot, name) in spec.seats.iter().zip(bots) {
            match &self.names[bot] {
                Some((known, from)) if known != name => {
                    return Err(MergeError::OtherBot {
                        bot,
                        origin: self.run.bots[bot].clone(),
                        known: known.clone(),
                        from: from.clone(),
                        name: name.clone(),
                    })
                }
                Some(_) => {}
                None => self.names[bot] = Some((name.clone(), dir.to_path_buf())),
            }
        }
        self.recorded.insert(id);
        Ok(())
    }

    /// The names of the bots seen, in the run's order.
    pub fn names(&self) -> Vec<String> {
        self.names
            .iter()
            .flatten()
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// The games of `schedule` not in `recorded`, by shard of `count` shards.
pub fn lacking(schedule: &[GameSpec], recorded: &DoneSet, count: u32) -> BTreeMap<Shard, Vec<u64>> {
    let mut lacking: BTreeMap<Shard, Vec<u64>> = BTreeMap::new();
    for g in schedule.iter().filter(|g| !recorded.contains(g.game_id)) {
        lacking
            .entry(Shard::of_pair(g.pair_id, count))
            .or_default()
            .push(g.game_id);
    }
    lacking
}

/// One input folder of a merge, with its recorded settings.
pub struct ShardFolder {
    pub dir: PathBuf,
    pub settings: TournamentSettings,
}

/// What reading the folders of a merge noticed, as it reads them.
pub enum FolderNote<'a> {
    /// A folder without settings: a shard that never started (reported as missing later).
    NoSettings(&'a Path),
    /// Two shards whose bots were named from different folders.
    OtherWorkdir {
        first: &'a ShardFolder,
        other: &'a ShardFolder,
    },
}

/// Input folders that cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum FoldersError {
    #[error("{} is both the output and an input; write the merge into another folder", .0.display())]
    OutputIsInput(PathBuf),
    #[error(
        "none of the folders holds a tournament's results ({})",
        TournamentSettings::FILE
    )]
    Nothing,
    #[error(
        "{} and {} are not shards of the same run:\n  {}",
        first.display(), other.display(), differ.join("\n  ")
    )]
    NotOneRun {
        first: PathBuf,
        other: PathBuf,
        differ: Vec<String>,
    },
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("encoding the settings: {0}")]
    Encode(#[from] toml::ser::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The folders `dirs` of one run's shards, to merge into `out`, each with its settings (a folder
/// without settings is left out and told to `note`); refused when one is `out` itself, when none
/// holds a run, or when two hold different runs.
pub fn shard_folders(
    dirs: &[PathBuf],
    out: &Path,
    note: &mut dyn FnMut(FolderNote<'_>),
) -> Result<Vec<ShardFolder>, FoldersError> {
    let mut inputs: Vec<ShardFolder> = Vec::new();
    for dir in dirs {
        let dir = std::path::absolute(dir)?;
        if same_folder(&dir, out) {
            return Err(FoldersError::OutputIsInput(out.to_path_buf()));
        }
        if !dir.join(TournamentSettings::FILE).exists() {
            note(FolderNote::NoSettings(&dir));
            continue;
        }
        let settings: TournamentSettings = settings::load(&dir)?;
        inputs.push(ShardFolder { dir, settings });
    }
    let Some(first) = inputs.first() else {
        return Err(FoldersError::Nothing);
    };
    for other in &inputs[1..] {
        let differ = differences(&first.settings, &other.settings)?;
        if !differ.is_empty() {
            return Err(FoldersError::NotOneRun {
                first: first.dir.clone(),
                other: other.dir.clone(),
                differ,
            });
        }
        if other.settings.workdir != first.settings.workdir {
            note(FolderNote::OtherWorkdir { first, other });
        }
    }
    Ok(inputs)
}

/// Whether two paths name the same folder (the second may not exist yet).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The games one shard of a merge still lacks.
pub struct Lacking {
    pub shard: Shard,
    pub ids: Vec<u64>,
    /// The input folder that plays this shard (or the whole run), if any.
    pub folder: Option<PathBuf>,
}

/// Every shard of the run of `inputs` that lacks games of `schedule` (`recorded`: the games
/// merged), with the folder that plays it.
pub fn lacking_by_folder(
    inputs: &[ShardFolder],
    schedule: &[GameSpec],
    recorded: &DoneSet,
) -> Vec<Lacking> {
    let count = inputs
        .iter()
        .find_map(|i| i.settings.shard)
        .map_or(1, Shard::count);
    lacking(schedule, recorded, count)
        .into_iter()
        .map(|(shard, ids)| Lacking {
            shard,
            ids,
            folder: inputs
                .iter()
                .find(|i| i.settings.shard.is_none_or(|s| s == shard))
                .map(|i| i.dir.clone()),
        })
        .collect()
}

/// What a game of a run costs, for a batch job's time limit.
pub enum GameCost {
    /// `games` played here took `took` together.
    Measured { games: usize, took: Duration },
    /// From the clocks: the longest game they allow (`max_turns` turns), at `share` of each turn.
    Clocks {
        worst: Duration,
        max_turns: u32,
        share: f64,
    },
}

impl GameCost {
    /// `games` of `runner`, played one after the other here and timed.
    pub fn measure(runner: &Runner, games: &[GameSpec]) -> GameCost {
        let start = Instant::now();
        for g in games {
            // A game the machine cannot start is timed too: the measure is an estimate.
            let _ = runner.play_one(g);
        }
        GameCost::Measured {
            games: games.len(),
            took: start.elapsed(),
        }
    }

    /// The longest game `clock` allows, at `share` (0 to 1) of each turn.
    pub fn from_clocks(clock: &GameClock, share: f64) -> GameCost {
        GameCost::Clocks {
            worst: clock.worst_game(),
            max_turns: clock.max_turns,
            share,
        }
    }

    /// The expected cost of one game.
    pub fn per_game(&self) -> Duration {
        match *self {
            GameCost::Measured { games, took } => took / (games.max(1) as u32),
            GameCost::Clocks { worst, share, .. } => worst.mul_f64(share.clamp(0.0, 1.0)),
        }
    }
}

/// Up to `n` games of the first of `shards` shards of `schedule` whose bots can all play
/// (`problems[bot]` is `None`): the sample [`GameCost::measure`] plays.
pub fn sample(
    schedule: &[GameSpec],
    shards: u32,
    problems: &[Option<String>],
    n: usize,
) -> Vec<GameSpec> {
    Shard::new(1, shards)
        .expect("at least one shard")
        .slice(schedule)
        .into_iter()
        .filter(|g| g.seats.iter().all(|&s| problems[s].is_none()))
        .take(n)
        .collect()
}
