//! Measures what the referee adds to each turn, on this machine, against the cheapest possible
//! exchange between two processes (one short line sent down a pipe and echoed back).
//!
//! Everything runs real processes: the `arbiter-bot-first` instant bot (in its `--echo` and
//! `--delay-ms` modes too) played through [`crate::referee::play`] by the tournament
//! [`Runner`]. [`run`] returns the figures; it never prints.

use crate::bot::BotSpec;
use crate::referee::{GameResult, Reason, RefereeConfig, TimeControl};
use crate::tournament::{GameSpec, Runner};
use serde::Serialize;
use std::io::{Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The targets the figures are judged against.
pub mod targets {
    /// Wall time per turn at concurrency 1, as a multiple of the pipe round-trip floor.
    pub const TURN_OVER_FLOOR: f64 = 2.0;
    /// The referee's own CPU time per turn, in microseconds.
    pub const REFEREE_CPU_US_PER_TURN: f64 = 10.0;
    /// 99th percentile of (measured turn time - the bot's known delay), in milliseconds.
    pub const TIMING_ERROR_MS_P99: f64 = 1.0;
    /// Games lost on time by a bot answering at 90% of the limit.
    pub const FALSE_TIMEOUTS: u64 = 0;
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
}

impl BenchConfig {
    pub fn new(bot: PathBuf, quick: bool) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BenchConfig { bot, quick, cores }
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
    /// Starting and ending the two bots of a game that plays no turn (wall, median), µs.
    pub game_setup_us: f64,
    /// The referee's CPU time for that start and end, per game, µs.
    pub game_setup_cpu_us: f64,
    /// Turns of each instant-bot game.
    pub turns_per_game: f64,
    /// Wall time per turn at concurrency 1: median over games of duration / turns, µs.
    pub turn_us: f64,
    /// The same with `cores` games at a time.
    pub turn_us_parallel: f64,
    /// `turn_us` without the game's start and end: (duration - game_setup_us) / turns, µs.
    pub turn_loop_us: f64,
    pub games_per_s: f64,
    pub games_per_s_parallel: f64,
    pub games: usize,
    pub games_parallel: usize,
    /// The referee process's CPU time (user + system, every thread, children excluded) per turn
    /// at concurrency 1, the games' start and end included, µs.
    pub referee_cpu_us_per_turn: f64,
    pub referee_cpu_us_per_turn_parallel: f64,
    /// Concurrency 1 with the idle bot left running (`--allow-pondering`: no SIGSTOP/SIGCONT).
    pub turn_us_no_freeze: f64,
    pub referee_cpu_us_per_turn_no_freeze: f64,
    /// Concurrency 1 with the referee thread and both bots pinned to one CPU (no cross-CPU
    /// wake-ups): what placing each game on its own core would give.
    pub turn_us_pinned: f64,
    pub referee_cpu_us_per_turn_pinned: f64,
    /// `cores` games at a time, each pinned to its own CPU with its bots.
    pub turn_us_parallel_pinned: f64,
    pub games_per_s_parallel_pinned: f64,
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
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BenchError {
    let what = what.into();
    move |source| BenchError::Io { what, source }
}

/// Sample counts of one run.
struct Sizes {
    floor: usize,
    setup_games: usize,
    games: usize,
    games_parallel: usize,
    /// Delayed turns wanted per delay: (delay ms, turns).
    delays: [(u64, usize); 3],
    near_games: usize,
    late_games: usize,
}

impl Sizes {
    fn of(quick: bool, cores: usize) -> Sizes {
        if quick {
            Sizes {
                floor: 3_000,
                setup_games: 10,
                games: 40,
                games_parallel: 40 * cores,
                delays: [(5, 60), (20, 30), (80, 10)],
                near_games: 2 * cores,
                late_games: 4 * cores,
            }
        } else {
            Sizes {
                floor: 20_000,
                setup_games: 30,
                games: 150,
                games_parallel: 150 * cores,
                delays: [(5, 240), (20, 120), (80, 40)],
                near_games: 5 * cores,
                late_games: 15 * cores,
            }
        }
    }
}

/// Delayed answers per game in the timing and limit runs (each bot's first turn comes on top).
const DELAYED_TURNS_PER_GAME: usize = 20;
/// Turn limit of the strict runs, and the delays at 90% and 110% of it.
const NEAR_LIMIT_MS: u64 = 50;
const NEAR_DELAY_MS: u64 = 45;
const LATE_DELAY_MS: u64 = 55;

/// Runs every measurement. `progress` is told the name of each phase as it starts.
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> Result<BenchReport, BenchError> {
    if !cfg.bot.is_file() {
        return Err(BenchError::BotMissing(cfg.bot.clone()));
    }
    let started = Instant::now();
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

    progress("game start and end");
    let setup_cfg = RefereeConfig {
        max_turns: 0,
        ..generous.clone()
    };
    let setup = batch(
        &instant,
        &setup_cfg,
        &same_games(sizes.setup_games, 0),
        Concurrency::Free(1),
        "game start and end",
    )?;
    let game_setup_us = percentile(&setup.durations_us(), 0.5);
    let game_setup_cpu_us = setup.cpu_us / setup.results.len() as f64;

    progress("games at concurrency 1");
    let serial = batch(
        &instant,
        &generous,
        &same_games(sizes.games, 0),
        Concurrency::Free(1),
        "games at concurrency 1",
    )?;
    progress("games at concurrency 1, idle bot not frozen");
    let no_freeze_cfg = RefereeConfig {
        freeze_idle: false,
        ..generous.clone()
    };
    let no_freeze = batch(
        &instant,
        &no_freeze_cfg,
        &same_games(sizes.games, 0),
        Concurrency::Free(1),
        "games without freezing",
    )?;
    progress("games at concurrency 1, referee and bots on one CPU");
    let pinned = batch(
        &instant,
        &generous,
        &same_games(sizes.games, 0),
        Concurrency::Pinned(1),
        "games on one CPU",
    )?;
    progress(&format!("games at concurrency {cores}"));
    let parallel = batch(
        &instant,
        &generous,
        &same_games(sizes.games_parallel, 0),
        Concurrency::Free(cores),
        "parallel games",
    )?;
    progress(&format!("games at concurrency {cores}, one CPU each"));
    let parallel_pinned = batch(
        &instant,
        &generous,
        &same_games(sizes.games_parallel, 0),
        Concurrency::Pinned(cores),
        "parallel games, one CPU each",
    )?;
    let turn_loop: Vec<f64> = serial
        .results
        .iter()
        .map(|r| (r.duration.as_secs_f64() * 1e6 - game_setup_us) / f64::from(r.turns.max(1)))
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
        turn_us: percentile(&serial.turn_us(), 0.5),
        turn_us_parallel: percentile(&parallel.turn_us(), 0.5),
        turn_loop_us: percentile(&turn_loop, 0.5),
        games_per_s: serial.results.len() as f64 / serial.wall.as_secs_f64(),
        games_per_s_parallel: parallel.results.len() as f64 / parallel.wall.as_secs_f64(),
        games: serial.results.len(),
        games_parallel: parallel.results.len(),
        referee_cpu_us_per_turn: serial.cpu_us / serial.turns as f64,
        referee_cpu_us_per_turn_parallel: parallel.cpu_us / parallel.turns as f64,
        turn_us_no_freeze: percentile(&no_freeze.turn_us(), 0.5),
        referee_cpu_us_per_turn_no_freeze: no_freeze.cpu_us / no_freeze.turns as f64,
        turn_us_pinned: percentile(&pinned.turn_us(), 0.5),
        referee_cpu_us_per_turn_pinned: pinned.cpu_us / pinned.turns as f64,
        turn_us_parallel_pinned: percentile(&parallel_pinned.turn_us(), 0.5),
        games_per_s_parallel_pinned: parallel_pinned.results.len() as f64
            / parallel_pinned.wall.as_secs_f64(),
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

/// The bench bot, instant or sleeping `delay_ms` before each answer.
fn bot_spec(program: &Path, delay_ms: Option<u64>) -> BotSpec {
    let args = delay_ms.map_or_else(Vec::new, |d| vec!["--delay-ms".to_string(), d.to_string()]);
    let name = delay_ms.map_or_else(|| "first".to_string(), |d| format!("first-{d}ms"));
    BotSpec {
        origin: name.clone(),
        name,
        program: program.to_path_buf(),
        args,
        dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        build: None,
    }
}

/// `n` games with bot number `bot` in both seats, each with its own seed.
fn same_games(n: usize, bot: usize) -> Vec<GameSpec> {
    (0..n as u64)
        .map(|i| GameSpec {
            game_id: i,
            pair_id: i / 2,
            seed: i + 1,
            seats: [bot, bot],
        })
        .collect()
}

/// The `p` quantile (0..=1, nearest rank) of `values`; 0 when there are none.
fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The CPUs this thread may run on.
fn allowed_cpus() -> Vec<usize> {
    use rustix::thread::{sched_getaffinity, CpuSet};
    sched_getaffinity(None).map_or_else(
        |_| Vec::new(),
        |set| (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
    )
}

fn pin(pid: Option<rustix::process::Pid>, cpu: usize) -> std::io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(pid, &set).map_err(std::io::Error::from)
}

/// Round trips of one short line to an echo process over blocking pipes, in µs. `pin` puts
/// this thread on the first CPU and the echo process on the second for the measurement.
fn pipe_floor(
    bot: &Path,
    samples: usize,
    pinned: Option<(usize, usize)>,
) -> Result<Vec<f64>, BenchError> {
    let mut child = Command::new(bot)
        .arg("--echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(io_err(format!("starting {} --echo", bot.display())))?;
    let mut restore = None;
    if let Some((mine, its)) = pinned {
        restore = rustix::thread::sched_getaffinity(None).ok();
        pin(Some(rustix::process::Pid::from_child(&child)), its)
            .and_then(|()| pin(None, mine))
            .map_err(io_err("pinning the floor processes to CPUs"))?;
    }
    let times = echo_round_trips(&mut child, samples);
    if let Some(set) = restore {
        let _ = rustix::thread::sched_setaffinity(None, &set);
    }
    let _ = child.kill();
    let _ = child.wait();
    times
}

fn echo_round_trips(
    child: &mut std::process::Child,
    samples: usize,
) -> Result<Vec<f64>, BenchError> {
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let line = b"ping 1234\n";
    let mut buf = [0u8; 64];
    let mut round_trip = || -> std::io::Result<Duration> {
        let t = Instant::now();
        stdin.write_all(line)?;
        let mut got = 0;
        while got < line.len() {
            match stdout.read(&mut buf[got..])? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => got += n,
            }
        }
        Ok(t.elapsed())
    };
    let warm_up = samples / 10;
    let mut times = Vec::with_capacity(samples);
    for i in 0..warm_up + samples {
        let took = round_trip().map_err(io_err("echo round trip"))?;
        if i >= warm_up {
            times.push(took.as_secs_f64() * 1e6);
        }
    }
    Ok(times)
}

/// CPU time of this process (every thread, user + system), µs.
fn process_cpu_us() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
}

/// CPU time (user + system) of this process's reaped children, µs, from /proc/self/stat (clock
/// ticks, 100 a second on Linux). 0 when it cannot be read.
fn children_cpu_us() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) start at field 3, the state.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    ticks as f64 * 1e4
}

/// The outcome of one batch of games.
struct Batch {
    results: Vec<GameResult>,
    wall: Duration,
    turns: u64,
    cpu_us: f64,
    children_cpu_us: f64,
}

impl Batch {
    fn durations_us(&self) -> Vec<f64> {
        self.results
            .iter()
            .map(|r| r.duration.as_secs_f64() * 1e6)
            .collect()
    }

    fn turn_us(&self) -> Vec<f64> {
        self.results
            .iter()
            .map(|r| r.duration.as_secs_f64() * 1e6 / f64::from(r.turns.max(1)))
            .collect()
    }
}

/// Plays `games` with `concurrency` workers and measures the wall and CPU time they took.
/// Any game that ends other than by the rules or the turn limit fails the bench.
fn batch(
    bots: &[BotSpec],
    referee: &RefereeConfig,
    games: &[GameSpec],
    concurrency: Concurrency,
    phase: &'static str,
) -> Result<Batch, BenchError> {
    let (results, wall, cpu_us, children_cpu_us) = play_all(bots, referee, games, concurrency);
    if let Some(bad) = results
        .iter()
        .find(|r| !matches!(r.reason, Reason::Win | Reason::TurnLimit))
    {
        return Err(BenchError::Game {
            phase,
            reason: bad.reason,
            detail: bad.detail.clone(),
        });
    }
    let turns = results.iter().map(|r| u64::from(r.turns)).sum();
    Ok(Batch {
        results,
        wall,
        turns,
        cpu_us,
        children_cpu_us,
    })
}

/// How many games at a time, and where they run.
#[derive(Clone, Copy)]
enum Concurrency {
    /// The tournament runner's workers, placed by the scheduler.
    Free(usize),
    /// One thread per CPU, pinned there with its bots (which inherit the thread's CPU).
    Pinned(usize),
}

/// Plays `games` on `n` threads, thread `w` pinned to the `w`-th allowed CPU with the bots it
/// starts, each game by the runner's own [`Runner::play_one`].
fn play_pinned(runner: &Runner<'_>, games: &[GameSpec], n: usize) -> Vec<GameResult> {
    let cpus = allowed_cpus();
    let n = n.clamp(1, cpus.len().max(1));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..n)
            .map(|w| {
                let cpu = cpus.get(w).copied();
                scope.spawn(move || {
                    if let Some(cpu) = cpu {
                        let _ = pin(None, cpu);
                    }
                    games
                        .iter()
                        .skip(w)
                        .step_by(n)
                        .map(|g| runner.play_one(g))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a bench worker panicked"))
            .collect()
    })
}

/// Plays `games` on the tournament runner; returns the results, the wall time, and the CPU time
/// of this process and of its children, in µs.
fn play_all(
    bots: &[BotSpec],
    referee: &RefereeConfig,
    games: &[GameSpec],
    concurrency: Concurrency,
) -> (Vec<GameResult>, Duration, f64, f64) {
    let runner = Runner {
        bots,
        game: "impasse",
        opening_plies: 0,
        referee,
        concurrency: match concurrency {
            Concurrency::Free(n) => n,
            Concurrency::Pinned(n) => n,
        },
    };
    let mut results = Vec::with_capacity(games.len());
    let (cpu0, children0, t0) = (process_cpu_us(), children_cpu_us(), Instant::now());
    match concurrency {
        Concurrency::Free(_) => runner.run(games, |finished| {
            results.push(finished.result);
            ControlFlow::Continue(())
        }),
        Concurrency::Pinned(n) => results = play_pinned(&runner, games, n),
    }
    let wall = t0.elapsed();
    let cpu = process_cpu_us() - cpu0;
    let children = children_cpu_us() - children0;
    results.sort_by_key(|r| r.seed);
    (results, wall, cpu, children)
}

/// Every answer of a bot sleeping a known delay, each bot's first turn left out, in ms.
struct DelayErrors {
    delay_ms: u64,
    /// Measured time minus the delay.
    errors: Vec<f64>,
    /// Measured time minus the time the bot reports it took.
    referee: Vec<f64>,
}

/// Games of a bot sleeping each known delay against the instant bot.
fn timing_accuracy(
    cfg: &BenchConfig,
    sizes: &Sizes,
    cores: usize,
) -> Result<Vec<DelayErrors>, BenchError> {
    let mut bots = vec![bot_spec(&cfg.bot, None)];
    let mut games = Vec::new();
    // The slowest delays first, so that the workers finish together.
    for &(delay_ms, turns) in sizes.delays.iter().rev() {
        bots.push(bot_spec(&cfg.bot, Some(delay_ms)));
        let delayed = bots.len() - 1;
        for g in 0..turns.div_ceil(DELAYED_TURNS_PER_GAME) {
            let id = games.len() as u64;
            // The delayed bot plays white and black in turn.
            let seats = if g % 2 == 0 {
                [delayed, 0]
            } else {
                [0, delayed]
            };
            games.push(GameSpec {
                game_id: id,
                pair_id: id,
                seed: id + 1,
                seats,
            });
        }
    }
    let referee = RefereeConfig {
        time: TimeControl {
            first_turn: Duration::from_secs(10),
            turn: Duration::from_secs(10),
            ..TimeControl::default()
        },
        max_turns: 2 * (DELAYED_TURNS_PER_GAME as u32 + 1),
        record_turns: true,
        ..RefereeConfig::default()
    };
    let (results, ..) = play_all(&bots, &referee, &games, Concurrency::Free(cores));
    let mut errors: Vec<DelayErrors> = sizes
        .delays
        .iter()
        .map(|&(delay_ms, _)| DelayErrors {
            delay_ms,
            errors: Vec::new(),
            referee: Vec::new(),
        })
        .collect();
    for (result, spec) in results.iter().zip(sorted_by_seed(&games)) {
        if !matches!(result.reason, Reason::Win | Reason::TurnLimit) {
            return Err(BenchError::Game {
                phase: "timing accuracy",
                reason: result.reason,
                detail: result.detail.clone(),
            });
        }
        let seat = usize::from(spec.seats[0] == 0);
        let delay_ms = bot_delay(&bots[spec.seats[seat]]);
        let out = errors
            .iter_mut()
            .find(|e| e.delay_ms == delay_ms)
            .expect("a known delay");
        let mut first = true;
        for turn in result.log.iter().filter(|t| t.seat == seat) {
            if std::mem::replace(&mut first, false) {
                continue;
            }
            let measured = turn.time_us as f64 / 1000.0;
            out.errors.push(measured - delay_ms as f64);
            let slept = turn
                .comment
                .strip_prefix("slept_us=")
                .and_then(|us| us.parse::<f64>().ok());
            if let Some(slept_us) = slept {
                out.referee.push(measured - slept_us / 1000.0);
            }
        }
    }
    Ok(errors)
}

/// `games` in the order [`play_all`] returns their results (by seed).
fn sorted_by_seed(games: &[GameSpec]) -> Vec<&GameSpec> {
    let mut sorted: Vec<&GameSpec> = games.iter().collect();
    sorted.sort_by_key(|g| g.seed);
    sorted
}

/// The delay a bench bot was started with, in ms.
fn bot_delay(bot: &BotSpec) -> u64 {
    bot.args.get(1).and_then(|d| d.parse().ok()).unwrap_or(0)
}

/// What the strict-limit runs found.
struct NearLimit {
    games: usize,
    turns: usize,
    max_ms: f64,
    false_timeouts: u64,
    late_flagged: u64,
    late_total: u64,
}

/// Strict mode (no grace, the first late answer loses), `cores` games at a time: two bots at
/// 90% of the limit play each other, then a bot at 110% plays the instant bot.
fn near_limit(cfg: &BenchConfig, sizes: &Sizes, cores: usize) -> Result<NearLimit, BenchError> {
    let strict = RefereeConfig {
        time: TimeControl {
            first_turn: Duration::from_secs(1),
            turn: Duration::from_millis(NEAR_LIMIT_MS),
            grace: Duration::ZERO,
            strikes: 1,
            clock: Default::default(),
        },
        max_turns: 2 * (DELAYED_TURNS_PER_GAME as u32 + 1),
        record_turns: true,
        ..RefereeConfig::default()
    };
    let near_bots = [bot_spec(&cfg.bot, Some(NEAR_DELAY_MS))];
    let (results, ..) = play_all(
        &near_bots,
        &strict,
        &same_games(sizes.near_games, 0),
        Concurrency::Free(cores),
    );
    let mut out = NearLimit {
        games: results.len(),
        turns: 0,
        max_ms: 0.0,
        false_timeouts: 0,
        late_flagged: 0,
        late_total: 0,
    };
    for result in &results {
        match result.reason {
            Reason::Timeout => out.false_timeouts += 1,
            Reason::Win | Reason::TurnLimit => {}
            other => {
                return Err(BenchError::Game {
                    phase: "answers at 90% of the limit",
                    reason: other,
                    detail: result.detail.clone(),
                })
            }
        }
        // Each seat's first turn has its own, longer limit.
        let later = result.log.iter().filter(|t| t.turn > 2);
        for turn in later {
            out.turns += 1;
            out.max_ms = out.max_ms.max(turn.time_us as f64 / 1000.0);
        }
    }

    let late_bots = [
        bot_spec(&cfg.bot, None),
        bot_spec(&cfg.bot, Some(LATE_DELAY_MS)),
    ];
    let late_games: Vec<GameSpec> = (0..sizes.late_games as u64)
        .map(|i| GameSpec {
            game_id: i,
            pair_id: i,
            seed: i + 1,
            seats: if i % 2 == 0 { [1, 0] } else { [0, 1] },
        })
        .collect();
    let (results, ..) = play_all(&late_bots, &strict, &late_games, Concurrency::Free(cores));
    for (result, spec) in results.iter().zip(sorted_by_seed(&late_games)) {
        let seat = usize::from(spec.seats[0] == 0);
        out.late_total += 1;
        // Flagged on its second turn, the first one under the 50 ms limit: turn 3 for white, 4
        // for black, so the game ends with 2 or 3 turns played.
        let flagged = result.reason == Reason::Timeout
            && result.offender == Some(seat)
            && result.turns == 2 + seat as u32;
        out.late_flagged += u64::from(flagged);
    }
    Ok(out)
}
