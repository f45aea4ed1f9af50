//! A Monte Carlo tree search bot for any game and any number of seats: the strong generic
//! baseline. It thinks for a fixed share of its turn limit (40%), measured from the moment its
//! input was read, and reads the clock inside playouts too, so that the rest of the limit is
//! left for the pipes and the machine.
//!
//! The limits come from the environment, as the referee sets them: `ARBITER_TURN_MS` and
//! `ARBITER_FIRST_TURN_MS` (milliseconds; the defaults are arbiter's own, 100 and 1000). The first
//! argument, if any, seeds the search, else the game's seed arbiter passes in `ARBITER_SEED`
//! (mixed with the seat), else the clock (a search stopped by the clock is not reproducible
//! anyway; the seed makes its tie-breaks so). Each answer carries a comment:
//! `playouts=N visits=N value=V ms=T`, the search's figures and the bot's own time.

use arbiter::botkit::mcts::{Config, Search, Stop};
use arbiter::botkit::{self, Seed, Turn};
use std::process::ExitCode;
use std::time::Duration;

/// This bot's salt for the game's seed.
const SALT: u64 = 0x6d63_7473;

/// Share of a later turn's limit spent searching.
const TURN_SHARE: f64 = 0.4;
/// Share of the first turn's limit (which also pays for starting the process).
const FIRST_TURN_SHARE: f64 = 0.4;

/// A limit in milliseconds from the environment variable `name`, else `default_ms`.
fn limit(name: &str, default_ms: u64) -> Duration {
    let ms = match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("arbiter-bot-mcts: {name}={v:?} is not milliseconds; using {default_ms}");
            default_ms
        }),
        Err(_) => default_ms,
    };
    Duration::from_millis(ms)
}

fn main() -> ExitCode {
    let seed = Seed::find();
    let turn_budget = limit("ARBITER_TURN_MS", 100).mul_f64(TURN_SHARE);
    let first_budget = limit("ARBITER_FIRST_TURN_MS", 1000).mul_f64(FIRST_TURN_SHARE);
    let mut search: Option<Search> = None;
    botkit::play("arbiter-bot-mcts", |turn: &Turn| {
        let search = search
            .get_or_insert_with(|| Search::new(Config::default(), seed.value(SALT, turn.seat)));
        let budget = if turn.first {
            first_budget
        } else {
            turn_budget
        };
        let game = turn.game.as_ref();
        let turns_left = game
            .info()
            .default_max_turns
            .saturating_sub(turn.turns_played)
            .max(1);
        let choice = search.choose(game, turns_left, Stop::At(turn.read_at + budget));
        let Some(text) = turn.offered(choice.index) else {
            eprintln!(
                "arbiter-bot-mcts: the library's move {:?} is not offered; playing the first",
                game.legal_moves().get(choice.index)
            );
            return turn.moves[0].clone();
        };
        // The comment: the search's figures and the bot's own time from its input to its
        // answer, which tells a slow machine (a referee's time far above it) from a slow bot.
        format!(
            "{text} playouts={} visits={} value={:.2} ms={:.1}",
            choice.playouts,
            choice.visits,
            choice.value,
            turn.read_at.elapsed().as_secs_f64() * 1e3
        )
    })
}
