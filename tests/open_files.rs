//! Many games at once under a low soft limit of open files, with the real binary and real bots:
//! arbiter raises its own limit for its games, and its bots still get the limit it was started
//! with.

mod common;

use common::*;
use serde_json::Value;

/// The soft limit arbiter is started with: far below what 24 games at once hold open (each
/// worker's bots, pipes, process handles and cgroup files: about 20 files a game).
const SOFT: u64 = 200;

/// Every string in `v`, depth first.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn many_games_at_once_run_under_a_low_soft_limit_and_bots_keep_that_limit() {
    let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .maximum
        .unwrap_or(u64::MAX);
    assert!(
        hard >= 4096,
        "this test needs a hard limit of open files of at least 4096 (ulimit -Hn: {hard})"
    );
    let dir = tempfile::tempdir().unwrap();
    // A bot that tells its own limit on stderr, then plays as bots/first.
    let bot = dir.path().join("limits.sh");
    std::fs::write(
        &bot,
        format!(
            "#!/bin/sh\ngrep 'open files' /proc/self/limits >&2\nexec {}\n",
            first_bot()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bot, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = dir.path().join("t");
    let arbiter_bin = assert_cmd::cargo::cargo_bin("arbiter");
    let run = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("ulimit -Sn {SOFT} && exec \"$0\" \"$@\""))
        .arg(&arbiter_bin)
        .args([
            "tournament",
            "--games",
            "48",
            "--concurrency",
            "24",
            "--seed",
            "5",
            "--first-turn-ms",
            "10000",
            "--turn-ms",
            "2000",
            "--out",
        ])
        .arg(&out)
        .arg(format!("limits={}", bot.display()))
        .arg(format!("first={}", first_bot()))
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 48);
    for r in &rows {
        assert_ne!(
            r["reason"], "referee-error",
            "game {} could not be played: {}",
            r["game_id"], r["detail"]
        );
    }
    // The bot saw the soft limit arbiter was started with, not the one arbiter raised.
    let records = std::fs::read_to_string(out.join("records.jsonl")).unwrap();
    let mut seen = Vec::new();
    for line in records.lines() {
        strings(&serde_json::from_str(line).unwrap(), &mut seen);
    }
    let limits: Vec<&String> = seen
        .iter()
        .filter(|s| s.contains("Max open files"))
        .collect();
    assert!(!limits.is_empty(), "no bot's stderr told its limits");
    for text in limits {
        let soft = text
            .split_whitespace()
            .nth(3)
            .and_then(|n| n.parse::<u64>().ok());
        assert_eq!(soft, Some(SOFT), "a bot ran with another limit: {text}");
    }
}
