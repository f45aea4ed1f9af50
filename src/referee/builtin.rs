//! The built-in games' referee: a game of `game/`'s rules played between started seats to its
//! end ([`play_seats`], the turn loop of `turns.rs` behind it), with the bots started now
//! ([`play`]) or ahead of the game ([`play_held`]). External referees and SDK games have their
//! own loops (`external/`, `sdk/`); all of them end in [`assemble`].

use super::assemble::{assemble, GameEnd, GameRun};
use super::start::spawn_bots;
use super::turns::{LoopEnd, Turns};
use super::{GameResult, RefereeConfig, RefereeError, Seat};
use crate::bot::{BotProcess, BotSpec};
use crate::game::Game;
use std::time::Instant;

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
        LoopEnd::Outcome(outcome, reason) => GameEnd::Ranked(outcome.ranks, reason),
        LoopEnd::Forfeit(seat, verdict) => GameEnd::Forfeit(seat, verdict),
    };
    let played = GameRun {
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
