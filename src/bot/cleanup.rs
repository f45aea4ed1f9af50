//! The process groups of every running bot, so that a referee stopped by Ctrl-C, SIGTERM or
//! SIGHUP kills them all. (A SIGKILLed referee cannot run code: there each bot's parent-death
//! signal ends the bot's leader process.)
//!
//! Killing the bots and noting the stop is all this module does with a signal: it never ends the
//! process. A run that ends itself in order (the engine: it stops handing out games, finishes
//! recording and returns "stopped by signal N") holds a [`StopClaim`] while it plays; a signal
//! that comes while no run holds one is handed to the caller of [`install_signal_cleanup`] (the
//! command line, which says so and exits), and so is a second signal.

use rustix::process::{kill_process_group, Pid, Signal};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static LIVE: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

/// Set the moment a stop signal arrives, before the bots are killed.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// The number of the stop signal, once one arrived (0 before).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// How many runs now end themselves on a stop (see [`StopClaim`]). Taken by the signal thread
/// while it notes a stop, so that a claim given back at that moment either sees the stop or
/// leaves it to the signal thread's caller, never both nor neither.
static CLAIMS: Mutex<usize> = Mutex::new(0);

pub(crate) fn register(pgid: Pid) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.push(pgid);
    // A bot started after the stop killed the others (a worker's next game, a bot starter's)
    // goes the same way at once: the run is ending.
    if STOPPING.load(Ordering::SeqCst) {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
}

pub(crate) fn unregister(pgid: Pid) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = live.iter().position(|&p| p == pgid) {
        live.swap_remove(i);
    }
}

/// Whether the referee is being stopped by a signal, waiting up to `grace` for one. A batch
/// system that stops a job (Slurm's scancel or time limit) signals every process of the job at
/// once, so a bot may die of that signal before the referee's own signal is handled: a game
/// whose bot was killed by a signal is recorded only if no stop signal follows within `grace`
/// (otherwise a stopped job would record it as that bot's crash).
pub fn stopping_within(grace: Duration) -> bool {
    let start = Instant::now();
    while !STOPPING.load(Ordering::SeqCst) {
        if start.elapsed() >= grace {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Kills every registered bot group (SIGKILL). Returns how many there were.
pub fn kill_all() -> usize {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for &pgid in live.iter() {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
    live.len()
}

/// The stop signal that arrived, if one did.
pub fn stop_signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig),
    }
}

/// Held by a run that ends itself in order when a stop signal comes (it watches
/// [`stop_signal`]): while one is held, a first signal kills the bots and is noted, and is not
/// handed to the caller of [`install_signal_cleanup`].
#[must_use = "a claim given back at once leaves the stop to the signal thread's caller"]
pub struct StopClaim(());

/// Claims the stop for a run (see [`StopClaim`]).
pub fn claim_stop() -> StopClaim {
    *CLAIMS.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    StopClaim(())
}

impl StopClaim {
    /// Gives the claim back: the signal that came while it was held (the run must end with it),
    /// or `None`, and then a signal from now on goes to the signal thread's caller.
    pub fn release(self) -> Option<i32> {
        let mut claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
        *claims -= 1;
        let sig = stop_signal();
        std::mem::forget(self);
        sig
    }
}

impl Drop for StopClaim {
    fn drop(&mut self) {
        *CLAIMS.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
    }
}

/// Starts a thread that, on SIGINT, SIGTERM or SIGHUP, notes the stop and kills every bot. Where
/// no run claims the stop ([`claim_stop`]), or on a second signal, it then calls `unclaimed`
/// with the signal's number (the command line says so and exits with 128 + the number). Files
/// already written stay as they are: results are flushed game by game, so nothing finished is
/// lost.
pub fn install_signal_cleanup(unclaimed: impl Fn(i32) + Send + 'static) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signal-cleanup".into())
        .spawn(move || {
            for sig in signals.forever() {
                let first = !STOPPING.load(Ordering::SeqCst);
                let claimed = {
                    let claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
                    if first {
                        SIGNAL.store(sig, Ordering::SeqCst);
                        STOPPING.store(true, Ordering::SeqCst);
                    }
                    *claims > 0
                };
                kill_all();
                // A second signal is not waited for: the run that claimed the first is slow
                // to end, and the user means it.
                if !claimed || !first {
                    unclaimed(sig);
                }
            }
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_stop_signal_the_wait_ends_after_the_grace() {
        let start = Instant::now();
        assert!(!stopping_within(Duration::from_millis(30)));
        assert!(start.elapsed() >= Duration::from_millis(30));
    }
}
