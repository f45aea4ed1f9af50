//! The process groups of every running bot, so that a referee stopped by Ctrl-C, SIGTERM or
//! SIGHUP kills them all before it exits. (A SIGKILLed referee cannot run code: there each bot's
//! parent-death signal ends the bot's leader process.)

use rustix::process::{kill_process_group, Pid, Signal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static LIVE: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

/// Set the moment a stop signal arrives, before the bots are killed.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// What to print after an interrupted run, e.g. how to continue it.
static STOP_HINT: Mutex<String> = Mutex::new(String::new());

/// Sets the line printed when a signal stops the referee (how to continue the run).
pub fn set_stop_hint(hint: String) {
    *STOP_HINT.lock().unwrap_or_else(|e| e.into_inner()) = hint;
}

pub(crate) fn register(pgid: Pid) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
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

/// Starts a thread that, on SIGINT, SIGTERM or SIGHUP, kills every bot and exits the referee with
/// status 128 + the signal number. Files already written stay as they are: results are flushed
/// game by game, so nothing finished is lost.
pub fn install_signal_cleanup() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signal-cleanup".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                STOPPING.store(true, Ordering::SeqCst);
                kill_all();
                eprintln!("\narbiter: stopped by signal {sig}; every bot was killed; finished games are saved");
                let hint = STOP_HINT.lock().unwrap_or_else(|e| e.into_inner());
                if !hint.is_empty() {
                    eprintln!("arbiter: {hint}");
                }
                std::process::exit(128 + sig);
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
