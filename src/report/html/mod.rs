//! `report.html`: one self-contained page per results folder (or several merged) with the
//! standings, charts and the list of games, and under `replays/` one viewer page that draws any
//! recorded game from its data file (one per game, written as the game's record is, drawn from
//! the game's neutral board view: see [`viewer`]). Rewritten every few seconds while tournament
//! and sprt runs go on and once at their end, and by `arbiter report`.
//!
//! Templates use maud: the markup is checked when arbiter compiles and every value is escaped
//! unless marked otherwise, with no template files to ship or find at run time.

mod columns;
pub mod data;
pub mod external;
mod follow;
pub mod frames;
pub mod origins;
pub mod page;
pub mod pages;
#[cfg(test)]
mod reference;
pub mod sdk;
pub mod seats;
pub mod sprt;
pub mod svg;
pub mod viewer;

#[cfg(test)]
mod tests;

use crate::results::records;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The report's file name inside a results folder.
pub const FILE: &str = "report.html";

/// A report that could not be written: what failed, on which file (the cause follows it).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("writing the viewer into {}", path.display())]
    Viewer {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("reading {}", path.display())]
    Records {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("writing {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Standings(#[from] crate::report::standings::StandingsError),
}

type Result<T> = std::result::Result<T, ReportError>;

/// The report's stylesheet, for other pages in its look (the grading page).
pub const STYLE: &str = include_str!("assets/style.css");

/// Which games' replay data to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// Every recorded game's, replacing any there.
    All,
    /// Only those not written yet (a live report while games are added: a few KB a game).
    Missing,
}

/// What writing a report did.
#[derive(Debug, Default)]
pub struct Written {
    pub games: usize,
    pub pages: usize,
    /// Games whose record could not be replayed, with why.
    pub failed: Vec<String>,
}

/// The replay data of game `id` in a results folder (shown by `replays/replay.html#game=ID`).
pub fn replay_path(dir: &Path, id: u64) -> PathBuf {
    dir.join("replays").join(viewer::data_file(id))
}

/// `target` as a link from a page in the folder `from`, both absolute: always relative
/// (`../run-a/replays/game-1.html` from a merged report beside the runs), so that the report
/// and its folders can be moved or shared together.
fn href(from: &Path, target: &Path) -> String {
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), target.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..from.len() {
        rel.push("..");
    }
    for c in &to[common..] {
        rel.push(c);
    }
    rel.to_string_lossy().into_owned()
}

/// Writes `out` (a report of the folders `dirs`, bots of `order` first) and the replay pages.
/// Records are read one at a time: memory does not grow with the number of games recorded
/// (only the games list of the report does, a line per game).
pub fn write_report(
    dirs: &[PathBuf],
    out: &Path,
    order: &[String],
    pages: Pages,
) -> Result<Written> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    write_report_unless(dirs, out, order, pages, threads, &AtomicBool::new(false))
}

/// [`write_report`] with pages written on `threads` threads, giving up (before the next page,
/// without writing the report) once `stop` is set: the live report's background rewrite, on
/// one thread and stopped by the run's last rewrite.
fn write_report_unless(
    dirs: &[PathBuf],
    out: &Path,
    order: &[String],
    pages: Pages,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Written> {
    let base = out.parent().unwrap_or(Path::new(".")).to_path_buf();
    let base = std::path::absolute(&base).unwrap_or(base);
    let mut written = Written::default();
    let mut facts = data::RecordFacts::default();
    let mut read = records::ReadRecords::default();
    for (d, dir) in dirs.iter().enumerate() {
        // The page sits in DIR/replays/: the report is one folder up when it is DIR's own.
        let abs_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        let back = href(
            &abs_dir.join("replays"),
            &std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf()),
        );
        let replays = dir.join("replays");
        facts.links.insert(
            d,
            href(
                &base,
                &std::path::absolute(&replays).unwrap_or_else(|_| replays.clone()),
            ),
        );
        let viewer_page = replays.join(viewer::PAGE_FILE);
        let viewer_page = href(
            &base,
            &std::path::absolute(&viewer_page).unwrap_or(viewer_page),
        );
        let link = |rec: &records::GameRecord| format!("{viewer_page}#game={}", rec.game_id);
        let summary =
            pages::write_folder(dir, &back, pages, threads, stop, |rec, page| match page {
                pages::Page::Kept(_) => facts.add(d, &rec, Some(link(&rec))),
                pages::Page::Written(_) => {
                    written.pages += 1;
                    facts.add(d, &rec, Some(link(&rec)));
                }
                pages::Page::Failed(e) => {
                    written.failed.push(e);
                    facts.add(d, &rec, None);
                }
            })?;
        read.records += summary.records;
        read.skipped += summary.skipped;
    }
    if stop.load(Ordering::Relaxed) {
        return Ok(written);
    }
    let abs_dirs: Vec<PathBuf> = dirs
        .iter()
        .map(|d| std::path::absolute(d).unwrap_or(d.clone()))
        .collect();
    let mut data = data::gather(&abs_dirs, order, facts, read)?;
    for f in &written.failed {
        data.notes.push(format!("a game cannot be replayed: {f}"));
    }
    written.games = data.total_games;
    let title = title_of(&data);
    write_atomic(out, page::render(&data, &title).as_bytes()).map_err(|source| {
        ReportError::Write {
            path: out.to_path_buf(),
            source,
        }
    })?;
    Ok(written)
}

/// "arbiter report: impasse, 3 bots".
fn title_of(d: &data::ReportData) -> String {
    let bots = d.standings.as_ref().map_or(0, |s| s.names.len());
    format!("arbiter report: {}, {bots} bots", game_of(&d.folders))
}

/// The game of the runs `folders`, as their title names it.
fn game_of(folders: &[data::Folder]) -> String {
    let settings = || folders.iter().flat_map(|f| &f.settings);
    // --game is recorded only when given: a run's settings without it played the default game,
    // or an external referee's, named in its records by referee.toml's name (else its
    // program's), or before any record by its command's program.
    match settings().find(|(k, _)| k == "game.game") {
        Some((_, v)) => v.clone(),
        None => match settings().find(|(k, _)| k == "game.referee") {
            Some((_, command)) => folders
                .iter()
                .find_map(|f| f.game.clone())
                .unwrap_or_else(|| referee_program(command)),
            None if settings().any(|(k, _)| k.starts_with("game.")) => "impasse".to_string(),
            None => "games".to_string(),
        },
    }
}

/// A referee command's program, by its file name: `stones` for `python3 ref/stones.py`.
fn referee_program(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    // An interpreter runs the script that follows it.
    let program = words
        .iter()
        .find(|w| w.contains('.') || w.contains('/'))
        .or(words.first())
        .copied()
        .unwrap_or("external referee");
    Path::new(program.trim_end_matches('/'))
        .file_stem()
        .map_or(program.to_string(), |s| s.to_string_lossy().into_owned())
}

/// Writes through a temporary file and a rename, so a browser reloading the page never reads
/// half of it.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("html.tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The report of a run in progress: each game's replay data written as soon as its record is
/// there, and report.html rewritten every few seconds as games finish. Both run on a thread of
/// its own, so the run that calls [`LiveReport::tick`] after each game is never held up by it
/// (the report reads the results files, not the run's memory). A game's data costs a small
/// part of what playing an instant bots' game does, and the thread runs at the games'
/// priority: it keeps up with them, and the run's end waits for the last game's data alone,
/// not for a backlog (issue 39: a thread on idle CPU time only fell behind when games kept
/// every CPU, and a 2,000-game run spent 11.7% of its time writing pages after its last game).
pub struct LiveReport {
    dir: PathBuf,
    order: Vec<String>,
    warned: bool,
    /// The writing thread, started by the first tick.
    running: Option<std::thread::JoinHandle<()>>,
    shared: Arc<Shared>,
}

/// What the run and the writing thread share.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled by a tick, a stop, and the thread when it has done the ticks it saw.
    changed: Condvar,
    /// Set to make the thread give up (before its next game or report).
    stop: AtomicBool,
}

/// The ticks given and handled, and the writer's first failure not yet told.
#[derive(Default)]
struct State {
    ticks: u64,
    done: u64,
    error: Option<String>,
}

/// How long the writer waits for a tick before it looks for new records anyway (a record
/// written after its game's tick).
const LOOK_AGAIN: Duration = Duration::from_millis(200);

/// The writing thread: after each tick (or [`LOOK_AGAIN`] without one), the replay data of the
/// new records; after a tick once the pause has passed, report.html (at once for the first
/// tick). The pause is at least 5 s and ten times the last rewrite's duration, so that a large
/// run spends at most a tenth of a core on its report.
fn write_live(dir: &Path, order: &[String], shared: &Shared) {
    let mut follower = follow::Follower::new(dir);
    let mut pages_ok = true;
    let mut next = Instant::now();
    let mut seen = 0;
    let fail = |e: String| {
        let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        state.error.get_or_insert(e);
    };
    loop {
        let ticks = {
            let state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
            let (state, _) = shared
                .changed
                .wait_timeout_while(state, LOOK_AGAIN, |s| {
                    s.ticks == seen && !shared.stop.load(Ordering::SeqCst)
                })
                .unwrap_or_else(|p| p.into_inner());
            state.ticks
        };
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        if pages_ok {
            if let Err((path, e)) = follower.catch_up(&shared.stop) {
                // The report's rewrites meet the same failure and say it.
                pages_ok = false;
                fail(format!("writing {}: {e}", path.display()));
            }
        }
        if ticks != seen && Instant::now() >= next {
            let started = Instant::now();
            let dirs = [dir.to_path_buf()];
            match write_report_unless(
                &dirs,
                &dir.join(FILE),
                order,
                Pages::Missing,
                1,
                &shared.stop,
            ) {
                Ok(_) => {
                    let pause = Duration::from_secs(5).max(started.elapsed() * 10);
                    next = Instant::now() + pause;
                }
                Err(e) => {
                    fail(format!("{e:#}"));
                    next = Instant::now() + Duration::from_secs(5);
                }
            }
        }
        seen = ticks;
        shared.state.lock().unwrap_or_else(|p| p.into_inner()).done = seen;
        shared.changed.notify_all();
    }
}

impl LiveReport {
    pub fn new(dir: &Path, order: &[String]) -> LiveReport {
        LiveReport {
            dir: dir.to_path_buf(),
            order: order.to_vec(),
            warned: false,
            running: None,
            shared: Arc::default(),
        }
    }

    /// Tells the writing thread a game has finished (starting it at the first game): it writes
    /// the new games' replay data, and the report if the pause has passed. A failure is not fatal to the
    /// run: it is told once on stderr, and the writer tries again.
    pub fn tick(&mut self) {
        if self.running.is_none() {
            let (dir, order, shared) = (self.dir.clone(), self.order.clone(), self.shared.clone());
            let spawned = std::thread::Builder::new()
                .name("report-writer".into())
                .spawn(move || write_live(&dir, &order, &shared));
            match spawned {
                Ok(h) => self.running = Some(h),
                Err(e) => return self.warn(&format!("cannot start its writer: {e}")),
            }
        }
        self.shared
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .ticks += 1;
        self.shared.changed.notify_all();
        self.collect();
    }

    /// Waits until the writing thread has done every tick given so far.
    pub fn settle(&mut self) {
        if let Some(h) = &self.running {
            let state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
            let _state = self
                .shared
                .changed
                .wait_while(state, |s| s.done < s.ticks && !h.is_finished())
                .unwrap_or_else(|p| p.into_inner());
        }
        self.collect();
    }

    /// Tells the writer's failure, if there is one not told yet.
    fn collect(&mut self) {
        let error = self
            .shared
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .error
            .take();
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

    /// Stops the writing thread and waits for it.
    fn stop_writer(&mut self) {
        if let Some(h) = self.running.take() {
            self.shared.stop.store(true, Ordering::SeqCst);
            self.shared.changed.notify_all();
            let _ = h.join();
            self.shared.stop.store(false, Ordering::SeqCst);
        }
    }

    /// Rewrites the report now, on the calling thread, with the replay data still missing (on
    /// every CPU: the last games', which the writer had not reached); returns its path. The
    /// writing thread is stopped first.
    pub fn write(&mut self, pages: Pages) -> Result<PathBuf> {
        self.stop_writer();
        let out = self.dir.join(FILE);
        write_report(std::slice::from_ref(&self.dir), &out, &self.order, pages)?;
        Ok(out)
    }
}

impl Drop for LiveReport {
    fn drop(&mut self) {
        self.stop_writer();
    }
}
