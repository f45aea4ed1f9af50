//! Take, arbiter's own small CodinGame SDK game (`tests/sdk/take`), built for the SDK tests
//! (sdk.rs, sdk_detail.rs, sdk_warm.rs): its class path, its bots (`tests/sdk/take_bot.py`),
//! a game and a tournament of it.

use super::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The Debian jars the engine's core needs (package in the message when one is missing).
const JARS: [(&str, &str); 6] = [
    ("guice-no-aop.jar", "libguice-java"),
    ("guava.jar", "libguava-java"),
    ("gson.jar", "libgoogle-gson-java"),
    ("commons-logging.jar", "libcommons-logging-java"),
    ("atinject-jsr330-api.jar", "libatinject-jsr330-api-java"),
    ("aopalliance.jar", "libaopalliance-java"),
];

/// Take's class path (the game, the engine's core, the jars) joined with ':', built once per
/// run under target/ (a bot or referee run by root gets a /tmp of its own); `None` (after saying
/// why) where a JDK, a jar or the engine's source is missing, which fails the test under CI.
/// arbiter's own build of SDK games replaces this helper once it lands.
pub fn take() -> Option<String> {
    static BUILT: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let run = |cmd: &mut std::process::Command| -> Result<(), String> {
            let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
            match out.status.success() {
                true => Ok(()),
                false => Err(format!(
                    "{cmd:?} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                )),
            }
        };
        for tool in ["java", "javac", "git"] {
            run(std::process::Command::new("sh").args(["-c", &format!("command -v {tool}")]))
                .map_err(|_| {
                    format!("{tool} is missing: apt-get install default-jdk-headless git")
                })?;
        }
        let mut jars = Vec::new();
        for (jar, package) in JARS {
            let path = Path::new("/usr/share/java").join(jar);
            if !path.is_file() {
                return Err(format!(
                    "{} is missing: apt-get install {package}",
                    path.display()
                ));
            }
            jars.push(path);
        }
        let work = root().join("target/sdk-tests");
        let engine = work.join("engine");
        if !engine.join("done").is_file() {
            // A clone of the engine, or a git bundle of it (as .ci/run gives).
            let given = std::env::var_os("ARBITER_CODINGAME_ENGINE").map(PathBuf::from);
            let source = match given {
                Some(dir) if dir.is_dir() => dir,
                given => {
                    let bundle = given.unwrap_or_else(|| {
                        root().join("../shared/third_party/codingame-game-engine.bundle")
                    });
                    if !bundle.is_file() {
                        return Err(format!(
                            "no CodinGame engine source: {} is missing; clone \
                             https://github.com/CodinGame/codingame-game-engine and set \
                             ARBITER_CODINGAME_ENGINE to the clone",
                            bundle.display()
                        ));
                    }
                    let clone = work.join("engine-src");
                    let _ = std::fs::remove_dir_all(&clone);
                    run(std::process::Command::new("git")
                        .args(["clone", "-q"])
                        .arg(&bundle)
                        .arg(&clone))?;
                    clone
                }
            };
            let _ = std::fs::remove_dir_all(&engine);
            let classes = engine.join("classes");
            std::fs::create_dir_all(&classes).unwrap();
            run(std::process::Command::new("javac")
                .args(["-nowarn", "-d"])
                .arg(&classes)
                .arg("-cp")
                .arg(std::env::join_paths(&jars).unwrap())
                .args(java_files(&source.join("engine/core/src/main/java"))))?;
            std::fs::write(engine.join("done"), b"").unwrap();
        }
        // Laid out as a game's own build is: take/target/classes beside take/config (its
        // leagues and players), so that the game's name is its folder's and its files are
        // found above its classes.
        let folder = work.join(std::process::id().to_string()).join("take");
        let _ = std::fs::remove_dir_all(&folder);
        let game = folder.join("target/classes");
        std::fs::create_dir_all(&game).unwrap();
        std::fs::create_dir_all(folder.join("config")).unwrap();
        for file in ["statement_en.html.tpl", "config.ini"] {
            std::fs::copy(
                root().join("tests/sdk/take/config").join(file),
                folder.join("config").join(file),
            )
            .unwrap();
        }
        let mut cp = vec![engine.join("classes")];
        cp.extend(jars.iter().cloned());
        run(std::process::Command::new("javac")
            .args(["-nowarn", "-d"])
            .arg(&game)
            .arg("-cp")
            .arg(std::env::join_paths(&cp).unwrap())
            .args(java_files(&root().join("tests/sdk/take/src/main/java"))))?;
        cp.insert(0, game);
        Ok(std::env::join_paths(&cp)
            .unwrap()
            .to_string_lossy()
            .into_owned())
    });
    match built {
        Ok(cp) => Some(cp.clone()),
        Err(why) => {
            crate::common::skip(format!(
                "the SDK tests need a JDK, Debian's jars and the engine's source: {why}"
            ));
            None
        }
    }
}

fn java_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                files.push(p);
            }
        }
    }
    files
}

/// A Take bot in `mode` (see tests/sdk/take_bot.py), named `name`.
pub fn bot(name: &str, mode: &str) -> String {
    format!(
        "{name}={} {}/tests/sdk/take_bot.py {mode}",
        python(),
        root().display()
    )
}

/// `arbiter play --json` of Take with `extra` options; the JVM gets 30 s per message (a cold
/// start on a loaded machine is slow).
pub fn play(cp: &str, bots: &[String], extra: &[&str]) -> Value {
    play_referee(cp, &["--referee-timeout-ms", "30000"], extra, bots)
}

/// A tournament's arguments: Take, 30 s per referee message, the game's own turn limits.
pub fn tournament_args(cp: &str, out: &Path, games: &str) -> Vec<String> {
    referee_tournament_args(cp, &["--referee-timeout-ms", "30000"], out, games)
}
