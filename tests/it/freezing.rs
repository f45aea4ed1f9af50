//! Freezing the bot that is not on turn, seen from outside the referee: by the opponent (which
//! looks at the idle bot's freezer or process state while it thinks) and by the test itself.
//! The assertions rest on the order of the referee's steps (a bot frozen at its answer is
//! frozen before the opponent's input is written), not on how fast a busy machine schedules.

use crate::common::*;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `arbiter play` with `white` and `black` (a hostile mode each) plus `extra`; returns
/// the referee and Black's pid once Black runs its own program.
fn start(white: &str, black: &str, extra: &[&str], replay: &std::path::Path) -> (Child, u32) {
    let referee = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "play",
            "--json",
            "--first-turn-ms",
            "5000",
            "--turn-ms",
            "1000",
        ])
        .arg("--replay")
        .arg(replay)
        .args(extra)
        .arg(hostile(white))
        .arg(hostile(black))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Before its exec the referee's child shows the referee's own command line.
    let t = Instant::now();
    let black_pid = loop {
        let started = children_with(referee.id(), black).into_iter().find(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.starts_with(python().as_bytes()))
        });
        if let Some(p) = started {
            break p;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "Black never started");
        std::thread::sleep(Duration::from_millis(2));
    };
    (referee, black_pid)
}

/// What White saw of Black ("T" = frozen) on each of its turns, White peeking `ms` into its
/// turns; and Black's stderr.
fn peeked(black: &str, ms: u32, extra: &[&str]) -> (Vec<String>, String) {
    let dir = shared_tempdir();
    let target = dir.path().join("black");
    let replay = dir.path().join("r.jsonl");
    let white = format!("peek {} {ms}", target.display());
    let (referee, black_pid) = start(&white, black, extra, &replay);
    std::fs::write(&target, freeze_state_file(black_pid)).unwrap();
    json_of(&referee.wait_with_output().unwrap());
    let states = stderr_tail(&replay, 0)
        .lines()
        .filter_map(|l| l.strip_prefix("STATE "))
        .map(String::from)
        .collect();
    (states, stderr_tail(&replay, 1))
}

#[test]
fn the_bot_off_turn_is_frozen_unless_pondering_is_allowed() {
    // 20 ms into White's turns, past the 5 ms after which the referee freezes the idle bot;
    // from White's second turn on Black has answered once and is frozen.
    let (frozen, _) = peeked("honest", 20, &["--max-turns", "8"]);
    assert!(frozen.len() >= 3, "{frozen:?}");
    assert!(frozen[1..].iter().all(|s| s == "T"), "{frozen:?}");
    let (pondering, _) = peeked("honest", 20, &["--max-turns", "8", "--allow-pondering"]);
    assert!(pondering[1..].iter().all(|s| s != "T"), "{pondering:?}");
}

fn pondered(stderr: &str) -> Vec<f64> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("PONDERED "))
        .map(|ms| ms.parse().unwrap())
        .collect()
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn a_bot_seen_thinking_while_idle_is_frozen_as_soon_as_it_answers() {
    // Black thinks between its turns. On its second turn the referee sees it used CPU while
    // idle and from then on freezes it the moment its answer is read, before White's input is
    // written: White, looking at once, finds it frozen every time. (The 5 ms window would
    // let White see it running.)
    let (states, black) = peeked("ponder", 0, &["--max-turns", "16"]);
    assert!(states.len() >= 6, "{states:?}");
    assert!(states[2..].iter().all(|s| s == "T"), "{states:?}");
    // What it got while idle: a sliver (the referee's own wake-up) against the share of White's
    // turns it gets when allowed to ponder, on the same machine at about the same time.
    let caught = pondered(&black);
    let (_, black) = peeked("ponder", 0, &["--max-turns", "16", "--allow-pondering"]);
    let allowed = pondered(&black);
    assert!(
        caught.len() >= 6 && allowed.len() >= 6,
        "{caught:?} {allowed:?}"
    );
    assert!(
        median(&caught[1..]) < median(&allowed[1..]),
        "{caught:?} {allowed:?}"
    );
}

/// The share of samples (one every half millisecond, until it ends) in which `pid` was
/// frozen (D, by the cgroup freezer) or stopped (T), and how many samples there were.
fn frozen_share(pid: u32) -> (f64, u32) {
    let (mut frozen, mut samples) = (0u32, 0u32);
    while let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        let state = stat
            .rsplit_once(") ")
            .map_or(' ', |(_, s)| s.chars().next().unwrap());
        if state == 'Z' {
            break;
        }
        samples += 1;
        frozen += u32::from(state == 'D' || state == 'T');
        std::thread::sleep(Duration::from_micros(500));
    }
    (f64::from(frozen) / f64::from(samples.max(1)), samples)
}

/// The first child of `pid` (waiting up to 10 s for one).
fn first_child(pid: u32) -> u32 {
    let t = Instant::now();
    loop {
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        if let Some(p) = children.split_whitespace().next() {
            return p.parse().unwrap();
        }
        assert!(t.elapsed() < Duration::from_secs(10), "no child");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Whether the referee has a cgroup freezer here; where `CI` is set it must (CI runs the
/// tests as root), elsewhere the test is skipped saying what happens without one (`without`).
fn freezer(without: &str) -> bool {
    if arbiter::bot::cgroup::freezer_available() {
        return true;
    }
    crate::common::skip(format!(
        "the cgroup freezer needs root (CI runs the tests as root); without it, {without}"
    ));
    false
}

#[test]
fn a_bot_whose_helper_computes_while_it_is_idle_is_frozen_as_soon_as_it_answers() {
    if !freezer("a helper's CPU time is not the bot's") {
        return;
    }
    // Black starts a helper in its second turn, which computes from 50 ms later on (Black having
    // answered) while Black only plays; White thinks 3 ms a turn, under the 5 ms after which an
    // idle bot is frozen anyway. The helper's computing while Black is idle is Black's CPU time
    // (its cgroup's): seen, Black is frozen from then on the moment its answer is read, helper
    // and all, so the helper is frozen through most of White's turns. Unseen, it would never be.
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let (referee, black) = start("late 3", "spin-helper", &["--max-turns", "120"], &replay);
    let (share, samples) = frozen_share(first_child(black));
    json_of(&referee.wait_with_output().unwrap());
    assert!(samples >= 100, "{samples}");
    // (0.5 to 0.9 on the loaded 2-core VM; never frozen where the helper's CPU time is not
    // seen.)
    assert!(share >= 0.25, "frozen in {share:.2} of {samples} samples");
}

#[test]
fn a_child_that_left_the_bots_session_is_frozen_with_it() {
    if !freezer("only the bot's process group is stopped") {
        return;
    }
    // Black starts a busy child in a session of its own (out of reach of a signal to Black's
    // process group). The test samples that child's state while White thinks 30 ms a turn.
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let (referee, black) = start("late 30", "setsid-spin", &["--max-turns", "14"], &replay);
    let t = Instant::now();
    let spinner = loop {
        let children = std::fs::read_to_string(format!("/proc/{black}/task/{black}/children"))
            .unwrap_or_default();
        if let Some(p) = children.split_whitespace().next() {
            break p.parse::<u32>().unwrap();
        }
        assert!(t.elapsed() < Duration::from_secs(10), "no child");
        std::thread::sleep(Duration::from_millis(2));
    };
    let (mut frozen, mut samples) = (0, 0);
    // Frozen by the cgroup freezer shows D; stopped by a signal, T.
    while let Ok(stat) = std::fs::read_to_string(format!("/proc/{spinner}/stat")) {
        let state = stat
            .rsplit_once(") ")
            .map_or(' ', |(_, s)| s.chars().next().unwrap());
        if state == 'Z' {
            break;
        }
        samples += 1;
        frozen += u32::from(state == 'D' || state == 'T');
        std::thread::sleep(Duration::from_millis(1));
    }
    json_of(&referee.wait_with_output().unwrap());
    // Black is frozen from 5 ms into each of White's 30 ms turns: the child too, most of the time.
    assert!(samples >= 50, "{samples}");
    assert!(
        frozen * 4 >= samples,
        "frozen in {frozen} of {samples} samples"
    );
}
