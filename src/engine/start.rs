//! Before a run's first game: its settings are made from the command's request (checked) or
//! taken from its results folder (the same run again, `--resume`, `--grow`), options that a
//! continued run would ignore are refused, and the bots that can play are counted. Every refusal
//! is a [`StartError`] that says what to do; nothing here prints.

use super::settings::{self, GrowError, OpeningsError, OpeningsSettings, Recorded, SettingsError};
use super::{BotCheck, GameSettings, GameSettingsError, NameClash};
use crate::results::games_csv::{DoneSet, GamesCsv};
use crate::results::lock::LockError;
use crate::tournament::openings::{BookError, Order};
use crate::tournament::{Format, Shard};
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
    NameClash(#[from] NameClash),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("opening {}", path.display())]
    GamesCsv {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "--resume {} continues the run with its recorded settings ({}), so {} would be \
         ignored; leave {} out, or start a new run with another --out",
        dir.display(), dir.join(file).display(), changed.join(", "),
        if changed.len() == 1 { "it" } else { "them" }
    )]
    ResumeChanges {
        dir: PathBuf,
        file: &'static str,
        changed: Vec<String>,
    },
    #[error(
        "--grow adds games or bots to a run and keeps its other settings; {} cannot change",
        changed.join(", ")
    )]
    GrowChanges { changed: Vec<String> },
    #[error("a tournament of {game} needs {seats} or more bots (got {got})")]
    TooFewBots {
        game: String,
        seats: usize,
        got: usize,
    },
    #[error(
        "--games must be a positive multiple of {seats}: each table of {seats} bots plays \
         rounds of {seats} games with the same seed and opening, each bot in every seat once \
         (got {got})"
    )]
    Games { seats: usize, got: u32 },
    #[error("--games must be a positive multiple of {seats}, the seat count (got {got})")]
    GradeGames { seats: usize, got: u32 },
    #[error("--tables must be at least 1")]
    Tables,
    #[error(
        "--shard {shard} needs --seed: every shard must compute the same schedule \
         (choose any number and give it to all {} shards)",
        shard.count()
    )]
    ShardSeed { shard: Shard },
    #[error(
        "{} cannot play (see above); fix {}, or pass --skip-broken-bots to play without {}",
        names.join(", "), them(names), them(names)
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
    #[error("--max-pairs must be at least 1")]
    MaxPairs,
    #[error("--max-pairs is too large")]
    TooManyPairs(#[source] std::num::TryFromIntError),
    #[error(
        "an SPRT compares two bots in two-seat games; {game} is played by {seats} seats here \
         (use `arbiter tournament --format gauntlet` to compare bots in games of more seats)"
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

impl OpeningsSettings {
    /// The opening book `spec` of a new run of `game` (with the book's fingerprint); without a
    /// book the game (an external referee's build) is not needed.
    pub fn of_run(
        spec: Option<String>,
        order: Order,
        game: &GameSettings,
    ) -> Result<OpeningsSettings, StartError> {
        if spec.is_none() {
            return Ok(OpeningsSettings {
                openings_order: order,
                ..Default::default()
            });
        }
        Ok(OpeningsSettings::new(spec, order, &game.choice()?)?)
    }
}

/// What a new tournament is asked to be (the command line's flags, as plain data).
pub struct TournamentRequest {
    pub bots: Vec<String>,
    pub format: Format,
    pub games: u32,
    pub tables: Option<usize>,
    pub opening_plies: u32,
    pub openings: Option<String>,
    pub openings_order: Order,
    /// `None`: a fresh seed.
    pub seed: Option<u64>,
    pub replays: bool,
    pub shard: Option<Shard>,
    pub game: GameSettings,
}

impl settings::TournamentSettings {
    /// The settings of a new run (checked; a fresh seed unless one is given), with the bots
    /// named from the current folder.
    pub fn fresh(r: TournamentRequest) -> Result<Self, StartError> {
        r.game.check_run(r.opening_plies, r.openings.as_deref())?;
        let choice = r.game.choice()?;
        let seats = choice.seats;
        if r.bots.len() < seats {
            return Err(StartError::TooFewBots {
                game: choice.describe(),
                seats,
                got: r.bots.len(),
            });
        }
        if r.games == 0 || !r.games.is_multiple_of(seats as u32) {
            return Err(StartError::Games {
                seats,
                got: r.games,
            });
        }
        if r.tables == Some(0) {
            return Err(StartError::Tables);
        }
        if let (Some(shard), None) = (r.shard, r.seed) {
            return Err(StartError::ShardSeed { shard });
        }
        Ok(Self {
            workdir: std::env::current_dir()?,
            openings: OpeningsSettings::of_run(r.openings, r.openings_order, &r.game)?,
            bots: r.bots,
            format: r.format,
            games: r.games,
            tables: r.tables,
            stages: Vec::new(),
            first_bots: None,
            opening_plies: r.opening_plies,
            seed: r.seed.unwrap_or_else(fresh_seed),
            replays: r.replays,
            shard: r.shard,
            game: r.game,
        })
    }
}

/// A seed from the clock and the process id, for when the user gives none.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::rng::Rng::derive(nanos, u64::from(std::process::id())) >> 11 // keep it below 2^53 so JSON readers see it exactly
}

impl BotCheck {
    /// Marks every bot that can play but does not play `game` (see [`crate::bot::BotSpec::plays`])
    /// and returns those problems for the reporter.
    pub fn mark_wrong_game(&mut self, game: &str) -> Vec<crate::bot::SpecError> {
        crate::bot::spec::mark_wrong_game(&self.specs, &mut self.problems, game)
    }

    /// For each bot, whether it can play.
    pub fn active(&self) -> Vec<bool> {
        self.problems.iter().map(Option::is_none).collect()
    }

    /// The names of the bots that can play, in order (the standings' order).
    pub fn playing(&self) -> Vec<String> {
        self.with_problem(false)
            .map(|(b, _)| b.name.clone())
            .collect()
    }

    /// Each bot that cannot play, with why.
    pub fn left_out(&self) -> Vec<(&str, &str)> {
        self.with_problem(true)
            .map(|(b, p)| (b.name.as_str(), p.unwrap_or_default()))
            .collect()
    }

    fn with_problem(
        &self,
        broken: bool,
    ) -> impl Iterator<Item = (&crate::bot::BotSpec, Option<&str>)> {
        self.specs
            .iter()
            .zip(&self.problems)
            .filter(move |(_, p)| p.is_some() == broken)
            .map(|(b, p)| (b, p.as_deref()))
    }

    /// A tournament's field: refused when a bot cannot play (unless `skip_broken`) or fewer
    /// bots than `seats` can. Returns how many play.
    pub fn check_field(
        &self,
        skip_broken: bool,
        seats: usize,
        game: &str,
    ) -> Result<usize, StartError> {
        let broken: Vec<String> = self.left_out().iter().map(|(b, _)| b.to_string()).collect();
        if !broken.is_empty() && !skip_broken {
            return Err(StartError::Broken { names: broken });
        }
        let playing = self.specs.len() - broken.len();
        if playing < seats {
            return Err(StartError::FewerPlaying {
                playing,
                game: game.to_string(),
                seats,
            });
        }
        Ok(playing)
    }
}

/// What a new SPRT is asked to be (the command line's flags, as plain data).
pub struct SprtRequest {
    pub new: String,
    pub old: String,
    pub max_pairs: u64,
    pub opening_plies: u32,
    pub openings: Option<String>,
    pub openings_order: Order,
    /// `None`: a fresh seed.
    pub seed: Option<u64>,
    pub sprt: settings::SprtTestSettings,
    pub game: GameSettings,
}

impl settings::SprtSettings {
    /// The settings of a new SPRT (checked; a fresh seed unless one is given), with the bots
    /// named from the current folder.
    pub fn fresh(r: SprtRequest) -> Result<Self, StartError> {
        if r.max_pairs == 0 {
            return Err(StartError::MaxPairs);
        }
        r.game.check_run(r.opening_plies, r.openings.as_deref())?;
        Ok(Self {
            workdir: std::env::current_dir()?,
            openings: OpeningsSettings::of_run(r.openings, r.openings_order, &r.game)?,
            new: r.new,
            old: r.old,
            max_pairs: r.max_pairs,
            opening_plies: r.opening_plies,
            seed: r.seed.unwrap_or_else(fresh_seed),
            sprt: r.sprt,
            game: r.game,
        })
    }

    /// Refuses a game that is not played by two seats.
    pub fn check_seats(&self, choice: &crate::game::GameChoice) -> Result<(), StartError> {
        if choice.seats == 2 {
            return Ok(());
        }
        Err(StartError::SprtSeats {
            game: choice.describe(),
            seats: choice.seats,
        })
    }

    /// The games of the test not in `done`, pair by pair.
    pub fn games_to_play(
        &self,
        done: &crate::results::games_csv::DoneSet,
    ) -> Result<Vec<crate::tournament::GameSpec>, StartError> {
        let games_per_pair =
            u32::try_from(self.max_pairs.saturating_mul(2)).map_err(StartError::TooManyPairs)?;
        Ok(
            crate::tournament::schedule(2, Format::RoundRobin, games_per_pair, self.seed)
                .into_iter()
                .filter(|g| !done.contains(g.game_id))
                .collect(),
        )
    }
}

impl BotCheck {
    /// Refuses a run where any bot cannot play (an SPRT's two), naming the first.
    pub fn check_all(&self) -> Result<(), StartError> {
        match self
            .specs
            .iter()
            .zip(&self.problems)
            .find(|(_, p)| p.is_some())
        {
            Some((bot, _)) => Err(StartError::SprtBot {
                origin: bot.origin.clone(),
            }),
            None => Ok(()),
        }
    }
}

impl settings::GradeSettings {
    /// Checks a new grading's settings (the game with `openings`, if given, and the games per
    /// pairing); returns the game's seat count.
    pub fn check(&self, openings: Option<&str>) -> Result<usize, StartError> {
        self.game.check_run(self.opening_plies, openings)?;
        let seats = self.game.choice()?.seats;
        if self.games == 0 || !self.games.is_multiple_of(seats as u32) {
            return Err(StartError::GradeGames {
                seats,
                got: self.games,
            });
        }
        if self.tables == Some(0) {
            return Err(StartError::Tables);
        }
        Ok(seats)
    }
}

impl BotCheck {
    /// A grading's field: the bots from `students` on are the baselines, which must all play
    /// (see also [`check_baseline_count`]). Returns the baselines' names.
    pub fn check_baselines(&self, students: usize) -> Result<Vec<String>, StartError> {
        let baselines = &self.specs[students..];
        if let Some((bot, why)) = baselines
            .iter()
            .zip(&self.problems[students..])
            .find_map(|(b, p)| p.as_ref().map(|p| (b, p)))
        {
            return Err(StartError::Baseline {
                name: bot.name.clone(),
                why: why.clone(),
            });
        }
        Ok(baselines.iter().map(|b| b.name.clone()).collect())
    }
}

/// A grading seats each student with baselines only: games of `seats` seats need `seats - 1`
/// baselines or more.
pub fn check_baseline_count(baselines: usize, seats: usize) -> Result<(), StartError> {
    if baselines + 1 < seats {
        return Err(StartError::FewBaselines { seats });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::BotSpec;
    use crate::engine::settings::TournamentSettings;

    /// The game as a run of an earlier version recorded it (the defaults of its flags).
    fn game() -> GameSettings {
        let text = include_str!("../../tests/runs/before-settings-move/tournament.toml");
        let s: TournamentSettings = toml::from_str(text).unwrap();
        s.game
    }

    fn request(bots: &[&str], games: u32) -> TournamentRequest {
        TournamentRequest {
            bots: bots.iter().map(|b| b.to_string()).collect(),
            format: Format::RoundRobin,
            games,
            tables: None,
            opening_plies: 0,
            openings: None,
            openings_order: Order::default(),
            seed: None,
            replays: false,
            shard: None,
            game: game(),
        }
    }

    #[test]
    fn a_new_tournament_is_refused_with_what_to_change() {
        let err = |r| TournamentSettings::fresh(r).unwrap_err().to_string();
        assert!(err(request(&["a"], 2)).contains("needs 2 or more bots (got 1)"));
        assert!(
            err(request(&["a", "b"], 3)).starts_with("--games must be a positive multiple of 2")
        );
        let mut r = request(&["a", "b"], 2);
        r.tables = Some(0);
        assert_eq!(err(r), "--tables must be at least 1");
        let mut r = request(&["a", "b"], 2);
        r.shard = Some(Shard::new(1, 3).unwrap());
        assert!(err(r).contains("--shard 1/3 needs --seed"));
        let mut r = request(&["a", "b"], 4);
        r.seed = Some(7);
        let s = TournamentSettings::fresh(r).unwrap();
        assert_eq!((s.seed, s.games, s.bots.len()), (7, 4, 2));
        assert_eq!(s.workdir, std::env::current_dir().unwrap());
    }

    #[test]
    fn options_a_continued_run_would_ignore_are_refused() {
        let dir = Path::new("/r");
        assert!(check_resume(None, "t.toml", vec!["--games 4".into()]).is_ok());
        assert!(check_resume(Some(dir), "t.toml", Vec::new()).is_ok());
        let e = check_resume(Some(dir), "t.toml", vec!["--games 4".into()]).unwrap_err();
        assert!(
            e.to_string()
                .contains("(/r/t.toml), so --games 4 would be ignored; leave it out"),
            "{e}"
        );
        assert!(check_grow(vec!["--seed 3".into()])
            .unwrap_err()
            .to_string()
            .ends_with("--seed 3 cannot change"));
    }

    #[test]
    fn a_field_with_broken_bots_plays_only_when_told_to_skip_them() {
        let spec = |n: &str| BotSpec::command(n, "/bin/true", Vec::new(), ".");
        let field = BotCheck {
            specs: vec![spec("a"), spec("b"), spec("c")],
            problems: vec![None, Some("does not start".into()), None],
        };
        let e = field.check_field(false, 2, "impasse").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("b cannot play (see above); fix it, or pass --skip-broken-bots"),
            "{e}"
        );
        assert_eq!(field.check_field(true, 2, "impasse").unwrap(), 2);
        assert!(matches!(
            field.check_field(true, 3, "x"),
            Err(StartError::FewerPlaying { playing: 2, .. })
        ));
        assert_eq!(field.playing(), vec!["a", "c"]);
        assert_eq!(field.left_out(), vec![("b", "does not start")]);
        assert!(matches!(field.check_all(), Err(StartError::SprtBot { .. })));
        assert!(matches!(
            field.check_baselines(1),
            Err(StartError::Baseline { .. })
        ));
        assert_eq!(field.check_baselines(2).unwrap(), vec!["c"]);
        assert!(check_baseline_count(1, 3).is_err());
    }
}
