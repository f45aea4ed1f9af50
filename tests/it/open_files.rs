//! Many games at once under a low limit of open files, with the real binary and real bots:
//! arbiter raises its own soft limit for its games, its bots still get the limit it was started
//! with, and where even the hard limit cannot hold the games asked for, fewer are played at once
//! (with a warning) rather than games failing to start.

use crate::common::*;
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

/// 48 games between `bots`, 24 at once, by `arbiter tournament` started from a shell that first
/// runs `limit` (a `ulimit` command); checks that the run succeeded and that every game was
/// played, and returns what the run wrote to stderr.
fn tournament_under(limit: &str, out: &std::path::Path, bots: [&str; 2]) -> String {
    let run = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{limit} && exec \"$0\" \"$@\""))
        .arg(assert_cmd::cargo::cargo_bin("arbiter"))
        .args([
            "tournament",
            "--games",
            "48",
            "--concurrency",
            "24",
            "--seed",
            "5",
        ])
        .args(["--first-turn-ms", "10000", "--turn-ms", "2000", "--out"])
        .arg(out)
        .args(bots)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{stderr}");
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 48);
    for r in &rows {
        assert_ne!(
            r["reason"], "referee-error",
            "game {} could not be played: {}",
            r["game_id"], r["detail"]
        );
    }
    stderr
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
    let limits = format!("limits={}", bot.display());
    let first = format!("first={}", first_bot());
    let stderr = tournament_under(&format!("ulimit -Sn {SOFT}"), &out, [&limits, &first]);
    assert!(!stderr.contains("open files"), "{stderr}");
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

#[test]
fn games_past_what_the_hard_limit_holds_are_played_fewer_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let first = format!("first={}", first_bot());
    let random = format!("random={}", random_bot());
    // 24 games at once need some 1,000 files; 300 hold a few.
    let stderr = tournament_under("ulimit -n 300", &out, [&first, &random]);
    assert!(
        stderr.contains("24 games at once would need about")
            && stderr.contains("more than this process may open (300"),
        "no warning that fewer games are played at once: {stderr}"
    );
}
