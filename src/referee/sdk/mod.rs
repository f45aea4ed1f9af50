//! Games written on the CodinGame SDK (codingame-game-engine, Java): every CodinGame contest and
//! community multiplayer game since 2018. The game's own `Referee` runs as a process whose entry
//! point is the engine's `RefereeMain`, the one CodinGame's servers start, and arbiter speaks its
//! line protocol (`protocol`) in place of CodinGame's runner (`driver`): arbiter spawns, boxes
//! and times the bots, the game keeps its rules, leagues, verdicts and scores.
//!
//! A built game is a Java class path and the referee's main class ([`SdkGame`]); how its process
//! is started is a [`RefereeLauncher`]: arbiter's launcher in a warm JVM that serves game after
//! game, or in a fresh JVM per game (the build and the launcher live in `build*.rs` and
//! `launcher*.rs`). Here: what a user's `--referee` names when it is an SDK game ([`detect`]).

pub mod build;
pub mod check;
pub mod driver;
pub mod launcher;
pub mod leagues;
pub mod protocol;
pub mod record;
pub mod view;

use crate::bot::{BotProcess, BotSpec, Limits, SpawnError};
use crate::options::Opt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The engine's entry point for a game's referee process (CodinGame's servers start this one).
pub const REFEREE_MAIN: &str = "com.codingame.gameengine.core.RefereeMain";

/// The class every SDK game defines: what tells a class path that holds a game.
pub const REFEREE_CLASS: &str = "com/codingame/game/Referee.class";

/// The file of a run folder in arbiter's build cache that names the game built into it (its
/// source folder's name), so that a class path into that folder plays under the game's name.
pub const NAME_FILE: &str = "arbiter-game-name";

/// The referee's default time per message: the first one includes a JVM's start-up, measured
/// at up to 5.2 s on a loaded machine.
pub const DEFAULT_MESSAGE_LIMIT: Duration = Duration::from_secs(15);

/// Most players an SDK game seats (the engine's runner refuses more than eight).
pub const MAX_SEATS: usize = 8;

/// A built SDK game as a run plays it.
#[derive(Clone, Debug)]
pub struct SdkGame {
    /// The game's name in records: its folder's (or jar's) name.
    pub name: String,
    /// What the user typed (`--referee`).
    pub origin: String,
    /// The game's classes and everything they need: the engine's core and its jars.
    pub classpath: Vec<PathBuf>,
    /// The referee process's main class: [`REFEREE_MAIN`].
    pub main_class: String,
    /// The folder the referee runs in.
    pub dir: PathBuf,
    /// The league level (`-Dleague.level`, `--league`); 1 is the lowest.
    pub league: u32,
    /// The leagues the game's files list ([`leagues`]), where they list them.
    pub leagues: Option<leagues::Leagues>,
    /// Whether the user chose the league (else it is the game's highest, or 1 where its
    /// leagues are not listed).
    pub league_given: bool,
    /// Game parameters sent in `[[INIT]]` besides the seed (`--game-param KEY=VALUE`).
    pub params: Vec<(String, String)>,
    /// Whether each turn's limit is the game's own (`[[NEXT_PLAYER_INFO]]`): true unless the
    /// user set --turn-ms or --first-turn-ms.
    pub game_limits: bool,
    /// How long the referee may take for each message (the first includes its start-up).
    pub message_limit: Duration,
    /// How its process is started.
    pub launcher: Arc<dyn RefereeLauncher>,
}

impl SdkGame {
    /// The league played, for the first line of a run: "league 4 of 4, the game's highest (its
    /// full rules; --league N for another)".
    pub fn league_text(&self) -> String {
        match (&self.leagues, self.league_given) {
            (Some(l), true) => l.describe(self.league),
            (Some(l), false) => format!(
                "{}, the game's highest (its full rules; {} N for another)",
                l.describe(self.league),
                Opt::League
            ),
            (None, true) => format!("league {}", self.league),
            (None, false) => format!(
                "league {} (the game's files list no leagues: {} N as its statement numbers them)",
                self.league,
                Opt::League
            ),
        }
    }

    /// The class path as `java -cp` takes it.
    pub fn classpath_text(&self) -> String {
        let parts: Vec<String> = self
            .classpath
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        parts.join(":")
    }

    /// The JVM's system properties the engine reads: the game mode and the league.
    pub fn properties(&self) -> Vec<String> {
        vec![
            // No perf-data file in a shared /tmp (a second JVM of one user warns on stdout,
            // where the protocol goes), and a faster start.
            "-XX:-UsePerfData".to_string(),
            // The quick compiler only: a referee's JVM spent more CPU compiling its hot code
            // again with the optimising one than it saved, even over thousands of answers
            // (Spring Challenge 2021, 1,920 answers: 1.37 ms of CPU an answer against 2.69 ms,
            // start-up 0.59 s against 1.05 s; `benches/sdk_turn.py`, docs/sdk-build.md).
            "-XX:TieredStopAtLevel=1".to_string(),
            "-Dgame.mode=multi".to_string(),
            format!("-Dleague.level={}", self.league),
            // The engine logs every frame at INFO on stderr: keep warnings (and failures) only.
            "-Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.SimpleLog"
                .to_string(),
            "-Dorg.apache.commons.logging.simplelog.defaultlog=warn".to_string(),
        ]
    }

    /// The referee as the engine's own entry starts it (`java -D... -cp CP RefereeMain`): what a
    /// user may run by hand to see it fail.
    pub fn java_command(&self) -> BotSpec {
        let mut args = self.properties();
        args.push("-cp".into());
        args.push(self.classpath_text());
        args.push(self.main_class.clone());
        let mut spec = BotSpec::command(&self.name, "java", args, &self.dir);
        spec.origin = self.origin.clone();
        spec
    }
}

/// The longest a referee that failed is given to finish its trace ([`RefereeLauncher::after_fail`]).
pub const AFTER_FAIL: Duration = Duration::from_secs(2);

/// How a game's referee process is started. The driver only speaks to the process it gets (its
/// stdin and stdout), so any way of starting the same referee fits here.
pub trait RefereeLauncher: std::fmt::Debug + Send + Sync {
    /// Starts the referee of one game of `game`, under the bots' `limits` (the referee is
    /// untrusted code, boxed as they are), hidden from the private files of `others`.
    fn spawn(
        &self,
        game: &SdkGame,
        limits: &Limits,
        others: &[&BotSpec],
    ) -> Result<BotProcess, SpawnError>;

    /// What is run, for messages: "java ... RefereeMain".
    fn describe(&self, game: &SdkGame) -> String;

    /// Waits (at most [`AFTER_FAIL`]) for a referee that wrote `[[FAIL]]` to finish telling why:
    /// the engine writes `[[FAIL]]` first and its stack trace to stderr after, as the exception
    /// leaves the game, so a referee shut down at once loses the trace it was writing (seen
    /// under load). A fresh JVM exits once the trace is written.
    fn after_fail(&self, proc: &mut BotProcess) {
        let _ = proc.exit_status_within(AFTER_FAIL);
    }

    /// Takes the referee's process back after its game; `clean` when the game ended as the
    /// protocol says (its [[SCORES]]). A launcher that keeps the process for another game
    /// returns the stderr it wrote during this game; otherwise the process comes back to be
    /// shut down with the game's bots (a JVM per game's always does), boxed (it is large).
    fn finish(&self, proc: BotProcess, clean: bool) -> Result<String, Box<BotProcess>> {
        let _ = clean;
        Err(Box::new(proc))
    }
}

/// What a `--referee` argument names, when it is an SDK game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detected {
    /// A game's source folder (pom.xml and src/main/java): to be built.
    Source(PathBuf),
    /// A built game: a class path (a jar, a folder of classes, or several joined with `:`)
    /// whose entries hold the game's `Referee` class.
    ClassPath(Vec<PathBuf>),
}

/// Whether `arg` (as typed in `workdir`, `None`: the current directory) names an SDK game: a
/// source folder with a pom.xml and src/main/java, or a class path of existing entries one of
/// which holds `com/codingame/game/Referee.class` (a folder) or is a jar. Anything else is an
/// external referee's command line or folder.
pub fn detect(arg: &str, workdir: Option<&Path>) -> Option<Detected> {
    let at = |p: &str| match workdir {
        Some(w) => w.join(p),
        None => PathBuf::from(p),
    };
    let path = at(arg);
    if path.is_dir() && path.join("pom.xml").is_file() && path.join("src/main/java").is_dir() {
        return Some(Detected::Source(path));
    }
    if arg.trim().is_empty() || arg.contains(char::is_whitespace) {
        return None;
    }
    let entries: Vec<PathBuf> = arg.split(':').filter(|p| !p.is_empty()).map(at).collect();
    let holds_game = |p: &PathBuf| {
        p.join(REFEREE_CLASS).is_file()
            || (p.is_file() && p.extension().is_some_and(|e| e == "jar") && jar_holds_game(p))
    };
    (entries.iter().all(|p| p.exists()) && entries.iter().any(holds_game))
        .then_some(Detected::ClassPath(entries))
}

/// Whether a jar's central directory names the game's `Referee` class (a jar is a zip whose
/// entry names are stored uncompressed: the bytes are looked for as they are).
fn jar_holds_game(jar: &Path) -> bool {
    std::fs::read(jar)
        .map(|bytes| {
            bytes
                .windows(REFEREE_CLASS.len())
                .any(|w| w == REFEREE_CLASS.as_bytes())
        })
        .unwrap_or(false)
}

/// Why an SDK game cannot be played as given.
#[derive(Debug, thiserror::Error)]
pub enum SdkError {
    #[error("{} {origin}: {source}", Opt::Referee)]
    Build {
        origin: String,
        source: Box<build::SdkBuildError>,
    },
    #[error("{} {0:?} is not KEY=VALUE (a key of letters, digits, '.', '_' or '-', a value on one line)", Opt::GameParam)]
    BadParam(String),
    #[error("{} must be at least 1 (1 is the lowest league)", Opt::League)]
    League,
    #[error(
        "{} {league}: the game has leagues 1 to {count} (as {} lists them); give one of those          (`arbiter games {} GAME` lists them)",
        Opt::League,
        from.display(),
        Opt::Referee
    )]
    LeagueRange {
        league: u32,
        count: u32,
        from: PathBuf,
    },
    #[error("{} must be at least 1", Opt::RefereeTimeoutMs)]
    MessageLimit,
}

/// What a run plays an SDK game with, besides the game: the flags that shape it.
#[derive(Debug, Clone, Default)]
pub struct SdkOptions {
    /// `--league`: the game's highest unless given (1 where its files list none).
    pub league: Option<u32>,
    /// `--game-param KEY=VALUE`, as typed.
    pub params: Vec<String>,
    /// Whether the user set the turns' limits (then they stand instead of the game's).
    pub user_limits: bool,
    /// `--referee-timeout-ms`.
    pub message_limit: Option<Duration>,
}

/// The game a detected `--referee` names, typed as `origin`, ready to play with `opts` (the
/// paths `detect` found are the folder they were typed in's already: `_workdir` is not read).
pub fn resolve(
    detected: Detected,
    origin: &str,
    _workdir: Option<&Path>,
    opts: &SdkOptions,
) -> Result<SdkGame, SdkError> {
    // A source folder is built (in the build box, cached) into a run folder that holds
    // arbiter's launcher too, and a jar or class path is copied into one (`build::prebuilt`):
    // their games are played by warm JVMs.
    let folder = game_folder(&detected);
    let (source, name) = match detected {
        Detected::Source(dir) => {
            let name = std::path::absolute(&dir)
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
            (build::SdkSource::Folder(dir), name)
        }
        Detected::ClassPath(entries) => {
            let entries: Vec<PathBuf> = entries
                .into_iter()
                .map(|p| std::path::absolute(&p).unwrap_or(p))
                .collect();
            let name = Some(game_name(&entries));
            (build::SdkSource::ClassPath(entries), name)
        }
    };
    let leagues = folder.as_deref().and_then(leagues::read);
    if let (Some(league), Some(l)) = (opts.league, &leagues) {
        if league > l.count() {
            return Err(SdkError::LeagueRange {
                league,
                count: l.count(),
                from: l.from.clone(),
            });
        }
    }
    let built = build::build(&source, None).map_err(|e| SdkError::Build {
        origin: origin.to_string(),
        source: Box::new(e),
    })?;
    let name = name.unwrap_or_else(|| "sdk-game".into());
    let params = opts
        .params
        .iter()
        .map(|p| parse_param(p))
        .collect::<Result<Vec<_>, _>>()?;
    if opts.league == Some(0) {
        return Err(SdkError::League);
    }
    if opts.message_limit == Some(Duration::ZERO) {
        return Err(SdkError::MessageLimit);
    }
    let classpath: Vec<PathBuf> = built
        .classpath
        .into_iter()
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .collect();
    Ok(SdkGame {
        name: crate::protocol::printable(&name).into_owned(),
        origin: origin.to_string(),
        classpath,
        main_class: REFEREE_MAIN.to_string(),
        // The run folder holds all the referee runs from besides the system's jars.
        dir: built.dir,
        league: opts
            .league
            .or(leagues.as_ref().map(leagues::Leagues::count))
            .unwrap_or(1),
        leagues,
        league_given: opts.league.is_some(),
        params,
        game_limits: !opts.user_limits,
        message_limit: opts.message_limit.unwrap_or(DEFAULT_MESSAGE_LIMIT),
        launcher: launcher::for_built_game(),
    })
}

/// The game's own folder (where its `config/` is) for what `--referee` named: a source folder, or
/// above the class path entry that holds the game.
pub fn game_folder(detected: &Detected) -> Option<PathBuf> {
    let entry = match detected {
        Detected::Source(dir) => dir.clone(),
        Detected::ClassPath(entries) => entries
            .iter()
            .find(|p| p.join(REFEREE_CLASS).is_file())
            .or(entries.first())?
            .clone(),
    };
    leagues::game_folder(&std::path::absolute(&entry).unwrap_or(entry))
}

/// A game's name from its class path: the name of the entry that holds the game, above its
/// `classes` and `target` folders (`spring-2021/target/classes` is `spring-2021`), without a
/// jar's `.jar`; a run folder of arbiter's build cache is named by the game built into it.
fn game_name(classpath: &[PathBuf]) -> String {
    let holder = classpath
        .iter()
        .find(|p| p.join(REFEREE_CLASS).is_file())
        .or(classpath.first());
    let mut path = holder.map(PathBuf::as_path);
    while let Some(p) = path {
        if let Ok(name) = std::fs::read_to_string(p.join(NAME_FILE)) {
            let name = name.trim();
            if !name.is_empty() {
                return name.to_string();
            }
        }
        match p.file_name().and_then(|n| n.to_str()) {
            Some("classes" | "target" | "build") => path = p.parent(),
            Some(name) => return name.trim_end_matches(".jar").to_string(),
            None => break,
        }
    }
    "sdk-game".to_string()
}

/// One `--game-param KEY=VALUE`.
pub fn parse_param(text: &str) -> Result<(String, String), SdkError> {
    let bad = || SdkError::BadParam(text.to_string());
    let (key, value) = text.split_once('=').ok_or_else(bad)?;
    let key_ok = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !key_ok || value.contains(['\n', '\r']) {
        return Err(bad());
    }
    Ok((key.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_path_holding_the_referee_class_is_an_sdk_game_and_a_command_is_not() {
        let dir = std::env::temp_dir().join(format!("arbiter-sdk-detect-{}", std::process::id()));
        let classes = dir.join("classes");
        std::fs::create_dir_all(classes.join("com/codingame/game")).unwrap();
        std::fs::write(classes.join(REFEREE_CLASS), b"").unwrap();
        let engine = dir.join("engine");
        std::fs::create_dir_all(&engine).unwrap();
        let cp = format!("{}:{}", classes.display(), engine.display());
        assert_eq!(
            detect(&cp, None),
            Some(Detected::ClassPath(vec![classes.clone(), engine.clone()]))
        );
        // Relative entries are found where the run was typed.
        assert_eq!(
            detect("classes:engine", Some(&dir)),
            Some(Detected::ClassPath(vec![classes.clone(), engine.clone()]))
        );
        assert_eq!(detect(&engine.display().to_string(), None), None);
        assert_eq!(detect("python3 referee.py", None), None);
        let missing = format!("{}:/no/such/jar.jar", classes.display());
        assert_eq!(detect(&missing, None), None);
        std::fs::create_dir_all(dir.join("src/main/java")).unwrap();
        std::fs::write(dir.join("pom.xml"), b"<project/>").unwrap();
        assert_eq!(
            detect(&dir.display().to_string(), None),
            Some(Detected::Source(dir.clone()))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn game_params_are_key_value_on_one_line_and_names_come_from_the_folder() {
        assert_eq!(
            parse_param("seed=-12").unwrap(),
            ("seed".to_string(), "-12".to_string())
        );
        assert_eq!(parse_param("a.b=x=y").unwrap().1, "x=y");
        for bad in ["noequals", "=1", "a b=1", "k=line\nbreak"] {
            assert!(parse_param(bad).is_err(), "{bad}");
        }
        let name = |p: &str| game_name(&[PathBuf::from(p)]);
        assert_eq!(name("/x/spring-2021/target/classes"), "spring-2021");
        assert_eq!(name("/x/game.jar"), "game");
        // A class path into arbiter's build cache: the game built there, not its hash.
        let cache = tempfile::tempdir().unwrap();
        let run = cache.path().join("sdk-game-8bb0174c");
        std::fs::create_dir_all(run.join("classes")).unwrap();
        std::fs::write(run.join(NAME_FILE), "SpringChallenge2021").unwrap();
        assert_eq!(game_name(&[run.join("classes")]), "SpringChallenge2021");
    }
}
