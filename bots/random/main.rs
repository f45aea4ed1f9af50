//! A bot for any game that answers a uniformly random offered move: the baseline every other bot
//! should beat. Seeded from its first argument, else from the game's seed arbiter passes (mixed
//! with its seat: games are reproducible with arbiter's `--seed`), else from the clock.

use arbiter::botkit::{self, Seed};
use arbiter::rng::Rng;
use std::process::ExitCode;

/// This bot's salt for the game's seed.
const SALT: u64 = 0x7261_6e64_6f6d;

fn main() -> ExitCode {
    let seed = Seed::find();
    let mut rng: Option<Rng> = None;
    botkit::play("arbiter-bot-random", |turn| {
        let rng = rng.get_or_insert_with(|| seed.rng(SALT, turn.seat));
        turn.moves[rng.below(turn.moves.len())].clone()
    })
}
