//! Waiting on bots: for the answer line of the bot on turn (while draining every bot's stderr,
//! so none blocks on a full pipe), and for a bot's exit.

use super::{timespec, BotProcess, Wait};
use rustix::event::{poll, PollFd, PollFlags};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How long a bot that closed its stdout is given to show its exit before it is called a bot
/// that closed its stdout and kept running.
const EXIT_AFTER_EOF: Duration = Duration::from_secs(1);

/// Waits until bot `seat` has a complete line, exits, closes stdout, overflows or `deadline`
/// passes; meanwhile drains every bot's stderr so none of them can block on a full pipe.
pub fn wait_line(bots: &mut [BotProcess], seat: usize, deadline: Instant) -> Wait {
    loop {
        let bot = &mut bots[seat];
        if let Some(line) = bot.out.take_line() {
            return Wait::Line(line, Instant::now());
        }
        if bot.out.overlong() {
            return Wait::TooLong;
        }
        if let Some(status) = bot.exited {
            return Wait::Exited(status);
        }
        if bot.stdout.is_none() {
            // End of file: tell an exit from a bot that only closed its stdout. An exiting
            // bot closes its stdout before its exit can be seen (an isolated bot's through its
            // init, which must be scheduled to pass the status on): on a loaded machine that
            // took over 20 ms, and a crash was named "closed its standard output". The game is
            // lost either way; the wait only names how, so it may be long.
            return match wait_exit(bot, EXIT_AFTER_EOF) {
                Some(status) => Wait::Exited(status),
                None => Wait::ClosedStdout,
            };
        }
        let now = Instant::now();
        if now >= deadline {
            return Wait::Timeout;
        }
        let (stdout_ready, exited, stderr_ready) = poll_bots(bots, seat, deadline - now);
        let bot = &mut bots[seat];
        if stdout_ready || exited {
            bot.drain_stdout();
        }
        if exited && bot.out.pending().iter().all(|&b| b != b'\n') {
            // The answer may still be in the pipe: read to the end before calling it a crash.
            bot.drain_stdout();
            if bot.out.pending().iter().all(|&b| b != b'\n') {
                bot.exited = bot.try_exit_status();
            }
        }
        for (i, bot) in bots.iter_mut().enumerate() {
            // Bots past the mask's 64 are drained every time (a read that finds nothing).
            if i >= 64 || stderr_ready & (1 << i) != 0 {
                bot.drain_stderr();
            }
        }
    }
}

/// One `poll(2)` over the bot's stdout and exit, and every bot's stderr. The third value has
/// bit `i` set when bot `i`'s stderr is ready (bots past 64 are not reported).
fn poll_bots(bots: &[BotProcess], seat: usize, timeout: Duration) -> (bool, bool, u64) {
    let bot = &bots[seat];
    let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(2 + bots.len());
    fds.push(PollFd::new(
        bot.stdout.as_ref().expect("open stdout"),
        PollFlags::IN,
    ));
    fds.push(PollFd::new(&bot.pidfd, PollFlags::IN));
    fds.extend(
        bots.iter()
            .filter_map(|b| b.stderr.as_ref())
            .map(|err| PollFd::new(err, PollFlags::IN)),
    );
    let _ = poll(&mut fds, Some(&timespec(timeout)));
    let mut stderr_ready = 0u64;
    let owners = bots.iter().enumerate().filter(|(_, b)| b.stderr.is_some());
    for ((i, _), fd) in owners.zip(&fds[2..]) {
        if i < 64 && !fd.revents().is_empty() {
            stderr_ready |= 1 << i;
        }
    }
    (
        !fds[0].revents().is_empty(),
        !fds[1].revents().is_empty(),
        stderr_ready,
    )
}

/// Waits up to `limit` for the bot's leader process to exit.
pub(super) fn wait_exit(bot: &mut BotProcess, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = bot.try_exit_status() {
            return Some(status);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        let mut fds = [PollFd::new(&bot.pidfd, PollFlags::IN)];
        let _ = poll(&mut fds, Some(&timespec(deadline - now)));
    }
}
