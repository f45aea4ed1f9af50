//! A league's workers (the server's own and `league work`) when their machine cannot start a
//! game's processes (see [`crate::bot::MachineFault`]): the game is no bot's loss, so it goes
//! back to the queue unrecorded, and the workers wait before they take another, longer each
//! time it fails again. They say why once, when the trouble begins, not once a game, and once
//! more when it is over: when games start and none failed for [`QUIET`] (a machine at the edge
//! of its limit, where some games start and some do not, is one stretch of trouble, not many).

use crate::bot::MachineFault;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The first wait after a game could not start.
const FIRST_PAUSE: Duration = Duration::from_secs(1);
/// The longest wait.
const MAX_PAUSE: Duration = Duration::from_secs(60);
/// How long games must start without a failure for the trouble to be over.
pub const QUIET: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Trouble {
    /// Since when games could not start (none: they start).
    since: Option<Instant>,
    /// The latest failure.
    last: Option<Instant>,
    /// What could not start since then.
    failures: u64,
    pause: Duration,
}

/// The workers' shared state of trouble.
#[derive(Default)]
pub struct Backoff {
    trouble: Mutex<Trouble>,
}

impl Backoff {
    fn lock(&self) -> std::sync::MutexGuard<'_, Trouble> {
        self.trouble.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `what` could not start on `machine` (its workers, for the message) for `fault`: says
    /// why when the trouble begins, and returns how long to wait before trying again.
    pub fn failed(&self, machine: &str, fault: MachineFault, what: &str) -> Duration {
        let mut t = self.lock();
        let now = Instant::now();
        t.failures += 1;
        t.last = Some(now);
        t.pause = match t.since {
            None => {
                t.since = Some(now);
                eprintln!(
                    "arbiter: {machine}: games cannot start: {what}. No game is recorded \
                     meanwhile (each goes back to the league's queue); they are tried again \
                     after a pause of {} s, then longer, up to {} s: {}.",
                    FIRST_PAUSE.as_secs(),
                    MAX_PAUSE.as_secs(),
                    fault.advice()
                );
                FIRST_PAUSE
            }
            Some(_) => (t.pause * 2).clamp(FIRST_PAUSE, MAX_PAUSE),
        };
        t.pause
    }

    /// A game started on `machine`: the trouble is over, and said to be, once none failed for
    /// [`QUIET`].
    pub fn started(&self, machine: &str) {
        let mut t = self.lock();
        let (Some(since), Some(last)) = (t.since, t.last) else {
            return;
        };
        if last.elapsed() < QUIET {
            return;
        }
        eprintln!(
            "arbiter: {machine}: games start again ({} could not start in {} s; they were \
             played later)",
            t.failures,
            last.duration_since(since).as_secs()
        );
        *t = Trouble::default();
    }

    /// Whether games cannot start now.
    pub fn failing(&self) -> bool {
        self.lock().since.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_doubles_to_a_minute_and_a_start_soon_after_a_failure_ends_nothing() {
        let b = Backoff::default();
        let fault = MachineFault::of_errno(libc::EMFILE).unwrap();
        let pauses: Vec<u64> = (0..9)
            .map(|_| b.failed("test", fault, "game 1").as_secs())
            .collect();
        assert_eq!(pauses, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        b.started("test");
        assert!(b.failing(), "a game started, but one failed a moment ago");
        b.lock().last = Some(Instant::now() - QUIET);
        b.started("test");
        assert!(!b.failing());
        assert_eq!(
            b.failed("test", fault, "game 2"),
            FIRST_PAUSE,
            "a new stretch"
        );
    }
}
