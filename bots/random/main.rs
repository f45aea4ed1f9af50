//! A bot for any game that answers a uniformly random offered move: the baseline every other bot
//! should beat. Seeded from its first argument for reproducible games, else from the clock.

use arbiter::botkit;
use arbiter::rng::Rng;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() -> ExitCode {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            now.as_nanos() as u64 ^ u64::from(std::process::id())
        });
    let mut rng = Rng::new(seed);
    botkit::play("arbiter-bot-random", |turn| {
        turn.moves[rng.below(turn.moves.len())].clone()
    })
}
