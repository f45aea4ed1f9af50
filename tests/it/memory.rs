//! `--memory-mb` against bots that hold memory every way they can: the heap, shared mappings,
//! children, files in RAM. Where the referee can make a memory cgroup (as root, and in CI) the
//! limit covers all of it and an overrun is the `memory-limit` verdict; elsewhere the limit is
//! RLIMIT_DATA, which only the heap test can show.

use crate::common::*;
use arbiter::bot::cgroup::memory_cap_is_full;
use serde_json::Value;

/// Plays `white` against the random bot under `--memory-mb mb`; the result and White's stderr.
fn limited(white: &str, mb: &str, extra: &[&str]) -> (Value, String) {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mark = marker(&format!("memory{n}"));
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let out = arbiter()
        .env("ARBITER_TEST_MARKER", &mark)
        .args(["play", "--json", "--seed", "3", "--max-turns", "6"])
        .args(["--turn-ms", "5000", "--first-turn-ms", "10000"])
        .args(["--memory-mb", mb])
        .args(extra)
        .args(["--bot-env", "ARBITER_TEST_MARKER"])
        .arg("--replay")
        .arg(&replay)
        .arg(white)
        .arg(random_bot())
        .output()
        .unwrap();
    let v = json_of(&out);
    let left = processes_with(&mark);
    let states: Vec<String> = left
        .iter()
        .map(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default())
        .collect();
    assert!(left.is_empty(), "processes left behind: {states:?}");
    (v, stderr_tail(&replay, 0))
}

/// Whether bots get a memory cgroup here (as root, on a kernel with the memory controller), so
/// that `--memory-mb` covers more than the heap; fails where `CI` is set without one (CI runs
/// the tests as root), so that no test here is skipped unseen. `why` says what needs it.
fn memory_cgroup(why: &str) -> bool {
    let full = memory_cap_is_full();
    assert!(
        full || std::env::var_os("CI").is_none(),
        "no memory cgroup for bots here, and {why}: run the tests as root on a kernel with \
         the memory controller (cgroup v2, or v1's memory hierarchy mounted)"
    );
    if !full {
        eprintln!("no memory cgroup here, and {why}: this test did not check it");
    }
    full
}

fn over_the_limit(v: &Value, mb: u64) {
    assert_eq!(v["reason"], "memory-limit", "{v}");
    assert_eq!(v["offender"], 0, "{v}");
    let detail = v["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("{mb} MiB")), "{detail}");
}

#[test]
fn a_bot_over_its_memory_limit_gets_its_own_verdict() {
    let (v, err) = limited(&hostile("memory 1 600"), "200", &[]);
    if memory_cap_is_full() {
        over_the_limit(&v, 200);
    } else {
        // RLIMIT_DATA: the allocation fails inside the bot, which exits.
        assert_eq!(v["reason"], "crash", "{v}");
        assert!(err.contains("MEM-FAIL"), "{err}");
    }
}

#[test]
fn shared_memory_counts_against_the_limit() {
    if !memory_cgroup("RLIMIT_DATA cannot cover shared memory") {
        return;
    }
    let (v, _) = limited(&hostile("mmap-shared 1 300"), "100", &[]);
    over_the_limit(&v, 100);
}

#[test]
fn the_limit_covers_a_bot_and_its_children_together() {
    if !memory_cgroup("RLIMIT_DATA is per process: it cannot cover a bot's children") {
        return;
    }
    // Three children of 60 MiB each fit a 100 MiB limit one by one, not together.
    let (v, err) = limited(&hostile("children 1 3 60"), "100", &[]);
    let alive: u32 = err
        .lines()
        .find_map(|l| l.strip_prefix("CHILDREN-ALIVE "))
        .and_then(|l| l.split('/').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{v} {err}"));
    assert!(alive < 3, "{err}");
}

#[test]
fn files_in_the_sandboxs_ram_count_and_are_gone_after_the_game() {
    // Within the limit: written, and gone with the game.
    for dir in ["/dev/shm", "/tmp"] {
        let (v, err) = limited(
            &hostile(&format!("shm-file 1 20 {dir}")),
            "200",
            &["--sandbox"],
        );
        assert_eq!(v["reason"], "turn-limit", "{v}");
        let path = err
            .lines()
            .find_map(|l| l.strip_prefix("SHM-WRITTEN "))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(
            !std::path::Path::new(path).exists(),
            "{path} outlived the game"
        );
    }
    if !memory_cgroup("RLIMIT_DATA cannot cover files in RAM") {
        return;
    }
    // Over it: a file in RAM is memory like any other.
    let (v, _) = limited(&hostile("shm-file 1 300 /dev/shm"), "100", &["--sandbox"]);
    over_the_limit(&v, 100);
}

#[test]
fn files_a_bot_leaves_in_dev_shm_are_gone_after_the_game_as_root() {
    if !arbiter::bot::isolates_bots() {
        assert!(
            std::env::var_os("CI").is_none(),
            "bots get a /dev/shm of their own only as root with CAP_SYS_ADMIN (CI runs the \
             tests as root): run the tests as root"
        );
        eprintln!("not root: the host's /dev/shm is the bot's: this test did not check it");
        return;
    }
    let (v, err) = limited(&hostile("shm-file 1 20 /dev/shm"), "200", &[]);
    assert_eq!(v["reason"], "turn-limit", "{v}");
    let path = err
        .lines()
        .find_map(|l| l.strip_prefix("SHM-WRITTEN "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        !std::path::Path::new(path).exists(),
        "{path} outlived the game"
    );
}
