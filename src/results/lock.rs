//! One run owns a results folder: an advisory lock (flock) on `DIR/.lock`, held while the run
//! lasts and released by the kernel when the process ends, however it ends, so a kill -9 never
//! leaves a stale lock. The owner's pid is written into the file for the message a second run
//! shows.

use crate::options::Opt;
use rustix::fs::{flock, FlockOperation};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Held for as long as the run writes into the folder. A run that wrote nothing (a bot could not
/// start, the settings were refused) leaves no folder behind holding only `.lock`: dropping the
/// lock removes the lock file, and the folder if this lock created it, when nothing else is there.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
    dir: PathBuf,
    created: bool,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        let only_lock = std::fs::read_dir(&self.dir).is_ok_and(|entries| {
            let names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
            names == [std::ffi::OsString::from(".lock")]
        });
        if only_lock && std::fs::remove_file(self.dir.join(".lock")).is_ok() && self.created {
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// Why a results folder cannot be claimed.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{} is in use by another arbiter run (pid {pid}); wait for it to finish, stop it, or \
         choose another {}",
        dir.display(), Opt::Out
    )]
    Busy { dir: PathBuf, pid: String },
    #[error(
        "cannot use {} as the results folder: {} is a file, not a folder; choose another {} \
         (a folder, new or from an earlier run)",
        dir.display(), file.display(), Opt::Out
    )]
    NotAFolder { dir: PathBuf, file: PathBuf },
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
        // The folder, or a folder on its way, named by a file: say so (the OS says only "File
        // exists" or "Not a directory").
        if let Some(file) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
            return Err(LockError::NotAFolder {
                dir: dir.to_path_buf(),
                file: file.to_path_buf(),
            });
        }
        let created = !dir.exists();
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
        Ok(FolderLock {
            _file: file,
            dir: dir.to_path_buf(),
            created,
        })
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

    #[test]
    fn a_file_named_as_the_folder_is_named_in_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("results.txt");
        std::fs::write(&file, "x").unwrap();
        for out in [file.clone(), file.join("run")] {
            let err = FolderLock::acquire(&out).unwrap_err().to_string();
            assert!(err.contains("is a file, not a folder"), "{err}");
            assert!(!err.contains("os error"), "{err}");
        }
    }

    #[test]
    fn a_run_that_wrote_nothing_leaves_no_folder_and_a_used_folder_keeps_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new");
        drop(FolderLock::acquire(&out).unwrap());
        assert!(!out.exists(), "an unused folder it created is removed");
        let lock = FolderLock::acquire(&out).unwrap();
        std::fs::write(out.join("games.csv"), "x").unwrap();
        drop(lock);
        assert!(out.join("games.csv").exists() && out.join(".lock").exists());
        // A folder the user made stays, without the lock file.
        let mine = dir.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        drop(FolderLock::acquire(&mine).unwrap());
        assert!(mine.is_dir() && !mine.join(".lock").exists());
    }
}
