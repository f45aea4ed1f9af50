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
mod live;
pub mod origins;
pub mod page;
pub mod pages;
#[cfg(test)]
mod reference;
pub mod sdk;
pub mod sdk_view;
pub mod seats;
pub mod sprt;
pub mod svg;
pub mod viewer;

pub use live::LiveReport;

#[cfg(test)]
mod tests;

use crate::results::records;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

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
    Standings(#[from] crate::results::standings::StandingsError),
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
    /// None: games whose data is there are linked, the others wait for a later rewrite (the
    /// live report's rewrites, while its data writer writes each game's beside them).
    Linked,
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
    write_report_unless(
        dirs,
        out,
        order,
        pages,
        threads,
        &AtomicBool::new(false),
        None,
    )
}

/// [`write_report`] with pages written on `threads` threads, giving up (before the next page,
/// without writing the report) once `stop` is set: the live report's background rewrite, on
/// one thread and stopped by the run's last rewrite. `publishing`, where given, is held while
/// `stop` is looked at for the last time and the report replaces the one there.
fn write_report_unless(
    dirs: &[PathBuf],
    out: &Path,
    order: &[String],
    pages: Pages,
    threads: usize,
    stop: &AtomicBool,
    publishing: Option<&std::sync::Mutex<()>>,
) -> Result<Written> {
    let base = out.parent().unwrap_or(Path::new(".")).to_path_buf();
    let base = std::path::absolute(&base).unwrap_or(base);
    let mut written = Written::default();
    let mut facts = data::RecordFacts::default();
    let mut read = records::ReadRecords::default();
    for (d, dir) in dirs.iter().enumerate() {
        let replays = replays_of(dir, d, dirs.len(), &base);
        // The viewer's page sits in the replays folder, linking back to the report.
        let back = href(
            &replays,
            &std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf()),
        );
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
        let summary = pages::write_folder(
            dir,
            &replays,
            &back,
            pages,
            threads,
            stop,
            |rec, page| match page {
                pages::Page::Kept(_) => facts.add(d, &rec, Some(link(&rec))),
                pages::Page::Written(_) => {
                    written.pages += 1;
                    facts.add(d, &rec, Some(link(&rec)));
                }
                pages::Page::Pending => facts.add(d, &rec, None),
                pages::Page::Failed(e) => {
                    written.failed.push(e);
                    facts.add(d, &rec, None);
                }
            },
        )?;
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
    let html = page::render(&data, &title);
    // Looked at again with the file held: a report rewritten after a stop would replace the
    // run's last one (see `live`).
    let _held = publishing.map(|m| m.lock().unwrap_or_else(|p| p.into_inner()));
    if stop.load(Ordering::SeqCst) {
        return Ok(written);
    }
    write_atomic(out, html.as_bytes()).map_err(|source| ReportError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(written)
}

/// Where the replay data of results folder `dir` (the `k`th of `count`) goes for a report in
/// the folder `base` (absolute): the folder's own `replays/` for its own report (DIR/report.html,
/// as a run writes it), else beside the report, which writes nothing into the folders it reads
/// (`arbiter report DIR --out X`): `replays/` for one folder, `replays-K` (K from 1) for each
/// of several.
fn replays_of(dir: &Path, k: usize, count: usize, base: &Path) -> PathBuf {
    let abs_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    if abs_dir == base {
        abs_dir.join("replays")
    } else if count == 1 {
        base.join("replays")
    } else {
        base.join(format!("replays-{}", k + 1))
    }
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
