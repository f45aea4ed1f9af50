//! A warm referee JVM carries nothing of one game into the next (issue 45, item 7): a hostile
//! SDK game (Take with `hostile=MARKER`) bumps a system property, writes a file in /tmp and
//! starts a child process, and tells in its first summary what an earlier game in the same JVM
//! left; played twice in one tournament by one warm JVM, the second game sees none of it, and
//! the child is gone. A game that leaves a thread running ends its JVM instead.

use crate::common::sdk_game::*;
use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// A tournament of two games of Take, one at a time (one game thread: one warm launcher serves
/// both), with `params`; its records in game order.
fn two_games_in_one_jvm(cp: &str, out: &Path, params: &[&str]) -> Vec<Value> {
    let mut args: Vec<String> = [
        "tournament",
        "--games",
        "2",
        "--seed",
        "5",
        "--concurrency",
        "1",
        "--referee-timeout-ms",
        "30000",
        "--referee",
        cp,
    ]
    .map(String::from)
    .to_vec();
    args.extend(params.iter().map(|p| p.to_string()));
    args.push("--out".into());
    args.push(out.display().to_string());
    args.extend([bot("greedy", "greedy"), bot("modest", "modest")]);
    succeeded(arbiter().env_remove("ARBITER_SDK_JVM").args(&args));
    let mut recs = records(out);
    recs.sort_by_key(|r| r["game_id"].as_u64());
    assert_eq!(recs.len(), 2);
    recs
}

/// What the hostile game said it found at its start ("hostile MARKER: property N, file ...,
/// child ..., jvm ID"), split at the JVM's id.
fn found(rec: &Value, marker: &str) -> (String, String) {
    let frames = rec["external"]["sdk"]["frames"].as_array().unwrap();
    let line = frames
        .iter()
        .flat_map(|f| f["summary"].as_array().cloned().unwrap_or_default())
        .filter_map(|l| l.as_str().map(str::to_string))
        .find(|l| l.starts_with(&format!("hostile {marker}:")))
        .unwrap_or_else(|| panic!("the game told nothing: {rec}"));
    let (seen, jvm) = line.split_once(", jvm ").unwrap();
    (seen.to_string(), jvm.to_string())
}

#[test]
fn a_game_leaves_nothing_for_the_next_game_in_the_same_warm_jvm() {
    let Some(cp) = take() else { return };
    let marker = marker("warm-leak");
    let dir = shared_tempdir();
    let hostile = format!("hostile={marker}");
    let recs = two_games_in_one_jvm(&cp, &dir.path().join("t"), &["--game-param", &hostile]);
    let (first, jvm) = found(&recs[0], &marker);
    let (second, again) = found(&recs[1], &marker);
    assert_eq!(jvm, again, "both games were played by one warm JVM");
    let clean = format!("hostile {marker}: property 0, file none, child none");
    assert_eq!(first, clean);
    assert_eq!(
        second, clean,
        "the second game found what the first left in the JVM"
    );
    // The last game's child did not outlive it either (nor its JVM, ended with the run).
    assert_eq!(processes_with(&marker), Vec::<u32>::new());
}

#[test]
fn a_game_that_leaves_a_thread_running_ends_its_jvm() {
    let Some(cp) = take() else { return };
    let marker = marker("warm-thread");
    let dir = shared_tempdir();
    let hostile = format!("hostile={marker}");
    let recs = two_games_in_one_jvm(
        &cp,
        &dir.path().join("t"),
        &["--game-param", &hostile, "--game-param", "thread=1"],
    );
    let (_, jvm) = found(&recs[0], &marker);
    let (second, again) = found(&recs[1], &marker);
    assert_ne!(
        jvm, again,
        "the JVM a thread was left running in played again"
    );
    assert!(
        second.ends_with("property 0, file none, child none"),
        "{second}"
    );
    for rec in &recs {
        assert_eq!(rec["reason"], "win", "the game itself counts: {rec}");
        let stderr = rec["external"]["stderr"].as_str().unwrap();
        assert!(
            stderr.contains("the game left its thread \"take-stays\" running"),
            "the referee's stderr says why its JVM ended: {stderr}"
        );
    }
}
