//! A worker gives its ended bots' cgroups to its later bots (issue 26): attacked by bots that
//! leave children behind, go over their memory limit, leave files in the page cache and
//! fork-bomb, the later games' bots of the same worker still start in an empty cgroup, with a
//! memory figure of their own and verdicts of their own, and every cgroup is gone at the end of
//! the run, and after a stop. (The names of this process's cgroups count up from 0, which the
//! first test reads: no other test here makes cgroups in this process.)

use crate::common::*;
use arbiter::bot::{BotSpec, Limits};
use arbiter::referee::GameChoice;
use arbiter::referee::{GameResult, Reason, RefereeConfig, TimeControl};
use arbiter::tournament::{GameSpec, Runner};
use std::ops::ControlFlow;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

/// Whether bot cgroups can be made here (as root); fails where `CI` is set without root.
fn as_root() -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    crate::common::skip(
        "bot cgroups need root (CI runs the tests as root): run `cargo test` as root",
    );
    false
}

/// What names referee `pid`'s cgroups (`arbiter-TAG-N`): its id and its pid namespace (the
/// same as this process's).
fn tag(pid: u32) -> String {
    let ns = std::fs::metadata("/proc/self/ns/pid").unwrap();
    format!("{pid}-ns{}", std::os::unix::fs::MetadataExt::ino(&ns))
}

/// The cgroups of referee `pid` left in the pids and freezer hierarchies.
fn cgroups_of(pid: u32) -> Vec<String> {
    ["pids", "freezer"]
        .iter()
        .flat_map(|c| {
            std::fs::read_dir(format!("/sys/fs/cgroup/{c}"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .map(|e| e.path().display().to_string())
        .filter(|p| p.contains(&format!("/arbiter-{}-", tag(pid))))
        .collect()
}

fn bot(name: &str, mode: &str) -> BotSpec {
    let line = hostile(mode);
    let mut words = line.split_whitespace().map(str::to_string);
    let program = words.next().unwrap();
    BotSpec::command(name, program, words.collect(), root())
}

/// The `CGROUP` note of a bot's stderr: (cgroup name, processes listed, memory charged).
fn cgroup_note(tail: &str) -> (String, usize, u64) {
    let line = tail
        .lines()
        .find_map(|l| l.strip_prefix("CGROUP "))
        .unwrap_or_else(|| panic!("no CGROUP note: {tail}"));
    let w: Vec<&str> = line.split_whitespace().collect();
    (
        w[0].to_string(),
        w[2].parse().unwrap(),
        w[4].parse().unwrap(),
    )
}

#[test]
fn a_reused_cgroup_is_empty_and_carries_no_verdict_or_memory_of_the_last_bot() {
    if !as_root() {
        return;
    }
    assert!(
        arbiter::bot::cgroup::memory_cap_is_full()
            && arbiter::bot::cgroup::default_max_processes().is_some(),
        "as root the referee must get pids and memory cgroups here"
    );
    let marker = format!("arbiter-reuse-{}", std::process::id());
    // Files on a disk (not in RAM): their page cache stays charged to the writer's cgroup.
    let files = tempfile::tempdir_in(root().join("target")).unwrap();
    std::fs::set_permissions(files.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let bots = [
        bot("children", &format!("fork 1 {marker}")),
        bot("hog", "memory 1 400"),
        bot("crash", "exit 2 3"),
        bot("report", "cgroup 1"),
        bot(
            "cache",
            &format!("shm-file 1 40 {}", files.path().display()),
        ),
        bot("bomb", "fork-bomb 1 300"),
        bot("honest", "honest"),
    ];
    let cfg = RefereeConfig {
        time: TimeControl {
            first_turn: Duration::from_secs(20),
            turn: Duration::from_secs(10),
            ..TimeControl::default()
        },
        max_turns: 6,
        limits: Limits {
            memory_bytes: Some(200 << 20),
            max_processes: Some(64),
            ..Limits::default()
        },
        ..RefereeConfig::default()
    };
    // One worker plays them in order; a game's spares go, last in, first out, to the seats of
    // the next game its worker starts: the game after next where a spare CPU lets the bots
    // start ahead (two CPUs or more), else the next. Either way games 2 to 4 start in cgroups
    // of the games before: the bots that went over their memory limit (game 1's Black) or
    // their process cap (game 2's Black), left children (game 1's White) or 40 MiB of files
    // in the page cache (game 2's White) hand theirs on, and game 2's fork bomb and games 3
    // and 4's crashes must be judged as what they are.
    let seats = [[0, 1], [4, 5], [2, 3], [2, 3]];
    let games: Vec<GameSpec> = seats
        .iter()
        .enumerate()
        .map(|(i, s)| GameSpec {
            game_id: i as u64,
            pair_id: i as u64,
            seed: i as u64 + 1,
            seats: s.to_vec(),
        })
        .collect();
    let game = GameChoice::new("impasse", None, None, None).unwrap();
    let runner = Runner {
        bots: &bots,
        game: &game,
        opening_plies: 0,
        book: None,
        referee: &cfg,
        concurrency: 1,
        // Pinned: where a CPU is spare (CI's two), the bots are started ahead.
        pin_cpus: true,
    };
    let mut results: Vec<GameResult> = Vec::new();
    runner.run(&games, |f| {
        results.push(f.expect("the machine starts every game").result);
        ControlFlow::Continue(())
    });
    results.sort_by_key(|r| r.seed);
    let says = |r: &GameResult| format!("{} by {:?}: {}", r.reason, r.offender, r.detail);

    assert_eq!(
        results[0].reason,
        Reason::MemoryLimit,
        "{}",
        says(&results[0])
    );
    assert_eq!(results[0].offender, Some(1));
    assert_eq!(
        results[1].reason,
        Reason::ProcessLimit,
        "{}",
        says(&results[1])
    );
    assert_eq!(results[1].offender, Some(1));
    // The crash is a crash, not the last bot's memory or process verdict read again.
    for g in [2, 3] {
        assert_eq!(
            results[g].reason,
            Reason::Crash,
            "game {}: {}",
            g + 1,
            says(&results[g])
        );
        assert_eq!(results[g].offender, Some(0));
    }
    // Game 1 made cgroups 0 and 1 (the first of this process); game 3's reporting Black got
    // one of them (White's, emptied of its children, started ahead; or, started by the worker,
    // the one game 2's White filled with files), charged with its own memory alone.
    let pid = std::process::id();
    let (name, procs, usage) = cgroup_note(&results[2].stderr_tails[1]);
    assert!(
        [0, 1]
            .iter()
            .any(|n| name == format!("arbiter-{}-{n}", tag(pid))),
        "not reused: {name}"
    );
    assert_eq!(procs, 1, "the last bot's children are still in {name}");
    assert!(usage < 30 << 20, "{name} charged {usage} bytes");
    // Game 2's White left 40 MiB of files in the page cache: they are reclaimed before its
    // cgroup goes to game 4's Black (or the cgroup is removed, and Black gets a new one).
    let (name, procs, usage) = cgroup_note(&results[3].stderr_tails[1]);
    assert_eq!(procs, 1, "{name}");
    assert!(
        usage < 30 << 20,
        "{name} charged {usage} bytes: the last bot's files"
    );
    assert!(processes_with(&marker).is_empty(), "children left behind");
    // The worker has ended: its spares are gone with it.
    let left = cgroups_of(pid);
    assert!(left.is_empty(), "cgroups left: {left:?}");
}

#[test]
fn a_stopped_tournament_leaves_no_cgroup() {
    if !as_root() {
        return;
    }
    // At concurrency 2 every CPU here has a worker; at 1 a CPU is spare, and the next game's
    // bots wait, held, when the stop comes.
    for concurrency in ["2", "1"] {
        stop_and_look(concurrency);
    }
}

fn stop_and_look(concurrency: &str) {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("arbiter-stop-{concurrency}-{}", std::process::id());
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(dir.path())
        .env("ARBITER_TEST_MARKER", &marker)
        .args([
            "tournament",
            "--games",
            "100000",
            "--concurrency",
            concurrency,
        ])
        .args(["--bot-env", "ARBITER_TEST_MARKER"])
        .arg(format!("a={}", first_bot()))
        .arg(format!("b={}", first_bot()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = run.id();
    // Games are under way, and ended bots' cgroups wait as spares, when the stop comes.
    let t = std::time::Instant::now();
    while cgroups_of(pid).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(20), "no game started");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = run.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    // The watchdog removes what the referee left once it has ended.
    let t = std::time::Instant::now();
    loop {
        let left = cgroups_of(pid);
        if left.is_empty() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "cgroups left: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let t = std::time::Instant::now();
    while !processes_with(&marker).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "bots left at concurrency {concurrency}: {:?}",
            processes_with(&marker)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
