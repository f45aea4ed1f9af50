//! Helpers the league tests share (`league*.rs`): a server or worker process killed when
//! dropped, raw HTTP calls to a server on loopback, its standings and event stream, bounded
//! waits that fail with what they saw last, and what the league's folder holds (its recorded
//! and scheduled games).

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// How long any one wait of these tests may last before it fails with what it saw.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// A process started by a test (a league server, a worker), killed (SIGKILL) when dropped.
pub struct Proc(pub Child);

impl Proc {
    /// SIGKILL now, as a crash or an OOM killer would.
    pub fn kill9(mut self) {
        self.0.kill().unwrap();
        self.0.wait().unwrap();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A league server started by a test (killed when dropped) and its URL.
pub struct Server {
    pub proc: Proc,
    pub url: String,
}

impl Server {
    /// `league serve DIR BOT... --local-workers WORKERS --seed SEED` ([`super::league_serve`]).
    pub fn start(dir: &Path, workers: usize, bots: &[String], seed: u64) -> Server {
        let (child, url) = super::league_serve(dir, bots, workers, seed);
        Server {
            proc: Proc(child),
            url,
        }
    }

    /// The server's `HOST:PORT`.
    pub fn addr(&self) -> String {
        self.url.trim_start_matches("http://").to_string()
    }

    /// SIGKILL now.
    pub fn kill9(self) {
        self.proc.kill9();
    }
}

/// The `arbiter` binary, run from the repository's root.
pub fn arbiter() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    c.current_dir(super::root());
    c
}

/// Starts `league serve DIR BOT... --local-workers 0` and returns it with its URL.
pub fn serve(dir: &Path, bots: &[String]) -> (Proc, String) {
    let (child, url) = super::league_serve(dir, bots, 0, 5);
    (Proc(child), url)
}

/// A new worker token for `name` in the league folder `dir` (`arbiter league token`).
pub fn token(dir: &Path, name: &str) -> String {
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

/// A new author token for bot `name` (`arbiter league author DIR NAME`, its last line).
pub fn author_token(dir: &Path, name: &str) -> String {
    let out = arbiter()
        .args(["league", "author"])
        .arg(dir)
        .arg(name)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).unwrap();
    printed.lines().last().unwrap().trim().to_string()
}

/// Sends raw bytes to `addr` (`HOST:PORT`) and returns the answer's status (0: none) and body.
pub fn raw(addr: &str, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = s.write_all(request);
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

/// Sends one request with a JSON `body` and returns the answer's status and body.
pub fn http(url: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(url.trim_start_matches("http://"), request.as_bytes())
}

/// A GET of `path`: the answer's status and body.
pub fn get(url: &str, path: &str) -> (u16, String) {
    raw(
        url.trim_start_matches("http://"),
        format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// A GET of `path`, which must answer JSON with 200.
pub fn json(url: &str, path: &str) -> Value {
    let (status, body) = get(url, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// `/api/standings`.
pub fn standings(url: &str) -> Value {
    json(url, "/api/standings")
}

/// Waits until `ok` gives a value, or fails after [`DEADLINE`] saying what it waited for and
/// what it saw last.
pub fn wait_for<T>(what: &str, ok: impl FnMut() -> (Option<T>, String)) -> T {
    wait_for_within(DEADLINE, what, ok)
}

/// [`wait_for`] with a deadline of its own.
pub fn wait_for_within<T>(
    deadline: Duration,
    what: &str,
    mut ok: impl FnMut() -> (Option<T>, String),
) -> T {
    let began = Instant::now();
    loop {
        let (got, seen) = ok();
        if let Some(t) = got {
            return t;
        }
        assert!(began.elapsed() < deadline, "waited for {what}; saw: {seen}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits (at most `deadline`) until `ok` holds of the standings; returns them.
pub fn wait_for_standings(
    url: &str,
    what: &str,
    deadline: Duration,
    ok: impl Fn(&Value) -> bool,
) -> Value {
    wait_for_within(deadline, what, || {
        let s = standings(url);
        (ok(&s).then(|| s.clone()), format!("{s:#}"))
    })
}

/// Bot `bot`'s games in standings `s` (0 when it is not there).
pub fn games_of(s: &Value, bot: &str) -> u64 {
    s["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == bot)
        .map_or(0, |b| b["games"].as_u64().unwrap())
}

/// The game ids in the league's games.csv, in file order (none before it exists).
pub fn recorded(dir: &Path) -> Vec<u64> {
    if !dir.join("games.csv").exists() {
        return Vec::new();
    }
    super::read_csv(&dir.join("games.csv"))
        .iter()
        .map(|row| row["game_id"].parse().unwrap())
        .collect()
}

/// The games of the league's schedule log (whole lines only: the server may be writing the
/// last one).
pub fn scheduled(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("schedule.jsonl"))
        .unwrap_or_default()
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Remote workers' games played by each worker name, from `/api/workers`.
pub fn played_by(url: &str, name: &str) -> u64 {
    json(url, "/api/workers")["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["name"] == name)
        .map(|w| w["games"].as_u64().unwrap())
        .sum()
}

/// The server's event stream (`/api/events`), read with [`next_event`].
pub fn events(url: &str) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    s.write_all(b"GET /api/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        .unwrap();
    BufReader::new(s)
}

/// Reads the next server-sent event: its name and its data as JSON (null when it is not).
pub fn next_event(stream: &mut BufReader<TcpStream>) -> (String, Value) {
    let (name, data) = next_event_text(stream);
    (name, serde_json::from_str(&data).unwrap_or(Value::Null))
}

/// Reads server-sent events until one named `name` came; returns its data.
pub fn next_event_named(stream: &mut BufReader<TcpStream>, name: &str) -> String {
    loop {
        let (got, data) = next_event_text(stream);
        if got == name {
            return data;
        }
    }
}

fn next_event_text(stream: &mut BufReader<TcpStream>) -> (String, String) {
    let mut name = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = stream.read_line(&mut line).unwrap();
        assert!(n > 0, "the event stream ended");
        let line = line.trim_end();
        if let Some(e) = line.strip_prefix("event: ") {
            name = e.to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            return (name, d.to_string());
        }
    }
}

/// Sends `body` to `path` as a worker would (POST, JSON, worker token `token`); returns the
/// status and body.
pub fn call(url: &str, token: &str, path: &str, body: &str) -> (u16, String) {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \
         {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(url.trim_start_matches("http://"), request.as_bytes())
}

/// The body of a worker's registration (this arbiter's version), with `bench_ms`, `cores` and
/// `concurrency`.
pub fn registration(bench_ms: f64, cores: usize, concurrency: usize) -> String {
    let version = env!("CARGO_PKG_VERSION");
    format!(
        r#"{{"version":"{version}","host":"h","cores":{cores},"memory_mb":1024,"sandbox":true,"bench_ms":{bench_ms},"concurrency":{concurrency}}}"#
    )
}

/// Registers as a worker would, with `bench_ms` and `concurrency` (4 cores); returns the answer.
pub fn register(url: &str, token: &str, bench_ms: f64, concurrency: usize) -> Value {
    let (status, answer) = call(
        url,
        token,
        "/api/work/register",
        &registration(bench_ms, 4, concurrency),
    );
    assert_eq!(status, 200, "{answer}");
    serde_json::from_str(&answer).unwrap()
}

/// A new session of worker `token` ([`register`] with a quick bench, one game at once).
pub fn new_session(url: &str, token: &str) -> String {
    register(url, token, 1.0, 1)["session"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Leases up to one game for `session` (waiting at most `wait_ms`); returns the status and the
/// answer.
pub fn lease(url: &str, token: &str, session: &str, wait_ms: u64) -> (u16, String) {
    let ask = format!(r#"{{"session":"{session}","slots":1,"wait_ms":{wait_ms}}}"#);
    call(url, token, "/api/work/lease", &ask)
}

/// Waits until `session` is leased a game; returns it (`{"game": ..., "bots": [...]}`).
pub fn lease_one(url: &str, token: &str, session: &str) -> Value {
    wait_for("a game leased", || {
        let (status, answer) = lease(url, token, session, 2000);
        let game = serde_json::from_str::<Value>(&answer)
            .ok()
            .filter(|_| status == 200)
            .and_then(|l| l["games"].as_array()?.first().cloned());
        (game, format!("{status} {answer}"))
    })
}

/// An honest made-up result for `game` (the `n`th of `session`), as JSON to change at will
/// ([`arbiter::bench::league::fabricated`]).
pub fn fabricated(session: &str, game: &Value, n: u64) -> Value {
    let game: arbiter::league::scheduler::LeagueGame =
        serde_json::from_value(game.clone()).unwrap();
    serde_json::to_value(arbiter::bench::league::fabricated(session, &game, n)).unwrap()
}

/// What a simulated worker did: its session, the games it was leased and those whose results
/// the server accepted or voided, and the refusal that ended it, if one did.
pub struct Simulated {
    pub token: String,
    pub session: String,
    pub leased: Vec<u64>,
    pub accepted: Vec<u64>,
    pub voided: Vec<u64>,
    pub refused: Option<(u16, String)>,
}

/// A simulated worker speaking the worker protocol over HTTP (as `arbiter bench league`'s do):
/// registers, leases one game at a time and sends the result `result` makes of each (the
/// session, the leased game as JSON, its count) at once. It stops when `stop` is set or at its
/// first refusal.
pub fn simulated(
    url: &str,
    token: &str,
    bench_ms: f64,
    stop: &std::sync::atomic::AtomicBool,
    result: impl Fn(&str, &Value, u64) -> Value,
) -> Simulated {
    let session = register(url, token, bench_ms, 1)["session"]
        .as_str()
        .unwrap()
        .to_string();
    let mut done = Simulated {
        token: token.to_string(),
        session: session.clone(),
        leased: Vec::new(),
        accepted: Vec::new(),
        voided: Vec::new(),
        refused: None,
    };
    let mut n = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let (status, answer) = lease(url, token, &session, 500);
        if status != 200 {
            done.refused = Some((status, answer));
            return done;
        }
        let leased: Value = serde_json::from_str(&answer).unwrap();
        for g in leased["games"].as_array().unwrap() {
            n += 1;
            let id = g["game"]["game_id"].as_u64().unwrap();
            done.leased.push(id);
            let body = result(&session, &g["game"], n).to_string();
            let (status, answer) = call(url, token, "/api/work/result", &body);
            if status != 200 {
                done.refused = Some((status, answer));
                return done;
            }
            let reply: Value = serde_json::from_str(&answer).unwrap();
            if reply["accepted"] == true {
                done.accepted.push(id);
            }
            if reply["voided"] == true {
                done.voided.push(id);
            }
        }
    }
    done
}

/// The games per bot in `/api/standings`, and in all.
pub fn counts(url: &str) -> (u64, std::collections::BTreeMap<String, u64>) {
    let s = json(url, "/api/standings");
    let per_bot = s["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["games"].as_u64().unwrap(),
            )
        })
        .collect();
    (s["games"].as_u64().unwrap(), per_bot)
}

/// Waits until the league at `url` plays every one of `bots` (each checked, none building).
pub fn wait_playing(url: &str, bots: usize) {
    wait_for("the bots playing", || {
        let s = json(url, "/api/standings");
        let playing = s["bots"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["status"] == "playing")
            .count();
        ((playing >= bots).then_some(()), s.to_string())
    });
}

/// Starts `league serve DIR BOT... --local-workers 0` on strict, short clocks (100 ms a turn,
/// no grace) and returns it with its URL.
pub fn strict_league(dir: &Path, bots: &[String]) -> (Proc, String) {
    let args = [
        "--local-workers",
        "0",
        "--turn-ms",
        "100",
        "--strict",
        "--seed",
        "5",
    ];
    let (child, url) = super::league_serve_with(dir, bots, &args);
    (Proc(child), url)
}

/// Starts a simulated worker of worker token `token` on a thread of its own, its results made by
/// `result` from an honest made-up one ([`fabricated`]).
pub fn start_simulated(
    url: &str,
    token: &str,
    bench_ms: f64,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    result: impl Fn(&mut serde_json::Value, &serde_json::Value) + Send + 'static,
) -> std::thread::JoinHandle<Simulated> {
    let (t, url, stop) = (token.to_string(), url.to_string(), stop.clone());
    std::thread::spawn(move || {
        simulated(&url, &t, bench_ms, &stop, |session, game, n| {
            let mut r = fabricated(session, game, n);
            result(&mut r, game);
            r
        })
    })
}
