//! The league's scheduler seen from outside: a candidate's SPRT decided inside a running league
//! (`league add DIR NEW --candidate OLD`), and a lease that runs out while its game is still
//! being played. The real server on a loopback port with real bots on local workers, its
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

#[test]
fn a_candidates_pairs_come_first_until_its_sprt_decides_in_the_standings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let bots = [
        format!("random={}", random_bot()),
        format!("first={}", first_bot()),
    ];
    let (child, url) = common::league_serve(&dir, &bots, 2, 5);
    let _server = Proc(child);
    wait_for(&url, "the first games", |s| {
        s["games"].as_u64().unwrap() >= 4
    });
    let logged = scheduled(&dir).len();

    let out = common::arbiter()
        .args(["league", "add"])
        .arg(&dir)
        .arg(format!("greedy={}", greedy_bot()))
        .args(["--candidate", "random"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = wait_for(&url, "the candidate's SPRT to decide", |s| {
        s["sprt"]["verdict"]
            .as_str()
            .is_some_and(|v| v != "running")
    });
    let sprt = &s["sprt"];
    assert_eq!(
        (&sprt["new"], &sprt["old"]),
        (&"greedy".into(), &"random".into())
    );
    // Greedy (one move ahead) is better than random: H1, its LLR past the upper bound.
    assert_eq!(sprt["verdict"], "H1", "{sprt}");
    assert!(sprt["llr"].as_f64() >= sprt["upper"].as_f64(), "{sprt}");
    let pairs = sprt["pairs"].as_u64().unwrap() as usize;
    assert!(pairs >= 1, "{sprt}");

    // Priority: from the candidate's first table on (others went on while it was built), the
    // tables made until it decided, at least the pairs it counted, are all NEW against OLD.
    let after: Vec<Value> = scheduled(&dir)[logged..].to_vec();
    let joined = after
        .iter()
        .position(|g| bots_of(g).contains("greedy"))
        .expect("a table of the candidate");
    let theirs: HashSet<String> = ["greedy".to_string(), "random".to_string()].into();
    for g in &after[joined..joined + 2 * pairs] {
        assert_eq!(
            bots_of(g),
            theirs,
            "a table of others before it decided: {g}"
        );
    }
    // Once decided, the league goes back to its usual tables: the others meet the candidate.
    wait_for(&url, "first to meet greedy", |_| {
        scheduled(&dir)[logged + joined..]
            .iter()
            .any(|g| bots_of(g) == ["greedy".to_string(), "first".to_string()].into())
    });
}

#[test]
fn a_game_that_outlives_its_lease_is_played_by_another_worker_and_recorded_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    // Leases of 1 s: a game of the slow bot (150 ms a turn) outlives its lease.
    make_league(&dir, |s| {
        assert!(s.contains("lease_s = 600"), "{s}");
        s.replace("lease_s = 600", "lease_s = 1")
    });
    let bots = [
        format!("slow={}", common::hostile("late 150")),
        format!("random={}", random_bot()),
        format!("first={}", first_bot()),
    ];
    let (child, url) = common::league_serve(&dir, &bots, 2, 7);
    let _server = Proc(child);
    let mut stream = events(&url);

    // A game started by one worker and, its lease run out, by the other.
    let began = Instant::now();
    let mut starts: HashMap<u64, Vec<String>> = HashMap::new();
    let (twice, second) = loop {
        assert!(
            began.elapsed() < DEADLINE,
            "no game was played twice: {starts:?}"
        );
        let (name, data) = next_event(&mut stream);
        if name != "start" {
            continue;
        }
        let id = data["game_id"].as_u64().unwrap();
        let worker = data["worker"].as_str().unwrap().to_string();
        let workers = starts.entry(id).or_default();
        if workers.iter().any(|w| *w != worker) {
            break (id, worker);
        }
        workers.push(worker);
    };
    // The second worker's play of it ends (it leases its next game only then) and its result
    // reaches the recorder before that next game's (one queue): once that one is recorded, both
    // results for the twice-played game were handed in.
    let next = loop {
        assert!(began.elapsed() < DEADLINE, "{second} started no other game");
        let (name, data) = next_event(&mut stream);
        if name == "start" && data["worker"] == second.as_str() && data["game_id"] != twice {
            break data["game_id"].as_u64().unwrap();
        }
    };
    loop {
        assert!(began.elapsed() < DEADLINE, "game {next} was not recorded");
        let (name, data) = next_event(&mut stream);
        if name == "game" && data["game_id"] == next {
            break;
        }
    }
    let ids = recorded(&dir);
    assert_eq!(
        ids.iter().filter(|&&id| id == twice).count(),
        1,
        "game {twice}, played twice, is recorded once: {ids:?}"
    );
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "a game recorded twice: {ids:?}");
    let logged: Vec<u64> = scheduled(&dir)
        .iter()
        .map(|g| g["game_id"].as_u64().unwrap())
        .collect();
    assert_eq!(
        logged.iter().filter(|&&id| id == twice).count(),
        1,
        "game {twice} is scheduled once"
    );
}
