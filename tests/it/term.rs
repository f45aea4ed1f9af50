//! How a game ends a bot that is still running: its stdin closed, exactly one SIGTERM, the
//! grace, then SIGKILL. Checked with a real bot that takes a moment over each TERM, counts
//! them, and never exits by itself, in every mode a referee can run bots in here: isolated under an init of its own (the
//! default as root), in bubblewrap (`--sandbox`), and as a plain process group (not root).

use crate::common::*;

/// Plays a game whose second bot counts the TERMs it gets and hangs on its second turn (so it
/// loses on time and must be ended), with `extra` options; returns that bot's stderr tail and
/// its marker.
fn term_count(extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let mark = marker(&format!("term-count{}", extra.concat()));
    let out = arbiter()
        .env("ARBITER_TEST_MARKER", &mark)
        .args([
            "play",
            "--json",
            "--seed",
            "3",
            "--bot-env",
            "ARBITER_TEST_MARKER",
        ])
        .args(["--first-turn-ms", "20000", "--turn-ms", "300"])
        // The bot takes 0.1 s over its TERM: the grace leaves it ten times that.
        .args(["--kill-grace-ms", "1000"])
        .args(extra)
        .arg("--replay")
        .arg(&replay)
        .arg(random_bot())
        .arg(hostile("count-term 2"))
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["reason"], "timeout", "{v}");
    (stderr_tail(&replay, 1), mark)
}

fn assert_one_term_then_kill(extra: &[&str]) {
    // Twice the same signal sent a moment apart often reaches a bot as one: a few games make
    // a second TERM all but certain to show.
    for _ in 0..3 {
        let (tail, mark) = term_count(extra);
        assert!(
            tail.lines().any(|l| l == "TERM 1"),
            "{extra:?}: the bot got no TERM at the end of the game; its stderr:\n{tail}"
        );
        assert!(
            !tail.lines().any(|l| l == "TERM 2"),
            "{extra:?}: the bot got TERM twice at the end of the game; its stderr:\n{tail}"
        );
        // It handles TERM and goes on: only the KILL after the grace ended it.
        assert_eq!(processes_with(&mark), Vec::<u32>::new(), "{extra:?}");
    }
}

#[test]
fn a_bot_gets_one_term_then_kill_in_the_default_mode() {
    // As root (CI) the bot runs under an init of its own, which passes TERM on; otherwise
    // it is a plain process group.
    assert_one_term_then_kill(&[]);
}

#[test]
fn a_bot_gets_one_term_then_kill_in_the_sandbox() {
    if arbiter::bot::host::bwrap().is_none() {
        crate::common::skip(
            "--sandbox needs bubblewrap: apt-get install bubblewrap (.ci/run installs it)",
        );
        return;
    }
    assert_one_term_then_kill(&["--sandbox"]);
}
