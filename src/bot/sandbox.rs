//! `--sandbox`: each bot runs under bubblewrap (bwrap). Inside the box a bot sees only what it
//! needs to run: the system's programs and libraries (read-only), its own files (read-only), a
//! private writable /tmp and /dev/shm, and its own /proc. It has no network, no capabilities
//! and no way to regain any (a user namespace in which it is the unprivileged `nobody`, no new
//! privileges, no further user namespaces), and a seccomp filter refuses the system calls that
//! reach into other processes or the kernel's keyrings, and the locks and watches on the files
//! every box shares, which would carry messages between bots (see `bot::seccomp`). Nothing else of the host is mounted:
//! not the results folder, not the other bots, not the host's /tmp, /var or /run (so no unix
//! socket of the host either). bwrap is required: without it `--sandbox` fails instead of
//! running unsandboxed.
//!
//! A referee running as root starts bwrap as the bot's own unprivileged user (see
//! `bot::isolation`), so the box's user namespace is an unprivileged one: `nobody` inside is
//! that user outside, not root, and nothing the host's root owns is writable from the box
//! (/proc/sys included) or readable unless every user may read it (/etc is shown as it is, and
//! its secrets are unreadable because they are root's).

use super::host::{bwrap, is_system, SYSTEM};
use super::spec::BotSpec;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Fails with instructions when bwrap is missing.
pub fn require() -> Result<PathBuf, String> {
    bwrap().ok_or_else(|| {
        let sandbox = crate::options::Opt::Sandbox;
        format!(
            "{sandbox} needs bubblewrap (bwrap), which is not installed; install it \
             (Debian/Ubuntu: apt-get install bubblewrap) or run without {sandbox}"
        )
    })
}

/// The user and group a bot is inside the box (`nobody`, `nogroup`).
pub const INSIDE_ID: u32 = 65534;

/// A bot's command under bwrap (the spawner installs the seccomp filter on bwrap itself, which
/// passes it on to the bot).
pub struct SandboxedCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// What this bwrap knows beyond the basics, asked once: `--disable-userns` (0.8 and later) and
/// `--size` for a tmpfs (0.7 and later).
#[derive(Clone, Copy, Default)]
struct Features {
    disable_userns: bool,
    size: bool,
}

fn features(bwrap: &Path) -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(|| {
        let help = std::process::Command::new(bwrap)
            .arg("--help")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        Features {
            disable_userns: help.contains("--disable-userns"),
            size: help.contains("--size"),
        }
    })
}

/// The files that belong to `bot` alone: its bot.toml (or an external referee's referee.toml)
/// directory (if it has one of its own), its
/// build folder (a bot built from a single source file runs in its own folder of the build
/// cache), its program, and its script (the first argument that names a file).
fn private_paths(bot: &BotSpec) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let cache = std::path::absolute(super::host::cache_root()).ok();
    let built = cache.is_some_and(|c| bot.dir.starts_with(&c) && bot.dir != c);
    let toml = ["bot.toml", "referee.toml"]
        .iter()
        .any(|f| bot.dir.join(f).is_file());
    if toml || built {
        paths.push(bot.dir.clone());
    }
    let mut files: Vec<PathBuf> = vec![bot.program.clone()];
    files.extend(script(bot));
    for f in files {
        if f.is_absolute() && f.is_file() && !is_system(&f) {
            paths.push(f);
        }
    }
    paths.extend(
        class_path(bot)
            .into_iter()
            .filter(|p| p.is_absolute() && p.exists() && !is_system(p)),
    );
    paths
}

/// The entries of a Java program's class path (the argument after `-cp`, `-classpath` or
/// `--class-path`, entries joined with ':'): a CodinGame SDK referee's game and engine.
fn class_path(bot: &BotSpec) -> Vec<PathBuf> {
    let mut args = bot.args.iter();
    while let Some(a) = args.next() {
        if matches!(a.as_str(), "-cp" | "-classpath" | "--class-path") {
            return args
                .next()
                .map(|cp| {
                    cp.split(':')
                        .filter(|e| !e.is_empty())
                        .map(|e| bot.dir.join(e))
                        .collect()
                })
                .unwrap_or_default();
        }
    }
    Vec::new()
}

/// The bot's script: the first argument that names a file, relative to its folder.
fn script(bot: &BotSpec) -> Option<PathBuf> {
    bot.args
        .iter()
        .map(|a| bot.dir.join(a))
        .find(|p| p.is_file())
}

/// What `bot` needs to run, when its program is `program` (as resolved in its PATH): its
/// private paths and, for a program outside the system folders, the installation it belongs to
/// (the folder above its `bin/`, as for an interpreter under pyenv or a JDK unpacked in a home
/// folder). Bound into the box; as root, made reachable for the bot's user (see
/// [`super::reach`]).
pub(super) fn needed_paths(bot: &BotSpec, program: &Path) -> Vec<PathBuf> {
    let mut paths = private_paths(bot);
    paths.extend(program_paths(program));
    paths.sort();
    paths.dedup();
    // A path inside another one already bound needs no bind of its own.
    let all = paths.clone();
    paths.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
    paths
}

/// What running the program at the absolute path `program` needs outside the system folders:
/// the installation it belongs to (the folder above its `bin/`), else the program itself; the
/// same for the file a link there points to. Nothing for a program in the system folders.
pub(super) fn program_paths(program: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if program.is_absolute() {
        let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
        for program in [program, real.as_path()] {
            let install = program
                .parent()
                .filter(|bin| bin.file_name().is_some_and(|n| n == "bin"))
                .and_then(Path::parent);
            match install {
                Some(dir) if !is_system(dir) && dir.parent().is_some() => {
                    paths.push(dir.to_path_buf())
                }
                _ if !is_system(program) && program.is_file() => paths.push(program.to_path_buf()),
                _ => {}
            }
        }
    }
    paths
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// The command that runs `bot` inside the sandbox, with `others`' private files hidden; a
/// private /tmp and /dev/shm of at most `tmp_bytes` each (no size if `None`).
pub fn command(
    bwrap: &Path,
    bot: &BotSpec,
    others: &[&BotSpec],
    tmp_bytes: Option<u64>,
) -> SandboxedCommand {
    let mut args = strings(&[
        "--die-with-parent",
        "--unshare-user",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
    ]);
    let features = features(bwrap);
    if features.disable_userns {
        args.push("--disable-userns".into());
    }
    for dir in SYSTEM {
        args.extend(strings(&["--ro-bind-try", dir, dir]));
    }
    args.extend(strings(&["--dev", "/dev", "--proc", "/proc"]));
    for dir in ["/tmp", "/dev/shm"] {
        if let Some(bytes) = tmp_bytes.filter(|_| features.size) {
            args.extend(["--size".to_string(), bytes.to_string()]);
        }
        args.extend(strings(&["--tmpfs", dir]));
    }
    // The bot's own files, read-only; its working folder exists even when it is not bound (a
    // command-line bot runs in the referee's folder, which may hold the results: not shown).
    let own = needed_paths(bot, &bot.program);
    for path in own.iter().filter(|p| p.exists()) {
        let p = path.display().to_string();
        args.extend(["--ro-bind".to_string(), p.clone(), p]);
    }
    // An opponent's files inside what this bot sees (both bots in one folder tree) are hidden,
    // unless this bot needs them itself (two bots sharing one interpreter or folder, or two
    // identical submissions sharing one build folder, whose script is this bot's own too).
    let mine = private_paths(bot);
    for path in others.iter().flat_map(|other| private_paths(other)) {
        let inside_own = own.iter().any(|o| path.starts_with(o) && &path != o);
        let needed = own.iter().any(|o| o.starts_with(&path))
            || bot.dir.starts_with(&path)
            || mine.contains(&path);
        if !inside_own || needed {
            continue;
        }
        let p = path.display().to_string();
        if path.is_dir() {
            args.extend(["--tmpfs".to_string(), p]);
        } else {
            args.extend(["--ro-bind".to_string(), "/dev/null".to_string(), p]);
        }
    }
    let dir = bot.dir.display().to_string();
    args.extend(["--dir".to_string(), dir.clone()]);
    args.extend(strings(&["--remount-ro", "/"]));
    args.extend(["--chdir".to_string(), dir, "--".to_string()]);
    args.push(bot.program.display().to_string());
    args.extend(bot.args.iter().cloned());
    SandboxedCommand {
        program: bwrap.to_path_buf(),
        args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot_in(dir: &Path, name: &str) -> BotSpec {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("bot.toml"), "run = \"./bot\"\n").unwrap();
        std::fs::write(dir.join("bot"), "").unwrap();
        BotSpec {
            name: name.into(),
            origin: name.into(),
            program: dir.join("bot"),
            args: Vec::new(),
            dir: dir.to_path_buf(),
            build: None,
        }
    }

    fn position(args: &[String], window: &[&str]) -> Option<usize> {
        args.windows(window.len())
            .position(|w| w.iter().zip(window).all(|(a, b)| a == b))
    }

    #[test]
    fn a_bot_sees_its_own_folder_and_not_its_opponents() {
        let tmp = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let me = bot_in(&tmp.path().join("me"), "me");
        let other = bot_in(&tmp.path().join("other"), "other");
        let args = command(Path::new("/usr/bin/bwrap"), &me, &[&other], None).args;
        let dir = me.dir.display().to_string();
        let other_dir = other.dir.display().to_string();
        let private_tmp = position(&args, &["--tmpfs", "/tmp"]).unwrap();
        let own = position(&args, &["--ro-bind", &dir, &dir]).expect("own folder bound");
        assert!(private_tmp < own, "{args:?}");
        assert!(!args.contains(&other_dir), "{args:?}");
        assert!(position(&args, &["--ro-bind", "/", "/"]).is_none());
        assert_eq!(args[args.len() - 1], me.program.display().to_string());
        assert!(position(&args, &["--chdir", &dir]).is_some());
        assert!(position(&args, &["--cap-drop", "ALL"]).is_some());
    }

    #[test]
    fn an_interpreter_outside_the_system_brings_its_installation() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("py/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("python3"), "").unwrap();
        let me = BotSpec {
            name: "me".into(),
            origin: "me".into(),
            program: bin.join("python3"),
            args: vec!["bot.py".into()],
            dir: tmp.path().join("work"),
            build: None,
        };
        let paths = needed_paths(&me, &me.program);
        assert_eq!(paths, vec![tmp.path().join("py")]);
    }
}
