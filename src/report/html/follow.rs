//! The live report's replay data writer: it follows `records.jsonl` as a run appends to it and
//! writes each new game's data file as soon as its record is there, on the live report's
//! thread. A data file is small and cheap (a few KB, a fraction of a millisecond of CPU for an
//! instant bots' game), so the writer keeps up with the games at any concurrency and nothing is
//! left for the run's end but the last games' files.

use super::origins::Origins;
use super::pages::{write_page, Page};
use super::{replay_path, viewer, FILE};
use crate::results::records::{self, GameRecord};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Where following a results folder's records has got to.
pub struct Follower {
    dir: PathBuf,
    /// The link back to the folder's own report, from a page in `replays/`.
    back: String,
    origins: Origins,
    /// Bytes of records.jsonl handled (whole lines only).
    offset: u64,
    /// Whether the viewer is in `replays/`.
    assets: bool,
    buf: Vec<u8>,
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
        }
    }

    /// Writes the replay data still missing of the records appended since the last call (whole
    /// lines: a record being appended waits for the next call), giving up before the next
    /// record once `stop` is set. Returns the files written, or the first one that could not
    /// be written and why. A record the rules cannot replay gets none (the report says so).
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
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let line = &self.buf[at..at + end + 1];
            at += end + 1;
            let Ok(mut rec) = serde_json::from_slice::<GameRecord>(line) else {
                self.offset += (end + 1) as u64;
                continue;
            };
            if self.page(&mut rec)? {
                written += 1;
            }
            self.offset += (end + 1) as u64;
        }
        Ok(written)
    }

    /// Writes `rec`'s replay data unless it is there; whether it wrote it.
    fn page(&mut self, rec: &mut GameRecord) -> Result<bool, (PathBuf, io::Error)> {
        let path = replay_path(&self.dir, rec.game_id);
        if path.exists() {
            return Ok(false);
        }
        if !self.assets {
            let replays = self.dir.join("replays");
            viewer::write_assets(&replays, &self.back).map_err(|e| (replays, e))?;
            self.assets = true;
        }
        self.origins.apply(rec);
        match write_page(rec, path) {
            Ok(Page::Written(_)) => Ok(true),
            Ok(_) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
