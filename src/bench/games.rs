//! Playing games for the bench: batches of instant-bot games on the tournament [`Runner`] (free or
//! pinned to CPUs) with the wall and CPU time they took, for the per-turn cost runs, and the bots
//! and game lists they are played with. The timing runs play their games through [`play_all`] too.

use super::measure::{children_cpu_us, process_cpu_us};
use super::BenchError;
use crate::bot::BotSpec;
use crate::referee::GameChoice;
use crate::referee::{GameResult, RefereeConfig};
use crate::tournament::allowed_cpus;
use crate::tournament::{GameSpec, Runner};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The outcome of one batch of games.
pub(super) struct Batch {
    pub(super) results: Vec<GameResult>,
    pub(super) wall: Duration,
    pub(super) turns: u64,
    pub(super) cpu_us: f64,
    pub(super) children_cpu_us: f64,
}

impl Batch {
    pub(super) fn durations_us(&self) -> Vec<f64> {
        self.results
            .iter()
            .map(|r| r.duration.as_secs_f64() * 1e6)
            .collect()
    }

    pub(super) fn games_per_s(&self) -> f64 {
        self.results.len() as f64 / self.wall.as_secs_f64()
    }

    /// The referee's CPU time per turn, µs.
    pub(super) fn cpu_per_turn(&self) -> f64 {
        self.cpu_us / self.turns.max(1) as f64
    }

    pub(super) fn turn_us(&self) -> Vec<f64> {
        self.results
            .iter()
            .map(|r| r.duration.as_secs_f64() * 1e6 / f64::from(r.turns.max(1)))
            .collect()
    }
}

/// Plays `games` with `concurrency` workers and measures the wall and CPU time they took.
/// Any game that ends other than by the rules or the turn limit fails the bench.
pub(super) fn batch(
    game: &GameChoice,
    bots: &[BotSpec],
    referee: &RefereeConfig,
    games: &[GameSpec],
    concurrency: Concurrency,
    phase: &'static str,
) -> Result<Batch, BenchError> {
    let (results, wall, cpu_us, children_cpu_us) =
        play_all(game, bots, referee, games, concurrency)?;
    if let Some(bad) = results.iter().find(|r| !r.reason.is_play()) {
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
pub(super) enum Concurrency {
    /// The tournament runner's workers, placed by the scheduler.
    Free(usize),
    /// One thread per CPU, pinned there with its bots (which inherit the thread's CPU).
    Pinned(usize),
}

impl Concurrency {
    /// `n` games placed as a tournament places them by default: pinned when they fit the CPUs.
    pub(super) fn auto(n: usize) -> Concurrency {
        if n <= allowed_cpus().len() {
            Concurrency::Pinned(n)
        } else {
            Concurrency::Free(n)
        }
    }
}

/// Plays `games` on the tournament runner; returns the results, the wall time, and the CPU time
/// of this process and of its children, in µs.
pub(super) fn play_all(
    game: &GameChoice,
    bots: &[BotSpec],
    referee: &RefereeConfig,
    games: &[GameSpec],
    concurrency: Concurrency,
) -> Result<(Vec<GameResult>, Duration, f64, f64), BenchError> {
    let runner = Runner {
        bots,
        game,
        opening_plies: 0,
        book: None,
        referee,
        concurrency: match concurrency {
            Concurrency::Free(n) => n,
            Concurrency::Pinned(n) => n.clamp(1, allowed_cpus().len().max(1)),
        },
        pin_cpus: matches!(concurrency, Concurrency::Pinned(_)),
    };
    let mut results = Vec::with_capacity(games.len());
    let (cpu0, children0, t0) = (process_cpu_us(), children_cpu_us(), Instant::now());
    let mut unplayed = None;
    runner.run(games, |ended| match ended {
        Ok(finished) => {
            results.push(finished.result);
            ControlFlow::Continue(())
        }
        Err(u) => {
            unplayed.get_or_insert(u);
            ControlFlow::Break(())
        }
    });
    if let Some(u) = unplayed {
        return Err(BenchError::Machine(u));
    }
    let wall = t0.elapsed();
    let cpu = process_cpu_us() - cpu0;
    let children = children_cpu_us() - children0;
    results.sort_by_key(|r| r.seed);
    Ok((results, wall, cpu, children))
}

/// The bench bot, instant or sleeping `delay_ms` before each answer.
pub(super) fn bot_spec(program: &Path, delay_ms: Option<u64>) -> BotSpec {
    let args = delay_ms.map_or_else(Vec::new, |d| vec!["--delay-ms".to_string(), d.to_string()]);
    let name = delay_ms.map_or_else(|| "first".to_string(), |d| format!("first-{d}ms"));
    BotSpec::command(
        &name,
        program,
        args,
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    )
}

/// `n` games with bot number `bot` in both seats, each with its own seed.
pub(super) fn same_games(n: usize, bot: usize) -> Vec<GameSpec> {
    (0..n as u64)
        .map(|i| GameSpec {
            game_id: i,
            pair_id: i / 2,
            seed: i + 1,
            seats: vec![bot, bot],
        })
        .collect()
}

/// `games` in the order [`play_all`] returns their results (by seed).
pub(super) fn sorted_by_seed(games: &[GameSpec]) -> Vec<&GameSpec> {
    let mut sorted: Vec<&GameSpec> = games.iter().collect();
    sorted.sort_by_key(|g| g.seed);
    sorted
}

/// The delay a bench bot was started with, in ms.
pub(super) fn bot_delay(bot: &BotSpec) -> u64 {
    bot.args.get(1).and_then(|d| d.parse().ok()).unwrap_or(0)
}
