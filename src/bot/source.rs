//! Bots given as one source file, as students write them for the CodinGame arena (`bot.py`,
//! `Player.java`, `main.cpp`, ...): the language is told by the extension, the file is compiled
//! once with the arena's usual settings into a cache folder named after a hash of the source and
//! the recipe, and the bot is run from there the way the arena runs it (Java's class `Player`,
//! JavaScript's synchronous `readline()`, a line-buffered stdout for C and C++).
//!
//! The cache ([`super::host::cache_root`]) is `$ARBITER_CACHE`, else
//! `$XDG_CACHE_HOME/arbiter/build`, else `~/.cache/arbiter/build`. The source is someone else's code (a student's, a stranger's): it
//! is compiled or checked in the build box ([`super::build_box`]: unprivileged, offline, only the
//! system folders and its own copy visible, with time, memory and output limits), in a stage
//! folder moved into the cache when it succeeded, so an interrupted or failed build leaves
//! nothing that looks built. The compilers are the system's (`/usr/bin`), not shims on `PATH`.

mod language;

pub use language::Language;

mod beneath;
mod folder;

pub use beneath::{copy_submission, open_beneath, BeneathError};

pub use folder::{check_tree, snapshot_built, snapshot_folder, Snapshot};

use super::build_box::{self, BoxError, BuildStage};
use super::host::cache_root;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bumped whenever a recipe changes in a way its text does not show, to rebuild every cache entry.
const RECIPE_VERSION: &str = "arbiter-source-2";

/// At most this much of a compiler's output is kept in a message.
const MESSAGE_BYTES: usize = 8 * 1024;

/// Why a source file cannot be made into a bot.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("bot '{name}': cannot read {path}: {source}")]
    Read {
        name: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("bot '{name}' is written in {language}, which needs the program `{program}`, not found in the system folders a build may use ({}); install it (Debian/Ubuntu: apt-get install {package})", build_box::SYSTEM_PATH)]
    MissingTool {
        name: String,
        language: &'static str,
        program: &'static str,
        package: &'static str,
    },
    #[error("bot '{name}' does not build: `{command}` failed ({status}):\n{output}")]
    Compile {
        name: String,
        command: String,
        status: String,
        output: String,
    },
    #[error("bot '{name}': cannot use the build cache {path}: {source}")]
    Cache {
        name: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("bot '{name}' cannot be built: {problem}")]
    Box { name: String, problem: BoxError },
    /// A submission arbiter will not read (see [`check_tree`]).
    #[error("bot '{name}': {message}")]
    Refused { name: String, message: String },
}

/// SHA-256 of `bytes`, in hex.
pub fn hash_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The one source file of a folder, if it has exactly one file in a bot language (hidden files
/// are not counted). Whether it has a bot.toml is the caller's business.
pub fn single_source(dir: &Path) -> Option<PathBuf> {
    let mut found = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && Language::of(p).is_some()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// A source file built: how to run it. The bot's spec is made of it by `BotSpec`'s resolution,
/// which names it (this module knows nothing of specs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The build's folder in the cache, where it runs.
    pub dir: PathBuf,
}

/// Builds (or finds built) the bot in `source` (named `name`, in messages) and returns how to
/// run it.
pub fn resolve(source: &Path, name: &str) -> Result<Built, SourceError> {
    resolve_in(&cache_root(), source, name)
}

/// [`resolve`] with the cache in `root`.
pub fn resolve_in(root: &Path, source: &Path, name: &str) -> Result<Built, SourceError> {
    let language = Language::of(source).expect("resolve is called for a source file");
    let bytes = std::fs::read(source).map_err(|e| SourceError::Read {
        name: name.to_string(),
        path: source.to_path_buf(),
        source: e,
    })?;
    let src = language.file_name(source);
    let steps = language.steps(&src);
    let mut key = Vec::new();
    for part in [RECIPE_VERSION, language.extension(), &src] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    for step in &steps {
        key.extend_from_slice(step.join(" ").as_bytes());
        key.push(0);
    }
    key.extend_from_slice(&bytes);
    let dir = std::path::absolute(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .join(&hash_hex(&key)[..32]);
    if !dir.is_dir() {
        build(name, language, &bytes, &src, &steps, root, &dir)?;
    }
    let (program, args) = language.run(&dir, &src);
    Ok(Built { program, args, dir })
}

/// Compiles in the build box, in a stage folder moved to `dir` on success.
fn build(
    name: &str,
    language: Language,
    bytes: &[u8],
    src: &str,
    steps: &[Vec<String>],
    root: &Path,
    dir: &Path,
) -> Result<(), SourceError> {
    for (program, package) in language.tools() {
        if build_box::find_system_program(program).is_none() {
            return Err(SourceError::MissingTool {
                name: name.to_string(),
                language: language.name(),
                program,
                package,
            });
        }
    }
    let cache_err = |path: &Path| {
        let name = name.to_string();
        let path = path.to_path_buf();
        move |source| SourceError::Cache { name, path, source }
    };
    let box_err = |problem| SourceError::Box {
        name: name.to_string(),
        problem,
    };
    std::fs::create_dir_all(root).map_err(cache_err(root))?;
    let stage = BuildStage::new().map_err(cache_err(&std::env::temp_dir()))?;
    let write = |file: &str, data: &[u8]| {
        let path = stage.dir().join(file);
        std::fs::write(&path, data).map_err(cache_err(&path))
    };
    write(src, bytes)?;
    for (file, text) in language.support_files() {
        write(file, text.as_bytes())?;
    }
    let log = run_steps(name, steps, stage.dir())?;
    let log_path = stage.dir().join("build.log");
    build_box::write_own_file(stage.dir(), "build.log", log.as_bytes())
        .map_err(cache_err(&log_path))?;
    stage.install(dir).map_err(box_err)
}

/// Runs build steps in the build box in `dir`; returns the build log (each command and its
/// output), or the first failure.
fn run_steps(name: &str, steps: &[Vec<String>], dir: &Path) -> Result<String, SourceError> {
    let mut log = String::new();
    for step in steps {
        let command = step.join(" ");
        let outcome = build_box::run(step, dir, &build_box::configured()).map_err(|problem| {
            SourceError::Box {
                name: name.to_string(),
                problem,
            }
        })?;
        log.push_str(&format!("$ {command}\n{}", outcome.output));
        if !outcome.success {
            return Err(SourceError::Compile {
                name: name.to_string(),
                command,
                status: outcome.status,
                output: clip(&outcome.output),
            });
        }
    }
    Ok(log)
}

/// The first [`MESSAGE_BYTES`] of a compiler's output (the first errors matter most).
fn clip(text: &str) -> String {
    if text.len() <= MESSAGE_BYTES {
        return text.trim_end().to_string();
    }
    let mut end = MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes]", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests;
