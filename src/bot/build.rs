//! A bot's build step (`build = ...` in its bot.toml, or a referee's): someone else's code, by
//! default run in the build box in a copy of the folder in the build cache (`super::source`),
//! the bot then run from that copy; run in place as the user only where the user trusts it
//! (`--trust-builds`, or a bot bundled in the source tree arbiter was built from), and then
//! only when the folder changed since its last build (`super::build_stamp`). Apart from
//! `spec.rs`, which resolves what a user names: resolving never builds.

use super::spec::{split, BotSpec, SpecError};
use std::path::Path;
use std::process::Command;

/// Whether `--trust-builds` was given: the user's bots' and referee's builds run in place, as
/// the user.
static TRUST_BUILDS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Trusts every build of this run (`--trust-builds`), or none but the bundled bots'.
pub fn set_trust_builds(trust: bool) {
    TRUST_BUILDS.store(trust, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the build of the bot or referee folder `dir` runs in place as the user: with
/// `--trust-builds`, or for a bot bundled with arbiter: a folder of `bots/` in the very source
/// tree this arbiter was built from (`cargo run -- tournament bots/*`). Their builds
/// (`cargo build --bin arbiter-bot-...`) compile that tree's own sources with the user's
/// toolchain, which the box cannot reach (under /root, and offline), and whoever can change
/// them can change arbiter's own source, which the user's `cargo run` builds and runs as them.
pub fn trusts_build(dir: &Path) -> bool {
    if TRUST_BUILDS.load(std::sync::atomic::Ordering::Relaxed) {
        return true;
    }
    let bundled = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("bots"));
    let parent = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.parent().map(Path::to_path_buf));
    matches!((bundled, parent), (Ok(b), Some(p)) if b == p)
}

impl BotSpec {
    /// Whether [`BotSpec::build`] would run its build command (it has one, and its folder
    /// changed since its last build: in the build cache for a boxed build, its stamp for a
    /// trusted one), so that a build is announced only when it runs.
    pub fn needs_build(&self) -> bool {
        self.build.as_ref().is_some_and(|command| {
            if !trusts_build(&self.dir) {
                return !super::source::snapshot_built(self.folder());
            }
            let stamps = super::host::cache_root().join("stamps");
            !super::build_stamp::up_to_date(&stamps, &self.dir, command, &self.program)
        })
    }

    /// Runs the bot's build command, if any. A build is code someone else may have written (a
    /// league is made of strangers' bots, a referee.toml comes with its game): by default it
    /// runs in the build box, in a copy of the folder in the build cache
    /// ([`BotSpec::snapshot`]), and the bot then runs from that copy, returned here.
    /// A build the user trusts ([`trusts_build`]: `--trust-builds`, or a bot bundled in the
    /// source tree arbiter was built from) runs in place as the user who runs arbiter, unless
    /// the folder is unchanged since its last successful build (see `bot::build_stamp`); then
    /// `None` is returned: the bot runs as it is. A failure names the bot and shows the end of
    /// the build's output.
    pub fn build(&self) -> Result<Option<BotSpec>, SpecError> {
        let Some(command) = &self.build else {
            return Ok(None);
        };
        if !trusts_build(&self.dir) {
            return self
                .snapshot()
                .map(Some)
                .map_err(|source| SpecError::BoxedBuild {
                    name: self.name.clone(),
                    source: Box::new(source),
                });
        }
        self.build_in_place(command).map(|()| None)
    }

    /// The bot's folder as the build cache copies it.
    fn folder(&self) -> super::source::Snapshot<'_> {
        super::source::Snapshot {
            name: &self.name,
            dir: &self.dir,
            build: self.build.as_deref(),
        }
    }

    /// The bot as it runs from its folder's copy in the build cache
    /// (`super::source::snapshot_folder`: built there in the build box if it has a build
    /// command): same name and origin, no build left to do. A folder with a bot.toml resolves
    /// from its copy; a referee's folder (referee.toml) keeps its command, from the copy.
    pub fn snapshot(&self) -> Result<BotSpec, super::source::SourceError> {
        let dest = super::source::snapshot_folder(self.folder())?;
        let mut copy = if dest.join("bot.toml").is_file() {
            BotSpec::resolve(&dest.to_string_lossy()).map_err(|e| {
                super::source::SourceError::Refused {
                    name: self.name.clone(),
                    message: format!("its copy in the build cache does not resolve: {e}"),
                }
            })?
        } else {
            let program = match self.program.strip_prefix(&self.dir) {
                Ok(inside) => dest.join(inside),
                Err(_) => self.program.clone(),
            };
            BotSpec {
                program,
                dir: dest,
                ..self.clone()
            }
        };
        copy.name = self.name.clone();
        copy.origin = self.origin.clone();
        copy.build = None;
        Ok(copy)
    }

    /// Runs the trusted build `command` in the bot's folder, as the user (see [`Self::build`]).
    pub(super) fn build_in_place(&self, command: &str) -> Result<(), SpecError> {
        let stamps = super::host::cache_root().join("stamps");
        if super::build_stamp::up_to_date(&stamps, &self.dir, command, &self.program) {
            return Ok(());
        }
        let (program, args) = split(&self.origin, command, &self.dir)?;
        let output = Command::new(&program)
            .args(&args)
            .current_dir(&self.dir)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|source| SpecError::BuildSpawn {
                name: self.name.clone(),
                command: command.to_string(),
                source,
            })?;
        if output.status.success() {
            super::build_stamp::record(&stamps, &self.dir, command, &self.program);
            return Ok(());
        }
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        Err(SpecError::BuildFailed {
            name: self.name.clone(),
            command: command.to_string(),
            status: output.status.to_string(),
            output: tail,
        })
    }
}
