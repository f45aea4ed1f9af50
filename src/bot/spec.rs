//! What a user names as a bot (an executable, a directory with `bot.toml`, a source file, or a
//! command line), turned into one resolved command with a working directory. A source file is
//! built by `super::source`; a folder's build step is run by `super::build`, never here.

use crate::options::Opt;
use crate::protocol::printable;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A bot ready to be started: program, arguments and the directory it runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotSpec {
    /// Unique name in reports: from bot.toml, else the file name.
    pub name: String,
    /// What the user typed.
    pub origin: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The bot's working directory (the bot.toml directory, else the current one).
    pub dir: PathBuf,
    /// A command line run once in `dir` before any game.
    pub build: Option<String>,
}

impl BotSpec {
    /// A bot that is a program and its arguments, named `name` (also its origin), run in `dir`,
    /// with no build step: the bots arbiter makes itself (the human seat, the bench's bots) and
    /// the tests' shell bots.
    pub fn command(
        name: &str,
        program: impl Into<PathBuf>,
        args: Vec<String>,
        dir: impl Into<PathBuf>,
    ) -> BotSpec {
        BotSpec {
            name: name.into(),
            origin: name.into(),
            program: program.into(),
            args,
            dir: dir.into(),
            build: None,
        }
    }
}

/// Why a bot argument cannot be turned into a runnable bot.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("bot '{origin}': cannot read {path}: {source}")]
    Read {
        origin: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("bot '{origin}': {path} is not a valid bot.toml: {message}\n  expected: name = \"...\", run = \"command line\", optional build = \"command line\", optional games = [\"impasse\", ...]")]
    BadToml {
        origin: String,
        path: PathBuf,
        message: String,
    },
    #[error("bot '{origin}': directory {path} has no bot.toml and not exactly one bot source file (.py, .c, .cpp, .java, .js, .ts, .rs, .go, .cs, .kt, .rb, .php); give an executable, a source file, a directory with a bot.toml, or a command line")]
    NoBotToml { origin: String, path: PathBuf },
    #[error("bot '{origin}': cannot split the command line: {message} (check the quotes)")]
    BadCommandLine { origin: String, message: String },
    #[error("bot '{origin}': the command line is empty")]
    Empty { origin: String },
    #[error("bot '{name}': build command `{command}` failed ({status})\n{output}")]
    BuildFailed {
        name: String,
        command: String,
        status: String,
        output: String,
    },
    #[error("bot '{name}': cannot run its build command `{command}`: {source}")]
    BuildSpawn {
        name: String,
        command: String,
        source: std::io::Error,
    },
    #[error("bot '{origin}': the run line of {toml} names {path}, which is outside the bot's folder; a bot gets only its own folder and the system's files (with {} nothing else is shown to it), so copy what it needs into its folder and name it from there", Opt::Sandbox)]
    OutsideArgument {
        origin: String,
        toml: PathBuf,
        path: PathBuf,
    },
    #[error("bot '{name}' does not play {game}: {path} says games = {games:?}; give {} one of those, or bots that play {game} (if the bot does play it, add \"{game}\" to its games)", Opt::Game)]
    WrongGame {
        name: String,
        game: String,
        path: PathBuf,
        games: Vec<String>,
    },
    /// A bot.toml or referee.toml build that failed in the build box (see [`BotSpec::build`]).
    #[error("'{name}' was built in the build box, as every bot.toml and referee.toml build is unless trusted: unprivileged, offline, with the system's folders and a copy of its own folder only; if you wrote it, {} builds it in place as you, with your toolchain", Opt::TrustBuilds)]
    BoxedBuild {
        name: String,
        #[source]
        source: Box<super::source::SourceError>,
    },
    /// A single source file that cannot be built (see [`super::source`]).
    #[error(transparent)]
    Source(#[from] super::source::SourceError),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BotToml {
    name: Option<String>,
    run: String,
    build: Option<String>,
    /// The games the bot plays (names as `--game` takes them); absent: any game.
    games: Option<Vec<String>>,
}

impl BotSpec {
    /// Resolves one BOT argument as typed by the user.
    /// Like [`BotSpec::resolve`], but `NAME=BOT` names the bot on the command line (NAME is
    /// letters, digits, `_`, `-` and `.`), e.g. `alice="python3 a/bot.py"`; an argument that is
    /// an existing path is never split.
    pub fn resolve_named(arg: &str) -> Result<BotSpec, SpecError> {
        Self::resolve_named_in(arg, None)
    }

    /// [`BotSpec::resolve_named`] as if typed in `workdir` (`None`: the current directory):
    /// relative paths are found from there and the bot runs there, without changing the
    /// process's working directory.
    pub fn resolve_named_in(arg: &str, workdir: Option<&Path>) -> Result<BotSpec, SpecError> {
        let at = |p: &str| workdir.map_or_else(|| PathBuf::from(p), |w| w.join(p));
        if !at(arg).exists() {
            if let Some((name, rest)) = arg.split_once('=') {
                let plain = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
                if plain && !rest.trim().is_empty() {
                    // Named before it is built: a build's error names the bot, not its file.
                    let mut spec = Self::resolve_as(rest, workdir, Some(name))?;
                    spec.name = name.to_string();
                    spec.origin = arg.to_string();
                    return Ok(spec);
                }
            }
        }
        Self::resolve_in(arg, workdir)
    }

    pub fn resolve(arg: &str) -> Result<BotSpec, SpecError> {
        Self::resolve_in(arg, None)
    }

    /// [`BotSpec::resolve`] as if typed in `workdir` (`None`: the current directory).
    pub fn resolve_in(arg: &str, workdir: Option<&Path>) -> Result<BotSpec, SpecError> {
        Self::resolve_as(arg, workdir, None)
    }

    /// [`BotSpec::resolve_in`], a source file (alone or in a folder without a bot.toml) built
    /// under `name` where one is given (`NAME=BOT`), else under its file's or folder's name.
    fn resolve_as(
        arg: &str,
        workdir: Option<&Path>,
        name: Option<&str>,
    ) -> Result<BotSpec, SpecError> {
        let joined = workdir.map(|w| w.join(arg));
        let path = joined.as_deref().unwrap_or(Path::new(arg));
        let here = || match workdir {
            Some(w) => w.to_path_buf(),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        };
        if path.is_dir() {
            return Self::from_dir(arg, path, name);
        }
        if path.is_file() {
            if super::source::Language::of(path).is_some() {
                let name = name.map_or_else(|| stem(path), str::to_string);
                return Self::of_source(arg, path, name);
            }
            let program = absolute(path);
            return Ok(BotSpec {
                name: stem(path),
                origin: arg.to_string(),
                program,
                args: Vec::new(),
                dir: here(),
                build: None,
            });
        }
        let dir = here();
        let (program, args) = split(arg, arg, &dir)?;
        // A command such as `python3 my_bot.py` is named after the script, not the interpreter.
        let name = args
            .iter()
            .map(Path::new)
            .find(|p| dir.join(p).is_file())
            .or(Some(program.as_path()))
            .map(stem)
            .unwrap_or_else(|| printable(arg).into_owned());
        Ok(BotSpec {
            name,
            origin: arg.to_string(),
            program,
            args,
            dir,
            build: None,
        })
    }

    /// The bot built from source file `path` (see `super::source`), named `name`.
    fn of_source(origin: &str, path: &Path, name: String) -> Result<BotSpec, SpecError> {
        let built = super::source::resolve(path, &name)?;
        Ok(BotSpec {
            name,
            origin: origin.to_string(),
            program: built.program,
            args: built.args,
            dir: built.dir,
            build: None,
        })
    }

    fn from_dir(origin: &str, dir: &Path, name: Option<&str>) -> Result<BotSpec, SpecError> {
        let toml_path = dir.join("bot.toml");
        if !toml_path.is_file() {
            if let Some(file) = super::source::single_source(dir) {
                let name = name.map_or_else(|| stem(&absolute(dir)), str::to_string);
                return Self::of_source(origin, &file, name);
            }
            return Err(SpecError::NoBotToml {
                origin: origin.into(),
                path: dir.to_path_buf(),
            });
        }
        let parsed: BotToml = read_toml(&toml_path).map_err(|e| match e {
            TomlError::Read(source) => SpecError::Read {
                origin: origin.into(),
                path: toml_path.clone(),
                source,
            },
            TomlError::Bad(message) => SpecError::BadToml {
                origin: origin.into(),
                path: toml_path.clone(),
                message,
            },
        })?;
        if parsed.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
            return Err(SpecError::BadToml {
                origin: origin.into(),
                path: toml_path.clone(),
                message: "name is empty".into(),
            });
        }
        let name = parsed.name.unwrap_or_else(|| stem(&absolute(dir)));
        let spec = Self::in_dir(origin, name, &parsed.run, parsed.build, dir)?;
        if let Some(path) = outside_argument(&spec.args, &spec.dir) {
            return Err(SpecError::OutsideArgument {
                origin: origin.into(),
                toml: toml_path,
                path,
            });
        }
        Ok(spec)
    }

    /// The program `run` (a command line) started in `dir`, named `name`, with an optional
    /// `build` command: what a TOML file in a folder describes (bot.toml, or an external
    /// referee's referee.toml).
    pub fn in_dir(
        origin: &str,
        name: String,
        run: &str,
        build: Option<String>,
        dir: &Path,
    ) -> Result<BotSpec, SpecError> {
        // The folder as the kernel sees it (links resolved), so that a run line's `../..`
        // leads to the same file everywhere, also in the sandbox, which mounts real paths:
        // a bot folder reached through a symlink ran outside the box and not in it.
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| absolute(dir));
        let (program, args) = split(origin, run, &dir)?;
        Ok(BotSpec {
            name: printable(&name).into_owned(),
            origin: origin.into(),
            program,
            args,
            dir,
            build,
        })
    }

    /// Whether the bot plays `game` (a `--game` name): an error naming the game and the bot's
    /// list when its bot.toml has `games = [...]` without it. Bots without a bot.toml, or whose
    /// bot.toml has no `games`, are taken to play every game.
    pub fn plays(&self, game: &str) -> Result<(), SpecError> {
        let typed = match self.origin.split_once('=') {
            Some((_, rest)) if !Path::new(&self.origin).exists() => rest,
            _ => self.origin.as_str(),
        };
        let path = Path::new(typed).join("bot.toml");
        let same = std::fs::canonicalize(typed).is_ok_and(|d| d == self.dir);
        if !path.is_file() || !(same || absolute(Path::new(typed)) == self.dir) {
            return Ok(());
        }
        let Ok(games) = std::fs::read_to_string(&path)
            .map_err(|_| ())
            .and_then(|text| toml::from_str::<BotToml>(&text).map_err(|_| ()))
            .map(|t| t.games)
        else {
            return Ok(()); // resolving the bot read this file already and reports its errors
        };
        match games {
            Some(games) if !games.iter().any(|g| g == game) => Err(SpecError::WrongGame {
                name: self.name.clone(),
                game: game.to_string(),
                path,
                games,
            }),
            _ => Ok(()),
        }
    }

    /// The bot's command line as one text, for messages.
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Marks every bot of `bots` not already marked in `problems` that does not play `game` (see
/// [`BotSpec::plays`]) with the reason, and returns those reasons for the caller to report.
pub fn mark_wrong_game(
    bots: &[BotSpec],
    problems: &mut [Option<String>],
    game: &str,
) -> Vec<SpecError> {
    let mut found = Vec::new();
    for (bot, problem) in bots.iter().zip(problems.iter_mut()) {
        if let (None, Err(e)) = (&problem, bot.plays(game)) {
            *problem = Some(e.to_string());
            found.push(e);
        }
    }
    found
}

/// Why a TOML file could not be read.
#[derive(Debug)]
pub enum TomlError {
    Read(std::io::Error),
    /// Not valid for the expected fields: the message, with its line and column.
    Bad(String),
}

/// Reads a small TOML file (bot.toml, referee.toml) into `T`; a syntax or field error names its
/// line and column.
pub fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, TomlError> {
    let text = std::fs::read_to_string(path).map_err(TomlError::Read)?;
    toml::from_str(&text).map_err(|e| {
        TomlError::Bad(match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!("line {line}, column {column}: {}", e.message())
            }
            None => e.message().to_string(),
        })
    })
}

/// Splits a command line as a POSIX shell splits words (no shell is started) and resolves a
/// program path that names a directory component against `dir`.
pub(super) fn split(
    origin: &str,
    line: &str,
    dir: &Path,
) -> Result<(PathBuf, Vec<String>), SpecError> {
    let mut words = shell_words::split(line).map_err(|e| SpecError::BadCommandLine {
        origin: origin.into(),
        message: e.to_string(),
    })?;
    if words.is_empty() {
        return Err(SpecError::Empty {
            origin: origin.into(),
        });
    }
    let first = words.remove(0);
    let program = if first.contains('/') {
        dir.join(&first)
    } else {
        PathBuf::from(first)
    };
    Ok((program, words))
}

/// The first argument of a bot.toml's run line that names an existing file or folder of the host
/// outside the bot's folder `dir` and the system's folders (the program itself may be anywhere).
fn outside_argument(args: &[String], dir: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    args.iter()
        .filter(|a| a.contains('/') || dir.join(a).exists())
        .filter_map(|a| std::fs::canonicalize(dir.join(a)).ok())
        .find(|p| !p.starts_with(&dir) && !super::host::is_system(p))
}

/// A name from a file's name, shown safely (see [`printable`]).
fn stem(path: &Path) -> String {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    printable(&name).into_owned()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests;
