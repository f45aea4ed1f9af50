//! `arbiter league`: the real binary as a server on a loopback port (any free one), real bots on
//! local workers, spoken to over real HTTP, killed with SIGKILL and started again; the page in a
//! real headless Chromium. Waits are bounded (a deadline ends a hung test with what it saw), and
//! nothing is timed.

use crate::common::league::{
    events, games_of, get, next_event_named, raw, recorded, scheduled, standings,
    wait_for_standings, Server, DEADLINE,
};
use crate::common::{self, chromium, first_bot, greedy_bot, random_bot};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn three_bots() -> Vec<String> {
    vec![
        format!("random={}", random_bot()),
        format!("first={}", first_bot()),
        format!("greedy={}", greedy_bot()),
    ]
}

/// Starts a league server with `workers` local workers.
fn start(dir: &Path, workers: usize, bots: &[String]) -> Server {
    Server::start(dir, workers, bots, 11)
}

/// Waits until `ok` holds of the standings; returns them.
fn wait_for(server: &Server, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    wait_for_standings(&server.url, what, DEADLINE, ok)
}

fn league_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    (tmp, dir)
}

/// A bot's check is told on the event stream as the engine tells it (ready or broken), and the
/// stream, which anyone may read, never carries why a bot is broken.
#[test]
fn the_end_of_a_bots_check_is_told_on_the_event_stream_without_its_problem() {
    let (tmp, dir) = league_dir();
    let server = start(&dir, 1, &three_bots()[..2]);
    wait_for(&server, "the first two bots to play", |s| {
        s["games"].as_u64().unwrap() >= 1
    });
    let mut stream = events(&server.url);
    // A bot whose build fails, saying something only its author may read.
    let dead = tmp.path().join("dead");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(
        dead.join("bot.toml"),
        "name = \"dead\"\nbuild = \"sh -c 'echo the secret of dead >&2; exit 1'\"\nrun = \"./bot\"\n",
    )
    .unwrap();
    for bot in [format!("late={}", random_bot()), dead.display().to_string()] {
        let out = common::arbiter()
            .args(["league", "add"])
            .arg(&dir)
            .arg(&bot)
            .output()
            .unwrap();
        // The broken one is refused, saying why, to whoever added it.
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.success(), bot.starts_with("late"), "{said}");
        assert_eq!(
            said.contains("the secret of dead"),
            !bot.starts_with("late"),
            "{said}"
        );
    }
    let mut checked = Vec::new();
    while checked.len() < 2 {
        let data = next_event_named(&mut stream, "bot");
        assert!(!data.contains("secret"), "{data}");
        let v: Value = serde_json::from_str(&data).unwrap();
        if v["status"] != "building" {
            checked.push(data);
        }
    }
    assert_eq!(
        checked,
        [
            r#"{"name":"late","status":"ready"}"#,
            r#"{"name":"dead","status":"broken"}"#
        ]
    );
}

#[test]
fn two_workers_fill_a_league_a_late_bot_plays_at_once_and_events_stream() {
    let (_tmp, dir) = league_dir();
    let server = start(&dir, 2, &three_bots());
    let mut stream = events(&server.url);
    let first_game: Value = serde_json::from_str(&next_event_named(&mut stream, "game")).unwrap();
    assert!(first_game["game_id"].is_u64(), "{first_game}");
    wait_for(&server, "every bot of three to play", |s| {
        s["games"].as_u64().unwrap() >= 6
            && ["random", "first", "greedy"]
                .iter()
                .all(|b| games_of(s, b) > 0)
    });

    // A fourth bot, added while the league runs, through the server.
    let out = common::arbiter()
        .args(["league", "add"])
        .arg(&dir)
        .arg(format!("late={}", random_bot()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("added late"));
    let logged = scheduled(&dir).len();
    wait_for(&server, "the late bot to play 4 games", |s| {
        games_of(s, "late") >= 4
    });
    // Once it is checked (other tables go on while it is), every table made is one of its
    // calibration games.
    let after: Vec<Value> = scheduled(&dir)[logged..].to_vec();
    let joined = after
        .iter()
        .position(|g| g["bots"].as_array().unwrap().contains(&Value::from("late")))
        .expect("a table with the late bot after it was added");
    for g in &after[joined..] {
        assert!(
            g["bots"].as_array().unwrap().contains(&Value::from("late")),
            "{g}"
        );
    }
    // Events go on for each finished game.
    let next: Value = serde_json::from_str(&next_event_named(&mut stream, "game")).unwrap();
    // (Games end in any order: another game, not a later id.)
    assert_ne!(next["game_id"], first_game["game_id"]);
    // `league status` prints the same standings.
    let out = common::arbiter()
        .args(["league", "status"])
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("late") && text.contains("greedy"),
        "{text}"
    );

    // Removed, it is no longer scheduled.
    let out = common::arbiter()
        .args(["league", "remove"])
        .arg(&dir)
        .arg("late")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let logged = scheduled(&dir).len();
    wait_for(&server, "more games", |s| {
        s["games"].as_u64().unwrap() >= 20
    });
    for g in &scheduled(&dir)[logged..] {
        assert!(
            !g["bots"].as_array().unwrap().contains(&Value::from("late")),
            "{g}"
        );
    }
}

#[test]
fn kill_9_and_a_restart_lose_and_duplicate_no_game_and_the_league_goes_on() {
    let (_tmp, dir) = league_dir();
    let server = start(&dir, 2, &three_bots());
    wait_for(&server, "games", |s| s["games"].as_u64().unwrap() >= 5);
    server.kill9();
    let before = recorded(&dir);
    let logged: Vec<u64> = scheduled(&dir)
        .iter()
        .map(|g| g["game_id"].as_u64().unwrap())
        .collect();
    let unplayed: Vec<u64> = logged
        .iter()
        .copied()
        .filter(|id| !before.contains(id))
        .collect();
    assert!(
        !unplayed.is_empty(),
        "games were under way or queued at the kill"
    );

    // Started again with no bot named: the folder has them all.
    let server = start(&dir, 2, &[]);
    let began = Instant::now();
    loop {
        let now = recorded(&dir);
        if unplayed.iter().all(|id| now.contains(id)) && now.len() >= before.len() + 6 {
            break;
        }
        assert!(
            began.elapsed() < DEADLINE,
            "unplayed {unplayed:?}; recorded {now:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server.kill9();
    let after = recorded(&dir);
    let unique: HashSet<u64> = after.iter().copied().collect();
    assert_eq!(
        unique.len(),
        after.len(),
        "a game recorded twice: {after:?}"
    );
    assert!(before.iter().all(|id| unique.contains(id)), "a game lost");
    // Every recorded game was scheduled once, under its own id.
    let logged: Vec<u64> = scheduled(&dir)
        .iter()
        .map(|g| g["game_id"].as_u64().unwrap())
        .collect();
    let logged_unique: HashSet<u64> = logged.iter().copied().collect();
    assert_eq!(logged_unique.len(), logged.len(), "an id handed out twice");
    assert!(after.iter().all(|id| logged_unique.contains(id)));
}

#[test]
fn malformed_requests_and_wrong_tokens_are_refused_and_the_server_lives_on() {
    let (_tmp, dir) = league_dir();
    let server = start(&dir, 0, &three_bots());
    let addr = server.addr();
    let (status, _) = raw(&addr, b"\x00\x01garbage\r\n\r\n");
    assert!(status == 0 || status >= 400, "garbage: {status}");
    let (status, _) = raw(
        &addr,
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n",
    );
    assert!(status == 0 || status >= 400, "bad length: {status}");
    let long = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(200_000));
    let (status, _) = raw(&addr, long.as_bytes());
    assert!(status == 0 || status >= 400, "long path: {status}");
    assert_eq!(get(&server.url, "/replay/abc").0, 400);
    assert_eq!(get(&server.url, "/replay/99999").0, 404);
    let (status, body) = get(&server.url, "/bot/%3Cscript%3E");
    assert_eq!(status, 404);
    assert!(!body.contains("<script>"), "{body}");

    let add = |token: Option<&str>, body: &str| {
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        raw(
            &addr,
            format!(
                "POST /api/bots HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
    };
    let good = r#"{"bots": ["x=/bin/true"], "workdir": "/"}"#;
    let (status, body) = add(None, good);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("admin token"), "{body}");
    assert_eq!(add(Some("wrong"), good).0, 403);
    let token = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("admin-token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let hash = std::fs::read_to_string(dir.join("admin-token.sha256")).unwrap();
        assert!(
            !hash.contains(token.trim()),
            "the server keeps only the hash"
        );
    }
    let (status, body) = add(Some(token.trim()), "{not json");
    assert_eq!(status, 400, "{body}");
    let (status, body) = add(Some(token.trim()), r#"{"bots": 3}"#);
    assert_eq!(status, 400, "{body}");
    // A bot that cannot start is shown as broken, not played.
    let (status, body) = add(
        Some(token.trim()),
        r#"{"bots": ["dud=/nonexistent/bot"], "workdir": "/"}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"ok\":false"), "{body}");
    // Still serving.
    let s = standings(&server.url);
    assert!(s["bots"].as_array().unwrap().len() >= 3, "{s}");
}

#[test]
fn a_taken_port_is_named() {
    let (_tmp, dir) = league_dir();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = common::arbiter()
        .args(["league", "serve"])
        .arg(&dir)
        .args([
            "--listen",
            &addr,
            "--local-workers",
            "0",
            "--game",
            "impasse",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&addr) && err.contains("port is taken"),
        "{err}"
    );
}

#[test]
fn the_page_shows_standings_opens_replays_and_new_games_arrive_without_reload() {
    let Some(browser) = chromium() else { return };
    let (_tmp, dir) = league_dir();
    // A bot whose moves are markup: its forfeits' details are bot text.
    let bots = vec![
        format!("random={}", random_bot()),
        format!("first={}", first_bot()),
        format!("evil={}", common::hostile("invalid 1 <b>evil</b>")),
    ];
    let server = start(&dir, 1, &bots);
    wait_for(&server, "a forfeit of evil", |s| games_of(s, "evil") >= 1);
    let url = server.url.clone();
    // The browser keeps the page (and its event stream) open until the server goes away.
    let page = std::thread::spawn({
        let browser = browser.clone();
        let url = url.clone();
        move || common::load(&browser, &format!("{url}/"))
    });
    let mut stream = events(&server.url);
    // Games that end while the page is open.
    for _ in 0..3 {
        next_event_named(&mut stream, "game");
    }
    std::thread::sleep(Duration::from_secs(1));
    let (replay, _) = {
        let recent = get(&server.url, "/api/games").1;
        let v: Value = serde_json::from_str(&recent).unwrap();
        let id = v["recent"][0]["game_id"].as_u64().unwrap();
        common::load(&browser, &format!("{url}/replay/{id}"))
    };
    let (bot_page, _) = common::load(&browser, &format!("{url}/bot/evil"));
    drop(server);
    let (dom, console) = page.join().unwrap();
    assert!(dom.contains("id=\"standings\""), "{dom}");
    assert!(
        dom.contains("class=\"bot playing\""),
        "standings rows: {dom}"
    );
    // The games the page heard of while open are in its table.
    let heard = dom
        .split("data-heard=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("the page heard no game: {dom}"));
    let ids: Vec<&str> = heard.split_whitespace().collect();
    assert!(!ids.is_empty());
    for id in ids {
        assert!(
            dom.contains(&format!("data-game=\"{id}\"")),
            "game {id}: {dom}"
        );
    }
    assert!(
        console.iter().all(|l| !l.contains("Uncaught")),
        "{console:?}"
    );
    assert!(replay.contains("first"), "{replay}");
    assert!(replay.contains("game "), "{replay}");
    assert!(bot_page.contains("Against each opponent"), "{bot_page}");
    // What the bot wrote is text on its page, never markup.
    assert!(bot_page.contains("&lt;b&gt;evil&lt;/b&gt;"), "{bot_page}");
    assert!(!bot_page.contains("<b>evil</b>"), "{bot_page}");
}
