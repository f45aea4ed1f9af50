//! A bot folder with a `bot.toml` build command (a bot the user brought, built as the user)
//! is built before its first `play`, and not again while its folder is unchanged: a real
//! build command that counts its runs, run by the real binary.

use crate::common::*;

fn play(bot: &std::path::Path, cache: &std::path::Path) -> std::process::Output {
    arbiter()
        .env("ARBITER_CACHE", cache)
        .args([
            "play",
            "--trust-builds",
            "--json",
            "--seed",
            "1",
            "--turn-ms",
            "1000",
            "--first-turn-ms",
            "5000",
        ])
        .arg(bot)
        .arg(first_bot())
        .output()
        .unwrap()
}

#[test]
fn a_bot_toml_build_runs_once_until_its_folder_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("mybot");
    let cache = tmp.path().join("cache");
    std::fs::create_dir(&bot).unwrap();
    // The "build" copies the first-move bot into place and counts its runs outside the folder.
    let runs = tmp.path().join("runs.log");
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"mine\"\nrun = \"./out/bot\"\nbuild = \"sh -c 'mkdir -p out && cp {} out/bot && echo run >> {}'\"\n",
            first_bot(),
            runs.display()
        ),
    )
    .unwrap();
    std::fs::write(bot.join("source.txt"), "v1").unwrap();
    let count = || {
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count()
    };
    for run in 0..3 {
        let out = play(&bot, &cache);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert_eq!(count(), 1, "play {run}");
    }
    // A tournament announces the build only when it runs: here it does not.
    let run = arbiter()
        .env("ARBITER_CACHE", &cache)
        .args([
            "tournament",
            "--trust-builds",
            "--games",
            "2",
            "--seed",
            "1",
            "--turn-ms",
            "1000",
            "--out",
        ])
        .arg(tmp.path().join("t1"))
        .arg(&bot)
        .arg(first_bot())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert_eq!(count(), 1);
    assert!(!err.contains("building mine"), "{err}");
    std::fs::write(bot.join("source.txt"), "v2").unwrap();
    let out = play(&bot, &cache);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count(), 2, "a changed source is built again");
    std::fs::remove_file(bot.join("out/bot")).unwrap();
    let out = play(&bot, &cache);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count(), 3, "a missing program is built again");
}

/// A build that runs is announced, and its end says how long it took (or that it failed).
#[test]
fn a_build_that_runs_says_how_long_it_took() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("mybot");
    let broken = tmp.path().join("broken");
    for dir in [&bot, &broken] {
        std::fs::create_dir(dir).unwrap();
    }
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"mine\"\nrun = \"./out/bot\"\nbuild = \"sh -c 'mkdir -p out && cp {} out/bot'\"\n",
            first_bot()
        ),
    )
    .unwrap();
    std::fs::write(
        broken.join("bot.toml"),
        "name = \"broken\"\nrun = \"./out/bot\"\nbuild = \"sh -c 'exit 3'\"\n",
    )
    .unwrap();
    let run = arbiter()
        .env("ARBITER_CACHE", tmp.path().join("cache"))
        .args([
            "tournament",
            "--trust-builds",
            "--games",
            "2",
            "--seed",
            "1",
        ])
        .args(["--turn-ms", "1000", "--out"])
        .arg(tmp.path().join("t"))
        .arg(&bot)
        .arg(&broken)
        .arg(first_bot())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    let line = |start: &str| {
        err.lines()
            .position(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line {start:?}: {err}"))
    };
    assert!(line("arbiter: building mine (") < line("arbiter: built mine in "));
    assert!(line("arbiter: building broken (") < line("arbiter: failed to build broken in "));
    let took = &err.lines().nth(line("arbiter: built mine in ")).unwrap()[23..];
    assert!(took.ends_with(" s"), "a duration: {took:?}");
}
