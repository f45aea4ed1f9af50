//! Where each game's record is in `records.jsonl` (its replay page reads it from there), kept
//! for the latest games only, so that a league's memory does not grow with the games it has
//! played: a map of every game's offset grew by 38 KiB per 1,000 games under `arbiter bench
//! league` (hashbrown's doublings show as steps). The page links recent games; a replay of an
//! older one finds its record by reading the file through once.

use std::collections::{HashMap, VecDeque};
use std::io::BufRead;
use std::path::Path;

/// Games whose record offsets are kept in memory.
pub const KEPT: usize = 10_000;

/// The offsets of the latest games' records.
pub struct RecordIndex {
    limit: usize,
    offsets: HashMap<u64, u64>,
    /// Game ids in the order they were indexed (the oldest first).
    order: VecDeque<u64>,
}

impl Default for RecordIndex {
    fn default() -> RecordIndex {
        RecordIndex::new(KEPT)
    }
}

impl RecordIndex {
    pub fn new(limit: usize) -> RecordIndex {
        RecordIndex {
            limit: limit.max(1),
            offsets: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Game `id`'s record starts at `offset` (a later record of a game replaces an earlier one);
    /// the oldest game is forgotten past the limit.
    pub fn insert(&mut self, id: u64, offset: u64) {
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

    /// Games indexed in memory.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }
}

/// The offset of game `id`'s latest record in the records file at `path`, read through once
/// (for a game older than the ones kept in memory).
pub fn find(path: &Path, id: u64) -> std::io::Result<Option<u64>> {
    #[derive(serde::Deserialize)]
    struct Id {
        game_id: u64,
    }
    let mut reader = std::io::BufReader::new(std::fs::File::open(path)?);
    let (mut line, mut offset, mut found) = (Vec::new(), 0u64, None);
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(found);
        }
        if serde_json::from_slice::<Id>(&line).is_ok_and(|r| r.game_id == id) {
            found = Some(offset);
        }
        offset += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_keeps_the_latest_games_only_and_the_file_finds_the_others() {
        let mut index = RecordIndex::new(3);
        for id in 0..1000 {
            index.insert(id, id * 10);
        }
        assert_eq!(index.len(), 3, "bounded however many games were played");
        assert_eq!(index.get(999), Some(9990));
        assert_eq!(index.get(997), Some(9970));
        assert_eq!(index.get(996), None);
        // A game recorded again (a restart) moves to its latest record, and counts once.
        index.insert(998, 5);
        assert_eq!((index.get(998), index.len()), (Some(5), 3));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records.jsonl");
        let lines = [
            "{\"game_id\":7,\"moves\":[]}\n",
            "{\"game_id\":8,\"moves\":[\"a\"]}\n",
            "not a record\n",
            "{\"game_id\":7,\"moves\":[\"b\"]}\n",
        ];
        std::fs::write(&path, lines.concat()).unwrap();
        let at = |k: usize| lines[..k].iter().map(|l| l.len() as u64).sum::<u64>();
        assert_eq!(find(&path, 8).unwrap(), Some(at(1)));
        assert_eq!(find(&path, 7).unwrap(), Some(at(3)), "the latest record");
        assert_eq!(find(&path, 9).unwrap(), None);
    }
}
