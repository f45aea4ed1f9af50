//! CodinGame SDK games given by their source folder (`--referee tests/sdk/take`): the real
//! binary builds the engine from the engine's git bundle (`ARBITER_CODINGAME_ENGINE`, else the
//! one beside the repository, as `.ci/run` sets it) and the game against it, in the build box,
//! then plays the games with warm referee JVMs, and plays exactly the games one fresh JVM per
//! game plays.

use crate::common::*;
use std::path::{Path, PathBuf};

/// The engine's source for these tests, or `None` (skipped) where it, a JDK or bwrap is missing;
/// under CI a missing one fails the test, saying what is missing.
pub fn engine() -> Option<PathBuf> {
    let beside = root().join("../shared/third_party/codingame-game-engine.bundle");
    let engine = std::env::var_os("ARBITER_CODINGAME_ENGINE")
        .map(PathBuf::from)
        .or_else(|| beside.exists().then_some(beside));
    let javac = Path::new("/usr/bin/javac").exists();
    let why = match (&engine, javac, bwrap_or_fail()) {
        (None, ..) => {
            "no engine source: set ARBITER_CODINGAME_ENGINE to a clone of \
                       https://github.com/CodinGame/codingame-game-engine"
        }
        (_, false, _) => "no JDK (apt-get install default-jdk-headless)",
        (_, _, false) => "no bwrap (apt-get install bubblewrap)",
        _ => return engine,
    };
    skip(format!("the SDK build tests cannot run: {why}"));
    None
}

/// A tournament of Take from its source folder, `games` games, greedy against modest.
fn tournament(
    cache: &Path,
    engine: Option<&Path>,
    out: &Path,
    fresh: bool,
) -> std::process::Output {
    let bot = |name: &str| {
        format!(
            "{name}={} {}/tests/sdk/take_bot.py {name}",
            python(),
            root().display()
        )
    };
    let mut cmd = arbiter();
    cmd.env("ARBITER_CACHE", cache)
        .env_remove("ARBITER_CODINGAME_ENGINE")
        .env_remove("ARBITER_SDK_JVM");
    if let Some(engine) = engine {
        cmd.env("ARBITER_CODINGAME_ENGINE", engine);
    }
    if fresh {
        cmd.env("ARBITER_SDK_JVM", "fresh");
    }
    cmd.args([
        "tournament",
        "--games",
        "4",
        "--seed",
        "9",
        "--concurrency",
        "2",
    ])
    // Generous limits: this test is about the build and the warm JVM, not the clock (the game's
    // own limits lost a turn to the load of the whole suite once).
    .args(["--turn-ms", "2000", "--first-turn-ms", "10000"])
    .args(["--referee-timeout-ms", "30000", "--referee"])
    .arg(root().join("tests/sdk/take"))
    .arg("--out")
    .arg(out)
    .args([bot("greedy"), bot("modest")])
    .output()
    .unwrap()
}

fn inputs(out: &Path) -> Vec<(u64, serde_json::Value)> {
    let text = std::fs::read_to_string(out.join("records.jsonl")).unwrap();
    let mut all: Vec<(u64, serde_json::Value)> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| {
            (
                r["game_id"].as_u64().unwrap_or(0),
                r["external"]["inputs"].clone(),
            )
        })
        .collect();
    all.sort_by_key(|(id, _)| *id);
    all
}

#[test]
fn a_source_folder_is_built_once_and_warm_jvms_play_the_games_a_fresh_jvm_plays() {
    let Some(engine) = engine() else { return };
    let dir = shared_tempdir();
    let cache = dir.path().join("cache");
    let warm = dir.path().join("warm");
    let done = tournament(&cache, Some(&engine), &warm, false);
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(done.status.success(), "{text}");
    // The first build is told (tens of seconds that were silent), with how long it took.
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("arbiter: building SDK game take (javac, first time; cached after)\n"),
        "{stderr}"
    );
    let built = stderr
        .lines()
        .find_map(|l| l.strip_prefix("arbiter: built SDK game take in "))
        .unwrap_or_else(|| panic!("no build time in: {stderr}"));
    assert!(built.ends_with(" s"), "{built}");
    let rows = read_csv(&warm.join("games.csv"));
    assert_eq!(rows.len(), 4, "{text}");
    for r in &rows {
        assert_eq!(r["reason"], "win", "{r:?}");
        let greedy = if r["bot0"] == "greedy" { "0" } else { "1" };
        assert_eq!(r["winner"], greedy, "{r:?}");
    }
    // Built into the cache: the engine once for its version, the game with the launcher.
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n == "sdk-engine-4.7.7-r2"),
        "{names:?}"
    );
    let game = names
        .iter()
        .find(|n| n.starts_with("sdk-game-"))
        .expect("the game's folder");
    assert!(cache
        .join(game)
        .join("launcher/ArbiterLauncher.class")
        .is_file());

    // One fresh JVM per game, the built game found in the cache without the engine's source:
    // the same games, turn by turn.
    let fresh = dir.path().join("fresh");
    let done = tournament(&cache, None, &fresh, true);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    // Found in the cache: nothing to tell.
    for told in ["building SDK game", "built SDK game"] {
        assert!(!stderr.contains(told), "{stderr}");
    }
    let (a, b) = (inputs(&warm), inputs(&fresh));
    assert_eq!(a.len(), 4);
    assert!(
        a.iter()
            .all(|(_, i)| i.as_array().is_some_and(|i| !i.is_empty())),
        "{a:?}"
    );
    assert_eq!(a, b, "warm and fresh JVMs play the same games");
}

#[test]
fn a_source_folder_without_the_engines_source_says_how_to_get_it() {
    if engine().is_none() {
        return;
    }
    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let done = tournament(&dir.path().join("cache"), None, &out, false);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(!done.status.success(), "{stderr}");
    for needed in [
        "arbiter: building SDK game take (javac",
        "arbiter: failed to build SDK game take in ",
        "4.7.7",
        "git clone https://github.com/CodinGame/codingame-game-engine",
        "--codingame-engine",
    ] {
        assert!(stderr.contains(needed), "{needed} not in: {stderr}");
    }
}
