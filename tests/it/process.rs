//! The bot process layer on its own, with real child processes: freezing, the answer clock,
//! and ending a whole process group.

use arbiter::bot::{shutdown_all, wait_line, BotProcess, BotSpec, Limits, Wait};
use std::time::{Duration, Instant};

fn state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = stat.rsplit_once(") ").unwrap().1;
    after.chars().next().unwrap()
}

fn echo() -> BotSpec {
    BotSpec::resolve(&format!(
        "{} {}/tests/bots/echo.py",
        crate::common::python(),
        crate::common::root().display()
    ))
    .unwrap()
}

#[test]
fn a_frozen_bot_is_stopped_and_a_thawed_one_runs() {
    let mut bot = BotProcess::spawn(&echo(), &Limits::default(), &[]).unwrap();
    bot.send(b"hello\n", Instant::now() + Duration::from_secs(5))
        .unwrap();
    let mut bots = [bot];
    match wait_line(&mut bots, 0, Instant::now() + Duration::from_secs(5)) {
        Wait::Line(line, _) => assert_eq!(line, b"hello"),
        other => panic!("{other:?}"),
    }
    let pid = bots[0].pid();
    bots[0].freeze();
    // A freeze takes effect when the kernel next gets to the process: poll, with a deadline.
    // (Stopped by SIGSTOP shows T; frozen by the cgroup freezer, D.)
    let t = Instant::now();
    while !matches!(state(pid), 'T' | 'D') {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "not stopped: {}",
            state(pid)
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // Input written to a frozen bot waits; it answers once thawed.
    bots[0]
        .send(b"again\n", Instant::now() + Duration::from_secs(5))
        .unwrap();
    assert!(matches!(
        wait_line(&mut bots, 0, Instant::now() + Duration::from_millis(200)),
        Wait::Timeout
    ));
    bots[0].thaw();
    assert!(matches!(
        wait_line(&mut bots, 0, Instant::now() + Duration::from_secs(5)),
        Wait::Line(..)
    ));
    shutdown_all(&mut bots, Duration::from_millis(200));
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "reaped"
    );
}

#[test]
fn a_timeout_is_reported_at_the_deadline_not_before_nor_long_after() {
    let mut bots = [BotProcess::spawn(&echo(), &Limits::default(), &[]).unwrap()];
    let start = Instant::now();
    let deadline = start + Duration::from_millis(100);
    assert!(matches!(wait_line(&mut bots, 0, deadline), Wait::Timeout));
    let late = start.elapsed();
    assert!(late >= Duration::from_millis(100), "{late:?}");
    assert!(late < Duration::from_millis(600), "{late:?}");
    shutdown_all(&mut bots, Duration::from_millis(200));
}

/// Whether bots can be held here (as root); fails where `CI` is set without root.
fn can_hold() -> bool {
    if BotProcess::can_hold(&Limits::default()) {
        return true;
    }
    crate::common::skip("bots are held only where they are isolated: run the tests as root");
    false
}

/// A bot that says "ready" as soon as it runs, then echoes.
fn eager(mark: &str) -> (BotSpec, Limits) {
    let spec = BotSpec::resolve("sh -c 'echo ready; exec cat'").unwrap();
    let limits = Limits {
        env: vec![("ARBITER_TEST_MARKER".into(), mark.into())],
        ..Limits::default()
    };
    (spec, limits)
}

#[test]
fn a_held_bot_runs_none_of_its_code_before_it_is_let_go() {
    if !can_hold() {
        return;
    }
    let mark = crate::common::marker("held");
    let (spec, limits) = eager(&mark);
    // Let go, it runs on the CPU of its game (here the last this test may use).
    let cpu = arbiter::tournament::allowed_cpus().last().copied();
    let bot = BotProcess::spawn_held(&spec, &limits, &[], cpu).unwrap();
    let mut bots = [bot];
    // Held: its gate waits, and nothing of the bot's program has run.
    let waited = wait_line(&mut bots, 0, Instant::now() + Duration::from_millis(500));
    assert!(matches!(waited, Wait::Timeout), "{waited:?}");
    let gates: Vec<u32> = crate::common::processes_with(&mark);
    assert!(!gates.is_empty(), "no held process");
    for pid in &gates {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(
            cmdline.starts_with(b"arbiter-gate\0"),
            "{}",
            String::from_utf8_lossy(&cmdline)
        );
    }
    bots[0].release();
    match wait_line(&mut bots, 0, Instant::now() + Duration::from_secs(5)) {
        Wait::Line(line, _) => assert_eq!(line, b"ready"),
        other => panic!("{other:?}"),
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", bots[0].pid())).unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(Some(allowed), cpu.map(|c| c.to_string()));
    bots[0]
        .send(b"hello\n", Instant::now() + Duration::from_secs(5))
        .unwrap();
    match wait_line(&mut bots, 0, Instant::now() + Duration::from_secs(5)) {
        Wait::Line(line, _) => assert_eq!(line, b"hello"),
        other => panic!("{other:?}"),
    }
    shutdown_all(&mut bots, Duration::from_millis(200));
    assert!(crate::common::processes_with(&mark).is_empty());
}

#[test]
fn a_held_bot_never_let_go_ends_without_running() {
    if !can_hold() {
        return;
    }
    let mark = crate::common::marker("held-dropped");
    let (spec, limits) = eager(&mark);
    let mut bots = [BotProcess::spawn_held(&spec, &limits, &[], None).unwrap()];
    // Its gate is there once it has started (the spawn does not wait for its exec; on a busy
    // machine the first look can come before it).
    let t = Instant::now();
    while crate::common::processes_with(&mark).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(5), "no held process");
        std::thread::sleep(Duration::from_millis(10));
    }
    // The game is not played (a stop): ended as any bot is, it has printed nothing.
    shutdown_all(&mut bots, Duration::from_millis(200));
    assert!(
        bots[0].stderr_tail().is_empty(),
        "{}",
        bots[0].stderr_tail()
    );
    let t = Instant::now();
    while !crate::common::processes_with(&mark).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "the held bot outlived its end"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // And dropped without an end at all.
    let held = BotProcess::spawn_held(&spec, &limits, &[], None).unwrap();
    drop(held);
    let t = Instant::now();
    while !crate::common::processes_with(&mark).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "the dropped bot outlived its drop"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
