//! The start-up check of an external referee, before the first game (as bots are test-started):
//! a referee that cannot start, or does not answer `###Start` in the protocol, would otherwise
//! end every game of a run as `referee-error`.

use super::External;
use super::ExternalDriver;
use crate::bot::BotProcess;
use crate::referee::turns::Turns;
use crate::referee::RefereeConfig;

/// Why an external referee cannot play.
#[derive(Debug, thiserror::Error)]
#[error(
    "the referee `{command}` cannot play: {what}{stderr}\n  \
     run it by hand in {dir} and type `###Start {seats}`: it must answer with ###Input, \
     ###Output or ###End lines (the cg-brutaltester protocol); fix its command line \
     ({}) or its referee.toml",
    crate::options::Opt::Referee
)]
pub struct RefereeCheckError {
    pub command: String,
    pub dir: String,
    pub seats: usize,
    /// What it did, as a game's `referee-error` detail says it.
    pub what: String,
    /// "; its stderr ends: ..." or nothing.
    pub stderr: String,
}

/// Starts `referee` for a game of `seats` players, sends it `###Start` (with `###Seed` where it
/// reads one) and reads up to its first request of a player (`###Output`) or `###End`, within
/// its time per message; then ends it. No bot is started.
pub fn check(
    referee: &External,
    seats: usize,
    cfg: &RefereeConfig,
) -> Result<(), RefereeCheckError> {
    let fail = |what: String, stderr: &str| RefereeCheckError {
        command: referee.spec.command_line(),
        dir: referee.spec.dir.display().to_string(),
        seats,
        what,
        stderr: match super::tail(stderr, super::STDERR_QUOTE).trim_end() {
            "" => String::new(),
            quote => format!("; its stderr ends: {quote}"),
        },
    };
    let proc = BotProcess::spawn(&referee.spec, &cfg.limits, &[]).map_err(|e| {
        fail(
            format!("it cannot start: {}", crate::errors::chain_text(&e)),
            "",
        )
    })?;
    let mut game = ExternalDriver {
        referee,
        proc,
        pending: None,
        since_request: 0,
        inputs: vec![String::new(); seats],
        turns: Turns::new(seats, 0, 0),
        cfg,
    };
    let first = game.first_request(seats);
    let ExternalDriver { mut proc, .. } = game;
    proc.shutdown(cfg.kill_grace);
    first.map_err(|what| fail(format!("it {what}"), &proc.stderr_tail()))
}
