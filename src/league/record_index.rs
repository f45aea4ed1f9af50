//! Where each game's record is in `records.jsonl` (its replay page reads it from there), so
//! that a replay page reads one record, never the file: a page of an unknown game read all of
//! records.jsonl (0.5 s of CPU at 47 MB), which anyone on the network could ask for again and
//! again. The latest games' offsets are kept in memory (a map of every game's grew by 38 KiB per
//! 1,000 games under `arbiter bench league`); every game's is in a file beside the records,
//! `records.index`: 8 bytes at 8 times the game's id (the offset plus one; zero: no record),
//! rebuilt from records.jsonl at every start (the records stay the truth) and written as each
//! game is recorded. A lookup reads 8 bytes of it; the server's memory does not grow with it.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// Games whose record offsets are kept in memory.
pub const KEPT: usize = 10_000;

/// The index file in the league's folder.
pub const FILE: &str = "records.index";

/// Game ids the index file holds (8 bytes each: a file of at most 8 TiB, sparse where ids
/// are missing). A league numbers its games from 0, one by one.
const MAX_ID: u64 = 1 << 40;

/// The offsets of the latest games' records, and the file of every game's.
pub struct RecordIndex {
    limit: usize,
    offsets: HashMap<u64, u64>,
    /// Game ids in the order they were indexed (the oldest first).
    order: VecDeque<u64>,
    file: Option<Arc<IndexFile>>,
}

impl Default for RecordIndex {
    fn default() -> RecordIndex {
        RecordIndex::new(KEPT)
    }
}

impl RecordIndex {
    /// In memory only.
    pub fn new(limit: usize) -> RecordIndex {
        RecordIndex {
            limit: limit.max(1),
            offsets: HashMap::new(),
            order: VecDeque::new(),
            file: None,
        }
    }

    /// With every game's offset also in the index file at `path`, made empty here (it is
    /// filled again from the records).
    pub fn with_file(path: &Path) -> std::io::Result<RecordIndex> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(RecordIndex {
            file: Some(Arc::new(IndexFile { file })),
            ..RecordIndex::default()
        })
    }

    /// Game `id`'s record starts at `offset` (a later record of a game replaces an earlier one);
    /// the oldest game is forgotten in memory past the limit. An error: the index file could
    /// not be written (the game is in memory still).
    pub fn insert(&mut self, id: u64, offset: u64) -> std::io::Result<()> {
        self.remember(id, offset);
        match &self.file {
            Some(f) => f.insert(id, offset),
            None => Ok(()),
        }
    }

    /// [`RecordIndex::insert`] in memory only: the caller writes the file (through
    /// [`RecordIndex::file`], without holding what holds this index).
    pub fn remember(&mut self, id: u64, offset: u64) {
        if self.offsets.insert(id, offset).is_none() {
            self.order.push_back(id);
        }
        while self.order.len() > self.limit {
            if let Some(old) = self.order.pop_front() {
                self.offsets.remove(&old);
            }
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        self.offsets.contains_key(&id)
    }

    /// The offset of game `id`'s record, when it is among the latest games.
    pub fn get(&self, id: u64) -> Option<u64> {
        self.offsets.get(&id).copied()
    }

    /// The index file of every game (read without holding what holds this index).
    pub fn file(&self) -> Option<Arc<IndexFile>> {
        self.file.clone()
    }

    /// Games indexed in memory.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }
}

/// `records.index` (see the module's doc).
pub struct IndexFile {
    file: File,
}

impl IndexFile {
    /// Writes that game `id`'s latest record starts at `offset`.
    pub fn insert(&self, id: u64, offset: u64) -> std::io::Result<()> {
        if id >= MAX_ID {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("game id {id} is past what the replay index holds"),
            ));
        }
        self.file.write_all_at(&(offset + 1).to_le_bytes(), id * 8)
    }

    /// The offset of game `id`'s latest record (8 bytes read), if it has one.
    pub fn get(&self, id: u64) -> std::io::Result<Option<u64>> {
        if id >= MAX_ID {
            return Ok(None);
        }
        let mut slot = [0u8; 8];
        match self.file.read_exact_at(&mut slot, id * 8) {
            Ok(()) => Ok(u64::from_le_bytes(slot).checked_sub(1)),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_keeps_the_latest_games_and_the_file_every_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, [0xffu8; 64]).unwrap();
        let mut index = RecordIndex::with_file(&path).unwrap();
        index.limit = 3;
        let file = index.file().unwrap();
        assert_eq!(file.get(2).unwrap(), None, "made empty at start");
        for id in 0..1000 {
            index.insert(id, id * 10).unwrap();
        }
        assert_eq!(index.len(), 3, "bounded however many games were played");
        assert_eq!(index.get(999), Some(9990));
        assert_eq!(index.get(996), None);
        assert_eq!(file.get(996).unwrap(), Some(9960), "the file has them all");
        assert_eq!(file.get(0).unwrap(), Some(0), "an offset of 0 is a record");
        // A game recorded again (a restart) moves to its latest record, and counts once.
        index.insert(998, 5).unwrap();
        assert_eq!((index.get(998), index.len()), (Some(5), 3));
        assert_eq!(file.get(998).unwrap(), Some(5));
        // Unknown ids, however large, are a read of 8 bytes or none.
        assert_eq!(file.get(5000).unwrap(), None);
        assert_eq!(file.get(u64::MAX).unwrap(), None);
        index.insert(2000, 77).unwrap();
        assert_eq!(file.get(1500).unwrap(), None, "a gap between ids");
        assert!(index.insert(u64::MAX, 1).is_err());
        assert!(std::fs::metadata(&path).unwrap().len() <= 2001 * 8);
    }

    #[test]
    fn remembering_writes_no_file_and_the_file_is_written_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut index = RecordIndex::with_file(&path).unwrap();
        index.limit = 2;
        let file = index.file().unwrap();
        index.remember(5, 50);
        assert_eq!(index.get(5), Some(50));
        assert_eq!(file.get(5).unwrap(), None, "memory only");
        file.insert(5, 50).unwrap();
        assert_eq!(file.get(5).unwrap(), Some(50));
        // Remembering keeps the same limit as inserting.
        index.remember(6, 60);
        index.remember(7, 70);
        assert_eq!(
            (index.get(5), index.get(7), index.len()),
            (None, Some(70), 2)
        );
    }
}
