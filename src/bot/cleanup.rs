//! The process groups of every running bot, so that a referee stopped by Ctrl-C, SIGTERM or
//! SIGHUP kills them all before it exits. (A SIGKILLed referee cannot run code: there each bot's
//! parent-death signal ends the bot's leader process.)

use rustix::process::{kill_process_group, Pid, Signal};
use std::sync::Mutex;

static LIVE: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

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
