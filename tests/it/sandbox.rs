//! `--sandbox` with real bubblewrap: a bot's forbidden attempts fail while the game goes on.
//! `.ci/run` installs bubblewrap; without it these tests fail rather than pass unsandboxed.

use crate::common::*;
use serde_json::Value;

fn sandboxed(white: &str, black: &str) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let out = arbiter()
        .args([
            "play",
            "--json",
            "--sandbox",
            "--seed",
            "4",
            "--turn-ms",
            "2000",
            "--first-turn-ms",
            "5000",
            "--max-turns",
            "6",
        ])
        .arg("--replay")
        .arg(&replay)
        .arg(white)
        .arg(black)
        .output()
        .unwrap();
    (json_of(&out), stderr_tail(&replay, 0))
}

#[test]
fn no_network_inside_the_sandbox() {
    let (v, err) = sandboxed(&hostile("net 1"), &random_bot());
    assert_eq!(v["reason"], "turn-limit", "{v}");
    assert!(err.contains("NET-BLOCKED"), "{err}");
}

#[test]
fn the_other_bots_files_are_hidden() {
    let other = root().join("bots/python-starter/bot.py");
    assert!(other.is_file());
    let (v, err) = sandboxed(
        &hostile(&format!("read-file 1 {}", other.display())),
        "bots/python-starter",
    );
    assert_eq!(v["reason"], "turn-limit", "{v}");
    assert!(err.contains("READ-BLOCKED"), "{err}");
    // Without the sandbox the same read succeeds: the test can tell the difference.
    let (v, _) = play_json(
        &hostile(&format!("read-file 1 {}", other.display())),
        "bots/python-starter",
        &["--max-turns", "4"],
    );
    assert_eq!(v["reason"], "turn-limit");
}

#[test]
fn writes_outside_the_private_temp_fail_and_inside_succeed() {
    let outside = root().join("target/sandbox-write-probe");
    let _ = std::fs::remove_file(&outside);
    let (v, err) = sandboxed(
        &hostile(&format!("write-file 1 {}", outside.display())),
        &random_bot(),
    );
    assert_eq!(v["reason"], "turn-limit", "{v}");
    assert!(err.contains("WRITE-BLOCKED"), "{err}");
    assert!(!outside.exists());
    let (_, err) = sandboxed(
        &hostile("write-file 1 /tmp/arbiter-sandbox-probe"),
        &random_bot(),
    );
    assert!(err.contains("WRITE-OK"), "{err}");
    assert!(
        !std::path::Path::new("/tmp/arbiter-sandbox-probe").exists(),
        "the sandbox's /tmp is private"
    );
}

#[test]
fn without_bwrap_the_sandbox_refuses_to_run() {
    let empty = tempfile::tempdir().unwrap();
    let out = arbiter()
        .env("PATH", empty.path())
        .args(["play", "--sandbox"])
        .args([random_bot(), random_bot()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("apt-get install bubblewrap"), "{err}");
}

#[test]
fn a_sandboxed_game_is_a_normal_game_and_leaves_nothing_behind() {
    let mark = marker("sandbox");
    let out = arbiter()
        .env("ARBITER_TEST_MARKER", &mark)
        .args(["play", "--json", "--sandbox", "--seed", "4"])
        .args(["--bot-env", "ARBITER_TEST_MARKER"])
        .args([greedy_bot(), random_bot()])
        .output()
        .unwrap();
    let v: Value = json_of(&out);
    assert!(
        ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
        "{v}"
    );
    assert!(processes_with(&mark).is_empty());
}

/// bwrap passes its bot's death by signal N on as exit status 128 + N: the verdict names the
/// signal as it does without the box, never "exited with status 139".
#[test]
fn a_crash_in_the_sandbox_names_its_signal_as_outside() {
    let (inside, _) = sandboxed(&hostile("kill-self 2"), &random_bot());
    let (outside, _) = play_json(&hostile("kill-self 2"), &random_bot(), &[]);
    for v in [&inside, &outside] {
        assert_eq!(v["reason"], "crash", "{v}");
        let detail = v["detail"].as_str().unwrap();
        assert!(
            detail.contains("killed by signal 11 (SIGSEGV)"),
            "{detail}\n{v}"
        );
    }
}

#[test]
fn cpu_time_is_measured_inside_the_sandbox_too() {
    // The referee's child is bwrap; the bot's CPU clock is that of the process bwrap started.
    let (v, _) = sandboxed(&hostile("cpu-burn 1 20"), &random_bot());
    assert_eq!(v["reason"], "turn-limit", "{v}");
    let cpu = v["bots"][0]["cpu_mean_ms"].as_f64().unwrap();
    assert!(cpu >= 15.0, "{v}");
}

#[test]
fn a_sandboxed_bot_run_by_root_has_no_capabilities_and_cannot_reach_out() {
    // A results folder beside the referee's working folder, and an opponent with a folder of
    // its own: the bot tries to unmount, remount, forge a row, read the opponent and trace.
    let results = tempfile::tempdir_in(root().join("target")).unwrap();
    let csv = results.path().join("games.csv");
    std::fs::write(&csv, "id,white,black\n").unwrap();
    let opponent = root().join("bots/python-starter");
    let (v, err) = sandboxed(
        &hostile(&format!(
            "escape 1 {} {}",
            csv.display(),
            opponent.display()
        )),
        "bots/python-starter",
    );
    assert_eq!(v["reason"], "turn-limit", "the game goes on: {v}");
    assert!(err.contains("CAPEFF 0000000000000000"), "{err}");
    for what in ["UMOUNT", "REMOUNT", "CSV", "OPPONENT", "PTRACE", "RAW"] {
        assert!(err.contains(&format!("{what}-BLOCKED")), "{what}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "id,white,black\n");
}

#[test]
fn no_unix_socket_of_the_host_is_reachable_from_the_sandbox() {
    let name = format!("arbiter-test-{}.sock", std::process::id());
    let places: Vec<std::path::PathBuf> = ["/tmp", "/var/tmp", "/run"]
        .iter()
        .map(|d| std::path::Path::new(d).join(&name))
        .collect();
    let mut listeners = Vec::new();
    for p in &places {
        let _ = std::fs::remove_file(p);
        listeners.push(std::os::unix::net::UnixListener::bind(p).unwrap());
        // Open to every user: a bot run by root runs as a user of its own, and the sandbox must
        // hide the socket, not only its permissions.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let paths: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
    // Reachable without the sandbox (but for those in /tmp and /var/tmp as root, where a bot
    // has scratch folders of its own): the test can tell the difference.
    let (_, reached) = play_json_stderr(&hostile(&format!("unix-connect 1 {}", paths.join(","))));
    let (v, err) = sandboxed(
        &hostile(&format!("unix-connect 1 {}", paths.join(","))),
        &random_bot(),
    );
    for p in &places {
        let _ = std::fs::remove_file(p);
    }
    assert_eq!(v["reason"], "turn-limit", "{v}");
    for p in &paths {
        let own_tmp = arbiter::bot::isolates_bots() && !p.starts_with("/run/");
        let unsandboxed = if own_tmp { "UNIX-BLOCKED" } else { "UNIX-OK" };
        assert!(reached.contains(&format!("{unsandboxed} {p}")), "{reached}");
        assert!(err.contains(&format!("UNIX-BLOCKED {p}")), "{err}");
    }
}

/// The stderr tail of White in an unsandboxed game against the random bot.
fn play_json_stderr(white: &str) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let out = arbiter()
        .args([
            "play",
            "--json",
            "--seed",
            "4",
            "--max-turns",
            "4",
            "--first-turn-ms",
            "20000",
            "--turn-ms",
            "5000",
            "--replay",
        ])
        .arg(&replay)
        .arg(white)
        .arg(random_bot())
        .output()
        .unwrap();
    (json_of(&out), stderr_tail(&replay, 0))
}
