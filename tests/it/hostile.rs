//! Every way a bot can misbehave, each with a real misbehaving bot: the verdict, the winner,
//! a prompt end, and no process of either bot left behind.

use crate::common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Plays `white` against the random bot with a unique marker in every bot's environment, then
/// checks that no process carrying the marker survives the game.
fn play_marked(name: &str, white: &str, extra: &[&str]) -> (Value, Duration, tempfile::TempDir) {
    let mark = marker(name);
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let t = Instant::now();
    let out = arbiter()
        .env("ARBITER_TEST_MARKER", &mark)
        .args([
            "play",
            "--json",
            "--seed",
            "2",
            "--turn-ms",
            "1000",
            "--first-turn-ms",
            "5000",
        ])
        .arg("--replay")
        .arg(&replay)
        .args(extra)
        // Bots get only what is passed on: the marker finds every process they start.
        .args(["--bot-env", "ARBITER_TEST_MARKER"])
        .arg(white)
        .arg(random_bot())
        .output()
        .unwrap();
    let took = t.elapsed();
    let v = json_of(&out);
    let left = processes_with(&mark);
    assert!(left.is_empty(), "processes left behind: {left:?}");
    (v, took, dir)
}

fn replay_lines(dir: &tempfile::TempDir) -> Vec<Value> {
    replay(&dir.path().join("r.jsonl"))
}

fn lost_by(v: &Value, reason: &str) {
    assert_eq!(v["reason"], reason, "{v}");
    assert_eq!(v["offender"], 0, "{v}");
    assert_eq!(v["winner"], 1, "{v}");
}

#[test]
fn closing_stdout_while_running_is_a_crash_at_once() {
    let (v, took, _) = play_marked("close", &hostile("close-stdout 2"), &["--turn-ms", "20000"]);
    lost_by(&v, "crash");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("closed its standard output"),
        "{v}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn invalid_utf8_is_an_invalid_move_shown_escaped() {
    let (v, _, _) = play_marked("utf8", &hostile("bad-utf8 2"), &[]);
    lost_by(&v, "invalid-move");
    assert!(
        v["detail"].as_str().unwrap().contains("\\xff\\xfe\\x01ab"),
        "{v}"
    );
}

#[test]
fn extra_lines_become_the_next_answers_and_are_counted_in_the_replay() {
    let (v, _, dir) = play_marked("extra", &hostile("extra-lines 2"), &[]);
    // The stale second line is read as the answer to its next turn, as on CodinGame.
    let lines = replay_lines(&dir);
    let stale: Vec<&Value> = lines
        .iter()
        .filter(|l| l["extra_lines"].as_u64().unwrap_or(0) > 0)
        .collect();
    let answered_stale = !stale.is_empty();
    let lost_on_it = v["reason"] == "invalid-move" && v["offender"] == 0;
    assert!(answered_stale || lost_on_it, "{v}");
    if answered_stale {
        assert_eq!(stale[0]["seat"], 0);
        assert!(stale[0]["time_us"].as_u64().unwrap() < 100_000);
    }
}

#[test]
fn a_stderr_flood_keeps_the_game_at_speed_and_only_a_tail() {
    let (v, took, dir) = play_marked("flood", &hostile("stderr-flood 2"), &["--turn-ms", "2000"]);
    assert!(
        ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
        "{v}"
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
    let lines = replay_lines(&dir);
    let result = lines.last().unwrap();
    let written = result["stderr_bytes"][0].as_u64().unwrap();
    assert!(written >= 2 * 1024 * 1024 * 10, "{written}");
    let tail = result["stderr_tail"][0].as_str().unwrap();
    assert!(
        tail.len() <= 64 * 1024 && tail.len() > 60 * 1024,
        "{}",
        tail.len()
    );
}

#[test]
fn forked_children_and_grandchildren_are_ended_with_the_game() {
    let (v, _, _) = play_marked("fork", &hostile("fork 1 arbiter-fork-marker"), &[]);
    assert!(
        ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
        "{v}"
    );
}

#[test]
fn a_bot_that_exits_while_its_children_hold_the_pipe_is_a_crash_at_once() {
    let (v, took, _) = play_marked(
        "forkexit",
        &hostile("fork-exit 2 arbiter-forkexit-marker"),
        &["--turn-ms", "20000"],
    );
    lost_by(&v, "crash");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("exited with status 0"),
        "{v}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_bot_that_ignores_sigterm_is_killed_after_the_grace() {
    let (v, took, _) = play_marked(
        "term",
        &hostile("ignore-term 2"),
        &[
            "--turn-ms",
            "200",
            "--grace-ms",
            "0",
            "--kill-grace-ms",
            "300",
        ],
    );
    lost_by(&v, "timeout");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_referee_killed_with_sigkill_takes_its_bots_with_it() {
    // White sleeps through its first turn ignoring SIGTERM: only the parent-death signal
    // (SIGKILL) set before exec can end it when the referee dies without cleaning up.
    let mark = marker("sigkill");
    let mut referee = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .env("ARBITER_TEST_MARKER", &mark)
        .args(["play", "--first-turn-ms", "60000"])
        .args(["--bot-env", "ARBITER_TEST_MARKER"])
        .arg(hostile("ignore-term 1"))
        .arg(random_bot())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let referee_pid = referee.id();
    let bots = || -> Vec<u32> {
        processes_with(&mark)
            .into_iter()
            .filter(|&p| p != referee_pid)
            .collect()
    };
    let t = Instant::now();
    while bots().len() < 2 {
        assert!(t.elapsed() < Duration::from_secs(10), "bots never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    referee.kill().unwrap(); // SIGKILL
    referee.wait().unwrap();
    let t = Instant::now();
    while !bots().is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "left behind: {:?}",
            bots()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bots_that_cannot_start_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let not_exec = dir.path().join("bot.sh");
    std::fs::write(&not_exec, "#!/bin/sh\necho a1b2\n").unwrap();
    let bad_interp = dir.path().join("bot2.sh");
    std::fs::write(&bad_interp, "#!/no/such/interpreter\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bad_interp, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bad_toml = dir.path().join("badtoml");
    std::fs::create_dir(&bad_toml).unwrap();
    std::fs::write(bad_toml.join("bot.toml"), "name = 3\n").unwrap();
    for (bot, says) in [
        (not_exec.to_str().unwrap(), "permission denied"),
        (bad_interp.to_str().unwrap(), "interpreter"),
        (bad_toml.to_str().unwrap(), "not a valid bot.toml"),
        ("/no/such/file", "/no/such/file does not exist"),
    ] {
        let out = arbiter()
            .args(["play", bot])
            .arg(random_bot())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{bot}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{bot}: {err}");
    }
}

#[test]
fn cpu_time_is_recorded_and_the_cpu_clock_judges_cpu_not_sleep() {
    // Burning 30 ms of CPU per turn: recorded as CPU time, and over a 20 ms CPU limit.
    let (v, _, dir) = play_marked(
        "cpu",
        &hostile("cpu-burn 2 30"),
        &["--clock", "cpu", "--turn-ms", "20", "--strict"],
    );
    lost_by(&v, "timeout");
    assert!(v["detail"].as_str().unwrap().contains("CPU time"), "{v}");
    let lines = replay_lines(&dir);
    let first = &lines[1];
    assert_eq!(first["seat"], 0);
    assert!(first["cpu_us"].as_u64().is_some(), "{first}");

    // Sleeping 300 ms per turn uses no CPU: under a 150 ms CPU limit the bot plays on.
    let (v, _, _) = play_marked(
        "sleepcpu",
        &hostile("late 300"),
        &[
            "--clock",
            "cpu",
            "--turn-ms",
            "150",
            "--strict",
            "--max-turns",
            "12",
        ],
    );
    assert_eq!(v["reason"], "turn-limit", "{v}");
    assert_eq!(v["bots"][0]["strikes"], 0, "{v}");

    // The same sleeper on the wall clock loses at once.
    let (v, _, _) = play_marked(
        "sleepwall",
        &hostile("late 300"),
        &["--turn-ms", "150", "--strict"],
    );
    lost_by(&v, "timeout");

    // A bot burning 20 ms per turn shows it in its CPU figures.
    let (v, _, _) = play_marked("cpushow", &hostile("cpu-burn 1 20"), &["--max-turns", "10"]);
    let cpu = v["bots"][0]["cpu_mean_ms"].as_f64().unwrap();
    assert!(cpu >= 15.0, "{v}");
}

#[test]
fn a_bot_over_its_process_limit_cannot_fork() {
    let (v, _, dir) = play_marked(
        "nproc",
        &hostile("fork 1 arbiter-nproc-marker"),
        &["--max-processes", "1"],
    );
    // Where a pids cgroup enforces the cap (as root), a bot that ends after a refused fork
    // loses by `process-limit`; elsewhere RLIMIT_NPROC makes it a crash.
    let pids_cgroup = arbiter::bot::cgroup::default_max_processes().is_some();
    lost_by(
        &v,
        if pids_cgroup {
            "process-limit"
        } else {
            "crash"
        },
    );
    let tail = stderr_tail(&dir.path().join("r.jsonl"), 0);
    assert!(tail.contains("Error") || tail.contains("error"), "{tail}");
}

#[test]
fn a_process_that_leaves_the_bots_process_group_is_still_ended() {
    // `setsid` puts the sleeper in a session and group of its own, out of reach of a group
    // kill; the bot's cgroup still holds it.
    // `python3` as the bot's own PATH finds it: a path named inside a shell command is not
    // made reachable for the bot's user (as root, the interpreter of these tests may be under
    // /root, which that user cannot enter).
    let bot = format!(
        "sh -c 'setsid sleep 1000 & exec python3 {}/tests/bots/hostile.py honest'",
        root().display()
    );
    let (v, _, _) = play_marked("setsid", &bot, &["--max-turns", "6"]);
    assert_eq!(v["reason"], "turn-limit", "{v}");
}

#[test]
fn a_flood_of_lines_is_read_only_as_far_as_needed() {
    // 64 MiB of lines, with the referee's data segment limited to 40 MB: it reads the first line
    // as the answer (an invalid move), and the bot, blocked writing into a full pipe, is ended.
    let mark = marker("lineflood");
    let t = Instant::now();
    let out = std::process::Command::new("sh")
        .current_dir(root())
        .env("ARBITER_TEST_MARKER", &mark)
        .arg("-c")
        .arg(format!(
            "ulimit -d 40000 && exec {} play --json --memory-mb 0 --turn-ms 5000 \
             --bot-env ARBITER_TEST_MARKER \"{}\" {}",
            env!("CARGO_BIN_EXE_arbiter"),
            hostile("line-flood 2 64"),
            random_bot()
        ))
        .output()
        .unwrap();
    let v: Value = json_of(&out);
    lost_by(&v, "invalid-move");
    assert!(v["detail"].as_str().unwrap().contains("\"zz99\""), "{v}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(processes_with(&mark).is_empty());
}

/// A 32-bit system call (a program built for i386) is killed by the seccomp filter: the
/// verdict names the filter and, where the kernel's log tells it (as root), the call, not just
/// "killed by signal 31".
#[cfg(target_arch = "x86_64")]
#[test]
fn a_32_bit_system_call_is_a_crash_that_names_the_refused_call() {
    let mut modes: Vec<&[&str]> = vec![&[]];
    if arbiter::bot::host::bwrap().is_some() {
        modes.push(&["--sandbox"]);
    } else {
        crate::common::skip("the sandbox half of this test needs bubblewrap (.ci/run installs it)");
    }
    // The kernel's log names the call where this process may read it (arbiter, run by the
    // same user, may then too).
    let log = std::fs::File::open("/dev/kmsg").is_ok();
    if !log {
        eprintln!("/dev/kmsg cannot be read here: the refused call's number is not checked");
    }
    for extra in modes {
        let (v, _, _) = play_marked("sys32", &hostile("syscall32 2"), extra);
        lost_by(&v, "crash");
        let detail = v["detail"].as_str().unwrap();
        assert!(detail.contains("seccomp filter"), "{extra:?}: {detail}");
        assert!(
            detail.contains("build it as a 64-bit program"),
            "{extra:?}: {detail}"
        );
        if extra.is_empty() {
            assert!(detail.contains("killed by signal 31 (SIGSYS)"), "{detail}");
        }
        if log || extra.is_empty() {
            let named = "refused system call 20 of the 32-bit x86 (i386) ABI";
            assert!(!log || detail.contains(named), "{extra:?}: {detail}");
        }
    }
}
