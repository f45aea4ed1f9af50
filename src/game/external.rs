//! A game whose rules are a process: an external referee speaking the cg-brutaltester protocol
//! (see `referee::external`). Here it is only a name in the game choice, so that every command
//! that takes `--game` can take `--referee` instead: the choice carries which program to start,
//! and the referee layer plays it. Nothing here starts a process.

use super::registry::{GameInfo, Setup, Variant};
use super::Game;
use crate::bot::BotSpec;
use std::time::Duration;

/// Most seats an external referee can have: the protocol's player ids are one digit.
pub const MAX_SEATS: usize = 10;

/// An external referee as a run plays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct External {
    /// The game's name in records: the referee.toml's `name`, else the program's.
    pub name: String,
    /// The referee's program, arguments, folder and build command.
    pub spec: BotSpec,
    /// Send `###Seed N` before `###Start` (only referees known to read it: others take it as a
    /// player's answer).
    pub seed: bool,
    /// How long the referee may take for each message (its start-up included).
    pub message_limit: Duration,
}

/// The referee's default time per message (a JVM or mono start-up fits in it many times over).
pub const DEFAULT_MESSAGE_LIMIT: Duration = Duration::from_secs(5);

/// The registry entry every external game shares. Not listed by `arbiter games`; its positions
/// come from the referee process, never from [`GameInfo::start`].
pub static INFO: GameInfo = GameInfo {
    name: "external",
    title: "External referee",
    about: "a game whose rules are a referee program speaking the cg-brutaltester protocol",
    variants: &[Variant {
        name: "external",
        about: "the referee decides",
        seats: &[2, 3, 4, 5, 6, 7, 8, 9, 10],
    }],
    // The referee ends its games; this only stops one that never does.
    default_max_turns: 10_000,
    books: &[],
    score_name: "scores",
    statement: "The rules are the external referee's: arbiter forwards its ###Input lines to the \
                bot and the bot's answer lines back to it.",
    new: no_start,
    from_position: no_position,
};

fn no_start(_: &Setup) -> Box<dyn Game> {
    // `GameChoice::start` refuses external games before this could be reached.
    panic!("an external referee's positions live in the referee process, not in arbiter")
}

fn no_position(_: &Setup, _: &str) -> Result<Box<dyn Game>, String> {
    Err("an external referee takes no --position (the referee makes its own start)".into())
}
