//! What a league keeps in its folder besides its records (issue 47): every scheduled game ends
//! recorded (games.csv) or cancelled (`cancelled.jsonl`, with why) when a bot is removed or
//! replaced mid-run, and a pair of games is never played half by each version of a bot; an
//! SPRT's decision and a suspension survive kill -9 and a restart. The real
//! server on a loopback port with real bots on a local worker, `arbiter league remove` and `add`
//! against it, its folder read back. Waits are bounded; nothing is timed.

use crate::common::league::{
    json, recorded, scheduled, wait_for, wait_for_standings, Proc, Server,
};
use crate::common::{self};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// How long a wait on an SPRT may last (some dozens of pairs on a loaded machine).
const SLOW: Duration = Duration::from_secs(300);

/// The lines of the league's `cancelled.jsonl` (whole lines only).
fn cancelled(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("cancelled.jsonl"))
        .unwrap_or_else(|e| panic!("{}/cancelled.jsonl: {e}", dir.display()));
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn has(game: &Value, bot: &str) -> bool {
    game["bots"].as_array().unwrap().iter().any(|b| b == bot)
}

/// `arbiter league ARGS...` against the league in `dir`, which must succeed.
fn league(dir: &Path, args: &[&str]) {
    let out = common::arbiter()
        .arg("league")
        .arg(args[0])
        .arg(dir)
        .args(&args[1..])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "league {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A game of `bot` being played whose twin (the other game of its pair) is still to be played
/// (neither recorded nor cancelled):
/// its id and its twin's.
fn running_with_unplayed_twin(url: &str, dir: &Path, bot: &str) -> (u64, u64) {
    wait_for(
        &format!("a game of {bot} under way, its twin queued"),
        || {
            let games = json(url, "/api/games");
            let mut done = recorded(dir);
            if dir.join("cancelled.jsonl").exists() {
                done.extend(
                    cancelled(dir)
                        .iter()
                        .map(|c| c["game_id"].as_u64().unwrap()),
                );
            }
            let logged = scheduled(dir);
            let found = games["running"].as_array().unwrap().iter().find_map(|g| {
                if !has(g, bot) {
                    return None;
                }
                let id = g["game_id"].as_u64()?;
                let pair = logged.iter().find(|s| s["game_id"] == id)?["pair_id"].clone();
                let twin = logged
                    .iter()
                    .find(|s| s["pair_id"] == pair && s["game_id"] != id)?["game_id"]
                    .as_u64()?;
                (!done.contains(&twin)).then_some((id, twin))
            });
            (found, games.to_string())
        },
    )
}

#[test]
fn a_removed_or_replaced_bots_unplayed_games_are_cancelled_and_every_game_ends_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    // One local worker: of each pair one game is played while its twin waits in the queue.
    // Slow bots (50 ms a turn): a game lasts seconds.
    let slow = common::hostile("late 50");
    let bots = [
        format!("a={slow}"),
        format!("b={slow}"),
        format!("c={slow}"),
    ];
    let (child, url) = common::league_serve(&dir, &bots, 1, 11);
    let _server = Proc(child);

    // c is removed while it plays a game whose twin waits: the twin is cancelled.
    let (c_game, c_twin) = running_with_unplayed_twin(&url, &dir, "c");
    league(&dir, &["remove", "c"]);
    // b is replaced (added again) while it plays a game whose twin waits: the twin is not
    // played by the new version, it is cancelled. (The new version is built and checked
    // first, while the old one plays on: should its game end and the twin start meanwhile,
    // the pair is the old version's, and b is replaced again in a later game.)
    let mut replaced = None;
    for _ in 0..3 {
        let (game, twin) = running_with_unplayed_twin(&url, &dir, "b");
        league(&dir, &["add", &format!("b={slow}")]);
        if cancelled(&dir).iter().any(|c| c["game_id"] == twin) {
            replaced = Some((game, twin));
            break;
        }
    }
    let (b_game, b_twin) = replaced.expect("b replaced while its twin waited, in 3 tries");
    // The games under way at the changes finish, and the league goes on with a and b.
    let last = scheduled(&dir).last().unwrap()["game_id"].as_u64().unwrap();
    wait_for(
        "the games under way finished and later ones recorded",
        || {
            let done = recorded(&dir);
            let ok =
                [c_game, b_game].iter().all(|g| done.contains(g)) && done.iter().any(|&g| g > last);
            (ok.then_some(()), format!("{done:?}"))
        },
    );

    let cancels = cancelled(&dir);
    let why: HashMap<u64, (String, String)> = cancels
        .iter()
        .map(|c| {
            (
                c["game_id"].as_u64().unwrap(),
                (
                    c["why"].as_str().unwrap().to_string(),
                    c["bot"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect();
    assert_eq!(
        why.len(),
        cancels.len(),
        "a game cancelled twice: {cancels:?}"
    );
    assert!(
        cancels
            .iter()
            .all(|c| c["at"].as_str().is_some_and(|t| !t.is_empty())),
        "each says when: {cancels:?}"
    );
    assert_eq!(
        why.get(&c_twin),
        Some(&("removed".to_string(), "c".to_string())),
        "{cancels:?}"
    );
    assert_eq!(
        why.get(&b_twin),
        Some(&("replaced".to_string(), "b".to_string())),
        "{cancels:?}"
    );
    let done = recorded(&dir);
    assert!(
        !done.contains(&c_twin) && !done.contains(&b_twin),
        "{done:?}"
    );
    // Every scheduled game of c, and every one up to the replacement, ended recorded or
    // cancelled, exactly once.
    for g in scheduled(&dir) {
        let id = g["game_id"].as_u64().unwrap();
        if !(has(&g, "c") || id <= b_twin.max(b_game)) {
            continue;
        }
        let times = done.iter().filter(|&&d| d == id).count() + usize::from(why.contains_key(&id));
        assert_eq!(
            times, 1,
            "game {id} ({g}) recorded {done:?}, cancelled {cancels:?}"
        );
    }
}

fn line_of<'a>(s: &'a Value, bot: &str) -> &'a Value {
    s["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == bot)
        .unwrap_or(&Value::Null)
}

#[test]
fn a_decided_sprt_and_a_suspension_survive_kill_9_and_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let bots = [
        format!("random={}", common::random_bot()),
        format!("first={}", common::first_bot()),
        format!("crash={}", common::hostile("exit 1 3")),
    ];
    let server = Server::start(&dir, 2, &bots, 3);
    wait_for_standings(&server.url, "crash suspended", SLOW, |s| {
        line_of(s, "crash")["status"] == "suspended"
    });
    // greedy beats random: its test decides H1.
    league(
        &dir,
        &[
            "add",
            &format!("greedy={}", common::greedy_bot()),
            "--candidate",
            "random",
        ],
    );
    let decided = wait_for_standings(&server.url, "the SPRT decided", SLOW, |s| {
        s["sprt"]["verdict"] == "H1"
    });
    server.kill9();

    let logged = scheduled(&dir).len();
    let server = Server::start(&dir, 2, &[], 3);
    let games = decided["games"].as_u64().unwrap();
    let s = wait_for_standings(
        &server.url,
        "the league going on after the restart",
        SLOW,
        |s| {
            ["random", "first", "greedy"]
                .iter()
                .all(|b| line_of(s, b)["status"] == "playing")
                && s["games"].as_u64().unwrap() >= games + 20
        },
    );
    // The suspension holds, with its reason; crash is never scheduled again.
    let crash = line_of(&s, "crash");
    assert_eq!(crash["status"], "suspended", "{s:#}");
    assert!(
        crash["problem"]
            .as_str()
            .unwrap()
            .contains("forfeited 5 games in a row"),
        "{s:#}"
    );
    for g in &scheduled(&dir)[logged..] {
        assert!(!has(g, "crash"), "crash scheduled after the restart: {g}");
    }
    // The decision holds, with its counts; the test is not run again.
    assert_eq!(s["sprt"]["verdict"], "H1", "{s:#}");
    assert_eq!(s["sprt"]["pairs"], decided["sprt"]["pairs"], "{s:#}");
    assert_eq!(s["sprts"].as_array().unwrap().len(), 1, "{s:#}");
    let lines = std::fs::read_to_string(dir.join("sprt.jsonl")).unwrap();
    let events: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].to_string())
        .collect();
    assert_eq!(events, ["\"started\"", "\"ended\""], "{lines}");
}
