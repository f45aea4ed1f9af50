//! The league's scheduler seen from outside: two candidates' SPRTs run at once inside a running
//! league (`league add DIR NEW --candidate OLD`) while the other bots play, one removed, and a game that outlives its lease many times over
//! while its worker renews the lease. The real server on a loopback port with real bots on local workers, its
//! schedule log and records read back, its server-sent events followed. Waits are bounded (a
//! deadline ends a hung test with what it saw); nothing is timed.

use crate::common::league::{events, next_event, recorded, scheduled, wait_for_standings, Proc};
use crate::common::{self, first_bot, greedy_bot, random_bot};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a wait may last before it fails with what it saw (an SPRT takes some dozens of
/// pairs; a loaded machine plays them slowly).
const DEADLINE: Duration = Duration::from_secs(300);

fn wait_for(url: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    wait_for_standings(url, what, DEADLINE, ok)
}

fn bots_of(game: &Value) -> HashSet<String> {
    game["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect()
}

/// Starts the league once (making its folder and league.toml), then changes its settings as
/// an owner would.
fn make_league(dir: &Path, edit: impl FnOnce(String) -> String) {
    let (first, _) = common::league_serve(dir, &[], 0, 7);
    drop(Proc(first));
    let path = dir.join("league.toml");
    let settings = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, edit(settings)).unwrap();
}

/// `arbiter league add DIR ARGS...`, which must succeed.
fn add(dir: &Path, args: &[&str]) {
    let out = common::arbiter()
        .args(["league", "add"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The test of candidate `new` in the standings.
fn test_of<'a>(s: &'a Value, new: &str) -> &'a Value {
    s["sprts"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|t| t["new"] == new)
        .unwrap_or(&Value::Null)
}

#[test]
fn two_candidates_run_at_once_the_others_play_and_a_removed_candidates_test_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let bots = [
        format!("random={}", random_bot()),
        format!("first={}", first_bot()),
    ];
    let (child, url) = common::league_serve(&dir, &bots, 2, 5);
    let server = Proc(child);
    wait_for(&url, "the first games", |s| {
        s["games"].as_u64().unwrap() >= 4
    });

    // Two candidates, each its test: greedy against random (defaults), and a copy of random
    // against random with bounds of its own (equal bots: it decides late). The second does
    // not replace the first.
    add(
        &dir,
        &[&format!("greedy={}", greedy_bot()), "--candidate", "random"],
    );
    let logged = scheduled(&dir).len();
    add(
        &dir,
        &[
            &format!("random2={}", random_bot()),
            "--candidate",
            "random",
            "--elo0",
            "-10",
            "--elo1",
            "10",
            "--max-pairs",
            "900",
        ],
    );
    let s = wait_for(&url, "pairs of both tests", |s| {
        ["greedy", "random2"]
            .iter()
            .all(|c| test_of(s, c)["pairs"].as_u64().unwrap_or(0) >= 2)
    });
    let (one, two) = (test_of(&s, "greedy"), test_of(&s, "random2"));
    assert_eq!(s["sprts"].as_array().unwrap().len(), 2, "{s:#}");
    assert_eq!(
        (
            one["elo0"].as_f64(),
            one["elo1"].as_f64(),
            one["max_pairs"].as_u64()
        ),
        (Some(0.0), Some(5.0), Some(2000)),
        "the defaults: {one}"
    );
    assert_eq!(
        (
            two["elo0"].as_f64(),
            two["elo1"].as_f64(),
            two["max_pairs"].as_u64()
        ),
        (Some(-10.0), Some(10.0), Some(900)),
        "{two}"
    );
    assert_eq!(two["verdict"], "running", "{two}");
    // The other bots keep playing: of the next 40 games (20 tables) about half are the
    // league's own share (the schedule log names the test a table was made for), whoever
    // plays them (the new bots' calibration may meet OLD).
    wait_for(
        &url,
        "40 games scheduled after the second candidate",
        |_| scheduled(&dir).len() >= logged + 40,
    );
    let since = &scheduled(&dir)[logged..logged + 40];
    let of_tests: Vec<&str> = since.iter().filter_map(|g| g["sprt"].as_str()).collect();
    let others = since.len() - of_tests.len();
    assert!(
        (since.len() * 2 / 5..=since.len() * 3 / 5).contains(&others),
        "{others} games of the league's share among {}: {since:?}",
        since.len()
    );
    for g in since.iter().filter(|g| g["sprt"].is_string()) {
        let candidate = g["sprt"].as_str().unwrap().to_string();
        assert!(
            bots_of(g) == [candidate, "random".to_string()].into(),
            "a test's table is its candidate's and its reference's: {g}"
        );
    }
    assert!(
        ["greedy", "random2"].iter().all(|c| of_tests.contains(c)),
        "both tests play: {since:?}"
    );

    // The second candidate removed, its test ends (the page no longer says running); the
    // first goes on to its decision.
    let out = common::arbiter()
        .args(["league", "remove"])
        .arg(&dir)
        .arg("random2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let s = wait_for(&url, "the first test decided", |s| {
        test_of(s, "greedy")["verdict"] != "running"
    });
    assert_eq!(test_of(&s, "random2")["verdict"], "removed", "{s:#}");
    let one = test_of(&s, "greedy");
    // Greedy (one move ahead) is better than random: H1, its LLR past the upper bound, its
    // course drawn from the first pair to the last.
    assert_eq!(one["verdict"], "H1", "{one}");
    assert!(one["llr"].as_f64() >= one["upper"].as_f64(), "{one}");
    let course = one["course"].as_array().unwrap();
    assert_eq!(
        course.last().unwrap()[0],
        one["pairs"],
        "the course ends at the last pair: {one}"
    );
    let lines = std::fs::read_to_string(dir.join("sprt.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 4, "two started, two ended: {lines}");

    // The page shows both tests, their ends, and the LLR's course (a browser runs its script).
    let Some(browser) = common::chromium() else {
        return;
    };
    // The browser keeps the page (and its event stream) open until the server goes away.
    let page = std::thread::spawn({
        let url = url.clone();
        move || common::load(&browser, &format!("{url}/"))
    });
    std::thread::sleep(Duration::from_secs(5));
    drop(server);
    let (page, console) = page.join().unwrap();
    let errors: Vec<&String> = console.iter().filter(|l| l.contains("Uncaught")).collect();
    assert!(errors.is_empty(), "{errors:?}");
    for text in [
        "SPRT greedy vs random (nElo 0 vs 5, at most 2000 pairs)",
        "H1 accepted: better",
        "SPRT random2 vs random (nElo -10 vs 10, at most 900 pairs)",
        "ended: a bot of it was removed",
    ] {
        assert!(page.contains(text), "the page lacks {text:?}: {page}");
    }
    assert_eq!(page.matches("<polyline").count(), 2, "{page}");
    assert!(!page.contains(": running<"), "no test says running: {page}");
}

#[test]
fn a_game_that_outlives_its_lease_is_kept_by_its_renewing_worker_and_played_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    // Leases of 1 s: a game of the slow bots (150 ms a turn) outlives its lease many times
    // over; its local worker renews the lease while it plays, so no other worker takes it.
    make_league(&dir, |s| {
        let default = format!("lease_s = {}", arbiter::league::scheduler::DEFAULT_LEASE_S);
        assert!(s.contains(&default), "{s}");
        s.replace(&default, "lease_s = 1")
    });
    let bots = [
        format!("slow={}", common::hostile("late 150")),
        format!("slower={}", common::hostile("late 150")),
        format!("random={}", random_bot()),
    ];
    let (child, url) = common::league_serve(&dir, &bots, 2, 7);
    let _server = Proc(child);
    let mut stream = events(&url);

    // Every start of a game until games of the slow bots lasting over three lease times each
    // were recorded: each game is started by one worker, once.
    let began = Instant::now();
    let mut starts: HashMap<u64, Vec<(String, Instant)>> = HashMap::new();
    let mut long = 0;
    while long < 3 {
        assert!(
            began.elapsed() < DEADLINE,
            "no three games outlived three lease times: {starts:?}"
        );
        let (name, data) = next_event(&mut stream);
        let Some(id) = data["game_id"].as_u64() else {
            continue;
        };
        match name.as_str() {
            "start" => {
                let worker = data["worker"].as_str().unwrap().to_string();
                let seen = starts.entry(id).or_default();
                seen.push((worker, Instant::now()));
                assert_eq!(
                    seen.len(),
                    1,
                    "game {id} was started again while its worker played it: {seen:?}"
                );
            }
            "game"
                if starts
                    .get(&id)
                    .is_some_and(|s| s[0].1.elapsed() > Duration::from_secs(3)) =>
            {
                long += 1;
            }
            _ => {}
        }
    }
    let ids = recorded(&dir);
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "a game recorded twice: {ids:?}");
}
