//! Reading a class submission as its author could read it. A grader runs as root, and a student
//! may be able to change their folder while it is graded: a check of the tree followed by a copy
//! by path follows a symlink swapped in between the two (a root-only file was copied into a
//! student's report that way), and a hard link to a root-only file is a regular file to a check
//! by path. So the copy opens every path beneath the class folder from the class folder's own
//! descriptor, one component at a time, never following a symlink (`O_NOFOLLOW`: a symlink
//! swapped in makes the open fail), and judges each file by what it opened (`fstat` of the
//! descriptor it then reads): a file the student could not read (not theirs, not readable by
//! their group or by all) is refused, and so is a hard link to a file not everyone may read.
//! Symlinks inside the class folder that `check_tree` allowed are followed by resolving them
//! first and then opening their target beneath the class folder the same way.

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// Who a submission's files are read as: the owner of its top entry (the student's folder, or
/// the file of a one-file submission).
#[derive(Clone, Copy, Debug)]
pub struct SubmissionOwner {
    pub uid: u32,
    pub gid: u32,
}

/// Why a submission cannot be read as its author could.
#[derive(Debug, thiserror::Error)]
pub enum BeneathError {
    #[error("{path} changed while it was read (a symlink where it had none, or it is gone): {error}; leave the submission alone while it is graded")]
    Changed {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "{path} is a hard link to a file not everyone may read; submit a copy of the file instead"
    )]
    HardLink { path: PathBuf },
    #[error("{path} is not readable by the student who submitted it (owned by uid {owner}, mode {mode:o}); arbiter reads a submission only as its author could")]
    Unreadable {
        path: PathBuf,
        owner: u32,
        mode: u32,
    },
    #[error("{path} is not a regular file or folder (a FIFO, socket or device); remove it from the submission")]
    Special { path: PathBuf },
    #[error("cannot copy {path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Opens `rel` (a relative path without `..`) beneath the folder `base`, one component at a
/// time, following no symlink: a component that is a symlink fails the open (`ELOOP`, or
/// `ENOTDIR` for a folder component).
pub fn open_beneath(base: impl AsFd, rel: &Path) -> std::io::Result<OwnedFd> {
    let parts: Vec<&OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(p) => Ok(p),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a plain path beneath the class folder",
                    rel.display()
                ),
            )),
        })
        .collect::<Result<_, _>>()?;
    let mut dir = rustix::io::dup(base.as_fd())?;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let mut flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        if !last {
            flags |= OFlags::DIRECTORY;
        }
        dir = rustix::fs::openat(&dir, part.as_bytes(), flags, Mode::empty())?;
    }
    Ok(dir)
}

/// Whether `student` could read a file of this owner and mode (root reads all).
fn readable_by(student: SubmissionOwner, stat: &rustix::fs::Stat) -> bool {
    let mode = stat.st_mode;
    student.uid == 0
        || stat.st_uid == student.uid
        || mode & 0o004 != 0
        || (mode & 0o040 != 0 && stat.st_gid == student.gid)
}

/// Refuses a file or folder the student could not have read (see the module documentation).
fn judge(
    student: SubmissionOwner,
    stat: &rustix::fs::Stat,
    path: &Path,
) -> Result<(), BeneathError> {
    let world = stat.st_mode & 0o004 != 0;
    if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile && stat.st_nlink > 1 && !world
    {
        return Err(BeneathError::HardLink {
            path: path.to_path_buf(),
        });
    }
    if !readable_by(student, stat) {
        return Err(BeneathError::Unreadable {
            path: path.to_path_buf(),
            owner: stat.st_uid,
            mode: stat.st_mode & 0o7777,
        });
    }
    Ok(())
}

/// Copies the submission `entry` (a name in the class folder `class`) to `to` (which must not
/// exist), reading it as its author could (see the module documentation); symlinks within the
/// class folder are copied as the files they lead to.
pub fn copy_submission(class: &Path, entry: &OsStr, to: &Path) -> Result<(), BeneathError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| BeneathError::Io { path, error }
    };
    let class_canon = std::fs::canonicalize(class).map_err(io(class))?;
    let base = rustix::fs::open(
        &class_canon,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| io(class)(e.into()))?;
    let shown = class.join(entry);
    let top = open_entry(&base, &class_canon, Path::new(entry), &shown)?;
    let stat = rustix::fs::fstat(&top).map_err(|e| io(&shown)(e.into()))?;
    let student = SubmissionOwner {
        uid: stat.st_uid,
        gid: stat.st_gid,
    };
    copy_fd(
        &base,
        &class_canon,
        top,
        Path::new(entry),
        &shown,
        to,
        student,
    )
}

/// Opens `rel` beneath the class folder: itself when it is not a symlink, else the target the
/// symlink leads to (which must be in the class folder), in both cases without following any
/// symlink at open time.
fn open_entry(
    base: &OwnedFd,
    class: &Path,
    rel: &Path,
    shown: &Path,
) -> Result<OwnedFd, BeneathError> {
    let changed = |error: std::io::Error| BeneathError::Changed {
        path: shown.to_path_buf(),
        error,
    };
    let stat =
        rustix::fs::statat(base, rel, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| changed(e.into()))?;
    let rel = if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink {
        let target = std::fs::canonicalize(class.join(rel)).map_err(changed)?;
        match target.strip_prefix(class) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => {
                return Err(changed(std::io::Error::other(
                    "it leads out of the class folder",
                )))
            }
        }
    } else {
        rel.to_path_buf()
    };
    open_beneath(base, &rel).map_err(changed)
}

/// Copies what `fd` (opened as `rel`, shown as `shown`) holds to `to`.
fn copy_fd(
    base: &OwnedFd,
    class: &Path,
    fd: OwnedFd,
    rel: &Path,
    shown: &Path,
    to: &Path,
    student: SubmissionOwner,
) -> Result<(), BeneathError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error: std::io::Error| BeneathError::Io { path, error }
    };
    let stat = rustix::fs::fstat(&fd).map_err(|e| io(shown)(e.into()))?;
    judge(student, &stat, shown)?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => {
            let mut from = std::fs::File::from(fd);
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(to)
                .map_err(io(to))?;
            std::io::copy(&mut from, &mut file).map_err(io(shown))?;
            use std::os::unix::fs::PermissionsExt;
            let mode = if stat.st_mode & 0o111 != 0 {
                0o755
            } else {
                0o644
            };
            file.set_permissions(std::fs::Permissions::from_mode(mode))
                .map_err(io(to))?;
            Ok(())
        }
        FileType::Directory => {
            std::fs::create_dir(to).map_err(io(to))?;
            let dir = rustix::fs::Dir::read_from(&fd).map_err(|e| io(shown)(e.into()))?;
            let mut names = Vec::new();
            for entry in dir {
                let entry = entry.map_err(|e| io(shown)(e.into()))?;
                let name = OsStr::from_bytes(entry.file_name().to_bytes()).to_os_string();
                if name != "." && name != ".." {
                    names.push(name);
                }
            }
            names.sort();
            for name in names {
                let (rel, shown, to) = (rel.join(&name), shown.join(&name), to.join(&name));
                let child = open_entry(base, class, &rel, &shown)?;
                copy_fd(base, class, child, &rel, &shown, &to, student)?;
            }
            Ok(())
        }
        _ => Err(BeneathError::Special {
            path: shown.to_path_buf(),
        }),
    }
}

#[cfg(test)]
mod tests;
