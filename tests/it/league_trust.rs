//! Results a league can trust from machines it does not own (issue 38), with the real binary: a
//! league server on a loopback port and a real `arbiter league work` process pinned to one CPU
//! that busy loops also hold (an overloaded machine, as the fair clock's tests make one). Its
//! bot's time losses there are voided with their evidence and the same games played again once
//! the load is gone, each recorded once. Waits are bounded; nothing is timed.

use crate::clock::{a_cpu, Busy};
use crate::common::{self, hostile, random_bot};
use crate::league_workers::{json, recorded, token, wait_for, Proc};
use std::path::Path;
use std::process::{Command, Stdio};

/// Starts `league serve DIR BOT... --local-workers 0` on strict, short clocks (100 ms a turn,
/// no grace) and returns it with its URL.
fn strict_league(dir: &Path, bots: &[String]) -> (Proc, String) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(common::root())
        .args(["league", "serve"])
        .arg(dir)
        .args(bots)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--local-workers",
            "0",
            "--game",
            "impasse",
        ])
        .args(["--turn-ms", "100", "--first-turn-ms", "5000", "--strict"])
        .args(["--seed", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("the server said where it listens: {line:?}"))
        .to_string();
    (Proc(child), url)
}

/// A worker (one game at a time) with every process it starts pinned to `cpu`; its token is
/// in a file (not on its command line, where `ps` shows it).
fn work_on(cpu: usize, url: &str, token: &str, cache: &Path) -> Proc {
    std::fs::create_dir_all(cache).unwrap();
    let file = cache.join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    Proc(
        Command::new("taskset")
            .args(["-c", &cpu.to_string()])
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(["league", "work", url, "--token-file"])
            .arg(&file)
            .args(["--concurrency", "1", "--cache"])
            .arg(cache)
            .current_dir(common::root())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("taskset (util-linux) is needed to pin a worker: {e}")),
    )
}

#[test]
fn a_time_loss_on_a_starved_worker_is_voided_with_its_evidence_and_played_again_once() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    // 160 ms of computing from its second turn on: a timeout on a 100 ms turn anywhere, but on
    // a CPU shared with four busy loops most of its wall time is waiting for that CPU.
    let burner = format!("burner={}", hostile("cpu-burn 2 160"));
    let (server, url) = strict_league(&dir, &[burner, random_bot()]);
    let t = token(&dir, "busy");
    let cpu = a_cpu();
    let _worker = work_on(cpu, &url, &t, &tmp.path().join("cache"));
    // The load comes once it has registered (a machine busy at registration shows it in its
    // bench figure and gets no timed games: the other test).
    wait_for("the worker registered", || {
        let w = json(&url, "/api/workers");
        let n = w["workers"].as_array().unwrap().len();
        ((n > 0).then_some(()), w.to_string())
    });
    let busy = Busy::on(cpu, 4);

    let voided = wait_for("a game voided on the starved worker", || {
        let w = json(&url, "/api/workers");
        (
            w["voided"].as_array().unwrap().first().cloned(),
            w.to_string(),
        )
    });
    let id = voided["game_id"].as_u64().unwrap();
    assert!(
        !recorded(&dir).contains(&id),
        "a voided game is not recorded: {voided}"
    );
    assert!(
        voided["worker"].as_str().unwrap().starts_with("busy#")
            && voided["reason"] == "timeout"
            && voided["starved_turns"].as_u64() > Some(0)
            && voided["waited_max_us"].as_u64() > Some(100_000)
            && voided["bots"]
                .as_array()
                .unwrap()
                .contains(&"burner".into()),
        "the evidence: {voided}"
    );
    let log = std::fs::read_to_string(dir.join("voided.jsonl")).unwrap();
    assert!(
        log.contains(&format!("\"game_id\":{id},")),
        "kept in the folder: {log}"
    );
    let workers = json(&url, "/api/workers");
    assert!(
        workers["workers"][0]["voided"].as_u64() > Some(0),
        "{workers}"
    );

    // The load goes; the same game is played again (after the worker's pause) and recorded,
    // once, whatever it came to.
    drop(busy);
    wait_for("the voided game played again and recorded", || {
        let ids = recorded(&dir);
        (ids.contains(&id).then_some(()), format!("{ids:?}"))
    });
    let ids = recorded(&dir);
    assert_eq!(
        ids.iter().filter(|&&g| g == id).count(),
        1,
        "recorded once: {ids:?}"
    );

    // The page shows the worker and the voided game (in Chromium, as the league page test).
    let Some(browser) = common::chromium() else {
        return;
    };
    // The browser keeps the page (and its event stream) open until the server goes away: games
    // that end (or are voided) while it is open, then the server stops.
    let page = std::thread::spawn({
        let url = url.clone();
        move || common::load(&browser, &format!("{url}/"))
    });
    let done = |url: &str| {
        let v = json(url, "/api/workers")["voided"]
            .as_array()
            .unwrap()
            .len();
        recorded(&dir).len() + v
    };
    // (As the league page test does: several games, each a few seconds with the worker's
    // pauses after a void, give the browser time to load the page and fetch what it shows.)
    // On a machine too loaded for six, whatever ended by the deadline (at least two).
    let before = done(&url);
    let began = std::time::Instant::now();
    while done(&url) < before + 6 && began.elapsed() < crate::league_workers::DEADLINE {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    wait_for("two more games ended while the page is open", || {
        let n = done(&url);
        ((n >= before + 2).then_some(()), format!("{before} -> {n}"))
    });
    drop(server);
    let (dom, console) = page.join().unwrap();
    let workers = dom.split("id=\"workers\"").nth(1).unwrap_or_default();
    assert!(
        workers.contains("data-session=\"busy#1\"") && workers.contains("s ago"),
        "the worker's row: {dom}\n{console:?}"
    );
    assert!(
        dom.contains(&format!("class=\"voided\" data-game=\"{id}\"")),
        "the voided game: {dom}"
    );
}

/// Sends `body` to `path` with worker token `token`; returns the status and body.
fn call(url: &str, token: &str, path: &str, body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \
         {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// Registers as a worker would, with `bench_ms` and `concurrency`; returns the answer.
fn register(url: &str, token: &str, bench_ms: f64, concurrency: usize) -> serde_json::Value {
    let version = env!("CARGO_PKG_VERSION");
    let body = format!(
        r#"{{"version":"{version}","host":"h","cores":4,"memory_mb":1024,"sandbox":true,"bench_ms":{bench_ms},"concurrency":{concurrency}}}"#
    );
    let (status, answer) = call(url, token, "/api/work/register", &body);
    assert_eq!(status, 200, "{answer}");
    serde_json::from_str(&answer).unwrap()
}

#[test]
fn a_far_slower_worker_gets_no_games_and_remote_slots_count_in_the_capacity() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = strict_league(&dir, &[random_bot(), common::first_bot()]);
    let t = token(&dir, "lab");
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    assert!(own > 0.0, "the server's own bench figure: {own}");
    // A worker as fast as the server: no note. Its three slots count in the capacity (the
    // server has no local worker).
    let fast = register(&url, &t, own, 3);
    assert!(fast.get("note").is_none(), "{fast}");
    // One a hundred times slower than the league's median is told so and gets no game.
    let slow = register(&url, &t, own * 100.0, 2);
    let note = slow["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("gets no timed games") && note.contains("median"),
        "{slow}"
    );
    let lease = format!(
        r#"{{"session":"{}","slots":1,"wait_ms":0}}"#,
        slow["session"].as_str().unwrap()
    );
    // The bots are checked first: the fast worker gets a game once they are.
    wait_for("a game for the fast worker", || {
        let lease = format!(
            r#"{{"session":"{}","slots":1,"wait_ms":2000}}"#,
            fast["session"].as_str().unwrap()
        );
        let (status, answer) = call(&url, &t, "/api/work/lease", &lease);
        let games = serde_json::from_str::<serde_json::Value>(&answer).ok();
        let got =
            games.filter(|g| status == 200 && g["games"].as_array().is_some_and(|a| !a.is_empty()));
        (got.map(|_| ()), answer)
    });
    let (status, answer) = call(&url, &t, "/api/work/lease", &lease);
    assert_eq!(status, 200, "{answer}");
    let leased: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(leased["games"], serde_json::json!([]), "{leased}");
    let workers = json(&url, "/api/workers");
    let line = workers["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["session"] == slow["session"])
        .cloned()
        .unwrap();
    assert!(
        line["idle"]
            .as_str()
            .is_some_and(|i| i.contains("no timed games")),
        "{workers}"
    );
    // The fast worker's 3 slots; the slow one's give no capacity.
    assert_eq!(workers["capacity"], 3, "{workers}");

    // A token file that holds no token, or that others can read, is refused before any call,
    // saying what to do.
    let refused = |text: &str, mode: u32| {
        let file = tmp.path().join("bad-token");
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["league", "work", &url, "--token-file"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused("\n", 0o600);
    assert!(
        err.contains("holds no token") && err.contains("arbiter league token"),
        "{err}"
    );
    let err = refused(&format!("{t}\n"), 0o644);
    assert!(
        err.contains("can be read by others") && err.contains("chmod 600"),
        "{err}"
    );
}
