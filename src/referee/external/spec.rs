//! What a user names as an external referee: a command line, or a folder with a
//! `referee.toml` (read with the same reader as a bot's `bot.toml`).

use super::{External, DEFAULT_MESSAGE_LIMIT};
use crate::bot::spec::{read_toml, TomlError};
use crate::bot::{BotSpec, SpecError};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file a referee's folder holds.
pub const FILE: &str = "referee.toml";

/// A referee's `referee.toml`.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RefereeToml {
    pub name: Option<String>,
    pub run: String,
    pub build: Option<String>,
    /// Players per game when `--seats` is not given.
    pub seats: Option<usize>,
    /// Whether the referee reads `###Seed` (send it without `--referee-seed`).
    #[serde(default)]
    pub seed: bool,
    /// Default limits of the bots' turns and of the game, in milliseconds and answers; the
    /// command line's flags win when given.
    pub first_turn_ms: Option<u64>,
    pub turn_ms: Option<u64>,
    pub max_turns: Option<u32>,
    /// The referee's own time per message, in milliseconds.
    pub message_ms: Option<u64>,
}

/// Why a referee argument cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RefereeSpecError {
    #[error("referee '{origin}': {path} is not a valid {FILE}: {message}\n  expected: run = \"command line\", optional name, build, seats, seed = true, first_turn_ms, turn_ms, max_turns, message_ms")]
    BadToml {
        origin: String,
        path: PathBuf,
        message: String,
    },
    #[error("referee '{origin}': cannot read {path}: {source}")]
    Read {
        origin: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("referee '{origin}': the folder has no {FILE}; give a command line (\"java -jar referee.jar\") or a folder with a {FILE}")]
    NoToml { origin: String },
    #[error("referee: {0}")]
    Command(#[from] SpecError),
}

/// A resolved referee argument: the referee, and the defaults its folder's TOML gives.
#[derive(Debug)]
pub struct Resolved {
    pub referee: External,
    pub toml: RefereeToml,
}

/// Resolves `--referee ARG`: a folder with a `referee.toml`, else a command line run in the
/// current folder. `seed` is `--referee-seed`; `message_limit` is `--referee-timeout-ms` when
/// given.
pub fn resolve(
    arg: &str,
    seed: bool,
    message_limit: Option<Duration>,
) -> Result<Resolved, RefereeSpecError> {
    resolve_in(arg, None, seed, message_limit)
}

/// [`resolve`] as if typed in `workdir` (`None`: the current directory): a relative folder is
/// found there, and a command line runs there, as a bot's is ([`BotSpec::resolve_named_in`]).
pub fn resolve_in(
    arg: &str,
    workdir: Option<&Path>,
    seed: bool,
    message_limit: Option<Duration>,
) -> Result<Resolved, RefereeSpecError> {
    let joined = workdir.map(|w| w.join(arg));
    let path = joined.as_deref().unwrap_or(Path::new(arg));
    let (spec, toml) = if path.is_dir() {
        let file = path.join(FILE);
        if !file.is_file() {
            return Err(RefereeSpecError::NoToml { origin: arg.into() });
        }
        let toml: RefereeToml = read_toml(&file).map_err(|e| match e {
            TomlError::Read(source) => RefereeSpecError::Read {
                origin: arg.into(),
                path: file.clone(),
                source,
            },
            TomlError::Bad(message) => RefereeSpecError::BadToml {
                origin: arg.into(),
                path: file.clone(),
                message,
            },
        })?;
        let name = toml
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                std::path::absolute(path)
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_else(|| "referee".into())
            });
        let spec = BotSpec::in_dir(arg, name, &toml.run, toml.build.clone(), path)?;
        (spec, toml)
    } else {
        (
            BotSpec::resolve_named_in(arg, workdir)?,
            RefereeToml::default(),
        )
    };
    let limit = message_limit
        .or(toml.message_ms.map(Duration::from_millis))
        .unwrap_or(DEFAULT_MESSAGE_LIMIT);
    Ok(Resolved {
        referee: External {
            name: spec.name.clone(),
            seed: seed || toml.seed,
            message_limit: limit,
            spec,
        },
        toml,
    })
}
