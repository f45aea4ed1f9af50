//! Walls between bots, with the referee running as root (as in CI): no channel between the bots
//! of one game or of two games at once, with or without `--sandbox` (tests/bots/talk.py tries
//! every one it knows); nothing a bot leaves in the kernel or in a shared folder outlives its
//! game, nor in a network namespace a later bot gets; and a seat's user id is never shared by
//! two bots that could see each other's leftovers, within a run or between two runs.

use crate::common::*;
use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether bots are isolated here (as root with CAP_SYS_ADMIN); fails where `CI` is set
/// without it, so that nothing here is skipped unseen.
fn is_root() -> bool {
    let isolated = arbiter::bot::isolates_bots();
    assert!(
        isolated || std::env::var_os("CI").is_none(),
        "bots are isolated only as root with CAP_SYS_ADMIN: run the tests as root"
    );
    if !isolated {
        eprintln!("not root (or no CAP_SYS_ADMIN): bots are not walled off from each other");
    }
    isolated
}

/// Whether bwrap is here for `--sandbox`; fails where `CI` is set without it.
fn has_bwrap() -> bool {
    let found = arbiter::bot::host::bwrap().is_some();
    assert!(
        found || std::env::var_os("CI").is_none(),
        "--sandbox needs bubblewrap (bwrap): install it"
    );
    if !found {
        eprintln!("no bwrap: the sandbox is not tested here");
    }
    found
}

/// The talk bot's command line, meeting its peers under `rdv`, with `extra` arguments.
fn talk(rdv: &str, extra: &str) -> String {
    format!(
        "{} {}/tests/bots/talk.py {rdv} {extra}",
        python(),
        root().display()
    )
}

/// Starts `arbiter play` of two talk bots meeting under `rdv`, with `extra` options.
fn start_play(rdv: &str, replay: &std::path::Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "play",
            "--json",
            "--seed",
            "5",
            "--max-turns",
            "10",
            "--turn-ms",
            "5000",
            "--first-turn-ms",
            "20000",
        ])
        .args(extra)
        .arg("--replay")
        .arg(replay)
        .arg(talk(rdv, ""))
        .arg(talk(rdv, ""))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Every line "GOT <channel>" of the stderr tails in `tails`.
fn messages_through(tails: &[String]) -> Vec<String> {
    tails
        .iter()
        .flat_map(|t| t.lines())
        .filter(|l| l.starts_with("GOT "))
        .map(str::to_string)
        .collect()
}

/// The channels a bot could still post on: a check that the test still tries them (a bot
/// that failed to post would prove nothing).
fn assert_posted(tail: &str, sandbox: bool) {
    let mut posted = vec![
        "file:/tmp",
        "file:/dev/shm",
        "private",
        "abstract-unix",
        "path-unix",
        "tcp",
        "udp",
        "sysv-msg",
        "sysv-shm",
        "posix-mq",
        "flock",
    ];
    if !sandbox {
        posted.extend(["file:/var/tmp", "file:/run/lock"]);
    }
    for channel in posted {
        assert!(
            tail.lines().any(|l| l == format!("POSTED {channel}")),
            "{channel} was not tried: {tail}"
        );
    }
}

#[test]
fn no_message_gets_from_bot_to_bot_within_a_game_or_between_two_games() {
    if !is_root() {
        return;
    }
    for sandbox in [false, true] {
        if sandbox && !has_bwrap() {
            continue;
        }
        let extra: &[&str] = if sandbox { &["--sandbox"] } else { &[] };
        // Two games at once, all four bots meeting under one word: a bot hears its opponent
        // or the other game's bot of the other colour, whichever gets through.
        let rdv = format!("{}-{sandbox}", marker("talk"));
        let dir = tempfile::tempdir().unwrap();
        let replays = [dir.path().join("1.jsonl"), dir.path().join("2.jsonl")];
        let games: Vec<Child> = replays.iter().map(|r| start_play(&rdv, r, extra)).collect();
        let mut tails = Vec::new();
        for (game, replay) in games.into_iter().zip(&replays) {
            let out = game.wait_with_output().unwrap();
            let v: Value = json_of(&out);
            assert_eq!(v["reason"], "turn-limit", "sandbox {sandbox}: {v}");
            for seat in 0..2 {
                let tail = stderr_tail(replay, seat);
                assert_posted(&tail, sandbox);
                tails.push(tail);
            }
        }
        let got = messages_through(&tails);
        assert!(
            got.is_empty(),
            "sandbox {sandbox}: messages got through: {got:?}\n{tails:#?}"
        );
    }
}

/// The System V shared memory segment of `key` on this machine (its line in
/// /proc/sysvipc/shm), if any.
fn sysv_shm(key: i64) -> Option<String> {
    let table = std::fs::read_to_string("/proc/sysvipc/shm").unwrap();
    table
        .lines()
        .skip(1)
        .find(|l| l.split_whitespace().next() == Some(&key.to_string()))
        .map(str::to_string)
}

#[test]
fn nothing_a_bot_leaves_in_the_kernel_or_in_tmp_outlives_its_game() {
    if !is_root() {
        return;
    }
    let rdv = marker("leave");
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    // Each bot: a 30 MiB System V segment, a POSIX queue, 30 MiB in /dev/shm, then up to
    // 400 MiB in /tmp, under a 150 MiB cap.
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "play",
            "--json",
            "--max-turns",
            "4",
            "--first-turn-ms",
            "30000",
            "--memory-mb",
            "150",
            "--replay",
        ])
        .arg(&replay)
        .arg(talk(&rdv, "leave 30 400"))
        .arg(talk(&rdv, "leave 30 400"))
        .output()
        .unwrap();
    let v = json_of(&out);
    let tails: Vec<String> = (0..2).map(|s| stderr_tail(&replay, s)).collect();
    // The bots did leave things (else this proves nothing), and the cap held in /tmp.
    let all = tails.join("");
    assert!(all.contains("LEFT sysv-shm 30"), "{v}\n{all}");
    assert!(all.contains("LEFT posix-mq"), "{v}\n{all}");
    assert!(
        !all.contains("LEFT file:/tmp 400"),
        "400 MiB in /tmp under a 150 MiB cap: {all}"
    );
    let seed = crc32(rdv.as_bytes()) as i64;
    for colour in [0, 1] {
        let key = (seed % 100000) * 100 + 2 * 2 + colour + 1;
        assert_eq!(sysv_shm(key), None, "a bot's segment outlived its game");
        let name = format!("{rdv}-{}-left", ["w", "b"][colour as usize]);
        for folder in ["/tmp", "/dev/shm"] {
            let path = std::path::Path::new(folder).join(&name);
            let left = path.exists();
            let _ = std::fs::remove_file(&path);
            assert!(!left, "{} outlived its game", path.display());
        }
        let queue = std::ffi::CString::new(format!("/{name}")).unwrap();
        // SAFETY: a C string and flags; the descriptor, if any, is closed.
        let fd = unsafe { libc::mq_open(queue.as_ptr(), libc::O_RDONLY) };
        if fd >= 0 {
            // SAFETY: as above.
            unsafe {
                libc::mq_close(fd);
                libc::mq_unlink(queue.as_ptr());
            }
        }
        assert!(fd < 0, "the bot's POSIX queue {name} outlived its game");
    }
}

/// CRC-32 (as Python's zlib.crc32), for the talk bot's keys.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_later_game_of_a_run_finds_nothing_of_an_earlier_ones_bots() {
    if !is_root() {
        return;
    }
    // One game at a time: later games' bots run under the user ids earlier ones had.
    let rdv = marker("later");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let run = arbiter()
        .args([
            "tournament",
            "--games",
            "4",
            "--concurrency",
            "1",
            "--max-turns",
            "4",
            "--first-turn-ms",
            "20000",
            "--out",
        ])
        .arg(&out)
        .arg(format!("a={}", talk(&rdv, "")))
        .arg(format!("b={}", talk(&rdv, "")))
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let records = std::fs::read_to_string(out.join("records.jsonl")).unwrap();
    let mut tails = Vec::new();
    for line in records.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        for tail in v["stderr"].as_array().unwrap() {
            let tail = tail.as_str().unwrap().to_string();
            assert!(tail.contains("POSTED private"), "{tail}");
            tails.push(tail);
        }
    }
    assert_eq!(tails.len(), 8);
    let got = messages_through(&tails);
    assert!(
        got.is_empty(),
        "leftovers reached a later game: {got:?}\n{tails:#?}"
    );
}

/// The `NETNS` notes of a tournament's records, game by game (in the order played): for each
/// bot, its name and what it found in its network namespace.
fn netns_notes(records: &str) -> Vec<Vec<(String, String)>> {
    let mut games: Vec<(u64, Vec<(String, String)>)> = records
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let names = v["bots"].as_array().unwrap();
            let notes = v["stderr"]
                .as_array()
                .unwrap()
                .iter()
                .zip(names)
                .map(|(tail, name)| {
                    let tail = tail.as_str().unwrap();
                    let note = tail
                        .lines()
                        .find(|l| l.starts_with("NETNS "))
                        .unwrap_or_else(|| panic!("no NETNS note: {tail}"));
                    let used = tail.contains("NET-USED");
                    let name = name.as_str().unwrap();
                    assert_eq!(used, name == "user", "{name} noted: {tail}");
                    (name.to_string(), note.to_string())
                })
                .collect();
            (v["game_id"].as_u64().unwrap(), notes)
        })
        .collect();
    games.sort_by_key(|(game, _)| *game);
    games.into_iter().map(|(_, notes)| notes).collect()
}

#[test]
fn a_network_namespace_is_reused_only_where_no_earlier_bot_touched_it() {
    if !is_root() {
        return;
    }
    // One game at a time: each bot notes its network namespace as it finds it (its cookie,
    // which no two namespaces share, loopback packets, sockets, TIME_WAIT, failed route
    // lookups); "user" then sends datagrams to itself, leaves a TCP connection in TIME_WAIT
    // and fails a route lookup, "quiet" does nothing with it.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let run = arbiter()
        .args(["tournament", "--games", "8", "--concurrency", "1"])
        .args(["--max-turns", "4", "--opening-plies", "0"])
        .args(["--first-turn-ms", "20000", "--out"])
        .arg(&out)
        .arg(format!("quiet={}", hostile("netns 1 0")))
        .arg(format!("user={}", hostile("netns 1 1")))
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let games = netns_notes(&std::fs::read_to_string(out.join("records.jsonl")).unwrap());
    assert_eq!(games.len(), 8);
    let cookie = |note: &str| note.split_whitespace().nth(1).unwrap().to_string();
    let mut used_before: Vec<String> = Vec::new();
    let mut quiet_cookies: Vec<String> = Vec::new();
    for (i, notes) in games.iter().enumerate() {
        for (name, note) in notes {
            // As fresh as a new one: nothing of an earlier bot's traffic, sockets or errors.
            assert!(
                note.ends_with(" LO 0 0 SOCKETS 0 TW 0 NOROUTES 0"),
                "game {i}, {name} found its namespace used: {note}\n{games:?}"
            );
            let c = cookie(note);
            if c == "-" {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "this kernel tells no namespace's cookie (SO_NETNS_COOKIE, Linux 5.14)"
                );
                continue;
            }
            assert!(
                !used_before.contains(&c),
                "game {i}: {name} got the namespace an earlier bot used: {games:?}"
            );
            if name == "quiet" {
                quiet_cookies.push(c.clone());
            }
        }
        for (name, note) in notes {
            if name == "user" {
                used_before.push(cookie(note));
            }
        }
    }
    // Untouched namespaces were given to later bots (else the check above proves nothing).
    let mut distinct = quiet_cookies.clone();
    distinct.sort();
    distinct.dedup();
    assert!(
        quiet_cookies.is_empty() || distinct.len() < quiet_cookies.len(),
        "no namespace was reused: {games:?}"
    );
}

/// The user ids of the live processes carrying `mark` (bots and their inits; not the
/// referee, which runs as root).
fn bot_uids(mark: &str) -> Vec<u32> {
    let mut uids: Vec<u32> = processes_with(mark)
        .into_iter()
        .filter_map(|p| {
            let status = std::fs::read_to_string(format!("/proc/{p}/status")).ok()?;
            let uid = status.lines().find_map(|l| l.strip_prefix("Uid:"))?;
            uid.split_whitespace().next()?.parse().ok()
        })
        .filter(|&u| u != 0)
        .collect();
    uids.sort();
    uids.dedup();
    uids
}

/// Starts a referee whose two bots never answer (a first turn of a minute), with `mark` in
/// their environment.
fn start_waiting(mark: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .env("ARBITER_TEST_MARKER", mark)
        .args([
            "play",
            "--bot-env",
            "ARBITER_TEST_MARKER",
            "--first-turn-ms",
            "60000",
        ])
        .args(["sleep 100", "sleep 100"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits (up to 10 s) until the processes carrying `mark` run as two user ids other than root.
fn wait_uids(mark: &str) -> Vec<u32> {
    let t = Instant::now();
    loop {
        let uids = bot_uids(mark);
        if uids.len() >= 2 {
            return uids;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the bots never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stop(mut referee: Child) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(referee.id() as i32, libc::SIGTERM) };
    let _ = referee.wait();
}

#[test]
fn two_runs_at_once_never_share_a_user_id_even_when_their_pids_differ_by_16384() {
    if !is_root() {
        return;
    }
    // The kernel hands out the pid after the one written to ns_last_pid (racy with every other
    // process started meanwhile: a few tries).
    const LAST_PID: &str = "/proc/sys/kernel/ns_last_pid";
    let pid_max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let first_mark = marker("uid-first");
    let first = start_waiting(&first_mark);
    let first_uids = wait_uids(&first_mark);
    let p = first.id();
    let wanted = if p > 16384 { p - 16384 } else { p + 16384 };
    assert!(wanted < pid_max, "pid_max {pid_max}");
    let second_mark = marker("uid-second");
    let mut second = None;
    for _ in 0..50 {
        std::fs::write(LAST_PID, (wanted - 1).to_string()).unwrap();
        let child = start_waiting(&second_mark);
        if child.id() == wanted {
            second = Some(child);
            break;
        }
        stop(child);
    }
    let second = second.expect("no run got the pid wanted in 50 tries");
    let second_uids = wait_uids(&second_mark);
    stop(first);
    stop(second);
    assert!(
        first_uids.iter().all(|u| !second_uids.contains(u)),
        "two runs share user ids: {first_uids:?} and {second_uids:?}"
    );
}
