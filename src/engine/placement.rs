//! Where a run's games go: how many at once, and whether each is pinned to a CPU of its own.
//! The policy (when to pin) is the caller's; this applies it to the machine as it is (the CPUs
//! this process may use, the load average) and says what was decided, for the start line.

use crate::options::Opt;
use crate::tournament::allowed_cpus;

/// Files a game being played holds open at most, with the next game's bots started ahead: each
/// bot's pipes, process handles, cgroup control files and fair-clock files (about 40 a game of
/// two bots were measured at 16 games at once), with room for more seats.
const FILES_PER_GAME: u64 = 64;

/// Files the rest of a run holds open (its results, the report, the standard streams).
const FILES_RESERVED: u64 = 64;

/// The open files `games` games at once hold, with the rest of a run.
pub fn files_for_games(games: usize) -> u64 {
    FILES_RESERVED.saturating_add(FILES_PER_GAME.saturating_mul(games as u64))
}

/// The most games at once that `limit` open files allow (at least one).
fn games_within(limit: u64) -> usize {
    (limit.saturating_sub(FILES_RESERVED) / FILES_PER_GAME).clamp(1, usize::MAX as u64) as usize
}

/// How many games run at once and whether each is pinned to a CPU of its own.
#[derive(Clone, Debug)]
pub struct Placement {
    pub concurrency: usize,
    /// Where the open-file limit could not hold the games at once asked for (or the core
    /// count) and `concurrency` was lowered to fit: those games, the files they would need,
    /// and the limit.
    pub lowered: Option<(usize, u64, u64)>,
    pub pin_cpus: bool,
    /// Cores of the machine (for the warning when the games outnumber them).
    pub cores: usize,
    /// CPUs this process may use.
    cpus: usize,
    /// The load average that kept an automatic policy from pinning, for the start line.
    busy_load: Option<f64>,
}

/// The 1-minute load average, where the system tells it.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl Placement {
    /// `asked` games at once (default: one per core); `pins(concurrency, cpus, busy)` is the
    /// pinning policy, `busy` meaning other programs already keep every CPU running; `auto`
    /// says the policy follows the load (so the start line tells when the load kept it off).
    pub fn decide(
        asked: Option<usize>,
        auto: bool,
        pins: impl FnOnce(usize, usize, bool) -> bool,
    ) -> Placement {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let wanted = asked.unwrap_or(cores).max(1);
        // Games past what the open-file limit holds would fail to start their bots.
        let limit = crate::bot::open_files::limit();
        let concurrency = wanted.min(games_within(limit));
        let needed = files_for_games(wanted);
        let lowered = (concurrency < wanted).then_some((wanted, needed, limit));
        let cpus = allowed_cpus().len();
        let load = load_average();
        // Busy: other programs already keep every CPU running (a build just before the run
        // leaves a load average of 1 or 2 behind on a small machine; that is no reason not to pin).
        let busy = load.is_some_and(|l| l >= cpus.max(1) as f64);
        Placement {
            concurrency,
            lowered,
            pin_cpus: pins(concurrency, cpus, busy),
            cores,
            cpus,
            busy_load: (busy && auto).then(|| load.unwrap_or(0.0)),
        }
    }

    /// Whether more games run at once than the machine has cores.
    pub fn oversubscribed(&self) -> bool {
        self.concurrency > self.cores
    }

    /// For the start line: "concurrency 2, one CPU per game".
    pub fn describe(&self) -> String {
        let pinned = match self.pin_cpus {
            false => String::new(),
            true if self.concurrency <= self.cpus => ", one CPU per game".into(),
            true => format!(", games pinned to the {} CPUs in turn", self.cpus),
        };
        let pinned = match self.busy_load {
            Some(load) => format!(
                ", not pinned to CPUs: the machine is busy (load average {load:.1} on {} CPUs; \
                 {} to pin anyway)",
                self.cpus,
                Opt::PinCpus
            ),
            None => pinned,
        };
        format!("concurrency {}{pinned}", self.concurrency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_open_file_limit_caps_the_games_at_once() {
        assert_eq!(games_within(1024), 15);
        assert_eq!(games_within(FILES_RESERVED + FILES_PER_GAME * 64), 64);
        assert_eq!(games_within(100), 1, "one game at least");
        assert!(games_within(u64::MAX) > 1_000_000, "no limit: no cap");
    }
}
