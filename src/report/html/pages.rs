//! Writes a results folder's replay data (a file per game, [`viewer::data_file`]) on several
//! threads, for `arbiter report` and merged reports, which write every game's again. A game's
//! data is replayed, encoded and written by itself, so they spread over the CPUs; the records
//! come back in the order they were read, so the report that gathers them reads the same
//! whatever the number of threads. A run's own games get theirs as they end
//! ([`super::follow`]).

use super::frames::Inputs;
use super::{viewer, write_atomic, Pages};
use super::{ReportError, Result};
use crate::results::records::{self, GameRecord, ReadRecords};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

/// What became of one record's replay data.
pub enum Page {
    /// There already, and kept ([`Pages::Missing`], [`Pages::Linked`]).
    Kept(PathBuf),
    /// Not there yet, and not written ([`Pages::Linked`]).
    Pending,
    Written(PathBuf),
    /// The record cannot be replayed: why.
    Failed(String),
}

/// What a worker hands back: the page, or the file it could not write and why.
type Done = std::result::Result<Page, (PathBuf, std::io::Error)>;

/// Hands finished pages on in the order their records were read.
struct InOrder<F> {
    next: u64,
    ready: BTreeMap<u64, (GameRecord, Done)>,
    each: F,
    /// The first page that could not be written: nothing more is handed on after it.
    io_error: Option<(PathBuf, std::io::Error)>,
}

impl<F: FnMut(GameRecord, Page)> InOrder<F> {
    fn put(&mut self, seq: u64, rec: GameRecord, done: Done) {
        self.ready.insert(seq, (rec, done));
        while let Some((rec, done)) = self.ready.remove(&self.next) {
            self.next += 1;
            match done {
                _ if self.io_error.is_some() => {}
                Ok(page) => (self.each)(rec, page),
                Err(e) => self.io_error = Some(e),
            }
        }
    }
}

/// Writes the replay data of `rec` at `path` (every turn's input but the telling ones left
/// out: see [`Inputs::Telling`]).
pub(super) fn write_page(rec: &GameRecord, path: PathBuf) -> Done {
    match viewer::data_script(rec, Inputs::Telling) {
        Ok(text) => match write_atomic(&path, text.as_bytes()) {
            Ok(()) => Ok(Page::Written(path)),
            Err(e) => Err((path, e)),
        },
        Err(e) => Ok(Page::Failed(e.to_string())),
    }
}

/// Writes the replay data of the records of `dir` into `replays` (`pages` says which) on
/// `threads` threads (1: on the calling thread alone), with the viewer linking back to the
/// report at `back`, and hands each record with what became of its data to `each`, in the order
/// of the records file. Gives up before the next record once `stop` is set.
pub fn write_folder(
    dir: &Path,
    replays: &Path,
    back: &str,
    pages: Pages,
    threads: usize,
    stop: &AtomicBool,
    each: impl FnMut(GameRecord, Page),
) -> Result<ReadRecords> {
    // Games already there are shown by the viewer of this arbiter too.
    let mut assets = replays.is_dir();
    // Linked writes nothing: the viewer is the data writer's.
    if assets && pages != Pages::Linked {
        viewer::write_assets(replays, back).map_err(|source| ReportError::Viewer {
            path: replays.to_path_buf(),
            source,
        })?;
    }
    let origins = super::origins::Origins::of_folder(dir);
    let threads = threads.max(1);
    let mut order = InOrder {
        next: 0,
        ready: BTreeMap::new(),
        each,
        io_error: None,
    };
    let (jobs, queue) = mpsc::sync_channel::<(u64, GameRecord, PathBuf)>(threads * 2);
    let queue = Mutex::new(queue);
    let (finished, done) = mpsc::channel::<(u64, GameRecord, Done)>();
    let summary = std::thread::scope(|scope| {
        // One thread: the calling one (the live report's, whose priority its owner changes).
        let workers = if threads > 1 { threads } else { 0 };
        for _ in 0..workers {
            let (queue, finished) = (&queue, finished.clone());
            scope.spawn(move || loop {
                let job = queue.lock().map(|q| q.recv());
                let Ok(Ok((seq, rec, path))) = job else { break };
                let done = write_page(&rec, path);
                if finished.send((seq, rec, done)).is_err() {
                    break;
                }
            });
        }
        drop(finished);
        let mut seq = 0u64;
        let summary = records::for_each_record(&dir.join(records::FILE), |mut rec| {
            while let Ok((s, rec, d)) = done.try_recv() {
                order.put(s, rec, d);
            }
            if order.io_error.is_some() || stop.load(Ordering::Relaxed) {
                return;
            }
            origins.apply(&mut rec);
            let path = replays.join(viewer::data_file(rec.game_id));
            seq += 1;
            if pages != Pages::All && path.exists() {
                order.put(seq - 1, rec, Ok(Page::Kept(path)));
                return;
            }
            if pages == Pages::Linked {
                order.put(seq - 1, rec, Ok(Page::Pending));
                return;
            }
            if !assets {
                if let Err(e) = viewer::write_assets(replays, back) {
                    order.put(seq - 1, rec, Err((path, e)));
                    return;
                }
                assets = true;
            }
            if workers == 0 {
                let done = write_page(&rec, path);
                order.put(seq - 1, rec, done);
            } else {
                jobs.send((seq - 1, rec, path))
                    .expect("the page writers run until the jobs end");
            }
        });
        drop(jobs);
        for (s, rec, d) in done.iter() {
            order.put(s, rec, d);
        }
        summary
    })
    .map_err(|source| ReportError::Records {
        path: dir.join(records::FILE),
        source,
    })?;
    if let Some((path, source)) = order.io_error {
        return Err(ReportError::Write { path, source });
    }
    Ok(summary)
}
