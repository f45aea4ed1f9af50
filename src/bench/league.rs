//! `arbiter bench league`: a load test of the league server's worker door
//! ([`crate::league::remote`]).
//! A real server (`arbiter league serve`, a child process, so that its CPU time and memory are
//! its own) on a loopback port with no local workers, and simulated workers: threads that speak
//! the worker protocol with the worker's own HTTP client ([`crate::league::client`], one
//! connection per request, as `league work` does), register, lease one game at a time and send back a
//! fabricated result at once (no game is played: the server's cost alone is measured). Each
//! phase is bounded in results and in time.
//!
//! Against a floor measured in the same run: the same number of threads asking the same server
//! for a page that does not exist (an HTTP round trip the server answers with no work). Then a
//! long run to `memory_results` results, with the server's resident memory sampled on the way:
//! what grows with the games played shows there.

use crate::league::client::{Client, ClientError};
use crate::league::locks::Locked;
use crate::league::scheduler::LeagueGame;
use crate::league::wire::{LeaseRequest, Register, ResultRequest, PROTOCOL, VERSION};
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
    #[error("the league server did not answer: {0}")]
    NotAnswering(ClientError),
    #[error("a simulated worker failed: {0}")]
    Worker(ClientError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Token(#[from] crate::league::tokens::TokenError),
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
    /// The public pages' client (no token).
    client: Client,
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

    /// The standings, as the page's script reads them.
    fn standings(&self) -> Result<serde_json::Value, LoadError> {
        self.client.standings().map_err(LoadError::NotAnswering)
    }
}

/// Simulated workers per worker token: under the league's cap of sessions a token may hold
/// (`[workers] sessions_per_token`, 64 unless set).
const WORKERS_PER_TOKEN: usize = 32;

fn start(cfg: &LoadConfig) -> Result<Server, LoadError> {
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
    let client = match Client::new(&url, None, Duration::from_secs(10)) {
        Ok(c) => c.waiting(Duration::from_secs(60)),
        Err(e) => {
            let _ = child.kill();
            return Err(LoadError::NotServing(e.to_string()));
        }
    };
    let server = Server {
        child,
        url,
        client,
        dir,
    };
    // Every bot checked (test-started) and playing.
    let began = Instant::now();
    let limit = Duration::from_secs(300);
    loop {
        let s = server.standings()?;
        let bots = s["bots"].as_array().map_or(&[][..], Vec::as_slice);
        let playing = bots.iter().filter(|b| b["status"] == "playing").count();
        if playing == cfg.bots {
            break;
        }
        if began.elapsed() > limit {
            return Err(LoadError::NotReady(limit, s.to_string()));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(server)
}

/// Worker tokens for `workers` simulated workers of run `run`, each token's own (a run's
/// sessions are still live when the next run starts).
fn tokens_for(server: &Server, run: usize, workers: usize) -> Result<Vec<String>, LoadError> {
    let league = server.dir.join("league");
    (0..workers.div_ceil(WORKERS_PER_TOKEN).max(1))
        .map(|k| {
            Ok(crate::league::tokens::issue(
                &league,
                &format!("load-{run}-{k}"),
            )?)
        })
        .collect()
}

/// A result as a worker would send it for `game`, made up (the `n`th of its worker): a draw,
/// seat 0's win and seat 1's win in turn, from a point of the turn its session picks, so that
/// a worker's results favour no seat, and neither do the first results of many workers started
/// at once (the quarantine tests' honest workers send these too).
pub fn fabricated(session: &str, game: &LeagueGame, n: u64) -> ResultRequest {
    let seats = game.bots.len();
    let start = session.bytes().map(u64::from).sum::<u64>();
    let (winner, ranks, reason) = match (n + start) % 3 {
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
struct LoadTally {
    leases: AtomicU64,
    results: AtomicU64,
    /// Requests whose connection was refused or cut (tried again).
    retried: AtomicU64,
    lease_us: Mutex<Vec<u32>>,
    result_us: Mutex<Vec<u32>>,
    failure: Mutex<Option<ClientError>>,
}

fn micros(t: Instant) -> u32 {
    t.elapsed().as_micros().min(u128::from(u32::MAX)) as u32
}

/// Makes one call; a connection refused or cut is counted and tried again after a second, as
/// a worker does (its first back-off).
fn post<T>(t: &LoadTally, ask: impl Fn() -> Result<T, ClientError>) -> Result<T, ClientError> {
    loop {
        match ask() {
            Err(e) if e.transient() => {
                t.retried.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_secs(1));
            }
            done => return done,
        }
    }
}

/// One simulated worker: registers, then leases and returns games until `stop`.
fn simulated(client: &Client, t: &LoadTally, stop: &AtomicBool) -> Result<(), ClientError> {
    let info = Register {
        version: VERSION.into(),
        host: "load-test".into(),
        cores: 1,
        memory_mb: 1024,
        sandbox: true,
        bench_ms: 10.0,
        concurrency: 1,
        protocol: PROTOCOL,
    };
    let reg = post(t, || client.register(&info))?;
    let (mut lease_us, mut result_us) = (Vec::new(), Vec::new());
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let ask = LeaseRequest {
            session: reg.session.clone(),
            slots: 1,
            wait_ms: 1000,
        };
        let began = Instant::now();
        let leased = post(t, || client.lease(&ask))?;
        lease_us.push(micros(began));
        t.leases
            .fetch_add(leased.games.len() as u64, Ordering::Relaxed);
        for g in &leased.games {
            n += 1;
            let began = Instant::now();
            let done = fabricated(&reg.session, &g.game, n);
            post(t, || client.result(&done))?;
            result_us.push(micros(began));
            t.results.fetch_add(1, Ordering::Relaxed);
        }
    }
    t.lease_us.locked().extend(lease_us);
    t.result_us.locked().extend(result_us);
    Ok(())
}

/// Runs `workers` simulated workers until `done` says so (checked every 50 ms) and returns the
/// tally and the time taken.
fn run_workers(
    server: &Server,
    tokens: &[String],
    workers: usize,
    mut done: impl FnMut(&LoadTally, Duration) -> bool,
) -> Result<(Arc<LoadTally>, Duration), LoadError> {
    let clients = tokens
        .iter()
        .map(|token| {
            let client = Client::new(&server.url, Some(token), Duration::from_secs(10))?;
            Ok(client.waiting(Duration::from_secs(120)))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(LoadError::Worker)?;
    let tally = Arc::new(LoadTally::default());
    let stop = Arc::new(AtomicBool::new(false));
    let began = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|k| {
            let client = clients[(k / WORKERS_PER_TOKEN).min(clients.len() - 1)].clone();
            let (t, stop) = (tally.clone(), stop.clone());
            std::thread::Builder::new()
                .name(format!("load-{k}"))
                .stack_size(256 << 10)
                .spawn(move || {
                    if let Err(e) = simulated(&client, &t, &stop) {
                        t.failure.locked().get_or_insert(e);
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
    if let Some(e) = tally.failure.locked().take() {
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
            let (client, all) = (server.client.clone(), all.clone());
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    let mut mine = Vec::new();
                    while began.elapsed() < time {
                        let t = Instant::now();
                        if client.probe("/load-test-floor").is_ok() {
                            mine.push(micros(t));
                        }
                    }
                    all.locked().extend(mine);
                })
                .expect("a thread starts")
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    let took = began.elapsed().as_secs_f64();
    let us = std::mem::take(&mut *all.locked());
    (us.len() as f64 / took, Latency::of(us))
}

/// Runs the load test, telling `progress` what it does.
pub fn run(cfg: &LoadConfig, mut progress: impl FnMut(&str)) -> Result<LoadReport, LoadError> {
    progress(&format!("starting a league of {} bots", cfg.bots));
    let server = start(cfg)?;
    let rss_mib_start = server.rss_mib();
    let mut phases = Vec::new();
    for (run, &w) in cfg.workers.iter().enumerate() {
        let tokens = tokens_for(&server, run, w)?;
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
        let (tally, took) = run_workers(&server, &tokens, w, |t, e| {
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
            lease: Latency::of(std::mem::take(&mut *tally.lease_us.locked())),
            result: Latency::of(std::mem::take(&mut *tally.result_us.locked())),
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
    let tokens = tokens_for(&server, cfg.workers.len(), cfg.memory_workers)?;
    let (tally, took) = run_workers(&server, &tokens, cfg.memory_workers, |t, e| {
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
