//! Plays one game: starts the bots, runs the turn loop with clocks, and turns everything a bot
//! can do wrong into a verdict. Emits a [`GameResult`]; never prints, and writes no file of a
//! run (records and replays are `results/`'s). One exception, on purpose: `sdk::build` builds
//! an SDK game into the build cache, as `bot/` builds bots (through the same build box). It
//! stays here because what it makes is an [`sdk::SdkGame`] with its launcher, a referee's
//! type: under `bot/` it would import `referee/`, an arrow back up the modules' order.
//! This file is the facade: [`play_choice`] plays a game of any kind, and why one could not be
//! played is a [`NotPlayed`]. The parts: `start` starts a game's bots (now, or held ahead of
//! it), `builtin` plays a built-in game to its end with the turn loop of `turns`, `clock` and
//! `wait` are the seat's clock and its waiting for an answer, `external` games whose rules are
//! another program, `sdk` CodinGame SDK games, `assemble` the result of a game played to its
//! end (every kind's), `choice` the kinds of game a run can play.

mod ask;
mod assemble;
mod builtin;
mod choice;
mod clock;
mod config;
pub mod external;
mod ranks;
mod result;
pub mod sdk;
pub mod seat;
mod start;
mod turns;
mod verdict;
mod wait;

#[cfg(test)]
mod scripted;

pub use builtin::{play, play_held, play_seats};
pub use choice::{CheckError, GameChoice, EXTERNAL_MAX_TURNS, EXTERNAL_VARIANT};
pub use clock::{charged, FAIR_WALL_FACTOR};
pub use config::{Clock, RefereeConfig, TimeControl, FREEZE_AFTER, IDLE_CPU_SLACK};
pub use result::{
    Forfeit, GameResult, Reason, SeatStats, TurnRecord, UnknownReason, TURN_STDERR_BYTES,
};
pub use seat::Seat;
use start::spawn_with_referee;
pub use start::start_held;

use crate::bot::{self, BotSpec, SpawnError};
use crate::game::Game;
use std::time::Duration;

/// A game that could not be played: the opening plies played before it failed, and why.
#[derive(Debug)]
pub struct NotPlayed {
    pub opening: Vec<String>,
    pub why: NotPlayedError,
}

/// Why a game could not be played.
#[derive(Debug, thiserror::Error)]
pub enum NotPlayedError {
    /// Its start position could not be made (an opening, a position), in the start's words.
    #[error(transparent)]
    Start(Box<dyn std::error::Error + Send + Sync>),
    /// Its bots or its referee could not start, or the seats do not fit (boxed: it is large,
    /// and a game's result travels by value).
    #[error(transparent)]
    Referee(Box<RefereeError>),
    /// The referee's code panicked (arbiter's bug), with the panic's message where it had one.
    #[error("the referee panicked{}", .0.as_ref().map(|m| format!(": {m}")).unwrap_or_default())]
    Panicked(Option<String>),
}

impl NotPlayed {
    /// A start that failed with `e` after the plies `opening`.
    pub fn start(
        opening: Vec<String>,
        e: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> NotPlayed {
        NotPlayed {
            opening,
            why: NotPlayedError::Start(e.into()),
        }
    }

    /// `e` after the plies `opening`.
    pub fn of(opening: Vec<String>, e: RefereeError) -> NotPlayed {
        NotPlayed {
            opening,
            why: NotPlayedError::Referee(Box::new(e)),
        }
    }

    /// What failed, in words.
    pub fn detail(&self) -> String {
        self.why.to_string()
    }

    /// The machine's failure that kept the game from being played (no descriptor, memory or
    /// process left to start a process: no bot's fault, see [`bot::MachineFault`]), if it was.
    pub fn machine(&self) -> Option<bot::MachineFault> {
        match &self.why {
            NotPlayedError::Referee(e) => e.machine(),
            NotPlayedError::Start(_) | NotPlayedError::Panicked(_) => None,
        }
    }
}

/// Plays one game of `choice` (seed `seed`) between `bots`, whatever its kind: an external
/// referee's game, an SDK game, or a built-in game from the position `start` makes (its
/// opening plies played), so that every caller plays every kind with one call.
pub fn play_choice<E: std::error::Error + Send + Sync + 'static>(
    choice: &GameChoice,
    start: impl FnOnce() -> Result<(Box<dyn Game>, Vec<String>), E>,
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, NotPlayed> {
    match choice {
        GameChoice::External { referee, .. } => {
            external::play(referee, bots, cfg, seed).map_err(|e| NotPlayed::of(Vec::new(), e))
        }
        GameChoice::Sdk { game, .. } => {
            sdk::driver::play(game, bots, cfg, seed).map_err(|e| NotPlayed::of(Vec::new(), e))
        }
        GameChoice::Rules(_) => {
            let (position, moves) = start().map_err(|e| NotPlayed::start(Vec::new(), e))?;
            play(position, &moves, bots, cfg, seed).map_err(|e| NotPlayed::of(moves, e))
        }
    }
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

impl RefereeError {
    /// The machine's failure that kept the game from starting, if it was one.
    pub fn machine(&self) -> Option<bot::MachineFault> {
        match self {
            RefereeError::Spawn(e) => e.machine,
            RefereeError::SeatCount { .. } => None,
        }
    }
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
