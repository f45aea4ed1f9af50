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
