//! The report of a run in progress: each game's replay data written as soon as its record is
//! there, and report.html rewritten every few seconds as games finish, each by a thread of its
//! own, so the run that calls [`LiveReport::tick`] after each game is never held up by them (the
//! report reads the results files, not the run's memory).
//!
//! A game's data costs a small part of what playing an instant bots' game does, and its thread
//! runs at the games' priority: it keeps up with them, and the run's end waits for the last
//! game's data alone, not for a backlog (issue 39: a thread on idle CPU time only fell behind
//! when games kept every CPU, and a 2,000-game run spent 11.7% of its time writing pages after
//! its last game). The rewrite of report.html has its own thread because it reads every record
//! and renders the standings: on one thread with the data, the data waited for each rewrite, and
//! at concurrency 16 on a loaded machine a run's end waited up to 1.5 s for the last games' data.
//! The run's end does not wait for a rewrite under way either: it stops the data writer, writes
//! the last report itself and leaves the rewrite to end on its own, which then replaces nothing
//! (the report file is replaced under a lock by whoever sees no stop).

use super::{follow, write_report_unless, Pages, FILE};
use crate::report::html::Result;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The live report of one results folder (see the module's doc).
pub struct LiveReport {
    dir: PathBuf,
    order: Vec<String>,
    warned: bool,
    /// The data writer, started by the first tick.
    data: Option<JoinHandle<()>>,
    /// The report's writer, started with it; left to end on its own once stopped.
    page: Option<JoinHandle<()>>,
    shared: Arc<LiveWriters>,
}

/// What the run and the writing threads share.
#[derive(Default)]
struct LiveWriters {
    state: Mutex<LiveTicks>,
    /// Signalled by a tick, a stop, and a thread when it has done the ticks it saw.
    changed: Condvar,
    /// Set to make the threads give up (before their next game or report). Never unset: a
    /// live report started again gets a new `LiveWriters`.
    stop: AtomicBool,
    /// Held while report.html is replaced (see the module's doc).
    publishing: Mutex<()>,
}

/// The ticks given and handled by each thread, and a first failure not yet told.
#[derive(Default)]
struct LiveTicks {
    ticks: u64,
    data_done: u64,
    report_done: u64,
    error: Option<String>,
}

/// How long the data writer waits for a tick before it looks for new records anyway (a record
/// written after its game's tick).
const LOOK_AGAIN: Duration = Duration::from_millis(200);

/// The shortest pause between two rewrites of report.html.
const PAUSE: Duration = Duration::from_secs(5);

impl LiveWriters {
    fn lock(&self) -> std::sync::MutexGuard<'_, LiveTicks> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Waits (at most `wait`) for a tick after `seen` or a stop; the ticks given.
    fn next_tick(&self, seen: u64, wait: Duration) -> u64 {
        let state = self.lock();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, wait, |s| s.ticks == seen && !self.stopped())
            .unwrap_or_else(|p| p.into_inner());
        state.ticks
    }

    fn fail(&self, e: String) {
        self.lock().error.get_or_insert(e);
    }

    fn done(&self, mark: impl FnOnce(&mut LiveTicks)) {
        mark(&mut self.lock());
        self.changed.notify_all();
    }
}

/// The data thread: after each tick (or [`LOOK_AGAIN`] without one), the replay data of the new
/// records.
fn write_data(dir: &Path, shared: &LiveWriters) {
    let mut follower = follow::Follower::new(dir);
    let mut seen = 0;
    loop {
        let ticks = shared.next_tick(seen, LOOK_AGAIN);
        if shared.stopped() {
            return;
        }
        if let Err((path, e)) = follower.catch_up(&shared.stop) {
            // The report's rewrites meet the same failure and say it; the thread ends.
            shared.fail(format!("writing {}: {e}", path.display()));
            shared.done(|s| s.data_done = u64::MAX);
            return;
        }
        seen = ticks;
        shared.done(|s| s.data_done = seen);
    }
}

/// The report thread: report.html at the first tick, then after a tick once the pause has
/// passed. The pause is at least [`PAUSE`] and ten times the last rewrite's duration, so that a
/// large run spends at most a tenth of a core on its report.
fn write_page(dir: &Path, order: &[String], shared: &LiveWriters) {
    let mut next = Instant::now();
    let mut seen = 0;
    loop {
        let ticks = shared.next_tick(seen, LOOK_AGAIN);
        if shared.stopped() {
            return;
        }
        if ticks != seen && Instant::now() >= next {
            let started = Instant::now();
            let dirs = [dir.to_path_buf()];
            let out = dir.join(FILE);
            let (stop, publishing) = (&shared.stop, Some(&shared.publishing));
            match write_report_unless(&dirs, &out, order, Pages::Linked, 1, stop, publishing) {
                Ok(_) => next = Instant::now() + PAUSE.max(started.elapsed() * 10),
                Err(e) => {
                    shared.fail(format!("{e:#}"));
                    next = Instant::now() + PAUSE;
                }
            }
        }
        seen = ticks;
        shared.done(|s| s.report_done = seen);
    }
}

impl LiveReport {
    pub fn new(dir: &Path, order: &[String]) -> LiveReport {
        LiveReport {
            dir: dir.to_path_buf(),
            order: order.to_vec(),
            warned: false,
            data: None,
            page: None,
            shared: Arc::default(),
        }
    }

    /// Tells the writing threads a game has finished (starting them at the first game): the new
    /// games' replay data are written, and the report if the pause has passed. A failure is not
    /// fatal to the run: it is told once on stderr, and the report's writer tries again.
    pub fn tick(&mut self) {
        if self.data.is_none() {
            if let Err(e) = self.start() {
                self.stop_writers();
                return self.warn(&format!("cannot start its writers: {e}"));
            }
        }
        self.shared.lock().ticks += 1;
        self.shared.changed.notify_all();
        self.collect();
    }

    fn start(&mut self) -> std::io::Result<()> {
        let (dir, shared) = (self.dir.clone(), self.shared.clone());
        let data = std::thread::Builder::new()
            .name("report-data".into())
            .spawn(move || write_data(&dir, &shared))?;
        self.data = Some(data);
        let (dir, order, shared) = (self.dir.clone(), self.order.clone(), self.shared.clone());
        let page = std::thread::Builder::new()
            .name("report-writer".into())
            .spawn(move || write_page(&dir, &order, &shared))?;
        self.page = Some(page);
        Ok(())
    }

    /// Waits until the writing threads have done every tick given so far.
    pub fn settle(&mut self) {
        if let (Some(data), Some(page)) = (&self.data, &self.page) {
            let state = self.shared.lock();
            let _state = self
                .shared
                .changed
                .wait_while(state, |s| {
                    (s.data_done < s.ticks || s.report_done < s.ticks)
                        && !data.is_finished()
                        && !page.is_finished()
                })
                .unwrap_or_else(|p| p.into_inner());
        }
        self.collect();
    }

    /// Tells a writer's failure, if there is one not told yet.
    fn collect(&mut self) {
        let error = self.shared.lock().error.take();
        if let Some(e) = error {
            self.warn(&e);
        }
    }

    fn warn(&mut self, e: &str) {
        if !self.warned {
            self.warned = true;
            eprintln!(
                "arbiter: warning: cannot update {}: {e}",
                self.dir.join(FILE).display()
            );
        }
    }

    /// Stops the writing threads: waits for the data writer (it stops before its next game's
    /// data), not for a rewrite of the report under way, which ends on its own and replaces
    /// nothing. Returns what they shared; the next tick starts new ones.
    fn stop_writers(&mut self) -> Arc<LiveWriters> {
        let shared = std::mem::take(&mut self.shared);
        shared.stop.store(true, Ordering::SeqCst);
        shared.changed.notify_all();
        if let Some(h) = self.data.take() {
            let _ = h.join();
        }
        self.page = None;
        shared
    }

    /// Rewrites the report now, on the calling thread, with the replay data still missing (on
    /// every CPU: the last games', which the data writer had not reached); returns its path. The
    /// writing threads are stopped first.
    pub fn write(&mut self, pages: Pages) -> Result<PathBuf> {
        let shared = self.stop_writers();
        let out = self.dir.join(FILE);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let dirs = std::slice::from_ref(&self.dir);
        let go_on = AtomicBool::new(false);
        write_report_unless(
            dirs,
            &out,
            &self.order,
            pages,
            threads,
            &go_on,
            Some(&shared.publishing),
        )?;
        Ok(out)
    }
}

impl Drop for LiveReport {
    fn drop(&mut self) {
        if self.data.is_some() {
            self.stop_writers();
        }
    }
}
