//! A league folder's file read once and again only when it changed. The worker door asks for
//! the worker tokens on every call and for the bot list on every leased game; reading and
//! parsing them each time cost the server a file read per request (at 1,000 workers, thousands
//! a second). A file is known by its device, inode, size and modification and change times
//! (taken before it is read, so that a change while it is read shows at the next look):
//! arbiter writes these files by rename (a new inode), so a token made or revoked, or a bot
//! added, counts at the next request, as before.

use super::locks::Locked;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What identifies one version of a file; `None` while it does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        len: m.size(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

/// A file's contents as its reader makes them, kept while the file is unchanged.
pub struct Cached<T> {
    path: PathBuf,
    held: Mutex<Option<(Option<Stamp>, Arc<T>)>>,
}

impl<T> Cached<T> {
    pub fn new(path: PathBuf) -> Cached<T> {
        Cached {
            path,
            held: Mutex::new(None),
        }
    }

    /// The contents, read with `read` (given the path) when the file changed since the last
    /// read, or was never read. A failed read is not kept: the next call reads again.
    pub fn get<E>(&self, read: impl FnOnce(&Path) -> Result<T, E>) -> Result<Arc<T>, E> {
        let mut held = self.held.locked();
        let now = stamp(&self.path);
        if let Some((seen, value)) = held.as_ref() {
            if *seen == now {
                return Ok(value.clone());
            }
        }
        let value = Arc::new(read(&self.path)?);
        *held = Some((now, value.clone()));
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_file_is_read_again_only_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.toml");
        let cached: Cached<String> = Cached::new(path.clone());
        let reads = Cell::new(0);
        let get = || {
            cached
                .get(|p| {
                    reads.set(reads.get() + 1);
                    Ok::<_, std::io::Error>(std::fs::read_to_string(p).unwrap_or_default())
                })
                .unwrap()
        };
        // Missing, then made: read once each.
        assert_eq!(*get(), "");
        assert_eq!(*get(), "");
        assert_eq!(reads.get(), 1);
        std::fs::write(&path, "one").unwrap();
        assert_eq!(*get(), "one");
        assert_eq!(*get(), "one");
        assert_eq!(reads.get(), 2);
        // Replaced by rename with contents of the same size, at once (as arbiter writes).
        let tmp = dir.path().join("f.tmp");
        std::fs::write(&tmp, "two").unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        assert_eq!(*get(), "two");
        assert_eq!(reads.get(), 3);
        // A failed read is not kept.
        std::fs::write(&path, "three!").unwrap();
        let failed = cached.get(|_| Err::<String, _>("unreadable"));
        assert_eq!(failed.err(), Some("unreadable"));
        assert_eq!(*get(), "three!");
        assert_eq!(reads.get(), 4);
    }
}
