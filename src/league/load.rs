//! `arbiter bench league`: a load test of the league server's worker door ([`super::remote`]).
//! A real server (`arbiter league serve`, a child process, so that its CPU time and memory are
//! its own) on a loopback port with no local workers, and simulated workers: threads that speak
//! the worker protocol with the worker's own HTTP client ([`super::worker::net`], one connection
//! per request, as `league work` does), register, lease one game at a time and send back a
//! fabricated result at once (no game is played: the server's cost alone is measured). Each
//! phase is bounded in results and in time.
//!
//! Against a floor measured in the same run: the same number of threads asking the same server
//! for a page that does not exist (an HTTP round trip the server answers with no work). Then a
//! long run to `memory_results` results, with the server's resident memory sampled on the way:
//! what grows with the games played shows there.

use super::remote::{LeaseRequest, Leased, Register, Registered, ResultRequest, VERSION};
use super::scheduler::Game;
use super::worker::net;
use crate::referee::{GameResult, Reason, SeatStats};
use serde::Serialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What to measure.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The arbiter program that serves the league.
    pub arbiter: PathBuf,
    /// A bot that starts (each of the league's bots runs it; no game is played).
    pub bot: PathBuf,
    /// The options of `league serve DIR BOT...` as the command line spells them: a loopback
    /// address with any free port, no local workers, the game (the library spells no flag).
    pub serve: Vec<String>,
    /// Bots in the league.
    pub bots: usize,
    /// Simulated workers of each phase (e.g. 100, then 1000).
    pub workers: Vec<usize>,
    /// Results each phase stops at.
    pub phase_results: u64,
    /// The longest a phase lasts.
    pub phase_limit: Duration,
    /// Results in all (since the server started) at which the memory run stops.
    pub memory_results: u64,
    /// Simulated workers of the memory run.
    pub memory_workers: usize,
    /// The longest the memory run lasts.
    pub memory_limit: Duration,
}

/// A load test that could not run.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("starting the league server {}: {source}", program.display())]
    Start {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("the league server did not start: {0}")]
    NotServing(String),
    #[error("the league's bots were not ready in {0:?}: {1}")]
    NotReady(Duration, String),
    #[error("a simulated worker failed: {0}")]
    Worker(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Token(#[from] super::tokens::TokenError),
}

/// Latency percentiles of one kind of call, in milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Latency {
    pub calls: usize,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Latency {
    fn of(mut us: Vec<u32>) -> Latency {
        if us.is_empty() {
            return Latency::default();
        }
        us.sort_unstable();
        let at = |q: f64| us[((us.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0;
        Latency {
            calls: us.len(),
            p50_ms: at(0.5),
            p90_ms: at(0.9),
            p99_ms: at(0.99),
            max_ms: at(1.0),
        }
    }
}

/// One phase's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Phase {
    pub workers: usize,
    pub seconds: f64,
    pub results: u64,
    /// Requests whose connection was refused or cut, tried again after a second.
    pub retried: u64,
    pub leases_per_s: f64,
    pub results_per_s: f64,
    pub lease: Latency,
    pub result: Latency,
    /// The floor: requests/s and latency of a page the server answers with no work.
    pub floor_per_s: f64,
    pub floor: Latency,
    /// The server's CPU time per floor request, in microseconds.
    pub floor_cpu_us: f64,
    /// The server's CPU time over the phase, as a share of one core (1.0: one core busy).
    pub server_cpu: f64,
    /// The server's CPU time per result, in microseconds.
    pub cpu_us_per_result: f64,
    pub rss_mib_after: f64,
}

/// The memory run: the server's resident memory after each step of results.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryRun {
    pub workers: usize,
    /// `(results recorded since the server started, VmRSS in MiB)`.
    pub samples: Vec<(u64, f64)>,
    pub seconds: f64,
    pub results_per_s: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    pub bots: usize,
    pub rss_mib_start: f64,
    pub phases: Vec<Phase>,
    pub memory: MemoryRun,
}

/// The server under test; killed when dropped.
struct Server {
    child: Child,
    url: String,
    /// The league's folder and the server's log, removed after.
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn clock_ticks() -> f64 {
    // SAFETY: sysconf reads a constant.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

impl Server {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's user plus system CPU time so far.
    fn cpu(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap_or_default();
        // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<f64> = rest
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0.0))
            .collect();
        let ticks = f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0);
        Duration::from_secs_f64(ticks / clock_ticks())
    }

    /// The server's resident memory in MiB.
    fn rss_mib(&self) -> f64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }

    fn get(&self, path: &str) -> Result<String, LoadError> {
        let a = net::call(&self.url, "GET", path, "", None, Duration::from_secs(60))
            .map_err(|e| LoadError::NotServing(e.to_string()))?;
        Ok(a.text())
    }
}

fn start(cfg: &LoadConfig) -> Result<(Server, String), LoadError> {
    let dir = std::env::temp_dir().join(format!("arbiter-league-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let league = dir.join("league");
    let log = std::fs::File::create(dir.join("server.log"))?;
    let bots: Vec<String> = (0..cfg.bots)
        .map(|k| format!("b{k}={}", cfg.bot.display()))
        .collect();
    let mut child = Command::new(&cfg.arbiter)
        .args(["league", "serve"])
        .arg(&league)
        .args(&bots)
        .args(&cfg.serve)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|source| LoadError::Start {
            program: cfg.arbiter.clone(),
            source,
        })?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line)?;
    let url = line.split_whitespace().find(|w| w.starts_with("http://"));
    let Some(url) = url.map(str::to_string) else {
        let _ = child.kill();
        let said = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
        return Err(LoadError::NotServing(format!("{line}{said}")));
    };
    let token = super::tokens::issue(&league, "load")?;
    let server = Server { child, url, dir };
    // Every bot checked (test-started) and playing.
    let began = Instant::now();
    let limit = Duration::from_secs(300);
    loop {
        let s = server.get("/api/standings")?;
        let playing = s.matches("\"status\":\"playing\"").count();
        if playing == cfg.bots {
            break;
        }
        if began.elapsed() > limit {
            return Err(LoadError::NotReady(limit, s));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok((server, token))
}

/// A result as a worker would send it for `game`, made up (the `n`th of its worker): a draw,
/// seat 0's win and seat 1's win in turn, so that a worker's results favour no seat (the
/// quarantine test's honest workers send these too).
pub fn fabricated(session: &str, game: &Game, n: u64) -> ResultRequest {
    let seats = game.bots.len();
    let (winner, ranks, reason) = match n % 3 {
        0 => (None, vec![0; seats], Reason::TurnLimit),
        w => {
            let w = (w as usize - 1) % seats;
            let ranks = (0..seats).map(|s| u8::from(s != w)).collect();
            (Some(w), ranks, Reason::Win)
        }
    };
    let stats = SeatStats {
        turns: 30,
        total_us: 30 * 20_000,
        max_us: 40_000,
        cpu_total_us: 30 * 18_000,
        cpu_max_us: 38_000,
        ..SeatStats::default()
    };
    let result = GameResult {
        game: "impasse".into(),
        seed: game.seed,
        bots: game.bots.clone(),
        opening: Vec::new(),
        winner,
        ranks,
        reason,
        detail: String::new(),
        offender: None,
        forfeits: Vec::new(),
        turns: 60,
        scores: vec![0; seats],
        game_scores: vec![0; seats],
        stats: vec![stats; seats],
        moves: (0..60)
            .map(|k| {
                format!(
                    "{}{}-{}",
                    (b'a' + (k % 8) as u8) as char,
                    k % 8 + 1,
                    k % 7 + 1
                )
            })
            .collect(),
        log: Vec::new(),
        stderr_tails: Vec::new(),
        stderr_bytes: vec![0; seats],
        duration: Duration::from_secs(1),
        sdk: None,
    };
    ResultRequest {
        session: session.to_string(),
        game_id: game.game_id,
        result,
        log: Vec::new(),
        stderr_tails: vec![String::new(); seats],
        duration_us: 1_000_000,
    }
}

/// What the simulated workers of one run count.
#[derive(Default)]
struct Tally {
    leases: AtomicU64,
    results: AtomicU64,
    /// Requests whose connection was refused or cut (tried again).
    retried: AtomicU64,
    lease_us: Mutex<Vec<u32>>,
    result_us: Mutex<Vec<u32>>,
    failure: Mutex<Option<String>>,
}

fn micros(t: Instant) -> u32 {
    t.elapsed().as_micros().min(u128::from(u32::MAX)) as u32
}

/// Sends one request; a connection refused or cut is counted and tried again after a second,
/// as a worker does (its first back-off).
fn post(
    t: &Tally,
    url: &str,
    path: &str,
    token: &str,
    body: &impl Serialize,
) -> Result<net::Answer, String> {
    let body = serde_json::to_vec(body).expect("serialises");
    let a = loop {
        match net::call(
            url,
            "POST",
            path,
            token,
            Some(&body),
            Duration::from_secs(120),
        ) {
            Ok(a) => break a,
            Err(e) if e.transient() => {
                t.retried.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    if a.ok() {
        Ok(a)
    } else {
        Err(format!("{path}: {} {}", a.status, a.text()))
    }
}

/// One simulated worker: registers, then leases and returns games until `stop`.
fn simulated(url: &str, token: &str, t: &Tally, stop: &AtomicBool) -> Result<(), String> {
    let info = Register {
        version: VERSION.into(),
        host: "load-test".into(),
        cores: 1,
        memory_mb: 1024,
        sandbox: true,
        bench_ms: 10.0,
        concurrency: 1,
    };
    let a = post(t, url, "/api/work/register", token, &info)?;
    let reg: Registered = serde_json::from_slice(&a.body).map_err(|e| e.to_string())?;
    let (mut lease_us, mut result_us) = (Vec::new(), Vec::new());
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let ask = LeaseRequest {
            session: reg.session.clone(),
            slots: 1,
            wait_ms: 1000,
        };
        let began = Instant::now();
        let a = post(t, url, "/api/work/lease", token, &ask)?;
        lease_us.push(micros(began));
        let leased: Leased = serde_json::from_slice(&a.body).map_err(|e| e.to_string())?;
        t.leases
            .fetch_add(leased.games.len() as u64, Ordering::Relaxed);
        for g in &leased.games {
            n += 1;
            let began = Instant::now();
            post(
                t,
                url,
                "/api/work/result",
                token,
                &fabricated(&reg.session, &g.game, n),
            )?;
            result_us.push(micros(began));
            t.results.fetch_add(1, Ordering::Relaxed);
        }
    }
    t.lease_us.lock().unwrap().extend(lease_us);
    t.result_us.lock().unwrap().extend(result_us);
    Ok(())
}

/// Runs `workers` simulated workers until `done` says so (checked every 50 ms) and returns the
/// tally and the time taken.
fn run_workers(
    server: &Server,
    token: &str,
    workers: usize,
    mut done: impl FnMut(&Tally, Duration) -> bool,
) -> Result<(Arc<Tally>, Duration), LoadError> {
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(AtomicBool::new(false));
    let began = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|k| {
            let (url, token, t, stop) = (
                server.url.clone(),
                token.to_string(),
                tally.clone(),
                stop.clone(),
            );
            std::thread::Builder::new()
                .name(format!("load-{k}"))
                .stack_size(256 << 10)
                .spawn(move || {
                    if let Err(e) = simulated(&url, &token, &t, &stop) {
                        t.failure.lock().unwrap().get_or_insert(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                })
                .expect("a thread starts")
        })
        .collect();
    while !stop.load(Ordering::Relaxed) && !done(&tally, began.elapsed()) {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let took = began.elapsed();
    for t in threads {
        let _ = t.join();
    }
    if let Some(e) = tally.failure.lock().unwrap().take() {
        return Err(LoadError::Worker(e));
    }
    Ok((tally, took))
}

/// The floor: `workers` threads asking for a page that is not there, for `time`.
fn floor(server: &Server, workers: usize, time: Duration) -> (f64, Latency) {
    let all = Arc::new(Mutex::new(Vec::new()));
    let began = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let (url, all) = (server.url.clone(), all.clone());
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    let mut mine = Vec::new();
                    while began.elapsed() < time {
                        let t = Instant::now();
                        if net::call(
                            &url,
                            "GET",
                            "/load-test-floor",
                            "",
                            None,
                            Duration::from_secs(60),
                        )
                        .is_ok()
                        {
                            mine.push(micros(t));
                        }
                    }
                    all.lock().unwrap().extend(mine);
                })
                .expect("a thread starts")
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    let took = began.elapsed().as_secs_f64();
    let us = std::mem::take(&mut *all.lock().unwrap());
    (us.len() as f64 / took, Latency::of(us))
}

/// Runs the load test, telling `progress` what it does.
pub fn run(cfg: &LoadConfig, mut progress: impl FnMut(&str)) -> Result<LoadReport, LoadError> {
    progress(&format!("starting a league of {} bots", cfg.bots));
    let (server, token) = start(cfg)?;
    let rss_mib_start = server.rss_mib();
    let mut phases = Vec::new();
    for &w in &cfg.workers {
        progress(&format!("floor: {w} threads asking for a missing page"));
        let cpu0 = server.cpu();
        let (floor_per_s, floor_lat) = floor(&server, w, Duration::from_secs(5));
        let floor_cpu_us = (server.cpu() - cpu0).as_secs_f64() * 1e6 / (floor_per_s * 5.0).max(1.0);
        progress(&format!(
            "{w} simulated workers, up to {} results or {} s",
            cfg.phase_results,
            cfg.phase_limit.as_secs()
        ));
        let cpu0 = server.cpu();
        let (tally, took) = run_workers(&server, &token, w, |t, e| {
            t.results.load(Ordering::Relaxed) >= cfg.phase_results || e >= cfg.phase_limit
        })?;
        let cpu = (server.cpu() - cpu0).as_secs_f64();
        let secs = took.as_secs_f64();
        let results = tally.results.load(Ordering::Relaxed);
        phases.push(Phase {
            workers: w,
            seconds: secs,
            results,
            retried: tally.retried.load(Ordering::Relaxed),
            leases_per_s: tally.leases.load(Ordering::Relaxed) as f64 / secs,
            results_per_s: results as f64 / secs,
            lease: Latency::of(std::mem::take(&mut *tally.lease_us.lock().unwrap())),
            result: Latency::of(std::mem::take(&mut *tally.result_us.lock().unwrap())),
            floor_per_s,
            floor: floor_lat,
            floor_cpu_us,
            server_cpu: cpu / secs,
            cpu_us_per_result: cpu * 1e6 / results.max(1) as f64,
            rss_mib_after: server.rss_mib(),
        });
    }
    let before: u64 = phases.iter().map(|p| p.results).sum();
    progress(&format!(
        "memory: {} simulated workers up to {} results in all",
        cfg.memory_workers, cfg.memory_results
    ));
    let step = (cfg.memory_results / 10).max(1);
    let mut samples = vec![(before, server.rss_mib())];
    let mut next = (before / step + 1) * step;
    let (tally, took) = run_workers(&server, &token, cfg.memory_workers, |t, e| {
        let total = before + t.results.load(Ordering::Relaxed);
        if total >= next {
            samples.push((total, server.rss_mib()));
            next += step;
        }
        total >= cfg.memory_results || e >= cfg.memory_limit
    })?;
    let results = tally.results.load(Ordering::Relaxed);
    samples.push((before + results, server.rss_mib()));
    Ok(LoadReport {
        bots: cfg.bots,
        rss_mib_start,
        phases,
        memory: MemoryRun {
            workers: cfg.memory_workers,
            samples,
            seconds: took.as_secs_f64(),
            results_per_s: results as f64 / took.as_secs_f64(),
        },
    })
}

/// The bot the load test's league is made of: arbiter-bot-first beside `arbiter`.
pub fn default_bot(arbiter: &Path) -> PathBuf {
    arbiter.with_file_name("arbiter-bot-first")
}
