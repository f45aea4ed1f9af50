//! Games written on the CodinGame SDK (codingame-game-engine, Java): every CodinGame contest and
//! community multiplayer game since 2018. The game's own `Referee` runs as a process whose entry
//! point is the engine's `RefereeMain`, the one CodinGame's servers start, and arbiter speaks its
//! line protocol (`protocol`) in place of CodinGame's runner (`driver`): arbiter spawns, boxes
//! and times the bots, the game keeps its rules, leagues, verdicts and scores.
//!
//! A built game is a Java class path and the referee's main class ([`SdkGame`]); how its process
//! is started is a [`RefereeLauncher`]: a fresh JVM per game ([`FreshJvm`]) or a warm one that
//! serves game after game (the build and the warm launcher live in `build*.rs` and
//! `launcher*.rs`). Here: what a user's `--referee` names when it is an SDK game ([`detect`]).

pub mod build;
pub mod driver;
pub mod launcher;
pub mod protocol;

use crate::bot::{BotProcess, BotSpec, Limits, SpawnError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The engine's entry point for a game's referee process (CodinGame's servers start this one).
pub const REFEREE_MAIN: &str = "com.codingame.gameengine.core.RefereeMain";

/// The class every SDK game defines: what tells a class path that holds a game.
pub const REFEREE_CLASS: &str = "com/codingame/game/Referee.class";

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
            "-Dgame.mode=multi".to_string(),
            format!("-Dleague.level={}", self.league),
            // The engine logs every frame at INFO on stderr: keep warnings (and failures) only.
            "-Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.SimpleLog"
                .to_string(),
            "-Dorg.apache.commons.logging.simplelog.defaultlog=warn".to_string(),
        ]
    }

    /// The referee as a fresh JVM's command line (`java -D... -cp CP RefereeMain`).
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

    /// Takes the referee's process back after its game; `clean` when the game ended as the
    /// protocol says (its [[SCORES]]). A launcher that keeps the process for another game
    /// returns the stderr it wrote during this game; otherwise the process comes back to be
    /// shut down with the game's bots (a fresh JVM's always does), boxed (it is large).
    fn finish(&self, proc: BotProcess, clean: bool) -> Result<String, Box<BotProcess>> {
        let _ = clean;
        Err(Box::new(proc))
    }
}

/// One fresh JVM per game: `java -cp CLASSPATH com.codingame.gameengine.core.RefereeMain`.
#[derive(Debug, Default, Clone, Copy)]
pub struct FreshJvm;

impl RefereeLauncher for FreshJvm {
    fn spawn(
        &self,
        game: &SdkGame,
        limits: &Limits,
        others: &[&BotSpec],
    ) -> Result<BotProcess, SpawnError> {
        BotProcess::spawn(&game.java_command(), limits, others)
    }

    fn describe(&self, game: &SdkGame) -> String {
        game.java_command().command_line()
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
}
