//! Bot folders someone else wrote (a class's submissions): read only as their author could
//! have read them (no symlink out of the class folder, no FIFO, socket or device), copied into
//! the build cache, and their `bot.toml` build command run there in the build box, never in
//! place and never as arbiter's user.

use super::{hash_hex, run_steps, BoxError, BuildStage, SourceError};
use crate::bot::host::cache_root;
use std::path::{Path, PathBuf};

/// Bumped when the way folders are copied or built changes.
const FOLDER_RECIPE: &str = "arbiter-folder-1";

/// Refuses a submission `entry` of the class folder `class` that its author could not have
/// made readable to a grader by ordinary means: a symlink (at any depth) whose target is
/// outside `class`, missing or a folder, or a FIFO, socket or device. The message names the
/// path.
pub fn check_tree(class: &Path, entry: &Path) -> Result<(), String> {
    let class = std::fs::canonicalize(class)
        .map_err(|e| format!("cannot read the class folder {}: {e}", class.display()))?;
    fn walk(class: &Path, path: &Path) -> Result<(), String> {
        let meta = std::fs::symlink_metadata(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            let target = std::fs::canonicalize(path).map_err(|_| {
                format!(
                    "{} is a symlink to nothing readable; submit the file itself",
                    path.display()
                )
            })?;
            if !target.starts_with(class) {
                return Err(format!(
                    "{} is a symlink leading out of the class folder; arbiter does not follow it: submit the file itself",
                    path.display()
                ));
            }
            // Its target is in the class folder and is checked there as well. A symlink to a
            // folder is refused: it could make a loop, and a submission needs none.
            let target_meta = std::fs::metadata(&target)
                .map_err(|e| format!("cannot read {}: {e}", target.display()))?;
            if target_meta.is_dir() {
                return Err(format!(
                    "{} is a symlink to a folder; submit the folder itself",
                    path.display()
                ));
            }
            if !target_meta.is_file() {
                return Err(special(path));
            }
            return Ok(());
        }
        if kind.is_dir() {
            let entries = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            for e in entries {
                let e = e.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                walk(class, &e.path())?;
            }
            return Ok(());
        }
        if !kind.is_file() {
            return Err(special(path));
        }
        Ok(())
    }
    fn special(path: &Path) -> String {
        format!(
            "{} is not a regular file or folder (a FIFO, socket or device); remove it from the submission",
            path.display()
        )
    }
    walk(&class, entry)
}

/// The bytes that name a folder's contents for the cache: each entry's relative path, then a
/// file's bytes or a symlink's target (sorted by name).
fn content_key(root: &Path, dir: &Path, out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap_or(&p);
        out.extend_from_slice(rel.as_os_str().as_encoded_bytes());
        out.push(0);
        let meta = std::fs::symlink_metadata(&p)?;
        if meta.file_type().is_symlink() {
            out.push(b'l');
            out.extend_from_slice(std::fs::read_link(&p)?.as_os_str().as_encoded_bytes());
        } else if meta.is_dir() {
            out.push(b'd');
            content_key(root, &p, out)?;
        } else {
            use std::os::unix::fs::PermissionsExt;
            out.push(if meta.permissions().mode() & 0o111 != 0 {
                b'x'
            } else {
                b'f'
            });
            out.extend_from_slice(&std::fs::read(&p)?);
        }
        out.push(0);
    }
    Ok(())
}

/// Copies the tree `from` to `to`, following symlinks (which [`check_tree`] has confined to the
/// class folder) and leaving out anything that is not a file or folder.
fn copy_following(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::metadata(from)?;
    if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_following(&entry.path(), &to.join(entry.file_name()))?;
        }
    } else if meta.is_file() {
        std::fs::copy(from, to)?;
    }
    Ok(())
}

/// A bot's folder to copy into the build cache (a folder with a bot.toml or referee.toml
/// someone else wrote): the bot's name (for messages), its folder and its build command.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot<'a> {
    pub name: &'a str,
    pub dir: &'a Path,
    pub build: Option<&'a str>,
}

/// A copy of the folder in the build cache, built there in the build box if it has a build
/// command: the copy's folder, from which the bot runs (`BotSpec::snapshot` makes its spec).
/// The copy is found again, not rebuilt, while the folder and its build command are unchanged.
pub fn snapshot_folder(folder: Snapshot<'_>) -> Result<PathBuf, SourceError> {
    snapshot_folder_in(&cache_root(), folder)
}

/// Where the built copy of the folder is (or will be) in the cache `root`: named by the
/// folder's contents and its build command.
fn snapshot_dest(root: &Path, folder: Snapshot<'_>) -> std::io::Result<PathBuf> {
    let mut key = Vec::new();
    for part in [FOLDER_RECIPE, folder.build.unwrap_or("")] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    content_key(folder.dir, folder.dir, &mut key)?;
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    Ok(root.join(format!("folder-{}", &hash_hex(&key)[..32])))
}

/// Whether [`snapshot_folder`] finds the folder built already (so that no build runs).
pub fn snapshot_built(folder: Snapshot<'_>) -> bool {
    snapshot_dest(&cache_root(), folder).is_ok_and(|d| d.is_dir())
}

/// [`snapshot_folder`] with the cache in `root`.
pub fn snapshot_folder_in(root: &Path, folder: Snapshot<'_>) -> Result<PathBuf, SourceError> {
    let name = folder.name.to_string();
    let cache_err = |path: &Path| {
        let name = name.clone();
        let path = path.to_path_buf();
        move |source| SourceError::Cache { name, path, source }
    };
    let dest = snapshot_dest(root, folder).map_err(cache_err(folder.dir))?;
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    if !dest.is_dir() {
        std::fs::create_dir_all(&root).map_err(cache_err(&root))?;
        let stage = BuildStage::new().map_err(cache_err(&std::env::temp_dir()))?;
        copy_following(folder.dir, stage.dir()).map_err(cache_err(stage.dir()))?;
        if let Some(command) = folder.build {
            let words = shell_words::split(command).map_err(|e| SourceError::Refused {
                name: name.clone(),
                message: format!("cannot split the build command `{command}`: {e}"),
            })?;
            if words.is_empty() {
                return Err(SourceError::Refused {
                    name,
                    message: "the build command is empty".into(),
                });
            }
            let log = run_steps(&name, &[words], stage.dir())?;
            crate::bot::build_box::write_own_file(stage.dir(), "build.log", log.as_bytes())
                .map_err(cache_err(stage.dir()))?;
        }
        stage
            .install(&dest)
            .map_err(|problem: BoxError| SourceError::Box {
                name: name.clone(),
                problem,
            })?;
    }
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submission_may_link_inside_the_class_and_nowhere_else() {
        let tmp = tempfile::tempdir().unwrap();
        let class = tmp.path().join("class");
        let alice = class.join("alice");
        std::fs::create_dir_all(alice.join("lib")).unwrap();
        std::fs::write(alice.join("bot.py"), "print(1)").unwrap();
        std::fs::write(tmp.path().join("outside.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(alice.join("bot.py"), alice.join("lib/same.py")).unwrap();
        assert_eq!(check_tree(&class, &alice), Ok(()));
        let deep = alice.join("lib/data.txt");
        std::os::unix::fs::symlink(tmp.path().join("outside.txt"), &deep).unwrap();
        let err = check_tree(&class, &alice).unwrap_err();
        assert!(err.contains("leading out of the class folder"), "{err}");
        assert!(err.contains("data.txt"), "{err}");
        std::fs::remove_file(&deep).unwrap();
        std::os::unix::fs::symlink("../..", alice.join("lib/loop")).unwrap();
        let err = check_tree(&class, &alice).unwrap_err();
        assert!(err.contains("symlink to a folder"), "{err}");
        std::fs::remove_file(alice.join("lib/loop")).unwrap();
        std::os::unix::fs::symlink("missing", alice.join("gone")).unwrap();
        let err = check_tree(&class, &alice).unwrap_err();
        assert!(err.contains("to nothing readable"), "{err}");
    }
}
