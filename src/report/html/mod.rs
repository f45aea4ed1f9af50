//! `report.html`: one self-contained page per results folder (or several merged) with the
//! standings, charts and the list of games, and one replay page per recorded game under
//! `replays/`, drawn from the game's neutral board view. Written at the end of tournament and
//! sprt runs, rewritten every few seconds while they run, and by `arbiter report`.
//!
//! Templates use maud: the markup is checked when arbiter compiles and every value is escaped
//! unless marked otherwise, with no template files to ship or find at run time.

pub mod data;
pub mod external;
pub mod frames;
pub mod page;
pub mod svg;
pub mod viewer;

#[cfg(test)]
mod tests;

use crate::report::records::{self, GameRecord};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The report's file name inside a results folder.
pub const FILE: &str = "report.html";

/// Which replay pages to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// Every recorded game's page, replacing any there.
    All,
    /// Only pages not written yet (a live report while games are added). Past
    /// [`LIVE_PAGES`] recorded games, only the games lost by a forfeit get one as they come:
    /// a replay page is some 50 KB, so a league of 100,000 games would fill 5 GB; `arbiter
    /// report DIR` then writes the others.
    Missing,
}

/// How many games a run may have before its live report writes replay pages for forfeits only.
pub const LIVE_PAGES: usize = 5_000;

/// What writing a report did.
#[derive(Debug, Default)]
pub struct Written {
    pub games: usize,
    pub pages: usize,
    /// Games whose record could not be replayed, with why.
    pub failed: Vec<String>,
}

/// The replay page of game `id` in a results folder.
pub fn replay_path(dir: &Path, id: u64) -> PathBuf {
    dir.join("replays").join(format!("game-{id}.html"))
}

/// `target` as a link from a page in `from` (relative when it is inside it).
fn href(from: &Path, target: &Path) -> String {
    match target.strip_prefix(from) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => target.to_string_lossy().into_owned(),
    }
}

/// Writes `out` (a report of the folders `dirs`, bots of `order` first) and the replay pages.
pub fn write_report(
    dirs: &[PathBuf],
    out: &Path,
    order: &[String],
    pages: Pages,
) -> Result<Written> {
    write_report_capped(dirs, out, order, pages, LIVE_PAGES)
}

/// [`write_report`], with `Pages::Missing` writing pages for forfeits only past `live_pages`
/// recorded games.
fn write_report_capped(
    dirs: &[PathBuf],
    out: &Path,
    order: &[String],
    pages: Pages,
    live_pages: usize,
) -> Result<Written> {
    let (recs, read) = records::read_folders(dirs).context("reading records.jsonl")?;
    let base = out.parent().unwrap_or(Path::new(".")).to_path_buf();
    let base = std::path::absolute(&base).unwrap_or(base);
    let mut written = Written::default();
    let mut ok: std::collections::HashSet<(usize, u64)> = Default::default();
    let forfeits_only = pages == Pages::Missing && recs.len() > live_pages;
    let mut skipped = 0usize;
    for (d, rec) in &recs {
        let path = replay_path(&dirs[*d], rec.game_id);
        if pages == Pages::Missing && path.exists() {
            ok.insert((*d, rec.game_id));
            continue;
        }
        if forfeits_only && rec.forfeits.is_empty() {
            skipped += 1;
            continue;
        }
        // The page sits in DIR/replays/: the report is one folder up when it is DIR's own.
        let abs_dir = std::path::absolute(&dirs[*d]).unwrap_or_else(|_| dirs[*d].clone());
        let back = match out.file_name() {
            Some(name) if base == abs_dir => format!("../{}", name.to_string_lossy()),
            _ => std::path::absolute(out)
                .unwrap_or_else(|_| out.to_path_buf())
                .to_string_lossy()
                .into_owned(),
        };
        match viewer::page(rec, Some(&back)) {
            Ok(html) => {
                std::fs::create_dir_all(path.parent().expect("a replays folder"))?;
                write_atomic(&path, html.as_bytes())?;
                written.pages += 1;
                ok.insert((*d, rec.game_id));
            }
            Err(e) => written.failed.push(e.to_string()),
        }
    }
    let link = |d: usize, r: &GameRecord| {
        ok.contains(&(d, r.game_id)).then(|| {
            let abs = std::path::absolute(replay_path(&dirs[d], r.game_id)).unwrap_or_default();
            href(&base, &abs)
        })
    };
    let abs_dirs: Vec<PathBuf> = dirs
        .iter()
        .map(|d| std::path::absolute(d).unwrap_or(d.clone()))
        .collect();
    let mut data = data::gather(&abs_dirs, order, &recs, read, &link)?;
    for f in &written.failed {
        data.notes.push(format!("a game cannot be replayed: {f}"));
    }
    if skipped > 0 {
        data.notes.push(format!(
            "{skipped} games have no replay page yet: past {live_pages} games a running \
             tournament writes pages for forfeits only (some 50 KB each); `arbiter report {}` \
             writes every page",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    written.games = data.games.len();
    let title = title_of(&data);
    write_atomic(out, page::render(&data, &title).as_bytes())?;
    Ok(written)
}

/// "arbiter report: impasse, 3 bots".
fn title_of(d: &data::ReportData) -> String {
    let game = d
        .folders
        .iter()
        .flat_map(|f| &f.settings)
        .find(|(k, _)| k == "game.game")
        .map_or("games".to_string(), |(_, v)| v.clone());
    let bots = d.standings.as_ref().map_or(0, |s| s.names.len());
    format!("arbiter report: {game}, {bots} bots")
}

/// Writes through a temporary file and a rename, so a browser reloading the page never reads
/// half of it.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("html.tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The report of a run in progress, rewritten every few seconds as games finish.
pub struct LiveReport {
    dir: PathBuf,
    order: Vec<String>,
    next: Instant,
    /// The pause between rewrites: at least 5 s, and ten times the last rewrite's duration,
    /// so that a large run spends at most a tenth of its time on its report.
    pause: Duration,
    warned: bool,
}

impl LiveReport {
    pub fn new(dir: &Path, order: &[String]) -> LiveReport {
        LiveReport {
            dir: dir.to_path_buf(),
            order: order.to_vec(),
            next: Instant::now(),
            pause: Duration::from_secs(5),
            warned: false,
        }
    }

    /// Rewrites the report if the pause has passed. A failure is not fatal to the run: it is
    /// told once on stderr, and the next rewrite tries again.
    pub fn tick(&mut self) {
        if Instant::now() < self.next {
            return;
        }
        if let Err(e) = self.write(Pages::Missing) {
            self.next = Instant::now() + self.pause;
            if !self.warned {
                self.warned = true;
                eprintln!(
                    "arbiter: warning: cannot update {}: {e:#}",
                    self.dir.join(FILE).display()
                );
            }
        }
    }

    /// Rewrites the report now; returns its path.
    pub fn write(&mut self, pages: Pages) -> Result<PathBuf> {
        let started = Instant::now();
        let out = self.dir.join(FILE);
        write_report(std::slice::from_ref(&self.dir), &out, &self.order, pages)?;
        let took = started.elapsed();
        self.pause = Duration::from_secs(5).max(took * 10);
        self.next = Instant::now() + self.pause;
        Ok(out)
    }
}
