//! The machine's failures are never a bot's (issue 45, item 5): a real `arbiter tournament`, a
//! real league server and a real `league work` process whose soft limit of open files is cut to
//! 3 while they play (with `prlimit(2)` on the running process, as `prlimit --pid` does), so
//! that they can start no bot and read nothing of the bots they watch. No game of it may be recorded (no
//! `referee-error`, no forfeit); a tournament stops with the cause and what to do, and the same
//! command run again plays the rest; a league gives the games back to its queue, says why once,
//! and plays them once the limit is raised again. Waits are bounded, nothing is timed.

use crate::common::league::{played_by, serve, token, wait_for, Proc, Server};
use crate::common::{self, greedy_bot, random_bot, read_csv};
use rustix::process::{prlimit, Pid, Resource, Rlimit};
use std::path::Path;
use std::process::Stdio;

/// Sets process `pid`'s soft limit of open files to `n` (none: its hard limit, which stays as
/// it is, so that the soft one can be raised again without privilege).
fn set_files(pid: u32, n: Option<u64>) {
    let pid = Pid::from_raw(pid as i32).unwrap();
    let hard = getrlimit_of(pid).maximum;
    prlimit(
        Some(pid),
        Resource::Nofile,
        Rlimit {
            current: n.or(hard),
            maximum: hard,
        },
    )
    .unwrap();
}

/// Process `pid`'s hard limit of open files (from /proc/PID/limits; none: unlimited).
fn getrlimit_of(pid: Pid) -> Rlimit {
    let path = format!("/proc/{}/limits", pid.as_raw_nonzero());
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    Rlimit {
        current: None,
        maximum: line.split_whitespace().nth(4).unwrap().parse().ok(),
    }
}

/// Games of games.csv as (id, reason) in file order, each one played by the rules.
fn played_games(dir: &Path) -> Vec<(u64, String)> {
    let rows = if dir.join("games.csv").exists() {
        read_csv(&dir.join("games.csv"))
    } else {
        Vec::new()
    };
    rows.iter()
        .map(|r| {
            assert!(
                matches!(r["reason"].as_str(), "win" | "draw" | "turn-limit"),
                "game {} is recorded as {} ({}), but only the machine failed",
                r["game_id"],
                r["reason"],
                r["detail"]
            );
            (r["game_id"].parse().unwrap(), r["reason"].clone())
        })
        .collect()
}

fn tournament(out: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    c.current_dir(common::root())
        .args(["tournament", "--games", "400", "--concurrency", "1"])
        .args([
            "--seed",
            "3",
            "--turn-ms",
            "5000",
            "--first-turn-ms",
            "10000",
        ])
        .arg("--out")
        .arg(out)
        .args([random_bot(), greedy_bot()]);
    c
}

#[test]
fn a_tournament_out_of_files_records_no_game_of_it_stops_and_continues_when_run_again() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let run = tournament(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = run.id();
    wait_for("the first games", || {
        let n = played_games(&out).len();
        ((n >= 2).then_some(()), format!("{n} games"))
    });
    set_files(pid, Some(3));
    let ended = run.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(3), "{err}");
    for said in [
        "arbiter is out of open files",
        "the machine failed, not a bot, so the game is not recorded",
        "raise the limit (ulimit -n",
        "then run the same command again to play the rest",
    ] {
        assert!(err.contains(said), "{said:?} in {err}");
    }
    let kept = played_games(&out);
    assert!(kept.len() < 400, "the run stopped: {} games", kept.len());

    // The same command plays the rest, and only the rest.
    let again = tournament(&out).output().unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    let all = played_games(&out);
    assert_eq!(all.len(), 400);
    assert_eq!(&all[..kept.len()], &kept[..], "the games before were kept");
    let mut ids: Vec<u64> = all.iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 400, "no game twice");
}

/// Waits until `file` holds `text`.
fn wait_for_text(file: &Path, text: &str) -> String {
    wait_for(&format!("{text:?} in {}", file.display()), || {
        let seen = std::fs::read_to_string(file).unwrap_or_default();
        (seen.contains(text).then(|| seen.clone()), seen)
    })
}

#[test]
fn a_league_out_of_files_gives_its_games_back_says_why_once_and_plays_them_later() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let log = tmp.path().join("server.err");
    let (child, url) = common::league_serve_with_stderr(
        &dir,
        &[random_bot(), greedy_bot()],
        &["--local-workers", "2", "--turn-ms", "5000", "--seed", "4"],
        std::fs::File::create(&log).unwrap(),
    );
    let server = Server {
        proc: Proc(child),
        url,
    };
    let pid = server.proc.0.id();
    wait_for("the first games", || {
        let n = played_games(&dir).len();
        ((n >= 2).then_some(()), format!("{n} games"))
    });
    set_files(pid, Some(3));
    wait_for_text(&log, "games cannot start");
    let before = played_games(&dir).len();
    set_files(pid, None);
    let seen = wait_for_text(&log, "games start again");
    wait_for("games played again", || {
        let n = played_games(&dir).len();
        ((n >= before + 4).then_some(()), format!("{n} games"))
    });
    assert_eq!(
        seen.matches("games cannot start").count(),
        1,
        "said once, not once a game: {seen}"
    );
    assert!(seen.contains("out of open files"), "{seen}");
    assert!(
        !seen.contains("the league stops"),
        "the server went on: {seen}"
    );
    assert!(
        server.proc.0.id() == pid && std::fs::metadata(format!("/proc/{pid}")).is_ok(),
        "the server still runs"
    );
    played_games(&dir);
}

#[test]
fn a_league_worker_out_of_files_gives_its_games_back_and_plays_them_later() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[random_bot(), greedy_bot()]);
    let log = tmp.path().join("worker.err");
    let worker = Proc(
        common::league::arbiter()
            .args(["league", "work", &url, "--token", &token(&dir, "w")])
            .args(["--concurrency", "1", "--cache"])
            .arg(tmp.path().join("cache"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    wait_for("the worker's first games", || {
        let n = played_by(&url, "w");
        ((n >= 2).then_some(()), format!("{n} games"))
    });
    set_files(worker.0.id(), Some(3));
    wait_for_text(&log, "games cannot start");
    let before = played_by(&url, "w");
    set_files(worker.0.id(), None);
    let seen = wait_for_text(&log, "games start again");
    wait_for("the worker's games played again", || {
        let n = played_by(&url, "w");
        ((n >= before + 2).then_some(()), format!("{n} games"))
    });
    assert_eq!(seen.matches("games cannot start").count(), 1, "{seen}");
    played_games(&dir);
}

/// A bot the machine cannot test-start (the run started under a tiny limit of open files) is
/// not called broken: the run stops saying the machine failed. The limit at which the start
/// runs out is found by trying a few (it depends on what the machine's arbiter holds open).
#[test]
fn a_bot_the_machine_cannot_test_start_is_not_called_broken() {
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for files in (12..=48).step_by(4) {
        let out = tmp.path().join(format!("run-{files}"));
        let run = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("ulimit -n {files} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(["tournament", "--games", "2", "--concurrency", "1"])
            .args(["--seed", "3", "--turn-ms", "5000"])
            .arg("--out")
            .arg(&out)
            .args([random_bot(), greedy_bot()])
            .current_dir(common::root())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(
            !(err.contains("fix them") && err.contains("open files")),
            "under {files} open files a bot was called broken for the machine's failure: {err}"
        );
        if err.contains("could not be test-started") {
            assert_eq!(run.status.code(), Some(3), "{err}");
            assert!(
                err.contains("no bot failed") && err.contains("out of open files"),
                "{err}"
            );
            played_games(&out);
            return;
        }
        seen.push(format!("{files} files: {err}"));
    }
    panic!(
        "no limit tried stopped the bots' test start:\n{}",
        seen.join("\n")
    );
}
