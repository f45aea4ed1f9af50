//! One run owns a results folder: an advisory lock (flock) on `DIR/.lock`, held while the run
//! lasts and released by the kernel when the process ends, however it ends, so a kill -9 never
//! leaves a stale lock. The owner's pid is written into the file for the message a second run
//! shows.

use rustix::fs::{flock, FlockOperation};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Held for as long as the run writes into the folder.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

/// Why a results folder cannot be claimed.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{} is in use by another arbiter run (pid {pid}); wait for it to finish, stop it, or \
         choose another --out",
        dir.display()
    )]
    Busy { dir: PathBuf, pid: String },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl FolderLock {
    /// Creates `dir` if needed and locks it, or says who holds it.
    pub fn acquire(dir: &Path) -> Result<FolderLock, LockError> {
        let path = dir.join(".lock");
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        // A run killed a moment ago may still be releasing it: a bot it was starting holds a
        // copy of the descriptor until that bot's exec or death. Retry for a short while.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        let mut locked = flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok();
        while !locked && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            locked = flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok();
        }
        if !locked {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            return Err(LockError::Busy {
                dir: dir.to_path_buf(),
                pid: match pid.trim() {
                    "" => "unknown".into(),
                    p => p.to_string(),
                },
            });
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(FolderLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_fails_with_the_owners_pid_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = FolderLock::acquire(dir.path()).unwrap();
        let err = FolderLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        FolderLock::acquire(dir.path()).unwrap();
    }
}
