//! Timing accuracy and the strict limit: bots sleeping known delays, whose measured turn times
//! are set against the delay and against the time the bot reports, and bots answering at 90% and
//! 110% of a strict limit (no 90% game may be lost on time, every 110% game must be).

use super::games::{bot_delay, bot_spec, play_all, same_games, sorted_by_seed, Concurrency};
use super::sizes::{Sizes, DELAYED_TURNS_PER_GAME, LATE_DELAY_MS, NEAR_DELAY_MS, NEAR_LIMIT_MS};
use super::{BenchConfig, BenchError};
use crate::referee::{Reason, RefereeConfig, TimeControl};
use crate::tournament::GameSpec;
use std::time::Duration;

/// Every answer of a bot sleeping a known delay, each bot's first turn left out, in ms.
pub(super) struct DelayErrors {
    pub(super) delay_ms: u64,
    /// Measured time minus the delay.
    pub(super) errors: Vec<f64>,
    /// Measured time minus the time the bot reports it took.
    pub(super) referee: Vec<f64>,
}

/// Games of a bot sleeping each known delay against the instant bot.
pub(super) fn timing_accuracy(
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
                seats: seats.to_vec(),
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
    let (results, ..) = play_all(&cfg.game, &bots, &referee, &games, Concurrency::auto(cores))?;
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
        if !result.reason.is_play() {
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

/// What the strict-limit runs found.
pub(super) struct NearLimit {
    pub(super) games: usize,
    pub(super) turns: usize,
    pub(super) max_ms: f64,
    pub(super) false_timeouts: u64,
    pub(super) late_flagged: u64,
    pub(super) late_total: u64,
}

/// Strict mode (no grace, the first late answer loses), `cores` games at a time: two bots at
/// 90% of the limit play each other, then a bot at 110% plays the instant bot.
pub(super) fn near_limit(
    cfg: &BenchConfig,
    sizes: &Sizes,
    cores: usize,
) -> Result<NearLimit, BenchError> {
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
        &cfg.game,
        &near_bots,
        &strict,
        &same_games(sizes.near_games, 0),
        Concurrency::auto(cores),
    )?;
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
            Reason::Win | Reason::Draw(_) | Reason::TurnLimit => {}
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
            seats: if i % 2 == 0 { vec![1, 0] } else { vec![0, 1] },
        })
        .collect();
    let (results, ..) = play_all(
        &cfg.game,
        &late_bots,
        &strict,
        &late_games,
        Concurrency::auto(cores),
    )?;
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
