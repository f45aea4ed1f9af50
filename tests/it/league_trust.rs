//! Results a league can trust from machines it does not own (issue 38), with the real binary: a
//! league server on a loopback port and a real `arbiter league work` process pinned to one CPU
//! that busy loops also hold (an overloaded machine, as the fair clock's tests make one). Its
//! bot's time losses there are voided with their evidence and the same games played again once
//! the load is gone, each recorded once. Waits are bounded; nothing is timed.

use crate::clock::{a_cpu, Busy};
use crate::common::{self, hostile, random_bot};
use crate::league_workers::{json, recorded, token, wait_for, Proc};
use std::path::Path;
use std::process::{Command, Stdio};

/// Starts `league serve DIR BOT... --local-workers 0` on strict, short clocks (100 ms a turn,
/// no grace) and returns it with its URL.
fn strict_league(dir: &Path, bots: &[String]) -> (Proc, String) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(common::root())
        .args(["league", "serve"])
        .arg(dir)
        .args(bots)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--local-workers",
            "0",
            "--game",
            "impasse",
        ])
        .args(["--turn-ms", "100", "--first-turn-ms", "5000", "--strict"])
        .args(["--seed", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("the server said where it listens: {line:?}"))
        .to_string();
    (Proc(child), url)
}

/// A worker (one game at a time) with every process it starts pinned to `cpu`.
fn work_on(cpu: usize, url: &str, token: &str, cache: &Path) -> Proc {
    Proc(
        Command::new("taskset")
            .args(["-c", &cpu.to_string()])
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(["league", "work", url, "--token", token])
            .args(["--concurrency", "1", "--cache"])
            .arg(cache)
            .current_dir(common::root())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("taskset (util-linux) is needed to pin a worker: {e}")),
    )
}

#[test]
fn a_time_loss_on_a_starved_worker_is_voided_with_its_evidence_and_played_again_once() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    // 160 ms of computing from its second turn on: a timeout on a 100 ms turn anywhere, but on
    // a CPU shared with four busy loops most of its wall time is waiting for that CPU.
    let burner = format!("burner={}", hostile("cpu-burn 2 160"));
    let (_server, url) = strict_league(&dir, &[burner, random_bot()]);
    let t = token(&dir, "busy");
    let cpu = a_cpu();
    let busy = Busy::on(cpu, 4);
    let _worker = work_on(cpu, &url, &t, &tmp.path().join("cache"));

    let voided = wait_for("a game voided on the starved worker", || {
        let w = json(&url, "/api/workers");
        (
            w["voided"].as_array().unwrap().first().cloned(),
            w.to_string(),
        )
    });
    let id = voided["game_id"].as_u64().unwrap();
    assert!(
        !recorded(&dir).contains(&id),
        "a voided game is not recorded: {voided}"
    );
    assert!(
        voided["worker"].as_str().unwrap().starts_with("busy#")
            && voided["reason"] == "timeout"
            && voided["starved_turns"].as_u64() > Some(0)
            && voided["waited_max_us"].as_u64() > Some(100_000)
            && voided["bots"]
                .as_array()
                .unwrap()
                .contains(&"burner".into()),
        "the evidence: {voided}"
    );
    let log = std::fs::read_to_string(dir.join("voided.jsonl")).unwrap();
    assert!(
        log.contains(&format!("\"game_id\":{id},")),
        "kept in the folder: {log}"
    );
    let workers = json(&url, "/api/workers");
    assert!(
        workers["workers"][0]["voided"].as_u64() > Some(0),
        "{workers}"
    );

    // The load goes; the same game is played again (after the worker's pause) and recorded,
    // once, whatever it came to.
    drop(busy);
    wait_for("the voided game played again and recorded", || {
        let ids = recorded(&dir);
        (ids.contains(&id).then_some(()), format!("{ids:?}"))
    });
    let ids = recorded(&dir);
    assert_eq!(
        ids.iter().filter(|&&g| g == id).count(),
        1,
        "recorded once: {ids:?}"
    );
}
