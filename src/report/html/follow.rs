//! The live report's page writer: it follows `records.jsonl` as a run appends to it and writes
//! each new game's replay page as soon as its record is there. It runs on the live report's
//! thread, on CPU time the games leave (SCHED_IDLE): a game's start and end leave a CPU idle
//! for a while (spawning the bots, the kernel tearing down their namespaces), and pages written
//! then cost the run nothing, where pages left for the run's end add to its wall time.
//!
//! Where games keep every CPU (no CPU to spare), those idle moments are short and many: a page
//! written in them still slowed the games as much again as the page itself cost (the game's
//! thread waking to a CPU whose caches the page writer had just filled). There the follower
//! writes pages on a budget ([`PAGE_SHARE`] of a CPU) and leaves the rest for the run's end,
//! when they are written on every CPU: with instant bots, whose games cost about what their
//! pages cost, that made 1,000-game runs 8% faster; games that take seconds still get every
//! page as they end.

use super::origins::Origins;
use super::pages::{write_page, Page};
use super::{replay_path, viewer, FILE};
use crate::results::records::{self, GameRecord};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The share of one CPU the follower may spend on pages while games keep every CPU.
pub const PAGE_SHARE: f64 = 0.02;

/// CPU time the budget may save up (the first pages of a run are written at once).
const MOST_CREDIT: Duration = Duration::from_millis(50);

/// Pages written at most at [`PAGE_SHARE`] of a CPU: a credit of CPU time that grows with the
/// wall time and that each page's CPU time uses up.
struct Budget {
    share: f64,
    credit: f64,
    since: Instant,
}

impl Budget {
    /// `share` of a CPU, with `credit` to start.
    fn new(share: f64, credit: Duration) -> Budget {
        Budget {
            share,
            credit: credit.as_secs_f64(),
            since: Instant::now(),
        }
    }

    /// Whether a page may be written now.
    fn allows(&mut self) -> bool {
        let now = Instant::now();
        self.credit = (self.credit + (now - self.since).as_secs_f64() * self.share)
            .min(MOST_CREDIT.as_secs_f64());
        self.since = now;
        self.credit > 0.0
    }

    fn spend(&mut self, cpu: Duration) {
        self.credit -= cpu.as_secs_f64();
    }
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Where following a results folder's records has got to.
pub struct Follower {
    dir: PathBuf,
    /// The link back to the folder's own report, from a page in `replays/`.
    back: String,
    origins: Origins,
    /// Bytes of records.jsonl handled (whole lines only).
    offset: u64,
    /// Whether the viewer's script and style are in `replays/`.
    assets: bool,
    buf: Vec<u8>,
    /// Pages on a budget (games keep every CPU), or as soon as their records are there.
    budget: Option<Budget>,
}

impl Follower {
    /// A follower of the records of the results folder `dir`, from its first record.
    pub fn new(dir: &Path) -> Follower {
        Follower {
            dir: dir.to_path_buf(),
            back: format!("../{FILE}"),
            origins: Origins::of_folder(dir),
            offset: 0,
            assets: false,
            buf: Vec::new(),
            budget: None,
        }
    }

    /// Writes pages on a budget from now on: at most [`PAGE_SHARE`] of a CPU.
    pub fn on_budget(self) -> Follower {
        self.with_budget(PAGE_SHARE, MOST_CREDIT)
    }

    /// Writes pages at most at `share` of a CPU, with `credit` of CPU time to start.
    fn with_budget(mut self, share: f64, credit: Duration) -> Follower {
        self.budget = Some(Budget::new(share, credit));
        self
    }

    /// Writes the pages still missing of the records appended since the last call (whole
    /// lines: a record being appended waits for the next call), giving up before the next
    /// record once `stop` is set. Returns the pages written, or the first one that could not
    /// be written and why. A record the rules cannot replay gets no page (the report says so).
    /// On a budget, stops at the first page the budget does not allow (the next call goes on).
    pub fn catch_up(&mut self, stop: &AtomicBool) -> Result<usize, (PathBuf, io::Error)> {
        let path = self.dir.join(records::FILE);
        let mut file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err((path, e)),
        };
        self.buf.clear();
        file.seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.read_to_end(&mut self.buf))
            .map_err(|e| (path.clone(), e))?;
        let mut written = 0;
        let mut at = 0;
        while let Some(end) = self.buf[at..].iter().position(|&b| b == b'\n') {
            if stop.load(Ordering::Relaxed) || self.budget.as_mut().is_some_and(|b| !b.allows()) {
                break;
            }
            let line = &self.buf[at..at + end + 1];
            at += end + 1;
            let Ok(mut rec) = serde_json::from_slice::<GameRecord>(line) else {
                self.offset += (end + 1) as u64;
                continue;
            };
            let cpu = self.budget.is_some().then(thread_cpu);
            if self.page(&mut rec)? {
                written += 1;
            }
            if let (Some(b), Some(before)) = (&mut self.budget, cpu) {
                b.spend(thread_cpu().saturating_sub(before));
            }
            self.offset += (end + 1) as u64;
        }
        Ok(written)
    }

    /// Writes `rec`'s page unless it is there; whether it wrote it.
    fn page(&mut self, rec: &mut GameRecord) -> Result<bool, (PathBuf, io::Error)> {
        let path = replay_path(&self.dir, rec.game_id);
        if path.exists() {
            return Ok(false);
        }
        if !self.assets {
            let replays = self.dir.join("replays");
            viewer::write_assets(&replays).map_err(|e| (replays, e))?;
            self.assets = true;
        }
        self.origins.apply(rec);
        match write_page(rec, path, &self.back) {
            Ok(Page::Written(_)) => Ok(true),
            Ok(_) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::tests::{folder, Folder};

    #[test]
    fn on_a_budget_pages_wait_for_credit_and_the_first_are_written_at_once() {
        let mut f = folder();
        f.record(0..20);
        let Folder { _dir, d, .. } = f;
        let go = AtomicBool::new(false);
        // No credit and no share: no page, and the records wait (nothing is skipped).
        let mut none = Follower::new(&d).with_budget(0.0, Duration::ZERO);
        assert_eq!(none.catch_up(&go).unwrap(), 0);
        assert!(!replay_path(&d, 0).exists());
        // The run's budget: the first pages at once.
        let mut some = Follower::new(&d).on_budget();
        let first = some.catch_up(&go).unwrap();
        assert!(first >= 1 && replay_path(&d, 0).exists(), "{first}");
        // Without a budget, every page left.
        let mut all = Follower::new(&d);
        assert_eq!(all.catch_up(&go).unwrap(), 20 - first);
        assert!((0..20).all(|id| replay_path(&d, id).exists()));
    }
}
