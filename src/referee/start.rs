//! Starting a game's bots: all of them or none, now or held ahead of the game, each told the
//! game's seed, each kept from the others' private files; and, for a game whose rules are a
//! process (an external referee, an SDK game), its referee after them.

use super::{RefereeConfig, RefereeError};
use crate::bot::{self, BotProcess, BotSpec, SpawnError};

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

/// Starts every bot of a game (all or none: a failure ends those already started). In a
/// sandbox each bot's private files are hidden from the others. Each bot gets the game's seed
/// as `ARBITER_SEED` (a decimal u64), so that a bot that draws at random can play the same game
/// again from the same seed.
pub(super) fn spawn_bots(
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
pub(super) fn spawn_with_referee(
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
