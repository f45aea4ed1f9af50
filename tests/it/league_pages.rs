//! The pages a student reads (issue 47 item 7), with the real binary: a server on a loopback
//! port, real bots (uploaded over HTTP, given by path, the bundled ones), real HTTP, a server
//! killed with SIGKILL and started again, and the pages measured in real headless Chromium.
//! Waits are bounded; nothing is timed.

use crate::common::league::{
    arbiter, author_token, json, raw, standings, wait_for, wait_playing, Proc, Server,
};
use crate::common::probe::probe;
use crate::common::{self, chromium, first_bot, greedy_bot, read_csv};
use serde_json::Value;

/// One request with an optional token and a body: the answer's status and body.
fn send(url: &str, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, String) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}Content-Length: \
         {}\r\n\r\n{body}",
        body.len()
    );
    raw(url.trim_start_matches("http://"), request.as_bytes())
}

/// Bot `name`'s versions in `/api/bots/NAME` once the page knows it.
fn versions(url: &str, name: &str) -> Vec<Value> {
    wait_for(&format!("{name}'s versions"), || {
        let (status, body) = crate::common::league::get(url, &format!("/api/bots/{name}"));
        let v: Option<Value> = serde_json::from_str(&body).ok().filter(|_| status == 200);
        (v.and_then(|v| v["versions"].as_array().cloned()), body)
    })
}

/// Whether `at` reads as the league's times do (`2025-01-31 09:05 UTC`).
fn utc_text(at: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let parts: Vec<&str> = at.split([' ', '-', ':']).collect();
    parts.len() == 6 && parts[..5].iter().all(|p| digits(p)) && parts[5] == "UTC"
}

#[test]
fn a_bots_versions_show_when_they_came_their_hash_and_build_log_and_survive_a_restart() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let starter =
        std::fs::read_to_string(common::root().join("bots/python-starter/bot.py")).unwrap();
    // A bot given by path, changed while the server is down.
    let mine = tmp.path().join("mine.py");
    std::fs::write(&mine, &starter).unwrap();
    let bots = [
        format!("first={}", first_bot()),
        format!("mine={}", mine.display()),
    ];
    let (child, url) = common::league_serve(&dir, &bots, 0, 3);
    let server = Proc(child);
    wait_playing(&url, 2);
    let admin = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let admin = admin.trim();
    // alice: an upload that does not build, one that does, and the same one again.
    let upload = "/api/bots/alice?file=bot.py";
    for (body, ok) in [
        ("def broken(:\n", false),
        (&*starter, true),
        (&*starter, true),
    ] {
        let (status, answer) = send(&url, "POST", upload, Some(admin), body);
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains(&format!("\"ok\":{ok}")), "{answer}");
    }
    let alice = versions(&url, "alice");
    let numbers: Vec<u64> = alice
        .iter()
        .map(|v| v["version"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [3, 2, 1], "newest first: {alice:?}");
    let hash = |v: &Value| v["hash"].as_str().unwrap().to_string();
    assert_eq!(hash(&alice[0]), hash(&alice[1]), "the same file: {alice:?}");
    assert_ne!(hash(&alice[1]), hash(&alice[2]), "{alice:?}");
    for v in &alice {
        assert_eq!(hash(v).len(), 64, "{v}");
        assert!(utc_text(v["at"].as_str().unwrap()), "{v}");
        let n = v["version"].as_u64().unwrap();
        assert_eq!(
            v["build"],
            format!("/api/bots/alice/build?version={n}"),
            "{v}"
        );
    }
    assert_eq!(versions(&url, "first").len(), 1);
    assert_eq!(versions(&url, "mine").len(), 1);

    // Its page lists them newest first, each with its time, short hash and build log's link.
    let (status, page) = crate::common::league::get(&url, "/bot/alice");
    assert_eq!(status, 200, "{page}");
    let at = |text: &str| {
        page.find(text)
            .unwrap_or_else(|| panic!("{text} is not on the page: {page}"))
    };
    assert!(at("data-version=\"3\"") < at("data-version=\"2\""));
    assert!(at("data-version=\"2\"") < at("data-version=\"1\""));
    for v in &alice {
        at(&hash(v)[..12]);
        at(v["at"].as_str().unwrap());
        at(&format!("href=\"{}\"", v["build"].as_str().unwrap()));
    }
    at("id=\"build-private\"");

    // The build logs are alice's author's and the admin's.
    let alices = author_token(&dir, "alice");
    let firsts = author_token(&dir, "first");
    let log = |n: &str, token: Option<&str>| {
        let path = format!("/api/bots/alice/build?version={n}");
        send(&url, "GET", &path, token, "")
    };
    let (status, text) = log("1", None);
    assert_eq!(status, 401, "{text}");
    let (status, text) = log("1", Some(&firsts));
    assert_eq!(status, 403, "{text}");
    let (status, broken) = log("1", Some(&alices));
    assert_eq!(status, 200, "{broken}");
    assert!(
        broken.contains("bot alice is broken") && broken.contains("SyntaxError"),
        "{broken}"
    );
    let (status, built) = log("2", Some(admin));
    assert_eq!(status, 200, "{built}");
    assert!(
        built.contains("py_compile") && !built.contains("SyntaxError"),
        "{built}"
    );
    let (status, text) = log("7", Some(admin));
    assert_eq!(status, 404, "{text}");
    assert!(
        text.contains("no version 7") && text.contains("1 to 3"),
        "{text}"
    );
    let (status, text) = log("x", Some(admin));
    assert_eq!(status, 400, "{text}");

    // After kill -9, mine's file changed and [page] show_stderr set: the versions are as they
    // were, mine has a new one, and the build logs are everyone's.
    server.kill9();
    std::fs::write(&mine, format!("{starter}\n# the second version\n")).unwrap();
    let toml = dir.join("league.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let text = if text.contains("show_stderr = false") {
        text.replace("show_stderr = false", "show_stderr = true")
    } else {
        format!("{text}\n[page]\nshow_stderr = true\n")
    };
    std::fs::write(&toml, text).unwrap();
    let mut child = arbiter()
        .args(["league", "serve"])
        .arg(&dir)
        .args(["--listen", "127.0.0.1:0", "--local-workers", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::listening(&mut child);
    let _again = Proc(child);
    wait_playing(&url, 3);
    assert_eq!(versions(&url, "alice"), alice, "read back as they were");
    assert_eq!(
        versions(&url, "first").len(),
        1,
        "unchanged: no new version"
    );
    let mine_now = versions(&url, "mine");
    assert_eq!(mine_now.len(), 2, "{mine_now:?}");
    assert_ne!(hash(&mine_now[0]), hash(&mine_now[1]), "{mine_now:?}");
    let kept = std::fs::read_to_string(dir.join("versions.jsonl")).unwrap();
    assert_eq!(kept.lines().count(), 6, "{kept}");
    let (status, text) = send(&url, "GET", "/api/bots/alice/build?version=1", None, "");
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("SyntaxError"), "{text}");
    let (_, page) = crate::common::league::get(&url, "/bot/alice");
    assert!(!page.contains("build-private"), "{page}");
}

#[test]
fn the_recent_games_are_filtered_by_bot_and_an_unknown_bot_is_a_404() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let bots = [
        format!("first={}", first_bot()),
        format!("greedy={}", greedy_bot()),
        format!("other={}", greedy_bot()),
    ];
    let server = Server::start(&dir, 1, &bots, 7);
    let url = server.url.clone();
    wait_for("games of first and of the others recorded", || {
        let csv = dir.join("games.csv");
        let rows = if csv.exists() {
            read_csv(&csv)
        } else {
            Vec::new()
        };
        let firsts = rows
            .iter()
            .filter(|r| r["bot0"] == "first" || r["bot1"] == "first");
        let n = firsts.count();
        (
            (n >= 2 && n < rows.len()).then_some(()),
            format!("{} games", rows.len()),
        )
    });
    let has = |g: &Value, bot: &str| g["bots"].as_array().unwrap().iter().any(|b| b == bot);
    let all = json(&url, "/api/games");
    let recent = all["recent"].as_array().unwrap();
    assert!(recent.iter().any(|g| !has(g, "first")), "{all}");
    let only = json(&url, "/api/games?bot=first");
    assert_eq!(only["bot"], "first", "{only}");
    let mine = only["recent"].as_array().unwrap();
    assert!(!mine.is_empty(), "{only}");
    for g in mine.iter().chain(only["running"].as_array().unwrap()) {
        assert!(has(g, "first"), "{g} in {only}");
    }
    for path in ["/?bot=nobody", "/api/games?bot=nobody"] {
        let (status, text) = crate::common::league::get(&url, path);
        assert_eq!(status, 404, "{path}: {text}");
        assert!(
            text.contains("no bot \"nobody\" in this league"),
            "{path}: {text}"
        );
    }
    let (status, page) = crate::common::league::get(&url, "/?bot=");
    assert_eq!(status, 200, "{page}");
    let (status, page) = crate::common::league::get(&url, "/?bot=first");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("data-bot=\"first\""), "{page}");
    assert!(page.contains("Recent games of first"), "{page}");
    assert!(page.contains("<option value=\"first\" selected"), "{page}");
    let (_, bot_page) = crate::common::league::get(&url, "/bot/first");
    assert!(bot_page.contains("href=\"/?bot=first\""), "{bot_page}");

    // In a browser, the page's script lists first's games only.
    let Some(browser) = chromium() else { return };
    let rows = probe(
        &browser,
        &format!("{url}/?bot=first"),
        (1000, 800),
        "d.querySelectorAll('#recent tr.recent').length > 0",
        "[...d.querySelectorAll('#recent tr.recent')].map(r => r.cells[1].textContent)",
    );
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r.as_str().unwrap().contains("first"), "{rows:?}");
    }
}

/// What the measuring script gives of a page in a frame: the window's width, the page's
/// (scrolled) width and the right edge of `table` (when there is one), with its folded texts
/// closed, then opened; and the opened texts.
const MEASURE: &str = "(() => {
  const w = () => ({ window: d.documentElement.clientWidth, page: d.documentElement.scrollWidth,
    table: Math.ceil(d.querySelector('table').getBoundingClientRect().right) });
  const closed = w();
  d.querySelectorAll('details').forEach(x => x.open = true);
  return { closed, open: w(), texts: [...d.querySelectorAll('details pre')].map(p => p.textContent) };
})()";

#[test]
fn a_long_build_error_never_widens_the_standings_past_the_window_and_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let (child, url) = common::league_serve(&dir, &[format!("first={}", first_bot())], 0, 3);
    let _server = Proc(child);
    // Uploaded: Python's error points at the word with 3,000 carets in a row.
    let admin = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let source = format!("x = 1 {}\n", "a".repeat(3000));
    let (status, answer) = send(
        &url,
        "POST",
        "/api/bots/long?file=bot.py",
        Some(admin.trim()),
        &source,
    );
    assert_eq!(status, 200, "{answer}");
    let problem = wait_for("long broken", || {
        let s = standings(&url);
        let line = s["bots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "long")
            .cloned();
        let problem = line
            .filter(|b| b["status"] == "broken")
            .and_then(|b| b["problem"].as_str().map(str::to_string));
        (problem, s.to_string())
    });
    let longest = problem.split_whitespace().map(str::len).max().unwrap_or(0);
    assert!(longest >= 3000, "{problem}");
    let Some(browser) = chromium() else { return };
    let fits = |m: &Value, state: &str| {
        let m = &m[state];
        let window = m["window"].as_u64().unwrap();
        assert!(window <= 1000, "{m}");
        assert!(
            m["page"].as_u64().unwrap() <= window,
            "{state}: the page scrolls: {m}"
        );
        assert!(
            m["table"].as_u64().unwrap() <= window,
            "{state}: the table is wider: {m}"
        );
    };
    let main = probe(
        &browser,
        &format!("{url}/"),
        (1000, 800),
        "d.querySelector('#standings tr.broken') !== null",
        MEASURE,
    );
    fits(&main, "closed");
    fits(&main, "open");
    assert_eq!(
        main["texts"],
        serde_json::json!([problem]),
        "the whole text when opened"
    );
    let page = probe(
        &browser,
        &format!("{url}/bot/long"),
        (1000, 800),
        "d.getElementById('versus') !== null",
        MEASURE,
    );
    fits(&page, "closed");
    fits(&page, "open");
    assert_eq!(
        page["texts"],
        serde_json::json!([problem]),
        "the whole text when opened"
    );
}
