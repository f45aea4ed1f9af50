//! The smaller things a class's league met (issue 47 item 8), each with the real binary: a
//! server on a loopback port, real bots on local workers or a real `arbiter league work`
//! process, a server killed with SIGKILL and started again on its port. Waits are bounded;
//! nothing is timed.

use crate::common::league::{
    arbiter, author_token, json, serve, standings, token, wait_for, wait_for_standings, Proc,
    Server, DEADLINE,
};
use crate::common::{self, first_bot, greedy_bot, read_csv};
use std::io::BufRead;
use std::path::Path;
use std::process::Stdio;

#[test]
fn league_token_puts_the_token_in_a_file_never_on_a_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let (_server, _url) = serve(&dir, &[]);
    let out = arbiter()
        .args(["league", "token"])
        .arg(&dir)
        .arg("lab-1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("arbiter league work http://SERVER:PORT --token-file ~/.arbiter-token"),
        "{said}"
    );
    assert!(
        !said.contains("--token "),
        "`ps` would show the token: {said}"
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        printed.trim().len(),
        64,
        "the token alone on stdout: {printed}"
    );
}

/// `league serve DIR ARGS...` (a loopback port unless ARGS give one): its exit status and
/// stderr.
fn serve_once(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = arbiter()
        .args(["league", "serve"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_start_on_a_taken_port_or_a_served_folder_writes_nothing_and_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let greedy = format!("greedy={}", greedy_bot());
    let taken_args = ["--listen", &addr, "--local-workers", "0", &greedy];
    let (code, err) = serve_once(&dir, &taken_args);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains(&addr) && err.contains("port is taken"),
        "{err}"
    );
    assert!(!err.contains("--out"), "league serve has no --out: {err}");
    assert!(!dir.exists(), "a new league's folder is not made");

    // A league of one bot; while it is served, a second start of its folder is refused.
    let (server, _url) = serve(&dir, &[format!("first={}", first_bot())]);
    let files = |dir: &Path| {
        ["league.toml", "bots.toml"].map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
    };
    let before = files(&dir);
    let (code, err) = serve_once(&dir, &["--listen", "127.0.0.1:0", &greedy]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("is in use by another arbiter") && err.contains("its league's server"),
        "{err}"
    );
    assert!(!err.contains("--out"), "league serve has no --out: {err}");
    assert_eq!(files(&dir), before, "nothing written");
    drop(server);
    // Started again on a taken port with a new bot: its files are left as they were.
    let (code, err) = serve_once(&dir, &taken_args);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("port is taken"), "{err}");
    assert_eq!(files(&dir), before, "nothing written");
}

#[test]
fn a_bot_that_does_not_build_is_named_by_its_league_name_not_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let source = tmp.path().join("dave");
    std::fs::create_dir(&source).unwrap();
    std::fs::write(source.join("bot.py"), "def broken(:\n").unwrap();
    // Uploaded over HTTP (kept as uploads/dave/1/bot.py), and added from this machine.
    for league in [url.as_str(), dir.to_str().unwrap()] {
        let out = arbiter()
            .args(["league", "add", league])
            .arg(format!("dave={}", source.join("bot.py").display()))
            .args(["--token", admin.trim()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{league}: {err}");
        assert!(err.contains("bot 'dave' does not build"), "{league}: {err}");
        assert!(!err.contains("bot 'bot'"), "{league}: {err}");
    }
}

#[test]
fn a_bot_forfeiting_every_game_is_suspended_after_exactly_five_forfeits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let bots = [
        format!("first={}", first_bot()),
        format!("greedy={}", greedy_bot()),
        format!("crash={}", common::hostile("exit 1 3")),
    ];
    // Two local workers: games of the crashing bot run side by side.
    let server = Server::start(&dir, 2, &bots, 3);
    let status = |s: &serde_json::Value| {
        s["bots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "crash")
            .cloned()
            .unwrap_or_default()
    };
    let s = wait_for_standings(&server.url, "crash suspended", DEADLINE, |s| {
        status(s)["status"] == "suspended"
    });
    // Its games under way (none should be) are finished.
    wait_for("no game of crash under way", || {
        let games = json(&server.url, "/api/games");
        let busy = games["running"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["bots"].as_array().unwrap().iter().any(|b| b == "crash"));
        ((!busy).then_some(()), games.to_string())
    });
    std::thread::sleep(std::time::Duration::from_secs(1));
    let played: Vec<String> = read_csv(&dir.join("games.csv"))
        .into_iter()
        .filter(|r| r["bot0"] == "crash" || r["bot1"] == "crash")
        .map(|r| format!("{} {}", r["game_id"], r["reason"]))
        .collect();
    assert_eq!(played.len(), 5, "crash's games: {played:?}");
    assert!(played.iter().all(|g| g.ends_with("crash")), "{played:?}");
    let problem = status(&standings(&server.url))["problem"].to_string();
    assert!(
        problem.contains("forfeited 5 games in a row"),
        "{problem} {s}"
    );
    // The guide says the same.
    let guide = std::fs::read_to_string(common::root().join("docs/league.md")).unwrap();
    let guide = guide.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(guide.contains("**suspended** after exactly 5 forfeits in a row"));
    assert!(guide.contains("suspend_after = 5 # forfeits in a row"));
}

/// Starts `league serve DIR ARGS...` and returns it once it listens.
fn serve_at(dir: &Path, args: &[&str]) -> Proc {
    let mut child = arbiter()
        .args(["league", "serve"])
        .arg(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listening on"), "{line:?}");
    Proc(child)
}

#[test]
fn a_worker_whose_server_restarted_says_so_not_that_its_lease_ran_out() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    // A bot that thinks 6 s at its second turn: its games outlast a restart of the server.
    let bots = [
        format!("slow={}", common::hostile("sleep 2 6000")),
        format!("first={}", first_bot()),
    ];
    let flags = ["--local-workers", "0", "--turn-ms", "10000", "--seed", "5"];
    let (child, url) = common::league_serve_with(&dir, &bots, &flags);
    let server = Proc(child);
    let addr = url.trim_start_matches("http://").to_string();
    let t = token(&dir, "lab");
    let log = tmp.path().join("worker.log");
    let cache = tmp.path().join("cache");
    let _worker = Proc(
        arbiter()
            .args(["league", "work", &url, "--token", &t, "--concurrency", "1"])
            .arg("--cache")
            .arg(&cache)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    // Its bots (run from its cache) are playing.
    let marker = format!("{}/bots/", cache.display());
    let game = wait_for("a game on the worker, its bots running", || {
        let games = json(&url, "/api/games");
        let id = games["running"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["worker"].as_str().is_some_and(|w| w.starts_with("lab#")))
            .map(|g| g["game_id"].as_u64().unwrap());
        let playing = !common::processes_with(&marker).is_empty();
        (id.filter(|_| playing), games.to_string())
    });
    server.kill9();
    let again = serve_at(&dir, &["--listen", &addr]);
    let said = wait_for("the worker's result sent to the restarted server", || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        (text.contains("dropped").then(|| text.clone()), text)
    });
    assert!(
        said.contains("the league's server restarted: registered again"),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "the result of game {game} was dropped: the league's server restarted since it \
             was leased"
        )),
        "{said}"
    );
    assert!(!said.contains("lease ran out"), "{said}");
    // And it plays on for the restarted server.
    wait_for("a game of the worker recorded after the restart", || {
        let n = crate::common::league::played_by(&url, "lab");
        (
            (n >= 1).then_some(()),
            std::fs::read_to_string(&log).unwrap_or_default(),
        )
    });
    drop(again);
}

/// The game ids linked to a replay on a page (`href="/replay/ID"`).
fn replay_links(page: &str) -> Vec<u64> {
    page.split("href=\"/replay/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next()?.parse().ok())
        .collect()
}

#[test]
fn a_bots_page_lists_its_own_recent_games_with_their_replays_and_says_none_when_empty() {
    let tmp = tempfile::tempdir().unwrap();
    // A league of one bot plays nothing: its page says so in each section.
    let alone = tmp.path().join("alone");
    let (_solo, url) = serve(&alone, &[format!("solo={}", first_bot())]);
    let page = wait_for("solo's page", || {
        let (status, page) = crate::common::league::get(&url, "/bot/solo");
        ((status == 200).then(|| page.clone()), page)
    });
    assert!(page.contains("None recorded yet."), "{page}");
    assert!(page.contains("None: no game recorded yet."), "{page}");
    assert!(replay_links(&page).is_empty(), "{page}");

    // Three bots: first's page lists its games, never greedy's against other.
    let dir = tmp.path().join("league");
    let bots = [
        format!("first={}", first_bot()),
        format!("greedy={}", greedy_bot()),
        format!("other={}", greedy_bot()),
    ];
    let server = Server::start(&dir, 1, &bots, 7);
    wait_for("a game of greedy against other recorded", || {
        let csv = dir.join("games.csv");
        let rows = if csv.exists() {
            read_csv(&csv)
        } else {
            Vec::new()
        };
        let theirs = rows
            .iter()
            .any(|r| !(r["bot0"] == "first" || r["bot1"] == "first"));
        let firsts = rows
            .iter()
            .any(|r| r["bot0"] == "first" || r["bot1"] == "first");
        (
            (theirs && firsts).then_some(()),
            format!("{} games", rows.len()),
        )
    });
    let (status, page) = crate::common::league::get(&server.url, "/bot/first");
    assert_eq!(status, 200, "{page}");
    let rows = read_csv(&dir.join("games.csv"));
    let listed = replay_links(&page);
    assert!(!listed.is_empty(), "first's page lists no game: {page}");
    for id in &listed {
        let row = rows
            .iter()
            .find(|r| r["game_id"] == id.to_string())
            .unwrap_or_else(|| panic!("game {id} on first's page is not recorded: {page}"));
        assert!(
            row["bot0"] == "first" || row["bot1"] == "first",
            "game {id} is not first's: {row:?}"
        );
        // Its opponent, result and reason are on its row, and its replay opens.
        let line = page
            .split(&format!("data-game=\"{id}\""))
            .nth(1)
            .and_then(|r| r.split("</tr>").next())
            .unwrap_or_else(|| panic!("no row for game {id}: {page}"));
        let opponent = if row["bot0"] == "first" {
            &row["bot1"]
        } else {
            &row["bot0"]
        };
        assert!(line.contains(opponent.as_str()), "{line}");
        assert!(line.contains(row["reason"].as_str()), "{line} {row:?}");
        assert!(
            ["won", "lost", "draw"].iter().any(|r| line.contains(r)),
            "{line}"
        );
        let (status, replay) = crate::common::league::get(&server.url, &format!("/replay/{id}"));
        assert_eq!(status, 200, "{replay}");
    }
    assert!(!page.contains("None recorded yet."), "{page}");
}

/// A GET of `path` with `Authorization: Bearer TOKEN`: the answer's status and body.
fn get_as(url: &str, path: &str, token: &str) -> (u16, String) {
    crate::common::league::raw(
        url.trim_start_matches("http://"),
        format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Authorization: Bearer {token}\r\n\r\n"
        )
        .as_bytes(),
    )
}

#[test]
fn a_bots_stderr_is_its_authors_and_the_admins_unless_the_league_shows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    // noisy writes "CPUS <n,...>" to stderr at its start.
    let bots = [
        format!("noisy={}", common::hostile("cpus")),
        format!("first={}", first_bot()),
    ];
    let server = Server::start(&dir, 1, &bots, 3);
    // (Its page is there once the standings list it: the first fit, soon after the start.)
    wait_for("a game of noisy recorded", || {
        let (status, body) = crate::common::league::get(&server.url, "/api/bots/noisy");
        let b: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let recorded = b["stderr_game"].as_u64().filter(|_| status == 200);
        (recorded, format!("{status} {body}"))
    });
    // Without [page] show_stderr: neither the page nor its JSON has it.
    let (status, page) = crate::common::league::get(&server.url, "/bot/noisy");
    assert_eq!(status, 200, "{page}");
    assert!(!page.contains("CPUS"), "{page}");
    assert!(
        page.contains("Shown to its author and the league's admin only"),
        "{page}"
    );
    assert!(page.contains("/api/bots/noisy/stderr"), "{page}");
    let data = json(&server.url, "/api/bots/noisy");
    assert!(data["stderr"].is_null(), "{data}");
    assert!(!data.to_string().contains("CPUS"), "{data}");
    // Its author's token and the admin's read it; another author's, or none, do not.
    let admin = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let mine = author_token(&dir, "noisy");
    let theirs = author_token(&dir, "first");
    for t in [mine.as_str(), admin.trim()] {
        let (status, text) = get_as(&server.url, "/api/bots/noisy/stderr", t);
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("CPUS"), "{text}");
    }
    let (status, text) = get_as(&server.url, "/api/bots/noisy/stderr", &theirs);
    assert_eq!(status, 403, "{text}");
    assert!(
        !text.contains("CPUS") && text.contains("\"first\""),
        "{text}"
    );
    let (status, text) = crate::common::league::get(&server.url, "/api/bots/noisy/stderr");
    assert_eq!(status, 401, "{text}");
    assert!(!text.contains("CPUS"), "{text}");

    // With [page] show_stderr = true in league.toml, everyone sees it after a restart.
    server.kill9();
    let toml = dir.join("league.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    assert!(!text.contains("show_stderr = true"), "{text}");
    text = text.replace("show_stderr = false", "show_stderr = true");
    if !text.contains("show_stderr = true") {
        text.push_str("\n[page]\nshow_stderr = true\n");
    }
    std::fs::write(&toml, text).unwrap();
    let mut child = arbiter()
        .args(["league", "serve"])
        .arg(&dir)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::listening(&mut child);
    let _again = Proc(child);
    let page = wait_for("noisy's page with its stderr", || {
        let (status, page) = crate::common::league::get(&url, "/bot/noisy");
        (
            (status == 200 && page.contains("CPUS")).then(|| page.clone()),
            page,
        )
    });
    assert!(!page.contains("Shown to its author"), "{page}");
    let data = json(&url, "/api/bots/noisy");
    assert!(data["stderr"].as_str().unwrap().contains("CPUS"), "{data}");
}
