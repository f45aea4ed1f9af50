//! Measures what the referee adds to each turn, on this machine, against the cheapest possible
//! exchange between two processes (one short line sent down a pipe and echoed back).
//!
//! Everything runs real processes: the `arbiter-bot-first` instant bot (in its `--echo` and
//! `--delay-ms` modes too) played through [`crate::referee::play`] by the tournament
//! [`Runner`](crate::tournament::Runner). [`run`] returns the figures; it never prints.
//!
//! This file holds the public side (the configuration, the report, the errors) and [`run`],
//! which calls the phases in order: the pipe floor (`floor`), the per-turn cost runs (`games`),
//! timing accuracy and the strict limit (`timing`). `sizes` says how much each phase measures,
//! `measure` holds the clocks, CPU placement and quantiles they share. [`league`] is apart:
//! `arbiter bench league`, the league server's load test.

mod floor;
mod games;
pub mod league;
mod load;
mod measure;
mod sizes;
mod timing;

use crate::referee::{Reason, RefereeConfig, TimeControl};
use crate::tournament::allowed_cpus;
use floor::pipe_floor;
use games::{batch, bot_spec, same_games, Concurrency};
use load::{fair_clock_cost_us, LoadWatch};
use measure::{percentile, process_cpu_us};
use serde::Serialize;
use sizes::{Sizes, NEAR_DELAY_MS, NEAR_LIMIT_MS};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use timing::{near_limit, timing_accuracy};

/// The targets the figures are judged against.
pub mod targets {
    /// Wall time per turn at concurrency 1, as a multiple of the pipe round-trip floor.
    pub const TURN_OVER_FLOOR: f64 = 2.0;
    /// Wall time per turn without the game's start and end (the turn loop), as a multiple of the
    /// pipe round-trip floor.
    pub const TURN_LOOP_OVER_FLOOR: f64 = 3.0;
    /// The referee's own CPU time per turn, in microseconds.
    pub const REFEREE_CPU_US_PER_TURN: f64 = 8.0;
    /// 99th percentile of (measured turn time - the bot's known delay), in milliseconds.
    pub const TIMING_ERROR_MS_P99: f64 = 1.0;
    /// Games lost on time by a bot answering at 90% of the limit.
    pub const FALSE_TIMEOUTS: u64 = 0;
    /// fastchess's wall time per ply at concurrency 1 with instant engines on the development
    /// machine, in microseconds (the figure, not measured by the bench).
    pub const FASTCHESS_US_PER_PLY: f64 = 99.0;
    /// How many times faster than that a turn must be.
    pub const FASTER_THAN_FASTCHESS: f64 = 4.0;
}

/// What to measure with.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// The `arbiter-bot-first` executable.
    pub bot: PathBuf,
    /// Fewer samples: a run of a few seconds instead of about half a minute.
    pub quick: bool,
    /// The concurrency of the parallel runs (the number of cores).
    pub cores: usize,
    /// The game the instant bots play.
    pub game: crate::referee::GameChoice,
}

impl BenchConfig {
    pub fn new(bot: PathBuf, quick: bool, game: crate::referee::GameChoice) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BenchConfig {
            bot,
            quick,
            cores,
            game,
        }
    }
}

/// The timing error for one known delay.
#[derive(Clone, Debug, Serialize)]
pub struct DelayError {
    pub delay_ms: u64,
    /// Turns measured (each bot's first turn, which includes its start-up, left out).
    pub turns: usize,
    pub median_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// Every figure one run measured. Times per turn count every turn of the game, both seats.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub quick: bool,
    pub cores: usize,
    /// Round trip of one short line through a blocking pipe to an echo process: median, µs.
    pub floor_us: f64,
    pub floor_p99_us: f64,
    pub floor_samples: usize,
    /// CPU time of this process per floor round trip (the writing and reading side), µs.
    pub floor_cpu_us: f64,
    /// The floor with both processes pinned to one CPU, and to two different CPUs (0 with a
    /// single CPU): the scheduler's choice between the two is what makes the free floor vary.
    pub floor_same_cpu_us: f64,
    pub floor_cross_cpu_us: f64,
    /// Starting and ending the two bots of a game that plays no turn (wall, median), µs; one
    /// worker plays them all, reusing its bots' cgroups as a tournament's workers do.
    pub game_setup_us: f64,
    /// The referee's CPU time for that start and end, per game, µs.
    pub game_setup_cpu_us: f64,
    /// Turns of each instant-bot game.
    pub turns_per_game: f64,
    /// Whether the default runs pinned each game to a CPU (as `tournament` does by default
    /// when the games fit the CPUs); the `_free` figures let the kernel place everything.
    pub pinned: bool,
    /// Wall time per turn at concurrency 1, as a tournament runs by default: median over games
    /// of duration / turns (the game's start and end included), µs.
    pub turn_us: f64,
    /// The same with `cores` games at a time.
    pub turn_us_parallel: f64,
    /// `turn_us` without the game's start and end and each bot's first turn (its start-up):
    /// (duration - game_setup_us - the seats' slowest turns) / (turns - seats), µs; never
    /// below 0.
    pub turn_loop_us: f64,
    /// False when the game's start and end varied more than the turns took (a busy machine),
    /// so that the turn loop could not be told apart.
    pub turn_loop_measurable: bool,
    /// Concurrency 1 on the wall clock (`--clock wall`), for the fair clock's cost.
    pub turn_us_wall_clock: f64,
    pub referee_cpu_us_per_turn_wall_clock: f64,
    /// The fair clock's own reading of the bot's and the referee's waiting for a CPU, once a
    /// turn as for an instant bot (a quick answer is not read again), measured alone on a live
    /// bot: this thread's CPU time per turn, µs. (Before 2026-11-24 16:00 UTC: two readings.)
    pub fair_clock_cpu_us_per_turn: f64,
    /// CPUs other programs kept busy on average while the bench ran, and the 1-minute load
    /// average at its end: on a busy machine every figure includes waiting for a CPU.
    pub other_cpus: f64,
    pub load_average: f64,
    pub busy: bool,
    pub games_per_s: f64,
    pub games_per_s_parallel: f64,
    pub games: usize,
    pub games_parallel: usize,
    /// The referee process's CPU time (user + system, every thread, children excluded) per turn
    /// at concurrency 1, the games' start and end included, µs.
    pub referee_cpu_us_per_turn: f64,
    pub referee_cpu_us_per_turn_parallel: f64,
    /// The kernel placing every process (`--pin-cpus=never`), concurrency 1 and `cores`.
    pub turn_us_free: f64,
    pub referee_cpu_us_per_turn_free: f64,
    pub turn_us_parallel_free: f64,
    pub games_per_s_free: f64,
    pub games_per_s_parallel_free: f64,
    /// Concurrency 1 with each bot frozen the moment it answers (SIGSTOP, and SIGCONT with its
    /// next input, every turn), instead of 5 ms into the opponent's turn.
    pub turn_us_eager_freeze: f64,
    pub referee_cpu_us_per_turn_eager_freeze: f64,
    /// Concurrency 1 with the idle bot never frozen.
    pub turn_us_no_freeze: f64,
    pub referee_cpu_us_per_turn_no_freeze: f64,
    /// CPU time of the bots (reaped children) per turn at concurrency 1, µs. Coarse: counted in
    /// clock ticks of 10 ms.
    pub bots_cpu_us_per_turn: f64,
    /// Measured turn time minus the bot's known delay, every delay together, ms.
    pub timing_error_ms_median: f64,
    pub timing_error_ms_p99: f64,
    pub timing_error_ms_max: f64,
    pub timing: Vec<DelayError>,
    /// Measured turn time minus the time the bot itself reports between the end of its input and
    /// its answer (the sleep's overshoot taken out: pipes, wake-ups and the referee), ms.
    pub referee_error_ms_median: f64,
    pub referee_error_ms_p99: f64,
    pub referee_error_ms_max: f64,
    /// Bot answering at 90% of a strict limit, `cores` games at a time.
    pub near_limit_ms: u64,
    pub near_delay_ms: u64,
    pub near_turns: usize,
    pub near_games: usize,
    /// The slowest of those answers as the referee measured it, ms.
    pub near_max_ms: f64,
    /// Games the 90% bot lost on time (must be 0).
    pub false_timeouts: u64,
    /// Games of a bot answering at 110% of the limit that ended on its first late turn.
    pub late_flagged: u64,
    pub late_total: u64,
    /// Wall time of the whole run, s.
    pub seconds: f64,
}

/// Why the bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{0} not found: it is built with arbiter (run `cargo build --release`, or `cargo run --release -- bench`)")]
    BotMissing(PathBuf),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("{phase}: a game ended unexpectedly ({reason}): {detail}")]
    Game {
        phase: &'static str,
        reason: Reason,
        detail: String,
    },
    #[error("{0}; the benchmark stops ({advice})", advice = .0.fault.advice())]
    Machine(crate::tournament::Unplayed),
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BenchError {
    let what = what.into();
    move |source| BenchError::Io { what, source }
}

/// Runs every measurement. `progress` is told the name of each phase as it starts.
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> Result<BenchReport, BenchError> {
    if !cfg.bot.is_file() {
        return Err(BenchError::BotMissing(cfg.bot.clone()));
    }
    let started = Instant::now();
    let watch = LoadWatch::start();
    let sizes = Sizes::of(cfg.quick, cfg.cores);
    let cores = cfg.cores.max(1);

    progress("pipe round-trip floor");
    let cpu0 = process_cpu_us();
    let floor = pipe_floor(&cfg.bot, sizes.floor, None)?;
    // The warm-up round trips are a tenth more.
    let floor_cpu_us = (process_cpu_us() - cpu0) / (floor.len() as f64 * 1.1);
    let floor_us = percentile(&floor, 0.5);
    let cpus = allowed_cpus();
    let pinned = |a: Option<&usize>, b: Option<&usize>| -> Result<f64, BenchError> {
        match (a, b) {
            (Some(&a), Some(&b)) => Ok(percentile(
                &pipe_floor(&cfg.bot, sizes.floor / 4, Some((a, b)))?,
                0.5,
            )),
            _ => Ok(0.0),
        }
    };
    let floor_same_cpu_us = pinned(cpus.first(), cpus.first())?;
    let floor_cross_cpu_us = pinned(cpus.first(), cpus.get(1))?;

    let instant = vec![bot_spec(&cfg.bot, None)];
    let generous = RefereeConfig {
        time: TimeControl {
            first_turn: Duration::from_secs(10),
            turn: Duration::from_secs(10),
            ..TimeControl::default()
        },
        ..RefereeConfig::default()
    };

    // Every run but the `_free` ones places the games as a tournament does by default.
    let auto = Concurrency::auto;
    progress("game start and end");
    // Played by one worker, as a tournament's games are: from its second game on, its bots get
    // the cgroups of the bots before them (see `bot::cgroup`'s pool), not new ones.
    let setup_cfg = RefereeConfig {
        max_turns: 0,
        ..generous.clone()
    };
    let setup = batch(
        &cfg.game,
        &instant,
        &setup_cfg,
        &same_games(sizes.setup_games, 0),
        auto(1),
        "game start and end",
    )?;
    let game_setup_us = percentile(&setup.durations_us(), 0.5);
    let game_setup_cpu_us = setup.cpu_us / setup.results.len() as f64;

    let games = |n: usize| same_games(n, 0);
    progress("games at concurrency 1");
    let serial = batch(
        &cfg.game,
        &instant,
        &generous,
        &games(sizes.games),
        auto(1),
        "games",
    )?;
    progress("games at concurrency 1, placed by the kernel");
    let serial_free = batch(
        &cfg.game,
        &instant,
        &generous,
        &games(sizes.games),
        Concurrency::Free(1),
        "games placed by the kernel",
    )?;
    progress("games at concurrency 1, bots frozen at every answer");
    let eager_cfg = RefereeConfig {
        freeze_after: Duration::ZERO,
        ..generous.clone()
    };
    let eager = batch(
        &cfg.game,
        &instant,
        &eager_cfg,
        &games(sizes.games),
        auto(1),
        "games with bots frozen at every answer",
    )?;
    progress("games at concurrency 1, idle bot never frozen");
    let no_freeze_cfg = RefereeConfig {
        freeze_idle: false,
        ..generous.clone()
    };
    let no_freeze = batch(
        &cfg.game,
        &instant,
        &no_freeze_cfg,
        &games(sizes.games),
        auto(1),
        "games without freezing",
    )?;
    progress(&format!("games at concurrency {cores}"));
    let parallel = batch(
        &cfg.game,
        &instant,
        &generous,
        &games(sizes.games_parallel),
        auto(cores),
        "parallel games",
    )?;
    progress(&format!(
        "games at concurrency {cores}, placed by the kernel"
    ));
    let parallel_free = batch(
        &cfg.game,
        &instant,
        &generous,
        &games(sizes.games_parallel),
        Concurrency::Free(cores),
        "parallel games placed by the kernel",
    )?;
    progress("games at concurrency 1 on the wall clock");
    let wall_clock_cfg = RefereeConfig {
        time: TimeControl {
            clock: crate::referee::Clock::Wall,
            ..generous.time.clone()
        },
        ..generous.clone()
    };
    let wall_clock = batch(
        &cfg.game,
        &instant,
        &wall_clock_cfg,
        &games(sizes.games),
        auto(1),
        "games on the wall clock",
    )?;
    progress("the fair clock's reading");
    let fair_clock_cpu_us_per_turn = {
        let spec = bot_spec(&cfg.bot, None);
        let mut bot = crate::bot::BotProcess::spawn(&spec, &Default::default(), &[])
            .map_err(|e| io_err("starting the bench bot")(std::io::Error::other(e)))?;
        let cost = fair_clock_cost_us(&bot, sizes.games * 20);
        bot.shutdown(Duration::from_millis(200));
        cost
    };
    // Each bot's slowest turn is its first, which holds its program's start-up (an instant
    // bot's other turns take microseconds): left out with the game's start and end, whose
    // measure (a game of no turn) ends the bots before they have started up.
    let turn_loop: Vec<f64> = serial
        .results
        .iter()
        .map(|r| {
            let first_turns: u64 = r.stats.iter().map(|s| s.max_us).sum();
            let turns = r.turns.saturating_sub(r.stats.len() as u32).max(1);
            (r.duration.as_secs_f64() * 1e6 - game_setup_us - first_turns as f64) / f64::from(turns)
        })
        .collect();

    progress("timing accuracy (bots with known delays)");
    let timing = timing_accuracy(cfg, &sizes, cores)?;
    let all_errors: Vec<f64> = timing
        .iter()
        .flat_map(|t| t.errors.iter().copied())
        .collect();
    let referee_errors: Vec<f64> = timing
        .iter()
        .flat_map(|t| t.referee.iter().copied())
        .collect();

    progress("answers at 90% and 110% of a strict limit");
    let near = near_limit(cfg, &sizes, cores)?;
    let other = watch.finish();

    Ok(BenchReport {
        quick: cfg.quick,
        cores,
        floor_us,
        floor_p99_us: percentile(&floor, 0.99),
        floor_samples: floor.len(),
        floor_cpu_us,
        floor_same_cpu_us,
        floor_cross_cpu_us,
        game_setup_us,
        game_setup_cpu_us,
        turns_per_game: serial.turns as f64 / serial.results.len() as f64,
        pinned: matches!(auto(1), Concurrency::Pinned(_)),
        turn_us: percentile(&serial.turn_us(), 0.5),
        turn_us_parallel: percentile(&parallel.turn_us(), 0.5),
        turn_loop_us: percentile(&turn_loop, 0.5).max(0.0),
        turn_loop_measurable: percentile(&turn_loop, 0.5) > 0.0,
        games_per_s: serial.games_per_s(),
        games_per_s_parallel: parallel.games_per_s(),
        games: serial.results.len(),
        games_parallel: parallel.results.len(),
        referee_cpu_us_per_turn: serial.cpu_per_turn(),
        referee_cpu_us_per_turn_parallel: parallel.cpu_per_turn(),
        turn_us_free: percentile(&serial_free.turn_us(), 0.5),
        referee_cpu_us_per_turn_free: serial_free.cpu_per_turn(),
        turn_us_parallel_free: percentile(&parallel_free.turn_us(), 0.5),
        games_per_s_free: serial_free.games_per_s(),
        games_per_s_parallel_free: parallel_free.games_per_s(),
        turn_us_eager_freeze: percentile(&eager.turn_us(), 0.5),
        referee_cpu_us_per_turn_eager_freeze: eager.cpu_per_turn(),
        turn_us_no_freeze: percentile(&no_freeze.turn_us(), 0.5),
        referee_cpu_us_per_turn_no_freeze: no_freeze.cpu_per_turn(),
        bots_cpu_us_per_turn: serial.children_cpu_us / serial.turns as f64,
        timing_error_ms_median: percentile(&all_errors, 0.5),
        timing_error_ms_p99: percentile(&all_errors, 0.99),
        timing_error_ms_max: percentile(&all_errors, 1.0),
        timing: timing
            .iter()
            .map(|t| DelayError {
                delay_ms: t.delay_ms,
                turns: t.errors.len(),
                median_ms: percentile(&t.errors, 0.5),
                p99_ms: percentile(&t.errors, 0.99),
                max_ms: percentile(&t.errors, 1.0),
            })
            .collect(),
        referee_error_ms_median: percentile(&referee_errors, 0.5),
        referee_error_ms_p99: percentile(&referee_errors, 0.99),
        referee_error_ms_max: percentile(&referee_errors, 1.0),
        near_limit_ms: NEAR_LIMIT_MS,
        turn_us_wall_clock: percentile(&wall_clock.turn_us(), 0.5),
        referee_cpu_us_per_turn_wall_clock: wall_clock.cpu_per_turn(),
        fair_clock_cpu_us_per_turn,
        other_cpus: other.cpus,
        load_average: other.load_average,
        busy: other.busy(),
        near_delay_ms: NEAR_DELAY_MS,
        near_turns: near.turns,
        near_games: near.games,
        near_max_ms: near.max_ms,
        false_timeouts: near.false_timeouts,
        late_flagged: near.late_flagged,
        late_total: near.late_total,
        seconds: started.elapsed().as_secs_f64(),
    })
}
