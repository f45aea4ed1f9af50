//! The build folder's life around the builds: made in a [`BuildStage`] the build's uid can reach,
//! handed back to arbiter's user afterwards (owned by it, no symlink out of it, nothing set-id,
//! readable by all) and moved into the cache.

use super::{running_as_root, BoxError};
use std::path::{Path, PathBuf};

/// Gives every entry under `dir` (and `dir`) to `uid`:`gid`, without following symlinks.
pub(super) fn chown_tree(dir: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(dir, Some(uid), Some(gid))?;
    if std::fs::symlink_metadata(dir)?.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}

/// Makes every file under `dir` readable, and every folder and executable file enterable, by
/// everyone (so a bot run later as another user can start from it); never follows symlinks.
fn open_to_all(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let mode = meta.permissions().mode() & 0o7777 & !0o7000;
    let wanted = if meta.is_dir() || mode & 0o100 != 0 {
        mode | 0o555
    } else {
        mode | 0o444
    };
    if wanted != meta.permissions().mode() & 0o7777 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(wanted))?;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            open_to_all(&entry?.path())?;
        }
    }
    Ok(())
}

/// Removes every symlink under `dir` that leads out of `root` (or to nothing): a build may
/// leave `build.log -> /root/secret` for arbiter to read or write as itself.
fn drop_outside_links(root: &Path, dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            let inside = std::fs::canonicalize(&path).is_ok_and(|t| t.starts_with(root));
            if !inside {
                std::fs::remove_file(&path)?;
            }
        } else if meta.is_dir() {
            drop_outside_links(root, &path)?;
        }
    }
    Ok(())
}

/// Hands the build folder `dir` back to arbiter's user after the builds (see the module
/// documentation): owned by it, without symlinks leading out of it, nothing set-id, readable
/// by all. Every process of the builds has ended (each box is killed with its step).
pub fn finish(dir: &Path) -> Result<(), BoxError> {
    let err = |error| BoxError::Folder {
        path: dir.to_path_buf(),
        error,
    };
    if running_as_root() {
        chown_tree(dir, 0, 0).map_err(err)?;
    }
    let root = std::fs::canonicalize(dir).map_err(err)?;
    drop_outside_links(&root, &root).map_err(err)?;
    open_to_all(dir).map_err(err)
}

/// Writes arbiter's own file `name` (a build log) into a build folder, replacing whatever the
/// build left there under that name (a symlink is replaced, never followed).
pub fn write_own_file(dir: &Path, name: &str, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path)?,
        Ok(_) => std::fs::remove_file(&path)?,
        Err(_) => {}
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    file.write_all(data)
}

/// A build folder in the making, reachable by the build's uid; removed unless installed.
pub struct BuildStage {
    parent: PathBuf,
    work: PathBuf,
}

impl BuildStage {
    /// A fresh stage in the system's temporary folder (`/tmp` when arbiter runs as root).
    pub fn new() -> std::io::Result<BuildStage> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // As root, /tmp itself: a TMPDIR under root's home could not be entered by the build.
        let tmp = if running_as_root() {
            PathBuf::from("/tmp")
        } else {
            std::env::temp_dir()
        };
        let parent = tmp.join(format!(
            "arbiter-build-{}-{nanos}-{}",
            std::process::id(),
            STAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        // Enterable, not listable, by others: the build's uid reaches its folder by name.
        std::fs::DirBuilder::new().mode(0o711).create(&parent)?;
        let stage = BuildStage {
            work: parent.join("work"),
            parent,
        };
        std::fs::DirBuilder::new().mode(0o700).create(&stage.work)?;
        Ok(stage)
    }

    /// The folder the build works in (`/build` inside the box).
    pub fn dir(&self) -> &Path {
        &self.work
    }

    /// Ends the builds ([`finish`]) and moves the folder to `dest` (a folder that must not
    /// exist yet; if another run installed it meanwhile, that one is kept).
    pub fn install(self, dest: &Path) -> Result<(), BoxError> {
        finish(&self.work)?;
        let err = |error| BoxError::Folder {
            path: dest.to_path_buf(),
            error,
        };
        if std::fs::rename(&self.work, dest).is_err() && !dest.is_dir() {
            // Another file system: copied beside the destination, then renamed into place.
            let beside = dest.with_extension(format!("part-{}", std::process::id()));
            copy_tree(&self.work, &beside).map_err(err)?;
            if let Err(e) = std::fs::rename(&beside, dest) {
                let _ = std::fs::remove_dir_all(&beside);
                if !dest.is_dir() {
                    return Err(err(e));
                }
            }
        }
        Ok(())
    }
}

impl Drop for BuildStage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.parent);
    }
}

static STAGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Copies the tree `from` to `to` (files, folders and symlinks as they are).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else if meta.is_dir() {
        std::fs::create_dir(to)?;
        std::fs::set_permissions(to, meta.permissions())?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else if meta.is_file() {
        std::fs::copy(from, to).map(|_| ())
    } else {
        Ok(()) // a FIFO or socket a build left behind is not part of the bot
    }
}
