//! League workers on other machines (issue 38): the real binary as a league server on a loopback
//! port with no local workers, and real `arbiter league work` processes that lease its games over
//! HTTP, fetch the bots by hash, build and play them, and send the results; one of them killed
//! with SIGKILL in the middle of a game. Waits are bounded (a deadline ends a hung test with what
//! it saw), nothing is timed; the lease is made short in the league's own settings file
//! (`[matchmaking] lease_s`), as an owner would.

use crate::common::{self, first_bot, greedy_bot, random_bot};
use serde_json::Value;
use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long any one wait of these tests may last before it fails with what it saw.
pub(crate) const DEADLINE: Duration = Duration::from_secs(120);

/// A process started by a test, killed (SIGKILL) when dropped.
pub(crate) struct Proc(pub(crate) Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn arbiter() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    c.current_dir(common::root());
    c
}

/// Starts `league serve DIR BOT... --local-workers 0` and returns it with its URL.
pub(crate) fn serve(dir: &Path, bots: &[String]) -> (Proc, String) {
    let (child, url) = common::league_serve(dir, bots, 0, 5);
    (Proc(child), url)
}

pub(crate) fn token(dir: &Path, name: &str) -> String {
    let out = arbiter()
        .args(["league", "token"])
        .arg(dir)
        .arg(name)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn work(url: &str, token: &str, cache: &Path) -> Proc {
    Proc(
        arbiter()
            .args([
                "league",
                "work",
                url,
                "--token",
                token,
                "--concurrency",
                "1",
                "--cache",
            ])
            .arg(cache)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// Sends one request and returns the answer's status and body.
pub(crate) fn http(url: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

pub(crate) fn json(url: &str, path: &str) -> Value {
    let (status, body) = http(url, "GET", path, "");
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// Waits until `ok` gives a value, or fails saying what it waited for and what it saw last.
pub(crate) fn wait_for<T>(what: &str, mut ok: impl FnMut() -> (Option<T>, String)) -> T {
    let began = Instant::now();
    loop {
        let (got, seen) = ok();
        if let Some(t) = got {
            return t;
        }
        assert!(began.elapsed() < DEADLINE, "waited for {what}; saw: {seen}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The game ids in games.csv, in order.
pub(crate) fn recorded(dir: &Path) -> Vec<u64> {
    if !dir.join("games.csv").exists() {
        return Vec::new();
    }
    common::read_csv(&dir.join("games.csv"))
        .iter()
        .map(|row| row["game_id"].parse().unwrap())
        .collect()
}

pub(crate) fn games_of(standings: &Value, bot: &str) -> u64 {
    standings["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == bot)
        .map_or(0, |b| b["games"].as_u64().unwrap())
}

/// Remote workers' games played by each worker name, from `/api/workers`.
pub(crate) fn played_by(url: &str, name: &str) -> u64 {
    json(url, "/api/workers")["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["name"] == name)
        .map(|w| w["games"].as_u64().unwrap())
        .sum()
}

#[test]
fn two_remote_workers_fill_a_league_and_a_killed_one_loses_and_duplicates_nothing() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let bots = [random_bot(), greedy_bot(), first_bot()];
    // A first start makes the league's folder; its lease is then made short (4 s) in its
    // settings, and the league started again, as an owner would.
    let (server, _) = serve(&dir, &bots);
    drop(server);
    let settings = std::fs::read_to_string(dir.join("league.toml")).unwrap();
    assert!(settings.contains("lease_s = 600"), "{settings}");
    std::fs::write(
        dir.join("league.toml"),
        settings.replace("lease_s = 600", "lease_s = 4"),
    )
    .unwrap();
    let (_server, url) = serve(&dir, &[]);
    let (t1, t2) = (token(&dir, "one"), token(&dir, "two"));
    let cache1 = tmp.path().join("cache-one");
    let mut one = work(&url, &t1, &cache1);
    let _two = work(&url, &t2, &tmp.path().join("cache-two"));

    // Worker one has played a game and is in the middle of another: its bots (run from its
    // cache) are running. Then it is killed with SIGKILL.
    let marker = format!("{}/bots/", cache1.display());
    let victim: u64 = wait_for("worker one in the middle of its second game", || {
        let games = json(&url, "/api/games");
        let mine = games["running"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["worker"].as_str().is_some_and(|w| w.starts_with("one#")))
            .map(|g| g["game_id"].as_u64().unwrap());
        let ready = played_by(&url, "one") >= 1 && !common::processes_with(&marker).is_empty();
        let done = recorded(&dir);
        (
            mine.filter(|id| ready && !done.contains(id)),
            games.to_string(),
        )
    });
    one.0.kill().unwrap();
    one.0.wait().unwrap();
    assert!(
        !recorded(&dir).contains(&victim),
        "game {victim} was still being played when its worker was killed"
    );

    // Its lease runs out, worker two plays that game, and the league fills: every pair plays
    // its floor of games (two each), so each bot plays at least four.
    let standings = wait_for(
        "the killed worker's game played again and the league filled",
        || {
            let s = json(&url, "/api/standings");
            let full = [
                "arbiter-bot-random",
                "arbiter-bot-greedy",
                "arbiter-bot-first",
            ]
            .iter()
            .all(|b| games_of(&s, b) >= 4);
            let ok = full && recorded(&dir).contains(&victim);
            (ok.then(|| s.clone()), s.to_string())
        },
    );
    assert!(
        played_by(&url, "two") >= 1,
        "{}",
        json(&url, "/api/workers")
    );
    let ids = recorded(&dir);
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "no game recorded twice: {ids:?}");
    assert!(
        ids.len() as u64 >= standings["games"].as_u64().unwrap(),
        "{ids:?} {standings}"
    );
}

#[test]
fn a_wrong_or_revoked_token_or_another_version_is_told_why() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[]);
    let cache = tmp.path().join("cache");
    let refused = |token: &str| {
        let mut child = arbiter()
            .args(["league", "work", &url, "--token", token, "--cache"])
            .arg(&cache)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A worker let in would work for ever: it is ended after a bounded wait.
        let began = Instant::now();
        while child.try_wait().unwrap().is_none() && began.elapsed() < DEADLINE {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(3), "refused at once: {out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused("not-a-token");
    assert!(
        err.contains("refused this worker") && err.contains("knows no such worker token"),
        "{err}"
    );
    assert!(
        err.contains("arbiter league token DIR NAME"),
        "says what to do: {err}"
    );

    let t = token(&dir, "lab-1");
    let out = arbiter()
        .args(["league", "token", "--revoke"])
        .arg(&dir)
        .arg("lab-1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = refused(&t);
    assert!(err.contains("worker \"lab-1\" was revoked"), "{err}");

    // Another version is refused with both versions named (spoken to as a worker would).
    let t = token(&dir, "lab-2");
    let addr = url.trim_start_matches("http://");
    let body = r#"{"version":"0.0.0-old","host":"h","cores":1,"memory_mb":1,"sandbox":true,"bench_ms":1.0,"concurrency":1}"#;
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /api/work/register HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: \
         Bearer {t}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(
        answer.contains("the worker arbiter 0.0.0-old") && answer.contains("install arbiter"),
        "{answer}"
    );
}
