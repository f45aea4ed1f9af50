//! The options every command that plays games shares: the game, its clocks and the bots'
//! limits as flags, mapped to the library's `GameSettings` (which checks them and builds the
//! game and the referee's configuration); and resolving BOT arguments.

use anyhow::{Context, Result};
use arbiter::bot::{build_box, BotSpec};
use arbiter::engine::{GameSettings, DEFAULT_FIRST_TURN_MS, DEFAULT_TURN_MS};
use arbiter::referee::RefereeConfig;
use clap::Args;

/// The options every command that plays games shares: the game, its clocks and the bots' limits.
#[derive(Args, Debug, Clone, PartialEq)]
pub struct GameOpts {
    /// The game to play (`arbiter games` lists them with their variants and seat counts)
    /// [default: impasse]; not with --referee, whose referee is the game.
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// The game's variant [default: the game's first, see `arbiter games NAME`].
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// Seats per game, for games played by more than two [default: the variant's first seat
    /// count, 2 for every game but those listed otherwise by `arbiter games`].
    #[arg(long, value_name = "N")]
    pub seats: Option<usize>,
    /// Start every game from this position, in the game's one-line text form (each game's
    /// statement describes it) [default: the standard start].
    #[arg(long, value_name = "TEXT")]
    pub position: Option<String>,
    /// Play a game whose rules are another program instead of --game: a CodinGame SDK game's
    /// source folder (its pom.xml and src/main/java, built once and cached), jar or class path
    /// (see docs/sdk-referees.md), a folder with a referee.toml, or a command line speaking the
    /// cg-brutaltester protocol ("java -jar referee.jar"; see docs/external-referees.md)
    /// [default: none]. --seats sets its players (default 2).
    #[arg(long, value_name = "COMMAND")]
    pub referee: Option<String>,
    /// Send the external referee `###Seed N` before `###Start`, N from the table's seed (the
    /// games of a pair play the same map); only for referees that read it (others take it for
    /// an answer).
    #[arg(long)]
    pub referee_seed: bool,
    /// The external referee's own time limit per message (its start-up included), in
    /// milliseconds; a referee that takes longer ends the game as referee-error [default: 5000,
    /// or its referee.toml's message_ms; 15000 for a CodinGame SDK game].
    #[arg(long, value_name = "MS")]
    pub referee_timeout_ms: Option<u64>,
    /// The league of a CodinGame SDK game (--referee naming it), a number from 1 (the first
    /// Wood league's rules) to the game's highest (its full rules, Bronze and up on CodinGame),
    /// as its files list them (`arbiter games --referee GAME` shows them); one past its highest
    /// is refused [default: the game's highest; 1 where its files list no leagues].
    #[arg(long, value_name = "N")]
    pub league: Option<u32>,
    /// A game parameter for a CodinGame SDK game, sent with its start (repeatable); the seed is
    /// one already, taken from the table (the two games of a pair share it), unless given here.
    #[arg(long = "game-param", value_name = "KEY=VALUE")]
    pub game_params: Vec<String>,
    /// Time limit of each bot's first turn (start-up included), in milliseconds.
    #[arg(
        long,
        default_value_t = DEFAULT_FIRST_TURN_MS,
        value_name = "MS",
        allow_negative_numbers = true
    )]
    pub first_turn_ms: u64,
    /// Time limit of every later turn, in milliseconds.
    #[arg(
        long,
        default_value_t = DEFAULT_TURN_MS,
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
    /// What the time limits measure. fair: wall time less the time the bot waited for a CPU
    /// (reads as the wall clock on an idle machine; a turn still ends at 50 times its limit of
    /// wall time); wall: wall time (CodinGame's clock); cpu: the bot's CPU time.
    #[arg(long, value_enum, default_value = "fair")]
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
    /// Most processes and threads a bot may have at once, a count; 0 = no limit [default: 128
    /// where a pids cgroup enforces it (as root), else none]. Going over it loses by
    /// `process-limit` where a pids cgroup enforces it; elsewhere a given N is RLIMIT_NPROC
    /// (which counts all of the user's processes).
    #[arg(long, value_name = "N")]
    pub max_processes: Option<u64>,
    /// Pass an environment variable on to the bots: NAME=VALUE, or NAME for arbiter's own value
    /// (repeatable). Bots otherwise get only PATH=/usr/local/bin:/usr/bin:/bin, HOME=/tmp,
    /// TMPDIR=/tmp, LANG=C.UTF-8 and the ARBITER_* settings (see docs/bots.md).
    #[arg(long, value_name = "NAME[=VALUE]")]
    pub bot_env: Vec<String>,
    /// Run each bot under bubblewrap as an unprivileged user with no capabilities: no network,
    /// only system folders and its own files (read-only), a private /tmp and /dev/shm (needs the
    /// bwrap program; docs/isolation.md says what it protects).
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
    #[command(flatten)]
    pub build: BuildOpts,
}

/// What every build of code gets: the build box's caps (and whether the user's own builds are
/// trusted to run outside it, see `--trust-builds`). Not part of a run's recorded settings: they
/// decide how bots are built, not which games are played.
#[derive(Args, Debug, Clone, PartialEq)]
pub struct BuildOpts {
    /// Memory cap of each build in the build box, in MiB: what all of its processes hold and
    /// what it keeps in its /tmp, together (a memory cgroup, as root). A build that goes over it
    /// fails, and its verdict says so.
    #[arg(long, default_value_t = build_box::DEFAULT_MEMORY_MB, value_name = "MIB")]
    pub build_memory_mb: u64,
    /// Size of a build's /tmp in the build box (kept in memory), in MiB.
    #[arg(long, default_value_t = build_box::DEFAULT_TMP_MB, value_name = "MIB")]
    pub build_tmp_mb: u64,
    /// Most a build may leave in its build folder, which becomes an entry of the build cache, in
    /// MiB. A build that goes over it is stopped, fails, and its verdict says so.
    #[arg(long, default_value_t = build_box::DEFAULT_DISK_MB, value_name = "MIB")]
    pub build_disk_mb: u64,
    /// Run the build commands of bot.toml and referee.toml files in place, as you, with your
    /// rights and toolchain (`cargo`, `javac` under your home...), as for bots you wrote
    /// yourself. By default every build runs in the build box (unprivileged, offline, only the
    /// system's folders), in a copy of the bot's folder in the build cache, and the bot runs
    /// from that copy; the bots bundled in arbiter's own source tree (bots/) are always trusted.
    #[arg(long)]
    pub trust_builds: bool,
    /// A clone (or git bundle) of codingame-game-engine, from which a CodinGame SDK game's source
    /// folder (--referee) is built against the engine version its pom.xml names; needed once per
    /// version [default: $ARBITER_CODINGAME_ENGINE].
    #[arg(long, value_name = "DIR")]
    pub codingame_engine: Option<std::path::PathBuf>,
}

impl BuildOpts {
    /// Gives every build of this run these caps.
    pub fn apply(&self) {
        arbiter::bot::build::set_trust_builds(self.trust_builds);
        arbiter::referee::sdk::build::set_engine(self.codingame_engine.clone());
        build_box::configure(build_box::BuildLimits {
            memory_bytes: self.build_memory_mb << 20,
            tmp_bytes: self.build_tmp_mb << 20,
            folder_bytes: self.build_disk_mb << 20,
            ..build_box::BuildLimits::default()
        });
    }
}

/// The flags as a run records them (the library's plain data, see `arbiter::engine::GameSettings`).
impl From<GameOpts> for GameSettings {
    fn from(g: GameOpts) -> Self {
        GameSettings {
            game: g.game,
            variant: g.variant,
            seats: g.seats,
            position: g.position,
            referee: g.referee,
            referee_seed: g.referee_seed,
            referee_timeout_ms: g.referee_timeout_ms,
            league: g.league,
            game_params: g.game_params,
            first_turn_ms: g.first_turn_ms,
            turn_ms: g.turn_ms,
            grace_ms: g.grace_ms,
            strikes: g.strikes,
            strict: g.strict,
            max_turns: g.max_turns,
            clock: g.clock,
            allow_pondering: g.allow_pondering,
            memory_mb: g.memory_mb,
            max_processes: g.max_processes,
            bot_env: g.bot_env,
            sandbox: g.sandbox,
            kill_grace_ms: g.kill_grace_ms,
        }
    }
}

impl GameOpts {
    /// The flags as the library's settings (which check them and build the game and referee).
    pub fn settings(&self) -> GameSettings {
        self.clone().into()
    }

    /// A note for the start line when the memory limit cannot be enforced in full.
    pub fn memory_note(&self) -> Option<String> {
        self.settings().memory_note()
    }

    /// Refuses the run options an external referee's game cannot honour (see
    /// [`GameSettings::check_run`]).
    pub fn check_run(&self, opening_plies: u32, openings: Option<&str>) -> Result<()> {
        Ok(self.settings().check_run(opening_plies, openings)?)
    }

    /// The validated game (see [`GameSettings::choice`]).
    pub fn choice(&self) -> Result<arbiter::referee::GameChoice> {
        Ok(self.settings().choice()?)
    }

    /// The referee's settings (see [`GameSettings::referee_config`]).
    pub fn referee_config(&self, default_max_turns: u32) -> Result<RefereeConfig> {
        Ok(self.settings().referee_config(default_max_turns)?)
    }
}

/// Resolves and builds every BOT argument; the first failure is the error.
pub fn resolve_bots(args: &[String]) -> Result<Vec<BotSpec>> {
    let mut specs = args
        .iter()
        .map(|a| BotSpec::resolve_named(a).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    for spec in &mut specs {
        let built = spec
            .build()
            .with_context(|| format!("building bot '{}'", spec.name))?;
        // Built in the box: the bot runs from its copy in the build cache.
        if let Some(copy) = built {
            *spec = copy;
        }
    }
    Ok(specs)
}

pub use arbiter::engine::start::fresh_seed;
