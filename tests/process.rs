//! The bot process layer on its own, with real child processes: freezing, the answer clock,
//! and ending a whole process group.

mod common;

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
        common::python(),
        common::root().display()
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
