//! The arguments of each subcommand.

use super::{GameOpts, RunOpts};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The folder to write the merged games.csv, standings and settings into.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The shards' results folders (a folder without results, a shard that never started, is
    /// reported as missing).
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub dirs: Vec<PathBuf>,
    /// Show ratings relative to this bot's fixed Elo, e.g. --anchor greedy=1500.
    #[arg(long, value_name = "BOT=ELO")]
    pub anchor: Option<String>,
}

#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// Shards: array tasks, each playing 1/N of the table rounds.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: u32,
    /// Submit the jobs with sbatch and print their ids (otherwise only write the scripts).
    #[arg(long)]
    pub submit: bool,
    /// The array tasks' time limit in minutes [default: from the estimate it prints].
    #[arg(long, value_name = "MIN", value_parser = clap::value_parser!(u32).range(1..))]
    pub time_limit: Option<u32>,
    /// Games played here first to measure what a game costs, for the time limit; 0 estimates
    /// from the clocks instead (every turn using --turn-share of its limit).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub sample: u32,
    /// With --sample 0: the share of each turn's time limit a bot is expected to use.
    #[arg(long, default_value_t = 1.0, value_name = "F")]
    pub turn_share: f64,
    /// Slurm partition (sbatch --partition).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Slurm account (sbatch --account).
    #[arg(long, value_name = "NAME")]
    pub account: Option<String>,
    /// Another #SBATCH line for both jobs, e.g. --sbatch=--qos=short (repeatable).
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
    /// The tournament, as for `arbiter tournament` (--concurrency is per shard and sets
    /// --cpus-per-task; --out is the run's folder, default results/tournament-<date>).
    #[command(flatten)]
    pub tournament: TournamentArgs,
}

#[derive(Args, Debug)]
pub struct GamesArgs {
    /// A game's name: show its statement [default: list every game].
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// A CodinGame SDK game (its source folder, jar or class path, as --referee takes it):
    /// show its players and its leagues (the numbers --league takes, and which one a run plays
    /// by default) [default: none].
    #[arg(long, value_name = "GAME", conflicts_with = "name")]
    pub referee: Option<String>,
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Count sequences up to this many moves deep (one seat's move each).
    #[arg(value_name = "DEPTH")]
    pub depth: u32,
    /// The game.
    #[arg(long, default_value = "impasse", value_name = "NAME")]
    pub game: String,
    /// The game's variant [default: the game's first].
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// Seats [default: the variant's first seat count].
    #[arg(long, value_name = "N")]
    pub seats: Option<usize>,
    /// Start from this position (the game's one-line text form) [default: the start].
    #[arg(long, value_name = "TEXT")]
    pub position: Option<String>,
    /// Seed of the start position, for games with a random setup.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seed: u64,
    /// Print the count below each first move instead of the table.
    #[arg(long)]
    pub divide: bool,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The bots, in seat order (seat 0 first: it moves first unless --position gives the move to
    /// another seat; for Impasse seat 0 plays White, so with `--position ... b` Black, the second
    /// bot, moves first), as many as
    /// the game has seats. Each is a path to an executable, a directory with a bot.toml, or a
    /// quoted command line, optionally named: NAME=BOT (e.g. alice="python3 a/bot.py"). `human`
    /// seats a person at this terminal (no clock unless --turn-ms or --first-turn-ms is given).
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

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// Two or more bots (at least the seat count): paths to executables, directories with a
    /// bot.toml, or quoted command lines, optionally named: NAME=BOT (e.g. alice="python3
    /// a/bot.py"). Names (given, else from bot.toml or the file name) must be unique.
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// Pairing: every pair of bots, or the first bot against each of the others.
    #[arg(long, value_enum, default_value = "round-robin")]
    pub format: arbiter::tournament::Format,
    /// Games per table (per pairing for two seats), a multiple of the seat count: played in
    /// rounds with the same seed and opening, each bot of the table in every seat once (for two
    /// seats: pairs with seats swapped).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub games: u32,
    /// Play N tables sampled from the field instead of every table of `--seats` bots (for large
    /// fields, e.g. 30 bots in 4-seat games: 27,405 tables in all). Tables are drawn in rounds:
    /// each round shuffles the bots (seeded) and seats them at tables of k; so each bot sits at
    /// nearly the same number of tables [default: every table].
    #[arg(long, value_name = "N")]
    pub tables: Option<usize>,
    #[command(flatten)]
    pub run: RunOpts,
    /// Results folder [default: results/tournament-<UTC date-time>]. If it holds this same
    /// tournament already, the games it lacks are played (a resume).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue the tournament in DIR with its recorded settings (give no BOT).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["bots", "out"])]
    pub resume: Option<PathBuf>,
    /// Keep each game's replay file under DIR/replays/.
    #[arg(long)]
    pub replays: bool,
    /// Play without the bots that cannot be built or started (they are named in the summary);
    /// by default such a bot stops the run before any game, with exit status 3.
    #[arg(long)]
    pub skip_broken_bots: bool,
    /// Show ratings relative to this bot's fixed Elo, e.g. --anchor greedy=1500.
    #[arg(long, value_name = "BOT=ELO")]
    pub anchor: Option<String>,
    /// With --resume: grow the run on purpose, with --games (more games per table than
    /// recorded) and/or --add-bot. Finished games are kept and never replayed; the new games get
    /// new ids.
    #[arg(long, requires = "resume")]
    pub grow: bool,
    /// With --grow: a bot to add to the field (repeatable).
    #[arg(long, value_name = "BOT", requires = "grow")]
    pub add_bot: Vec<String>,
    /// Play only the K-th of N slices of the schedule (whole table rounds, the same slices on
    /// every machine), e.g. on N machines at once; needs an explicit --seed. `arbiter merge`
    /// puts the shards' results folders together.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<arbiter::tournament::Shard>,
    /// Do not run the bots' build commands: they were built beforehand (as `arbiter slurm` does
    /// once for all shards). The start-up check still runs.
    #[arg(long)]
    pub no_build: bool,
    #[command(flatten)]
    pub game: GameOpts,
}

#[derive(Args, Debug)]
pub struct GradeArgs {
    /// The class: a folder in which every file (a source file such as alice.py or bob.cpp, or an
    /// executable) and every subfolder (a bot.toml folder, or one holding a single source file)
    /// is one student's bot, named after the file or folder.
    #[arg(value_name = "SUBMISSIONS")]
    pub submissions: PathBuf,
    /// A reference bot every student plays (give one or more), e.g. --baseline bots/random.
    #[arg(long = "baseline", value_name = "BOT", required = true)]
    pub baselines: Vec<String>,
    /// Games per pairing (student against a baseline, student against student), a multiple of
    /// the seat count: rounds with the same seed and opening, each bot in every seat once.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub games: u32,
    /// For large classes: play N sampled tables of students instead of every pairing of
    /// students (every student still plays every baseline) [default: every pairing].
    #[arg(long, value_name = "N")]
    pub tables: Option<usize>,
    /// The marking rule, a TOML file (see docs/grading.md, "Rubric") [default: 4 points
    /// for scoring 50% or more against each baseline, 2 for rank 1, 1 for rank 2, 0 if it does
    /// not build].
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Results folder [default: results/grade-<SUBMISSIONS folder name>]. Running again into the
    /// same folder replays only the games of students whose submission changed.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run the bots without the bubblewrap sandbox (students' code then runs with your rights).
    #[arg(long)]
    pub no_sandbox: bool,
    #[command(flatten)]
    pub run: RunOpts,
    #[command(flatten)]
    pub game: GameOpts,
}

#[derive(Args, Debug)]
pub struct RatingsArgs {
    /// games.csv files; only the columns bot0, bot1 and winner are required.
    #[arg(required = true, value_name = "CSV")]
    pub files: Vec<PathBuf>,
    /// Print one JSON object: {"ratings": [...], "los": {...}}.
    #[arg(long)]
    pub json: bool,
    /// Show ratings relative to this bot's fixed Elo, e.g. --anchor greedy=1500.
    #[arg(long, value_name = "BOT=ELO")]
    pub anchor: Option<String>,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results folders of tournament or sprt runs; several are merged into one report.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write the report [default: DIR/report.html of the first DIR]. Its replay
    /// pages go beside it: in its folder's replays/ (replays-K for the K-th of several DIRs),
    /// or in DIR/replays for DIR's own report; nothing else is written into a DIR.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A replay file written by `arbiter play --replay FILE`.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write the page [default: FILE with the extension .html].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// A shorter run (under 15 seconds), with fewer samples.
    #[arg(long)]
    pub quick: bool,
    /// The game the instant bots play (any registered game; `arbiter games` lists them).
    #[arg(long, default_value = "impasse", value_name = "NAME")]
    pub game: String,
    /// The game's variant [default: the game's first].
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// An external referee's game: refused, with what to run instead (the instant bots play
    /// only the built-in games, whose moves arbiter knows; see
    /// docs/external-referees.md) [default: none].
    #[arg(long, value_name = "COMMAND")]
    pub referee: Option<String>,
    /// Measure something else than the referee's turn.
    #[command(subcommand)]
    pub mode: Option<BenchMode>,
}

/// What else `arbiter bench` measures.
#[derive(clap::Subcommand, Debug)]
pub enum BenchMode {
    /// Load-test a league server: a real one on loopback, simulated workers (threads speaking
    /// the worker protocol with made-up results, no games) at each --workers count; prints
    /// leases/s, results/s, latency percentiles, the server's CPU and memory.
    League(BenchLeagueArgs),
}

#[derive(Args, Debug)]
pub struct BenchLeagueArgs {
    /// Simulated workers of each phase, in order.
    #[arg(long, value_delimiter = ',', default_values_t = [100, 1000], value_name = "N,N")]
    pub workers: Vec<usize>,
    /// Bots in the league.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub bots: usize,
    /// Results each phase stops at.
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub phase_results: u64,
    /// The longest a phase lasts, in seconds.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub phase_seconds: u64,
    /// Results in all at which the memory run stops (its workers: the first --workers).
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub memory_results: u64,
    /// The longest the memory run lasts, in seconds.
    #[arg(long, default_value_t = 600, value_name = "S")]
    pub memory_seconds: u64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// The hypotheses of an SPRT.
#[derive(Args, Debug, Clone, PartialEq)]
pub struct SprtOpts {
    /// H0: NEW is not better than this many Elo (in the chosen model's units).
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "ELO",
        allow_negative_numbers = true
    )]
    pub elo0: f64,
    /// H1: NEW is better by at least this many Elo.
    #[arg(
        long,
        default_value_t = 5.0,
        value_name = "ELO",
        allow_negative_numbers = true
    )]
    pub elo1: f64,
    #[command(flatten)]
    pub test: SprtTest,
}

/// How an SPRT judges its bounds: the Elo model and the two error rates (sprt and stats).
#[derive(Args, Debug, Clone, PartialEq)]
pub struct SprtTest {
    /// Elo model of the bounds: normalized (nElo, fastchess's default) or logistic.
    #[arg(long, default_value = "normalized", value_name = "MODEL")]
    pub model: String,
    /// False-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub alpha: f64,
    /// False-negative rate (accepting H0 when H1 holds).
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub beta: f64,
}

impl TournamentArgs {
    /// The new run these flags ask for, as the library takes it.
    pub fn request(&self) -> arbiter::engine::TournamentRequest {
        arbiter::engine::TournamentRequest {
            bots: self.bots.clone(),
            format: self.format,
            games: self.games,
            tables: self.tables,
            opening_plies: self.run.opening.plies(),
            openings: self.run.opening.openings.clone(),
            openings_order: self.run.opening.order(),
            seed: self.run.seed,
            replays: self.replays,
            shard: self.shard,
            game: self.game.settings(),
        }
    }
}

/// `RunFolder` for the arguments of a command with `--resume`, `--out` and the run's options.
macro_rules! run_folder {
    ($args:ty, $name:literal) => {
        impl super::RunFolder for $args {
            const NAME: &'static str = $name;
            fn resume(&self) -> Option<&std::path::Path> {
                self.resume.as_deref()
            }
            fn out(&self) -> Option<&std::path::Path> {
                self.out.as_deref()
            }
            fn run(&self) -> &RunOpts {
                &self.run
            }
        }
    };
}

run_folder!(TournamentArgs, "tournament");
run_folder!(SprtArgs, "sprt");

impl SprtArgs {
    /// The new test these flags ask for, as the library takes it.
    pub fn request(&self) -> arbiter::engine::SprtRequest {
        arbiter::engine::SprtRequest {
            new: self.new.clone().unwrap_or_default(),
            old: self.old.clone().unwrap_or_default(),
            max_pairs: self.max_pairs,
            opening_plies: self.run.opening.plies(),
            openings: self.run.opening.openings.clone(),
            openings_order: self.run.opening.order(),
            seed: self.run.seed,
            sprt: (&self.sprt).into(),
            game: self.game.settings(),
        }
    }
}

impl SprtTest {
    /// The SPRT with bounds `elo0` and `elo1`.
    pub fn params(&self, elo0: f64, elo1: f64) -> Result<arbiter::rating::SprtParams> {
        let model = self.model.parse()?;
        Ok(arbiter::rating::SprtParams::new(
            elo0, elo1, self.alpha, self.beta, model,
        )?)
    }
}

/// The test's flags as the library records them (sprt.toml's `[sprt]`).
impl From<&SprtOpts> for arbiter::engine::settings::SprtTestSettings {
    fn from(o: &SprtOpts) -> Self {
        Self {
            elo0: o.elo0,
            elo1: o.elo1,
            model: o.test.model.clone(),
            alpha: o.test.alpha,
            beta: o.test.beta,
        }
    }
}

#[derive(Args, Debug)]
pub struct SprtArgs {
    /// The candidate bot (executable, directory with bot.toml, or command line).
    #[arg(value_name = "NEW", required_unless_present = "resume")]
    pub new: Option<String>,
    /// The reference bot.
    #[arg(value_name = "OLD", required_unless_present = "resume")]
    pub old: Option<String>,
    #[command(flatten)]
    pub sprt: SprtOpts,
    /// Stop without a decision after this many pairs of games.
    #[arg(long, default_value_t = 20000, value_name = "N")]
    pub max_pairs: u64,
    #[command(flatten)]
    pub run: RunOpts,
    /// Results folder [default: results/sprt-<UTC date-time>]; if it holds this same test, it
    /// continues.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue the test in DIR with its recorded settings (give no NEW and OLD).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["new", "old", "out"])]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub game: GameOpts,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("record").required(true).args(["wdl", "ptnml"])))]
pub struct StatsArgs {
    /// Wins, draws and losses of the first bot, e.g. 60,20,20.
    #[arg(long, value_name = "W,D,L", value_delimiter = ',')]
    pub wdl: Option<Vec<u64>>,
    /// Pentanomial pair counts (pair scores 0, 0.5, 1, 1.5, 2), e.g. 10,20,40,20,10.
    #[arg(long, value_name = "C0,C1,C2,C3,C4", value_delimiter = ',')]
    pub ptnml: Option<Vec<u64>>,
    /// Lower SPRT bound; with --elo1, also print the LLR and the decision thresholds.
    #[arg(
        long,
        value_name = "ELO",
        requires = "elo1",
        allow_negative_numbers = true
    )]
    pub elo0: Option<f64>,
    /// Upper SPRT bound.
    #[arg(
        long,
        value_name = "ELO",
        requires = "elo0",
        allow_negative_numbers = true
    )]
    pub elo1: Option<f64>,
    #[command(flatten)]
    pub test: SprtTest,
    /// Print one JSON object: elo, elo_margin, los, nelo, nelo_margin, llr, lower, upper.
    #[arg(long)]
    pub json: bool,
}
