//! Making a bot's own files reachable for its unprivileged user. A referee running as root runs
//! each bot as a user that owns nothing (see [`super::isolation::SeatId`]); that user cannot
//! enter folders that only root may, such as /root (mode 0700) or a temporary folder (0700), so
//! a bot kept there could not start. Inside the bot's own mount namespace, the first folder on
//! the way that the user cannot enter is covered by an empty in-memory folder, the way down to
//! the bot's file or folder is made in it, and that file or folder is bound there from a
//! descriptor the referee opened. The bot then sees its own files at their usual paths and
//! nothing else of the covered folder. The host's files and modes are never changed.
//!
//! An isolated bot (see [`super::isolation`]) also gets scratch folders of its own: an empty,
//! size-capped in-memory folder over each of the machine's shared writable folders (/tmp,
//! /var/tmp, /run/lock: see [`scratch_folders`]), so that nothing it writes there reaches
//! another bot or outlives it. Its own files below one of them are bound into it the same way.
//!
//! The plan is made here, by the referee; the spawner's child carries it out with raw system
//! calls before it drops to the bot's user. It opens every source first (a descriptor opened
//! in the referee's mount namespace cannot be bound in another one), then mounts.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// One step of the child, in order.
#[derive(Debug)]
pub enum Op {
    /// Mount an empty in-memory folder (mode 0755) over this folder.
    Tmpfs(CString),
    /// Mount an empty in-memory folder that every user may write (mode 1777, sized as the
    /// bot's /dev/shm) over this folder: the bot's own scratch folder.
    Scratch(CString),
    /// Make this folder (already there is fine).
    Dir(CString),
    /// Make this empty file (already there is fine).
    File(CString),
    /// Bind `from` (the same path, opened before any step) onto `to`.
    Bind { from: CString, to: CString },
}

/// The steps.
#[derive(Debug, Default)]
pub struct ReachPlan {
    pub ops: Vec<Op>,
    /// The folders covered, for messages.
    pub covered: Vec<PathBuf>,
}

/// Why a bot's file cannot be made reachable.
#[derive(Debug, thiserror::Error)]
#[error("{path} {why}")]
pub struct ReachError {
    pub path: PathBuf,
    pub why: String,
}

/// Whether other users (neither owner nor group) may enter folder `meta`.
fn others_enter(meta: &std::fs::Metadata) -> bool {
    meta.mode() & 0o001 != 0
}

/// Whether other users may read (and, for a folder, list and enter) `meta`.
fn others_read(meta: &std::fs::Metadata) -> bool {
    if meta.is_dir() {
        meta.mode() & 0o005 == 0o005
    } else {
        meta.mode() & 0o004 != 0
    }
}

fn cstring(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).expect("a path from the file system has no NUL")
}

/// Where the bot's user is first stopped on the way to `path`: the first folder above it it
/// cannot enter, or `path` itself if it cannot read it; `None` if it can reach and read it.
pub fn first_blocked(path: &Path) -> Option<PathBuf> {
    let mut at = PathBuf::from("/");
    let parts: Vec<_> = path.components().skip(1).collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let meta = std::fs::metadata(&at).ok()?;
        let last = i + 1 == parts.len();
        if (!last && !others_enter(&meta)) || (last && !others_read(&meta)) {
            return Some(at);
        }
    }
    None
}

/// The machine's folders that every user may write and that an isolated bot gets a scratch
/// folder of its own over: those of /tmp, /var/tmp and /run/lock that are folders (links
/// followed: /var/lock is usually /run/lock). (/dev/shm gets its own in-memory folder from the
/// spawner.)
pub fn scratch_folders() -> Vec<PathBuf> {
    static FOLDERS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    FOLDERS
        .get_or_init(|| {
            let mut folders: Vec<PathBuf> = ["/tmp", "/var/tmp", "/run/lock"]
                .iter()
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .filter(|p| p.is_dir())
                .collect();
            folders.sort();
            folders.dedup();
            folders
        })
        .clone()
}

/// Plans what makes every one of `paths` (absolute, existing) reachable and readable for an
/// unprivileged user, with a scratch folder over each of `scratch` (see [`Op::Scratch`]), into
/// which those of `paths` below it are bound. Paths that need nothing get nothing.
pub fn plan(paths: &[PathBuf], scratch: &[PathBuf]) -> Result<ReachPlan, ReachError> {
    let mut paths: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    paths.sort();
    paths.dedup();
    let mut plan = ReachPlan::default();
    for folder in scratch {
        plan.ops.push(Op::Scratch(cstring(folder)));
        plan.covered.push(folder.clone());
    }
    for path in &paths {
        let in_scratch = scratch.iter().any(|s| path.starts_with(s) && path != s);
        let blocked = match first_blocked(path) {
            Some(blocked) => blocked,
            None if in_scratch => path.clone(),
            None => continue,
        };
        let meta = std::fs::metadata(path).map_err(|e| ReachError {
            path: path.clone(),
            why: format!("cannot be read: {e}"),
        })?;
        if !meta.is_dir() && !others_read(&meta) {
            return Err(ReachError {
                path: path.clone(),
                why: format!(
                    "is not readable by other users (mode {:o}), so the bot's unprivileged \
                     user cannot read it; make it readable (chmod o+r {})",
                    meta.mode() & 0o7777,
                    path.display()
                ),
            });
        }
        if meta.file_type().is_block_device() || meta.file_type().is_char_device() {
            continue;
        }
        // A path inside one bound whole already comes with it.
        if plan
            .covered
            .iter()
            .any(|c| c != path && path.starts_with(c))
            && bound_whole(&plan, path)
        {
            continue;
        }
        let top = match plan.covered.iter().find(|c| path.starts_with(c)) {
            Some(top) => top.clone(),
            None => {
                plan.ops.push(Op::Tmpfs(cstring(&blocked)));
                plan.covered.push(blocked.clone());
                blocked.clone()
            }
        };
        // The way down, inside the in-memory folder.
        let mut at = top.clone();
        for part in path
            .strip_prefix(&top)
            .unwrap_or(Path::new(""))
            .components()
        {
            at.push(part);
            if at != *path {
                plan.ops.push(Op::Dir(cstring(&at)));
            }
        }
        if meta.is_dir() && !others_read(&meta) {
            // A folder its user cannot list: its entries, one by one, in a listable folder.
            plan.ops.push(Op::Dir(cstring(path)));
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| ReachError {
                    path: path.clone(),
                    why: format!("cannot be listed: {e}"),
                })?
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            for entry in entries {
                bind(&mut plan, &entry)?;
            }
        } else {
            bind(&mut plan, path)?;
        }
    }
    Ok(plan)
}

/// Whether `path` is inside a path the plan binds whole (so it comes along).
fn bound_whole(plan: &ReachPlan, path: &Path) -> bool {
    plan.ops.iter().any(|op| match op {
        Op::Bind { to, .. } => {
            let to = Path::new(std::ffi::OsStr::from_bytes(to.as_bytes()));
            path.starts_with(to) && first_blocked_below(to, path).is_none()
        }
        _ => false,
    })
}

/// Like [`first_blocked`], for the part of `path` below `top`.
fn first_blocked_below(top: &Path, path: &Path) -> Option<PathBuf> {
    let mut at = top.to_path_buf();
    let rest: Vec<_> = path.strip_prefix(top).ok()?.components().collect();
    for (i, part) in rest.iter().enumerate() {
        at.push(part);
        let meta = std::fs::metadata(&at).ok()?;
        let last = i + 1 == rest.len();
        if (!last && !others_enter(&meta)) || (last && !others_read(&meta)) {
            return Some(at);
        }
    }
    None
}

/// Binds `path` at its own place (a folder or a file is made there first).
fn bind(plan: &mut ReachPlan, path: &Path) -> Result<(), ReachError> {
    let target = cstring(path);
    plan.ops.push(if path.is_dir() {
        Op::Dir(target.clone())
    } else {
        Op::File(target.clone())
    });
    plan.ops.push(Op::Bind {
        from: target.clone(),
        to: target,
    });
    Ok(())
}

/// The files a shell's `-c` script names by path, for a command such as
/// `sh -c 'exec /root/py/bin/python3 bot.py'` (`program` a shell: sh, bash, dash, zsh, ksh,
/// mksh): every word of the script (split as the shell splits words, operators such as `;` and
/// `&&` cut off) that holds a `/` and names a file, relative to the bot's folder `dir`. Nothing
/// for any other command, or a script the split cannot read. The program and script a plain
/// command names are found without this; these are the ones the shell will start or read.
pub fn shell_script_files(program: &Path, args: &[String], dir: &Path) -> Vec<PathBuf> {
    const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "ksh", "mksh"];
    if !program
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| SHELLS.contains(&n))
    {
        return Vec::new();
    }
    // Options first (`-c`, `-ec`, `-lc`, `-o pipefail -c` ...); the script is the first word
    // after them when one of them holds `c`.
    let mut command = false;
    let mut words = args.iter();
    let script = loop {
        match words.next() {
            Some(o) if o == "-o" || o == "+o" => {
                words.next();
            }
            Some(o) if o.starts_with('-') && !o.starts_with("--") => {
                command |= o.contains('c');
            }
            Some(o) if o.starts_with("--") => {}
            Some(script) if command => break script,
            _ => return Vec::new(),
        }
    };
    let Ok(words) = shell_words::split(script) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = words
        .iter()
        .flat_map(|w| w.split([';', '&', '|', '(', ')', '<', '>', '`']))
        .filter(|w| w.contains('/'))
        .map(|w| dir.join(w))
        .filter(|p| p.is_file())
        .collect();
    files.dedup();
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(plan: &ReachPlan) -> Vec<String> {
        plan.ops
            .iter()
            .map(|op| match op {
                Op::Tmpfs(p) => format!("tmpfs {}", p.to_string_lossy()),
                Op::Scratch(p) => format!("scratch {}", p.to_string_lossy()),
                Op::Dir(p) => format!("dir {}", p.to_string_lossy()),
                Op::File(p) => format!("file {}", p.to_string_lossy()),
                Op::Bind { to, .. } => format!("bind {}", to.to_string_lossy()),
            })
            .collect()
    }

    #[test]
    fn a_bot_below_a_closed_folder_is_bound_into_an_in_memory_one() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::set_permissions(&top, std::fs::Permissions::from_mode(0o700)).unwrap();
        let bot = top.join("a/bot");
        std::fs::create_dir_all(&bot).unwrap();
        std::fs::set_permissions(top.join("a"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plan = plan(std::slice::from_ref(&bot), &[]).unwrap();
        let t = top.display();
        assert_eq!(
            names(&plan),
            vec![
                format!("tmpfs {t}"),
                format!("dir {t}/a"),
                format!("dir {t}/a/bot"),
                format!("bind {t}/a/bot"),
            ]
        );
    }

    #[test]
    fn the_files_a_shells_script_names_are_found() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path();
        std::fs::create_dir_all(top.join("py/bin")).unwrap();
        std::fs::write(top.join("py/bin/python3"), "").unwrap();
        std::fs::write(top.join("bot.py"), "").unwrap();
        let py = top.join("py/bin/python3");
        let files = |program: &str, args: &[&str]| {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            shell_script_files(Path::new(program), &args, top)
        };
        let script = format!("cd /tmp && exec '{}' ./bot.py;", py.display());
        assert_eq!(
            files("/bin/sh", &["-c", &script]),
            vec![py.clone(), top.join("./bot.py")]
        );
        assert_eq!(
            files("bash", &["-o", "pipefail", "-ec", &script]),
            vec![py.clone(), top.join("./bot.py")]
        );
        // Not a shell's script: a script file, a shell without -c, another program.
        assert!(files("sh", &["./bot.py"]).is_empty());
        assert!(files("sh", &["-e", "./bot.py"]).is_empty());
        assert!(files("python3", &["-c", &script]).is_empty());
        assert!(files("sh", &["-c", "echo 'unclosed"]).is_empty());
    }

    #[test]
    fn a_closed_folder_of_its_own_is_bound_entry_by_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::set_permissions(&top, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(top.join("bot.py"), "").unwrap();
        std::fs::set_permissions(top.join("bot.py"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        let plan = plan(&[top.clone(), top.join("bot.py")], &[]).unwrap();
        let t = top.display();
        assert_eq!(
            names(&plan),
            vec![
                format!("tmpfs {t}"),
                format!("dir {t}"),
                format!("file {t}/bot.py"),
                format!("bind {t}/bot.py"),
            ]
        );
        let secret = top.join("secret");
        std::fs::write(&secret, "").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = super::plan(std::slice::from_ref(&secret), &[]).unwrap_err();
        assert!(e.to_string().contains("chmod o+r"), "{e}");
    }
}
