//! A league's openings (issue 47 item 5): the real binary as a league server on a loopback
//! port, two copies of one deterministic bot (without openings every game of theirs in one seat
//! order repeats move for move, and `arbiter ratings` warned so on the league's games.csv),
//! played by local workers and by a real `arbiter league work` process, the replay page in a
//! real headless Chromium. Waits are bounded; nothing is timed.

use crate::common::league::{arbiter, json, raw, recorded, token, wait_for, Proc, Server};
use crate::common::{self, first_bot, read_csv};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Stdio;

/// Two copies of a bot that always plays the first move it is offered.
fn twins() -> Vec<String> {
    vec![format!("a={}", first_bot()), format!("b={}", first_bot())]
}

/// Waits until games.csv holds at least `n` games; returns its rows.
fn rows_when(dir: &Path, n: usize) -> Vec<HashMap<String, String>> {
    wait_for(&format!("{n} games recorded"), || {
        let ids = recorded(dir);
        let ok = ids.len() >= n;
        (
            ok.then(|| read_csv(&dir.join("games.csv"))),
            format!("{ids:?}"),
        )
    })
}

/// Checks the league's paired openings in `rows`: each game starts from `plies` moves, the
/// games of a table share their seed and opening with the seats swapped, and tables start
/// from different positions. Returns the openings seen.
fn check_pairs(rows: &[HashMap<String, String>], plies: usize) -> HashSet<String> {
    let mut tables: HashMap<&str, Vec<&HashMap<String, String>>> = HashMap::new();
    for row in rows {
        assert_eq!(
            row["opening"].split_whitespace().count(),
            plies,
            "game {}: {row:?}",
            row["game_id"]
        );
        tables.entry(row["pair_id"].as_str()).or_default().push(row);
    }
    for games in tables.values().filter(|g| g.len() == 2) {
        let (x, y) = (games[0], games[1]);
        assert_eq!(x["opening"], y["opening"], "one opening a table: {games:?}");
        assert_eq!(x["seed"], y["seed"]);
        assert_eq!(
            (&x["bot0"], &x["bot1"]),
            (&y["bot1"], &y["bot0"]),
            "seats swapped"
        );
    }
    let openings: HashSet<String> = rows.iter().map(|r| r["opening"].clone()).collect();
    assert!(
        openings.len() * 2 >= tables.len(),
        "tables start from different positions: {} openings for {} tables",
        openings.len(),
        tables.len()
    );
    openings
}

/// `arbiter ratings` on the league's games: no note that games repeat move for move.
fn ratings_note(dir: &Path) -> String {
    let out = arbiter()
        .arg("ratings")
        .arg(dir.join("games.csv"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn each_table_of_a_league_starts_from_its_own_opening_kept_across_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let flags = ["--local-workers", "2", "--turn-ms", "2000"];
    let mut first = flags.to_vec();
    first.extend(["--opening-plies", "4", "--seed", "7"]);
    let (child, url) = common::league_serve_with(&dir, &twins(), &first);
    let server = Server {
        proc: Proc(child),
        url,
    };
    let rows = rows_when(&dir, 16);
    let openings = check_pairs(&rows, 4);
    let settings = std::fs::read_to_string(dir.join("league.toml")).unwrap();
    assert!(settings.contains("opening_plies = 4"), "{settings}");
    // Deterministic twins, yet no game repeats another: the ratings do not warn.
    let note = ratings_note(&dir);
    assert!(!note.contains("move for move"), "{note}");

    // The replay page starts with the opening, played by the referee.
    if let Some(browser) = common::chromium() {
        let id = &rows[0]["game_id"];
        let (dom, console) = common::load(&browser, &format!("{}/replay/{id}", server.url));
        assert!(dom.contains("after 4 opening plies"), "{dom}");
        assert!(
            console.iter().all(|l| !l.contains("Uncaught")),
            "{console:?}"
        );
    }

    // A restart without the options keeps the league's openings.
    let before = recorded(&dir).len();
    server.kill9();
    let (child, _url) = common::league_serve_with(&dir, &[], &flags);
    let again = Proc(child);
    let rows = rows_when(&dir, before + 8);
    let later = check_pairs(&rows, 4);
    assert!(later.len() > openings.len(), "new tables, new openings");
    again.kill9();

    // Another start with other openings is refused, naming what differs.
    let out = arbiter()
        .args(["league", "serve"])
        .arg(&dir)
        .args(["--listen", "127.0.0.1:0", "--opening-plies", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("opening_plies: 4 -> 2"), "{err}");
}

#[test]
fn a_remote_worker_plays_the_opening_it_is_told_and_an_old_one_is_refused() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let flags = [
        "--local-workers",
        "0",
        "--turn-ms",
        "2000",
        "--opening-plies",
        "3",
        "--seed",
        "5",
    ];
    let (child, url) = common::league_serve_with(&dir, &twins(), &flags);
    let _server = Proc(child);
    let token_file = tmp.path().join("token");
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&token_file)
            .unwrap();
        std::io::Write::write_all(&mut f, token(&dir, "lab").as_bytes()).unwrap();
    }
    let _worker = Proc(
        arbiter()
            .args(["league", "work", &url, "--concurrency", "2", "--token-file"])
            .arg(&token_file)
            .arg("--cache")
            .arg(tmp.path().join("cache"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    // The server refuses a result from another opening: every game recorded was played by
    // the worker from the opening it was told.
    let rows = rows_when(&dir, 8);
    check_pairs(&rows, 3);
    let workers = json(&url, "/api/workers");
    let played: u64 = workers["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["games"].as_u64().unwrap())
        .sum();
    assert!(played >= 8, "{workers}");
    let note = ratings_note(&dir);
    assert!(!note.contains("move for move"), "{note}");

    // A worker of a build that does not play openings (no protocol in its registration) is
    // refused, with the league's openings named.
    let body = r#"{"version":"VERSION","host":"h","cores":1,"memory_mb":1,"sandbox":true,"bench_ms":1.0,"concurrency":1}"#
        .replace("VERSION", env!("CARGO_PKG_VERSION"));
    let t = token(&dir, "old");
    let request = format!(
        "POST /api/work/register HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: \
         Bearer {t}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, answer) = raw(url.trim_start_matches("http://"), request.as_bytes());
    assert_eq!(status, 409, "{answer}");
    assert!(
        answer.contains("starts its games from openings (--opening-plies 3)")
            && answer.contains("install the server's arbiter build on the worker"),
        "{answer}"
    );
}
