//! `--sandbox`: each bot runs under bubblewrap (bwrap) with no network, a read-only view of the
//! system, a private writable /tmp, its own process-id namespace, and the other bots' files
//! hidden. bwrap is required: without it `--sandbox` fails instead of running unsandboxed.

use super::spec::BotSpec;
use std::path::{Path, PathBuf};

/// The bwrap program, if installed.
pub fn bwrap() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("bwrap"))
            .find(|p| p.is_file())
    })
}

/// Fails with instructions when bwrap is missing.
pub fn require() -> Result<PathBuf, String> {
    bwrap().ok_or_else(|| {
        "--sandbox needs bubblewrap (bwrap), which is not installed; install it \
         (Debian/Ubuntu: apt-get install bubblewrap) or run without --sandbox"
            .to_string()
    })
}

/// The files that belong to `bot` alone: its bot.toml directory (if it has one of its own),
/// its program, and its script (the first argument that names a file).
fn private_paths(bot: &BotSpec) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if bot.dir.join("bot.toml").is_file() {
        paths.push(bot.dir.clone());
    }
    let mut files: Vec<PathBuf> = vec![bot.program.clone()];
    files.extend(
        bot.args
            .iter()
            .map(|a| bot.dir.join(a))
            .find(|p| p.is_file()),
    );
    for f in files {
        if f.is_absolute() && f.is_file() && !f.starts_with("/usr") && !f.starts_with("/bin") {
            paths.push(f);
        }
    }
    paths
}

/// The command that runs `bot` inside the sandbox, with `others`' private files hidden:
/// `(program, arguments)`.
pub fn command(bwrap: &Path, bot: &BotSpec, others: &[&BotSpec]) -> (PathBuf, Vec<String>) {
    let own = private_paths(bot);
    let mut args: Vec<String> = [
        "--die-with-parent",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--setenv",
        "TMPDIR",
        "/tmp",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // The private /tmp covers the real one: what the bot itself needs from there (its folder,
    // program, script: a checkout under /tmp, say) is bound back, read-only.
    let mut needed = own.clone();
    needed.push(bot.dir.clone());
    for path in needed
        .iter()
        .filter(|p| p.starts_with("/tmp") && p.exists())
    {
        let p = path.display().to_string();
        args.extend(["--ro-bind".to_string(), p.clone(), p]);
    }
    for other in others {
        for path in private_paths(other) {
            // Never hide what this bot needs itself (two bots sharing one interpreter or folder).
            if own
                .iter()
                .any(|o| o.starts_with(&path) || path.starts_with(o))
                || bot.dir.starts_with(&path)
            {
                continue;
            }
            let p = path.display().to_string();
            if path.is_dir() {
                args.extend(["--tmpfs".to_string(), p]);
            } else {
                args.extend(["--ro-bind".to_string(), "/dev/null".to_string(), p]);
            }
        }
    }
    args.extend([
        "--chdir".to_string(),
        bot.dir.display().to_string(),
        "--".to_string(),
    ]);
    args.push(bot.program.display().to_string());
    args.extend(bot.args.iter().cloned());
    (bwrap.to_path_buf(), args)
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
    fn a_bot_under_tmp_is_bound_back_and_its_opponent_hidden_after() {
        let tmp = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let me = bot_in(&tmp.path().join("me"), "me");
        let other = bot_in(&tmp.path().join("other"), "other");
        let args = command(Path::new("/usr/bin/bwrap"), &me, &[&other]).1;
        let dir = me.dir.display().to_string();
        let other_dir = other.dir.display().to_string();
        let private_tmp = position(&args, &["--tmpfs", "/tmp"]).unwrap();
        let rebound = position(&args, &["--ro-bind", &dir, &dir]).expect("own folder bound back");
        let hidden = position(&args, &["--tmpfs", &other_dir]).expect("opponent hidden");
        assert!(private_tmp < rebound && rebound < hidden, "{args:?}");
        assert_eq!(args[args.len() - 1], me.program.display().to_string());
        assert!(position(&args, &["--chdir", &dir]).is_some());
    }
}
