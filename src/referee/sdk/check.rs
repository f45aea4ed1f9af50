//! The start-up check of an SDK game's referee, before any game is scheduled (as an external
//! referee is checked): a referee that cannot start (a class path without the engine, a jar
//! that is not the game's), whose game throws in its `init`, or that was built against another
//! engine would otherwise end every game of a run as `referee-error`. The check plays the
//! start of one game without bots: `[[INIT]]`, `[[GET_GAME_INFO]]`, the first frame. That
//! frame also tells the game's own time limits (arbiter's launcher reads them from the game's
//! `GameManager` once its `init` has set them): the limits the bots are told and the records
//! keep, as each turn enforces them.

use super::protocol::GameLimits;
use super::SdkGame;
use crate::referee::RefereeConfig;

/// Most bytes of the referee's stderr a failed check quotes.
const QUOTE: usize = 1200;

/// Why an SDK game's referee cannot play.
#[derive(Debug, thiserror::Error)]
#[error(
    "the SDK referee of '{name}' cannot play: {what}{stderr}\n  \
     the games were not started. Check what {} {origin} names: the game's classes (its \
     jar or classes folder) and the engine's core with its jars (guice, guava, gson, \
     commons-logging), built against the engine version the game's pom.xml names \
     (<gamengine.version>); to see it fail by hand, run `{command}` in {dir} and type \
     `[[INIT] 1]`, `{seats}` and `[[GET_GAME_INFO] 0]`, one a line",
    crate::options::Opt::Referee
)]
pub struct SdkCheckError {
    pub name: String,
    pub origin: String,
    pub command: String,
    pub dir: String,
    pub seats: usize,
    /// What it did, as a game's `referee-error` detail says it.
    pub what: String,
    /// "; its stderr ends: ..." or nothing.
    pub stderr: String,
}

/// Starts `game`'s referee (by its launcher, warm or fresh) for a game of `seats` players and
/// reads its first frame within its time per message; no bot is started. Returns the game's own
/// limits where the referee told them (a time bank's turns are limited by what is left of it:
/// both limits are the bank). The error is boxed: it is large, and run errors travel by value.
pub fn check(
    game: &SdkGame,
    seats: usize,
    cfg: &RefereeConfig,
) -> Result<Option<GameLimits>, Box<SdkCheckError>> {
    super::driver::first_frame(game, seats, cfg).map_err(
        |super::driver::NoFirstFrame { what, stderr }| {
            Box::new(SdkCheckError {
                name: game.name.clone(),
                origin: game.origin.clone(),
                command: game.java_command().command_line(),
                dir: game.dir.display().to_string(),
                seats,
                what: format!("it {what}"),
                stderr: match tail(&stderr, QUOTE).trim_end() {
                    "" => String::new(),
                    quote => format!("; its stderr ends:\n{quote}"),
                },
            })
        },
    )
}

/// The last `keep` bytes of `text`, cut at a character boundary.
fn tail(text: &str, keep: usize) -> &str {
    let mut start = text.len().saturating_sub(keep);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}
