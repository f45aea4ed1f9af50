//! Referee JVMs of arbiter's own launcher (`java/ArbiterLauncher.java`, compiled into every
//! game's run folder by `super::build`): a JVM's start-up and the engine's first injector cost
//! about 0.7 s of CPU per game, forty times what a tic-tac-toe game's own turns cost, so a run of
//! short SDK games would mostly start JVMs. [`WarmJvm`] keeps a few started launchers and plays
//! game after game in each: every game in a class loader of its own (the engine's and the
//! game's classes loaded afresh, so no static of one game reaches the next) and so an injector
//! of its own, on the launcher's stdin and stdout, speaking RefereeMain's protocol as a fresh
//! `java ... RefereeMain` does. [`WarmJvm::fresh`] starts one launcher per game instead.
//!
//! Besides the engine's own messages the launcher tells, before each frame, the game's time
//! limits and which players it still has (`[[ARBITER_STATE]]`, read from its `GameManager`):
//! what the driver enforces and tells the bots, and who the game deactivated when.
//!
//! The launcher is the referee, untrusted code: it is started as the bots are, boxed and
//! limited as they are (the same `BotProcess::spawn`), and only serves games whose bots it was
//! hidden from when it started (a launcher is kept per set of bots and limits, and per game
//! thread: see [`WarmJvm::key`]). Nothing of a game reaches the next one in the same JVM: the
//! launcher puts back the system properties, default locale and time zone and standard
//! streams, kills every process the game started (every process of its process-id namespace
//! but itself, where it has one of its own: as root, or in the sandbox) and empties the folders
//! private to it (/tmp, /var/tmp, /run/lock and /dev/shm as root; /tmp and /dev/shm in the
//! sandbox) of what its user wrote there; a game that leaves a thread running, or a process or
//! file it cannot remove, retires the launcher (`[[ARBITER_GAME_END]] retired WHY`), and the
//! JVM is ended instead of kept. A launcher is given back to the pool only after a game that
//! ended as the protocol says ([[SCORES]], then `ok` in time); after anything else (a hang, a
//! crash, garbage, a game cut short) it is shut down with the game's bots, and the next game
//! starts a new one. At most [`max_idle`] launchers wait at once; the oldest goes first.
//!
//! Protocol (the Java side's comment has it in full): arbiter writes `[[ARBITER_GAME]]
//! [--own-pids] [--scratch=DIRS] key=value ...` (the game's system properties), then the game
//! goes as with a fresh JVM; when the engine returns, the launcher writes `[[ARBITER_GAME_END]]
//! ok` (or `failed`, or `retired WHY`). Lines before a header are skipped: the runner's last
//! `[[GET_GAME_INFO]]`, which the engine never reads.

use super::{RefereeLauncher, SdkGame};
use crate::bot::{self, BotProcess, BotSpec, Limits, SpawnError, Wait};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The launcher's source file in a build folder.
pub const SOURCE_FILE: &str = "ArbiterLauncher.java";

/// The launcher's source: part of every game's cache key, so a changed launcher is rebuilt.
pub const SOURCE_HASH_INPUT: &str = include_str!("java/ArbiterLauncher.java");

/// The launcher's class, and the folder of a run folder it is compiled into.
pub const MAIN_CLASS: &str = "ArbiterLauncher";
pub const CLASS_DIR: &str = "launcher";

/// What the launcher writes before a game and after it.
const GAME: &str = "[[ARBITER_GAME]]";
const END: &str = "[[ARBITER_GAME_END]]";

/// How long a launcher has to say a finished game is over before it is not trusted again.
const END_WITHIN: Duration = Duration::from_secs(5);

/// Writes the launcher's source into the build folder `dir`.
pub fn write_source(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join(SOURCE_FILE), SOURCE_HASH_INPUT)
}

/// Whether `game`'s run folder holds the launcher (built by `super::build`).
pub fn has_launcher(game: &SdkGame) -> bool {
    game.dir
        .join(CLASS_DIR)
        .join(format!("{MAIN_CLASS}.class"))
        .is_file()
}

/// The launcher of a game arbiter built (its run folder holds the launcher): warm JVMs, unless
/// the environment variable `ARBITER_SDK_JVM` is `fresh` (one JVM per game, for comparisons).
pub fn for_built_game() -> std::sync::Arc<dyn RefereeLauncher> {
    match std::env::var("ARBITER_SDK_JVM").is_ok_and(|v| v == "fresh") {
        true => std::sync::Arc::new(WarmJvm::fresh()),
        false => std::sync::Arc::new(WarmJvm::new()),
    }
}

/// The folders private to a referee started with `limits` that the launcher empties after
/// each game, and whether it has a process-id namespace of its own: as root (without the
/// sandbox) every boxed process gets scratch folders of its own over the machine's shared
/// writable ones and an in-memory /dev/shm (`bot::reach`); the sandbox gives it a /tmp and a
/// /dev/shm of its own. Elsewhere it shares the machine's.
fn private_to_referee(limits: &Limits) -> (&'static str, bool) {
    if limits.sandbox.is_some() {
        ("/tmp:/dev/shm", true)
    } else if BotProcess::can_hold(limits) {
        ("/tmp:/var/tmp:/run/lock:/dev/shm", true)
    } else {
        ("", false)
    }
}

/// Most launchers waiting for a game at once: one per core (a run plays at most about that
/// many games at once; each waiting JVM holds some hundred MiB).
pub fn max_idle() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

/// A launcher waiting for its next game, and what it may serve.
struct IdleLauncher {
    key: String,
    proc: BotProcess,
}

/// A launcher playing a game: where its stderr stood when the game began.
struct BusyLauncher {
    pid: u32,
    key: String,
    stderr_mark: u64,
}

/// JVMs of arbiter's launcher, kept between games (see the module documentation), or one a game
/// ([`WarmJvm::fresh`]).
pub struct WarmJvm {
    idle: Mutex<Vec<IdleLauncher>>,
    busy: Mutex<Vec<BusyLauncher>>,
    /// Whether a launcher serves more than one game.
    keep: bool,
}

impl Default for WarmJvm {
    fn default() -> WarmJvm {
        WarmJvm {
            idle: Mutex::default(),
            busy: Mutex::default(),
            keep: true,
        }
    }
}

impl std::fmt::Debug for WarmJvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idle = self.idle.lock().map_or(0, |i| i.len());
        write!(f, "WarmJvm {{ idle: {idle} }}")
    }
}

impl WarmJvm {
    pub fn new() -> WarmJvm {
        WarmJvm::default()
    }

    /// A launcher started for each game and ended after it: what a JVM per game costs, for
    /// comparisons (`ARBITER_SDK_JVM=fresh`).
    pub fn fresh() -> WarmJvm {
        WarmJvm {
            keep: false,
            ..WarmJvm::default()
        }
    }

    /// The launcher's command for `game`: the JVM's class path holds the launcher and the
    /// engine's libraries; the game's own class path (its folder's part) is the launcher's
    /// arguments, loaded afresh for each game.
    pub fn command(game: &SdkGame) -> BotSpec {
        let (own, system): (Vec<_>, Vec<_>) = game
            .classpath
            .iter()
            .partition(|p| p.starts_with(&game.dir));
        let mut jvm_cp = vec![game.dir.join(CLASS_DIR).display().to_string()];
        jvm_cp.extend(system.iter().map(|p| p.display().to_string()));
        let mut args = game.properties();
        args.extend(["-cp".to_string(), jvm_cp.join(":"), MAIN_CLASS.to_string()]);
        args.extend(own.iter().map(|p| p.display().to_string()));
        let mut spec = BotSpec::command(&game.name, "java", args, &game.dir);
        spec.origin = game.origin.clone();
        spec
    }

    /// Which launchers may serve a game: the same command, limits and hidden bots, and the same
    /// thread. A boxed process gets SIGKILL when the *thread* that started it ends (its
    /// parent-death signal, which keeps nothing of a game alive after a dead referee), so a
    /// launcher started by one game thread and taken by another was killed mid-game when its
    /// first thread ran out of games.
    fn key(game: &SdkGame, limits: &Limits, others: &[&BotSpec]) -> String {
        let mut hidden: Vec<String> = others
            .iter()
            .map(|b| format!("{}|{}", b.dir.display(), b.program.display()))
            .collect();
        hidden.sort();
        format!(
            "{:?}\n{}\n{limits:?}\n{}",
            std::thread::current().id(),
            Self::command(game).command_line(),
            hidden.join("\n")
        )
    }

    /// A waiting launcher for `key` that is still alive, if any.
    fn take_idle(&self, key: &str) -> Option<BotProcess> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(at) = idle.iter().rposition(|i| i.key == key) {
            let mut proc = idle.remove(at).proc;
            if proc.try_exit_status().is_none() {
                return Some(proc);
            }
            // Ended while it waited (killed from outside, out of memory): not used.
            proc.shutdown(Duration::ZERO);
        }
        None
    }

    /// The header that starts a game: what is private to the launcher (see
    /// [`private_to_referee`]), then the game's system properties.
    fn header(game: &SdkGame, limits: &Limits) -> String {
        let mut words = vec![GAME.to_string()];
        let (scratch, own_pids) = private_to_referee(limits);
        if own_pids {
            words.push("--own-pids".into());
        }
        if !scratch.is_empty() {
            words.push(format!("--scratch={scratch}"));
        }
        words.extend(
            game.properties()
                .iter()
                .filter_map(|p| p.strip_prefix("-D"))
                .map(str::to_string),
        );
        format!("{}\n", words.join(" "))
    }

    /// How many launchers are waiting (for tests and the benchmark).
    pub fn idle_count(&self) -> usize {
        self.idle.lock().map_or(0, |i| i.len())
    }
}

impl RefereeLauncher for WarmJvm {
    fn spawn(
        &self,
        game: &SdkGame,
        limits: &Limits,
        others: &[&BotSpec],
    ) -> Result<BotProcess, SpawnError> {
        let key = Self::key(game, limits, others);
        let command = Self::command(game);
        let mut proc = match self.take_idle(&key).filter(|_| self.keep) {
            Some(proc) => proc,
            None => BotProcess::spawn(&command, limits, others)?,
        };
        let header = Self::header(game, limits);
        if let Err(e) = proc.send(header.as_bytes(), Instant::now() + END_WITHIN) {
            proc.shutdown(Duration::ZERO);
            let e = match e {
                bot::SendError::Closed => "it closed its standard input",
                bot::SendError::Full => "its input stayed full",
            };
            return Err(SpawnError {
                name: game.name.clone(),
                command: command.command_line(),
                dir: game.dir.display().to_string(),
                reason: format!("the warm referee JVM did not take its game: {e}"),
                machine: None,
            });
        }
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        busy.retain(|b| b.pid != proc.pid());
        busy.push(BusyLauncher {
            pid: proc.pid(),
            key,
            stderr_mark: proc.stderr_bytes(),
        });
        Ok(proc)
    }

    fn describe(&self, game: &SdkGame) -> String {
        Self::command(game).command_line()
    }

    /// The launcher prints the game's trace, then its end line: the line says the trace is
    /// whole (the launcher lives on, so it does not exit).
    fn after_fail(&self, proc: &mut BotProcess) {
        let deadline = Instant::now() + super::AFTER_FAIL;
        while let Wait::Line(line, _) = bot::wait_line(std::slice::from_mut(proc), 0, deadline) {
            if line.starts_with(END.as_bytes()) {
                break;
            }
        }
    }

    fn finish(&self, mut proc: BotProcess, clean: bool) -> Result<String, Box<BotProcess>> {
        let busy = {
            let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
            let at = busy.iter().position(|b| b.pid == proc.pid());
            at.map(|at| busy.remove(at))
        };
        let Some(busy) = busy.filter(|_| clean && self.keep) else {
            return Err(Box::new(proc));
        };
        let deadline = Instant::now() + END_WITHIN;
        let ended = loop {
            match bot::wait_line(std::slice::from_mut(&mut proc), 0, deadline) {
                Wait::Line(line, _) => {
                    let text = String::from_utf8_lossy(&line);
                    if let Some(how) = text.strip_prefix(END) {
                        break how.trim() == "ok";
                    }
                    // Anything the game wrote after its scores is not part of it.
                }
                _ => break false,
            }
        };
        if !ended {
            return Err(Box::new(proc));
        }
        let tail = proc.stderr_since(busy.stderr_mark, crate::bot::process::STDERR_TAIL_BYTES);
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.push(IdleLauncher {
            key: busy.key,
            proc,
        });
        if idle.len() > max_idle() {
            // The oldest waiting launcher goes (its set of bots was likely played out).
            idle.remove(0).proc.shutdown(Duration::from_millis(100));
        }
        Ok(tail)
    }
}

#[cfg(test)]
mod tests;
