//! Plays one game: starts the bots, runs the turn loop with clocks, and turns everything a bot
//! can do wrong into a verdict. Emits a [`GameResult`]; never prints and never writes files.
//! Here: starting a game's bots (now, or held ahead of it) and the result of a game played to
//! its end; `config` what a game is played under, `turns` the turn loop, `clock` and `wait`
//! the seat's clock and its waiting for an answer, `external` games whose rules are another
//! program, `sdk` CodinGame SDK games, `choice` the kinds of game a run can play.

mod ask;
mod assemble;
mod choice;
mod clock;
mod config;
pub mod external;
mod ranks;
mod result;
pub mod sdk;
pub mod seat;
mod turns;
mod verdict;
mod wait;

#[cfg(test)]
mod scripted;

use assemble::{assemble, Ending, Played};
pub use choice::{CheckError, GameChoice, EXTERNAL_MAX_TURNS, EXTERNAL_VARIANT};
pub use clock::{charged, FAIR_WALL_FACTOR};
pub use config::{Clock, RefereeConfig, TimeControl, FREEZE_AFTER, IDLE_CPU_SLACK};
pub use result::{
    Forfeit, GameResult, Reason, SeatStats, TurnRecord, UnknownReason, TURN_STDERR_BYTES,
};
pub use seat::Seat;
use turns::{End, Turns};

use crate::bot::{self, BotProcess, BotSpec, SpawnError};
use crate::game::Game;
use std::time::{Duration, Instant};

/// Plays one game of `choice` (seed `seed`) between `bots`: an external referee's game, or a
/// built-in game from the position `start` makes (its opening plies played), so that every
/// caller plays both kinds with one call.
pub fn play_choice<E: std::fmt::Display>(
    choice: &GameChoice,
    start: impl FnOnce() -> Result<(Box<dyn Game>, Vec<String>), E>,
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, (Vec<String>, String)> {
    if let GameChoice::External { referee, .. } = choice {
        return external::play(referee, bots, cfg, seed).map_err(|e| (Vec::new(), e.to_string()));
    }
    if let GameChoice::Sdk { game, .. } = choice {
        return sdk::driver::play(game, bots, cfg, seed).map_err(|e| (Vec::new(), e.to_string()));
    }
    let (position, moves) = start().map_err(|e| (Vec::new(), e.to_string()))?;
    play(position, &moves, bots, cfg, seed).map_err(|e| (moves, e.to_string()))
}

/// Why a game could not be played at all.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("game '{game}' seats {seats} bots, but {given} were given")]
    SeatCount {
        game: &'static str,
        seats: usize,
        given: usize,
    },
}

/// Plays `game` (already advanced by the `opening` plies) between `bots`, seat `i` played by
/// `bots[i]`. `seed` drives the `random` answer.
pub fn play(
    game: Box<dyn Game>,
    opening: &[String],
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, RefereeError> {
    check_seats(game.as_ref(), bots.len())?;
    let started = Instant::now();
    let mut procs = spawn_bots(bots, cfg, seed, None)?;
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    Ok(play_seats(
        game, opening, &names, &mut procs, cfg, seed, started,
    ))
}

/// A game of `game`'s seats for `given` bots, or why not.
fn check_seats(game: &dyn Game, given: usize) -> Result<(), RefereeError> {
    match game.seats() == given {
        true => Ok(()),
        false => Err(RefereeError::SeatCount {
            game: game.name(),
            seats: game.seats(),
            given,
        }),
    }
}

/// Starts the bots of a game ahead of it, held (see [`BotProcess::spawn_held`]): on another
/// thread while the game before is played, so that the game's thread finds them ready. Each
/// is pinned to `cpu` (if any) when let go. `None` where bots cannot be held.
pub fn start_held(
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
    cpu: Option<usize>,
) -> Option<Result<Vec<BotProcess>, RefereeError>> {
    BotProcess::can_hold(&cfg.limits).then(|| spawn_bots(bots, cfg, seed, Some(cpu)))
}

/// [`play`] with the bots [`start_held`] started (for the same `bots`, `cfg` and `seed`): lets
/// them go together and plays.
pub fn play_held(
    game: Box<dyn Game>,
    opening: &[String],
    bots: &[BotSpec],
    mut procs: Vec<BotProcess>,
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, RefereeError> {
    check_seats(game.as_ref(), bots.len())?;
    check_seats(game.as_ref(), procs.len())?;
    let started = Instant::now();
    for p in procs.iter_mut() {
        p.release();
    }
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    Ok(play_seats(
        game, opening, &names, &mut procs, cfg, seed, started,
    ))
}

/// Starts every bot of a game (all or none: a failure ends those already started). In a
/// sandbox each bot's private files are hidden from the others. Each bot gets the game's seed
/// as `ARBITER_SEED` (a decimal u64), so that a bot that draws at random can play the same game
/// again from the same seed.
fn spawn_bots(
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
    held: Option<Option<usize>>,
) -> Result<Vec<BotProcess>, RefereeError> {
    let mut limits = cfg.limits.clone();
    limits
        .env
        .push(("ARBITER_SEED".to_string(), seed.to_string()));
    let mut procs: Vec<BotProcess> = Vec::with_capacity(bots.len());
    for (seat, spec) in bots.iter().enumerate() {
        let others: Vec<&BotSpec> = bots
            .iter()
            .enumerate()
            .filter(|(s, _)| *s != seat)
            .map(|(_, b)| b)
            .collect();
        let started = match held {
            Some(cpu) => BotProcess::spawn_held(spec, &limits, &others, cpu),
            None => BotProcess::spawn(spec, &limits, &others),
        };
        match started {
            Ok(p) => procs.push(p),
            Err(e) => {
                bot::shutdown_all(&mut procs, cfg.kill_grace);
                return Err(e.into());
            }
        }
    }
    Ok(procs)
}

/// Starts a game's bots ([`spawn_bots`]), then the referee process that holds its rules with
/// `spawn_referee` (given every bot, whose private files a sandbox hides from it); the
/// referee's lines may be up to `max_line` bytes. Where the referee cannot start, the bots
/// are ended.
fn spawn_with_referee(
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
    max_line: usize,
    spawn_referee: impl FnOnce(&[&BotSpec]) -> Result<BotProcess, SpawnError>,
) -> Result<(Vec<BotProcess>, BotProcess), RefereeError> {
    let mut procs = spawn_bots(bots, cfg, seed, None)?;
    let others: Vec<&BotSpec> = bots.iter().collect();
    match spawn_referee(&others) {
        Ok(mut referee) => {
            referee.out = crate::protocol::LineBuffer::with_max_line(max_line);
            Ok((procs, referee))
        }
        Err(e) => {
            bot::shutdown_all(&mut procs, cfg.kill_grace);
            Err(e.into())
        }
    }
}

/// Plays `game` between started `seats` (named `names`) to its end and ends them: the turn
/// loop behind [`play`], for any kind of [`Seat`].
pub fn play_seats<S: Seat>(
    mut game: Box<dyn Game>,
    opening: &[String],
    names: &[String],
    procs: &mut [S],
    cfg: &RefereeConfig,
    seed: u64,
    started: Instant,
) -> GameResult {
    let seats = procs.len();
    // Bots start together, as on CodinGame, and may be frozen from their first answer on: a
    // freeze during start-up can catch a wrapper (a sandbox, an interpreter shim) in the middle
    // of setting up, which then never answers.
    let mut state = Turns::new(seats, seed, opening.len() as u32);
    let end = state.run(game.as_mut(), procs, cfg);
    S::shutdown_all(procs, cfg.kill_grace);

    let end = match end {
        End::Outcome(outcome, reason) => Ending::Ranked(outcome.ranks, reason),
        End::Forfeit(seat, verdict) => Ending::Forfeit(seat, verdict),
    };
    let played = Played {
        game: game.name().to_string(),
        seed,
        bots: names.to_vec(),
        opening: opening.to_vec(),
        turns: state,
        stderr_tails: procs.iter().map(Seat::stderr_tail).collect(),
        stderr_bytes: procs.iter().map(Seat::stderr_bytes).collect(),
        duration: started.elapsed(),
    };
    assemble(&game, end, played)
}

/// A duration for messages: "100 ms", "12.3 ms".
pub fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1000.0;
    if v.fract() == 0.0 {
        format!("{v:.0} ms")
    } else {
        format!("{v:.1} ms")
    }
}
