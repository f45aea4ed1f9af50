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
    args_override_self = true,
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The options the user typed on the command line (as opposed to defaults), by long name.
#[derive(Debug, Default)]
pub struct Given {
    pub options: Vec<(String, String)>,
}

impl Given {
    /// The options of the subcommand that came from the command line, with their values.
    pub fn from_matches(m: &clap::ArgMatches) -> Given {
        let Some((name, sub)) = m.subcommand() else {
            return Given::default();
        };
        use clap::CommandFactory;
        let command = Cli::command();
        let args: Vec<String> = command
            .find_subcommand(name)
            .map(|c| {
                c.get_arguments()
                    .map(|a| a.get_id().as_str().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let mut options = Vec::new();
        for id in sub.ids() {
            let id = id.as_str();
            if !args.iter().any(|a| a == id) {
                continue; // a group of flattened options, not an option
            }
            if sub.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
                continue;
            }
            let value = sub
                .get_raw(id)
                .map(|vals| {
                    vals.map(|v| v.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            options.push((id.replace('_', "-"), value));
        }
        Given { options }
    }

    /// The given options that are not in `allowed`, as `--name value`.
    pub fn outside(&self, allowed: &[&str]) -> Vec<String> {
        self.options
            .iter()
            .filter(|(id, _)| !allowed.contains(&id.as_str()))
            .map(|(id, v)| {
                if v.is_empty() || v == "true" {
                    format!("--{id}")
                } else {
                    format!("--{id} {v}")
                }
            })
            .collect()
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Referee one game between bot programs and show who won and why.
    Play(PlayArgs),
    /// Play many games between two or more bots, record them in games.csv, and rate the field.
    Tournament(TournamentArgs),
    /// Grade a class: build every student's bot (single source files as on the CodinGame arena,
    /// or bot folders), play each against the baselines and the other students in the sandbox,
    /// and write marks.csv with a mark per student from a rubric.
    Grade(GradeArgs),
    /// Recompute standings from one or more games.csv files (e.g. shards from several machines).
    Ratings(RatingsArgs),
    /// Is NEW better than OLD? Play pairs of games until a sequential probability ratio test
    /// decides. Exit status: 0 = H1 accepted (NEW better by at least elo1), 1 = H0 accepted
    /// (not better than elo0), 2 = no decision within --max-pairs, 3 = error.
    Sprt(SprtArgs),
    /// Write report.html for one or more results folders (standings, charts, every game's
    /// replay page); tournament and sprt write it themselves as they run.
    Report(ReportArgs),
    /// Write the replay page of one game recorded with `arbiter play --replay FILE`.
    Replay(ReplayArgs),
    /// The human seat's side of `arbiter play human BOT` (started by arbiter itself).
    #[command(hide = true)]
    HumanSeat,
    /// Offline calculator: Elo, LOS, nElo and (with bounds) the SPRT log-likelihood ratio of a
    /// W/D/L or pentanomial record.
    Stats(StatsArgs),
    /// Measure what the referee adds to every turn, against the pipe round-trip floor.
    Bench(BenchArgs),
    /// List the games with their variants and seat counts, or show one game's statement for
    /// bot writers (rules, coordinates, input lines, move syntax, end of game).
    Games(GamesArgs),
    /// Count the move sequences of each depth from a position: the rules author's check.
    Perft(PerftArgs),
    /// Put the results folders of a tournament's shards (`tournament --shard K/N`) together:
    /// one games.csv and the standings of the whole run, and the missing games named. Exit
    /// status 1 when games are missing (the files are written anyway), 3 on error.
    Merge(MergeArgs),
    /// Write (and with --submit, submit) a Slurm job array that plays a tournament in shards on
    /// a cluster, then merges them: `arbiter slurm --shards 16 --seed 7 --out DIR BOT...`.
    Slurm(Box<SlurmArgs>),
}

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

/// The options every command that plays games shares: the game, its clocks and the bots' limits.
#[derive(Args, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameOpts {
    /// The game to play (`arbiter games` lists them with their variants and seat counts).
    #[arg(long, default_value = "impasse", value_name = "NAME")]
    pub game: String,
    /// The game's variant [default: the game's first, see `arbiter games NAME`].
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub variant: Option<String>,
    /// Seats per game, for games played by more than two [default: the variant's first seat
    /// count, 2 for every game but those listed otherwise by `arbiter games`].
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub seats: Option<usize>,
    /// Start every game from this position, in the game's one-line text form (each game's
    /// statement describes it) [default: the standard start].
    #[arg(long, value_name = "TEXT")]
    #[serde(default)]
    pub position: Option<String>,
    /// Time limit of each bot's first turn (start-up included), in milliseconds.
    #[arg(
        long,
        default_value_t = 1000,
        value_name = "MS",
        allow_negative_numbers = true
    )]
    pub first_turn_ms: u64,
    /// Time limit of every later turn, in milliseconds.
    #[arg(
        long,
        default_value_t = 100,
        value_name = "MS",
        allow_negative_numbers = true
    )]
    pub turn_ms: u64,
    /// How late an answer may arrive and still count (as a strike), in milliseconds.
    #[arg(
        long,
        default_value_t = 50,
        value_name = "MS",
        allow_negative_numbers = true
    )]
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
    /// What the time limits measure: wall time (CodinGame's clock) or the bot's CPU time, for
    /// loaded machines.
    #[arg(long, value_enum, default_value = "wall")]
    pub clock: arbiter::referee::Clock,
    /// Let the bot that is not on turn keep running (by default it is frozen 5 ms into the
    /// opponent's turn, or at once after answering once it was seen thinking while idle; frozen
    /// by its cgroup freezer as root, else by SIGSTOP to its process group).
    #[arg(long)]
    pub allow_pondering: bool,
    /// Memory limit of each bot, in MiB; 0 = none. Where a memory cgroup can be made (as root) it
    /// covers everything the bot and its children hold, and going over it loses by
    /// `memory-limit`; elsewhere it limits each process's data segment (RLIMIT_DATA).
    #[arg(
        long,
        default_value_t = 768,
        value_name = "MIB",
        allow_negative_numbers = true
    )]
    pub memory_mb: u64,
    /// Most processes and threads a bot may have at once, a count [default: no limit]. Enforced by
    /// a pids cgroup where the referee can create one, else by RLIMIT_NPROC (which counts all of
    /// the user's processes and does not bind root).
    #[arg(long, value_name = "N")]
    pub max_processes: Option<u64>,
    /// Run each bot under bubblewrap as an unprivileged user with no capabilities: no network,
    /// only system folders and its own files (read-only), a private /tmp and /dev/shm (needs the
    /// bwrap program; see the README for what it protects).
    #[arg(long)]
    pub sandbox: bool,
    /// Time a bot has to exit after SIGTERM before it is killed, in milliseconds.
    #[arg(
        long,
        default_value_t = 200,
        value_name = "MS",
        allow_negative_numbers = true
    )]
    pub kill_grace_ms: u64,
}

impl GameOpts {
    /// A note for the start line when the memory limit cannot be enforced in full.
    pub fn memory_note(&self) -> Option<String> {
        (self.memory_mb > 0 && !arbiter::bot::cgroup::memory_cap_is_full()).then(|| {
            format!(
                "--memory-mb {} is a partial cap here: no memory cgroup can be made (run as root \
                 for one), so it limits each process's private memory only (RLIMIT_DATA), not \
                 shared memory, files in RAM or the sum over a bot's children",
                self.memory_mb
            )
        })
    }

    /// The validated game, variant, seats and start position.
    pub fn choice(&self) -> Result<arbiter::game::GameChoice> {
        Ok(arbiter::game::GameChoice::new(
            &self.game,
            self.variant.as_deref(),
            self.seats,
            self.position.as_deref(),
        )?)
    }

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
        // Bots inherit the referee's environment (bubblewrap passes it on too): a bot that
        // budgets its time reads its limits here instead of assuming the arena's. Set before
        // any game thread starts.
        std::env::set_var("ARBITER_TURN_MS", self.turn_ms.to_string());
        std::env::set_var("ARBITER_FIRST_TURN_MS", self.first_turn_ms.to_string());
        std::env::set_var(
            "ARBITER_CLOCK",
            match self.clock {
                arbiter::referee::Clock::Wall => "wall",
                arbiter::referee::Clock::Cpu => "cpu",
            },
        );
        Ok(RefereeConfig {
            time: TimeControl {
                first_turn: Duration::from_millis(self.first_turn_ms),
                turn: Duration::from_millis(self.turn_ms),
                grace,
                strikes,
                clock: self.clock,
            },
            max_turns,
            freeze_idle: !self.allow_pondering,
            freeze_after: arbiter::referee::FREEZE_AFTER,
            kill_grace: Duration::from_millis(self.kill_grace_ms),
            limits: Limits {
                memory_bytes: (self.memory_mb > 0).then_some(self.memory_mb * 1024 * 1024),
                max_processes: self.max_processes,
                sandbox: if self.sandbox {
                    Some(arbiter::bot::sandbox::require().map_err(anyhow::Error::msg)?)
                } else {
                    None
                },
            },
            record_turns: false,
        })
    }
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The bots, in seat order (the first moves first; for Impasse it plays White), as many as
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

/// Resolves and builds every BOT argument; the first failure is the error.
pub fn resolve_bots(args: &[String]) -> Result<Vec<BotSpec>> {
    let specs = args
        .iter()
        .map(|a| BotSpec::resolve_named(a).map_err(anyhow::Error::from))
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
    arbiter::rng::Rng::derive(nanos, u64::from(std::process::id())) >> 11 // keep it below 2^53 so JSON readers see it exactly
}

/// How a run of many games is played: openings, seeds, and where the games run.
#[derive(Args, Debug)]
pub struct RunOpts {
    /// Random legal plies the referee plays before the bots take over, so that deterministic
    /// bots play different games. 0 starts every game from the game's start position, as the
    /// CodinGame arena does. With K > 0 a bot's first input is a position after K random moves
    /// (for Impasse: White's first last move is not `null` and the board is not the standard
    /// start), so only bots that read the position from their input can play.
    #[arg(long, default_value_t = 0, value_name = "K")]
    pub opening_plies: u32,
    /// Start each table round from the next line of an opening book: a file with one opening a
    /// line (move texts from the start, separated by spaces; `#` starts a comment), or a
    /// built-in book (`draughts-3move`). Every line is checked before any game; random
    /// --opening-plies, if any, follow the book's moves [default: no book].
    #[arg(long, value_name = "FILE|NAME")]
    pub openings: Option<String>,
    /// How table rounds walk through the book: `in-order` (round n takes line n, cycling) or
    /// `shuffled` (a permutation drawn from the master seed).
    #[arg(long, value_enum, default_value = "in-order", value_name = "ORDER")]
    pub openings_order: arbiter::tournament::openings::Order,
    /// Master seed: fixes every pair's seed and opening [default: random, recorded].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Games played at the same time, at least 1 [default: the number of CPU cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: Option<u32>,
    /// Run each concurrent game, referee thread and bots, on a CPU of its own. The bots of a game
    /// take turns, so one CPU serves it, and turns cost about half as much as when the kernel
    /// spreads them; but a bot that thinks with several threads gets one CPU. `auto` pins when
    /// the games fit the CPUs (concurrency <= CPUs) and idle bots are frozen (no
    /// --allow-pondering); `--pin-cpus` alone means `always`, `--pin-cpus=never` turns it off.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value = "auto",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "always"
    )]
    pub pin_cpus: Pinning,
}

/// Whether each concurrent game gets a CPU of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pinning {
    /// Pin when the games fit the CPUs and idle bots are frozen.
    Auto,
    /// Always pin (past the CPU count, games share CPUs in turn).
    Always,
    /// Never: the kernel places every process.
    Never,
}

impl Pinning {
    /// Whether `concurrency` games are pinned, given `cpus` usable CPUs, whether idle bots are
    /// frozen (pondering bots of one game would compete for its CPU), and whether other work
    /// already keeps the CPUs busy (a pinned game cannot move off a CPU another program holds,
    /// and its bots then stall for whole scheduler slices: measured as timeouts of a bot using
    /// 40% of its limit on a machine with a load average of 10).
    pub fn pins(self, concurrency: usize, cpus: usize, freeze_idle: bool, busy: bool) -> bool {
        match self {
            Pinning::Always => cpus > 0,
            Pinning::Never => false,
            Pinning::Auto => freeze_idle && cpus > 0 && concurrency <= cpus && !busy,
        }
    }
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
    /// The marking rule, a TOML file (see "Grading a class" in the README) [default: 4 points
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

/// Parses `--anchor BOT=ELO`.
pub fn parse_anchor(text: &str) -> Result<(String, f64)> {
    let (bot, elo) = text
        .rsplit_once('=')
        .with_context(|| format!("--anchor '{text}': expected BOT=ELO, e.g. greedy=1500"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .with_context(|| format!("--anchor '{text}': '{elo}' is not a number"))?;
    Ok((bot.trim().to_string(), elo))
}

/// `results/<name>-<UTC date-time>`.
pub fn default_out_dir(name: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    PathBuf::from("results").join(format!(
        "{name}-{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    ))
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
    /// Where to write the report [default: DIR/report.html of the first DIR].
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
}

/// The hypotheses of an SPRT.
#[derive(Args, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    #[serde(flatten)]
    pub test: SprtTest,
}

/// How an SPRT judges its bounds: the Elo model and the two error rates (sprt and stats).
#[derive(Args, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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

impl SprtTest {
    /// The SPRT with bounds `elo0` and `elo1`.
    pub fn params(&self, elo0: f64, elo1: f64) -> Result<arbiter::rating::SprtParams> {
        let model = self.model.parse()?;
        Ok(arbiter::rating::SprtParams::new(
            elo0, elo1, self.alpha, self.beta, model,
        )?)
    }
}

impl SprtOpts {
    pub fn params(&self) -> Result<arbiter::rating::SprtParams> {
        self.test.params(self.elo0, self.elo1)
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

#[cfg(test)]
mod tests {
    use super::Pinning;

    #[test]
    fn auto_pins_only_games_that_fit_the_cpus_with_frozen_idle_bots() {
        assert!(Pinning::Auto.pins(2, 2, true, false));
        assert!(
            !Pinning::Auto.pins(3, 2, true, false),
            "more games than CPUs"
        );
        assert!(
            !Pinning::Auto.pins(1, 2, false, false),
            "pondering bots share a CPU"
        );
        assert!(!Pinning::Auto.pins(1, 0, true, false), "affinity unknown");
        assert!(!Pinning::Auto.pins(1, 2, true, true), "the CPUs are busy");
        assert!(Pinning::Always.pins(3, 2, false, true));
        assert!(!Pinning::Never.pins(1, 8, true, false));
    }
}
