//! `arbiter league work URL --token T`: a worker on another machine. It connects out only (no
//! port of its own), registers with the league ([`super::remote`]), and runs `--concurrency`
//! threads that each long-poll for a game, fetch its bots by hash (checked, cached in the cache
//! folder, built in the build box as `league add` builds them on the server), play it with the
//! same engine, sandbox and clock as the server's own workers ([`super::play`]), and send the
//! result as soon as it is finished. One more thread renews the lease while games are played.
//! A server that cannot be reached is tried again with back-off (said on stderr); a server that
//! restarted is registered with again; a refused token or version ends the worker with the
//! server's reason.

pub mod net;

use super::bundle;
use super::folder::{BotEntry, LeagueSettings};
use super::play::{self, Table};
use super::remote::{
    BotRef, LeaseRequest, Leased, Register, Registered, Renew, Reply, ResultRequest, LONG_POLL,
    VERSION,
};
use crate::bot::BotSpec;
use net::{Answer, NetError};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest pause between two tries to reach a lost server.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A worker that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    #[error("the league at {url} refused this worker: {why}")]
    Refused { url: String, why: String },
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("the league at {url} answered {status}: {why}")]
    Answer {
        url: String,
        status: u16,
        why: String,
    },
    #[error("this worker cannot play the league's game: {0}")]
    Game(String),
    #[error("the cache folder {}: {source}", path.display())]
    Cache {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// How a worker is asked to work.
pub struct Options {
    pub url: String,
    pub token: String,
    pub concurrency: usize,
    /// Where fetched bots are kept (by hash) and built.
    pub cache: PathBuf,
}

struct Worker {
    opts: Options,
    info: Register,
    session: Mutex<String>,
    lease: Mutex<Duration>,
    table: Table,
    /// Bots ready to play, by archive and BOT argument (or why they cannot play).
    bots: Mutex<HashMap<BotRef, Result<BotSpec, String>>>,
    /// One fetch at a time (two threads wanting the same bot fetch it once).
    fetching: Mutex<()>,
    stop: AtomicBool,
    fatal: Mutex<Option<WorkError>>,
}

/// Runs a worker until the league tells it to stop or refuses it.
pub fn work(opts: Options) -> Result<(), WorkError> {
    let bots_dir = opts.cache.join("bots");
    std::fs::create_dir_all(&bots_dir).map_err(|source| WorkError::Cache {
        path: bots_dir.clone(),
        source,
    })?;
    let info = describe(opts.concurrency);
    let reg = register(&opts, &info)?;
    let settings = LeagueSettings {
        seed: 0,
        workdir: opts.cache.clone(),
        game: reg.game.clone(),
        matchmaking: Default::default(),
        upload: Default::default(),
    };
    let table = play::table(&settings).map_err(|e| WorkError::Game(format!("{e:#}")))?;
    eprintln!(
        "arbiter: working for the league at {} as {} ({} at once)",
        opts.url, reg.session, opts.concurrency
    );
    if let Some(note) = &reg.note {
        eprintln!("arbiter: the league gives this worker no games: {note}");
    }
    let w = Arc::new(Worker {
        info,
        session: Mutex::new(reg.session),
        lease: Mutex::new(Duration::from_millis(reg.lease_ms)),
        table,
        bots: Mutex::default(),
        fetching: Mutex::new(()),
        stop: AtomicBool::new(false),
        fatal: Mutex::new(None),
        opts,
    });
    let mut threads = Vec::new();
    for k in 0..w.opts.concurrency.max(1) {
        let w = w.clone();
        threads.push(
            std::thread::Builder::new()
                .name(format!("league-work-{k}"))
                .spawn(move || play_loop(&w))
                .expect("a thread starts"),
        );
    }
    {
        let w = w.clone();
        std::thread::Builder::new()
            .name("league-renew".into())
            .spawn(move || renew_loop(&w))
            .expect("a thread starts");
    }
    for t in threads {
        let _ = t.join();
    }
    let fatal = w.fatal.lock().unwrap().take();
    match fatal {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What this machine says of itself.
fn describe(concurrency: usize) -> Register {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let memory_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024);
    Register {
        version: VERSION.into(),
        host,
        cores: crate::tournament::allowed_cpus().len(),
        memory_mb,
        sandbox: crate::bot::sandbox::bwrap().is_some(),
        bench_ms: bench().as_secs_f64() * 1000.0,
        concurrency,
    }
}

/// A quick CPU figure: the time to hash 8 MiB, the fastest of 8 tries of 1 MiB each times 8
/// (a machine slow or busy all along shows it; a moment's load elsewhere does not).
pub fn bench() -> Duration {
    use sha2::Digest;
    let data = vec![7u8; 1 << 20];
    let fastest = (0..8)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(sha2::Sha256::digest(std::hint::black_box(&data)));
            t.elapsed()
        })
        .min()
        .unwrap_or_default();
    fastest * 8
}

/// Calls the league, trying again with back-off while it cannot be reached.
fn call(
    opts: &Options,
    path: &str,
    body: Option<&[u8]>,
    wait: Duration,
) -> Result<Answer, NetError> {
    let method = if body.is_some() { "POST" } else { "GET" };
    let mut pause = Duration::from_secs(1);
    let mut lost = false;
    loop {
        match net::call(&opts.url, method, path, &opts.token, body, wait) {
            Ok(a) => {
                if lost {
                    eprintln!("arbiter: reached the league at {} again", opts.url);
                }
                return Ok(a);
            }
            Err(e) if e.transient() => {
                eprintln!(
                    "arbiter: lost the league: {e}; trying again in {}s",
                    pause.as_secs()
                );
                lost = true;
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_BACKOFF);
            }
            Err(e) => return Err(e),
        }
    }
}

/// A refusal that ends the worker (token, version), or another failed answer.
fn failed(opts: &Options, a: &Answer) -> WorkError {
    match a.status {
        401 | 403 | 409 => WorkError::Refused {
            url: opts.url.clone(),
            why: a.text(),
        },
        status => WorkError::Answer {
            url: opts.url.clone(),
            status,
            why: a.text(),
        },
    }
}

fn register(opts: &Options, info: &Register) -> Result<Registered, WorkError> {
    let body = serde_json::to_vec(info).expect("serialises");
    let a = call(
        opts,
        "/api/work/register",
        Some(&body),
        Duration::from_secs(60),
    )?;
    if !a.ok() {
        return Err(failed(opts, &a));
    }
    serde_json::from_slice(&a.body).map_err(|e| WorkError::Answer {
        url: opts.url.clone(),
        status: a.status,
        why: format!("not a registration: {e}"),
    })
}

impl Worker {
    fn session(&self) -> String {
        self.session.lock().unwrap().clone()
    }

    /// Ends the worker with `e` (the first reason is kept).
    fn fail(&self, e: WorkError) {
        self.fatal.lock().unwrap().get_or_insert(e);
        self.stop.store(true, Ordering::Relaxed);
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Calls the league with a request made for the current session; registers again when
    /// the server no longer knows it (it restarted). `None`: the worker stops.
    fn post<T: serde::Serialize>(
        &self,
        path: &str,
        make: impl Fn(String) -> T,
        wait: Duration,
    ) -> Option<Answer> {
        loop {
            let body = serde_json::to_vec(&make(self.session())).expect("serialises");
            let a = match call(&self.opts, path, Some(&body), wait) {
                Ok(a) => a,
                Err(e) => {
                    self.fail(e.into());
                    return None;
                }
            };
            if a.status == 410 {
                eprintln!(
                    "arbiter: the league forgot this worker ({}); registering again",
                    a.text()
                );
                match register(&self.opts, &self.info) {
                    Ok(reg) => {
                        *self.session.lock().unwrap() = reg.session;
                        *self.lease.lock().unwrap() = Duration::from_millis(reg.lease_ms);
                        continue;
                    }
                    Err(e) => {
                        self.fail(e);
                        return None;
                    }
                }
            }
            if !a.ok() {
                if matches!(a.status, 401 | 403 | 409) {
                    self.fail(failed(&self.opts, &a));
                    return None;
                }
                eprintln!("arbiter: the league answered {}: {}", a.status, a.text());
            }
            return Some(a);
        }
    }

    /// The bot `r` ready to play: fetched (checked against its hash), unpacked and built once.
    fn bot(&self, name: &str, r: &BotRef) -> Result<BotSpec, String> {
        let _one = self.fetching.lock().unwrap();
        if let Some(done) = self.bots.lock().unwrap().get(r) {
            return done.clone();
        }
        let dir = self.opts.cache.join("bots").join(&r.hash);
        let done = self.fetch(name, &r.hash, &dir).and_then(|()| {
            let entry = BotEntry {
                name: name.to_string(),
                origin: r.origin.clone(),
                workdir: dir.clone(),
                removed: false,
                candidate_of: None,
            };
            play::check(&entry, &self.table.referee)
        });
        self.bots.lock().unwrap().insert(r.clone(), done.clone());
        done
    }

    /// Makes sure archive `hash` is unpacked in `dir`.
    fn fetch(&self, name: &str, hash: &str, dir: &std::path::Path) -> Result<(), String> {
        let mark = dir.join(".complete");
        if mark.exists() {
            return Ok(());
        }
        let a = call(
            &self.opts,
            &format!("/api/work/bot/{hash}"),
            None,
            Duration::from_secs(600),
        )
        .map_err(|e| e.to_string())?;
        if !a.ok() {
            return Err(format!("fetching bot {name}: {} {}", a.status, a.text()));
        }
        let got = bundle::hash(&a.body);
        if got != hash {
            return Err(format!(
                "bot {name} arrived damaged (its hash is {got}, not {hash}); it is fetched again \
                 next time"
            ));
        }
        let tmp = dir.with_extension(format!("part-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        bundle::unpack(name, &a.body, &tmp).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&tmp, dir)
            .and_then(|()| std::fs::write(&mark, hash))
            .map_err(|e| format!("keeping bot {name} in {}: {e}", dir.display()))
    }
}

fn play_loop(w: &Worker) {
    while !w.stopping() {
        let Some(a) = w.post(
            "/api/work/lease",
            |session| LeaseRequest {
                session,
                slots: 1,
                wait_ms: LONG_POLL.as_millis() as u64,
            },
            LONG_POLL + Duration::from_secs(30),
        ) else {
            return;
        };
        let leased: Leased = match serde_json::from_slice(&a.body) {
            Ok(l) if a.ok() => l,
            _ => {
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
        };
        *w.lease.lock().unwrap() = Duration::from_millis(leased.lease_ms);
        for lg in leased.games {
            let bots: Result<Vec<BotSpec>, String> = lg
                .game
                .bots
                .iter()
                .zip(&lg.bots)
                .map(|(name, r)| w.bot(name, r))
                .collect();
            let bots = match bots {
                Ok(b) => b,
                Err(why) => {
                    // Its lease runs out and another worker plays it.
                    eprintln!(
                        "arbiter: cannot play game {}: {}",
                        lg.game.game_id,
                        crate::protocol::printable_lines(&why)
                    );
                    continue;
                }
            };
            let mut f = play::play(&w.table, &bots, &lg.game);
            let log = std::mem::take(&mut f.result.log);
            let stderr_tails = std::mem::take(&mut f.result.stderr_tails);
            let duration_us = f.result.duration.as_micros() as u64;
            let result = f.result;
            let Some(a) = w.post(
                "/api/work/result",
                |session| ResultRequest {
                    session,
                    game_id: lg.game.game_id,
                    result: result.clone(),
                    log: log.clone(),
                    stderr_tails: stderr_tails.clone(),
                    duration_us,
                },
                Duration::from_secs(120),
            ) else {
                return;
            };
            if let Ok(reply) = serde_json::from_slice::<Reply>(&a.body) {
                if reply.voided {
                    eprintln!(
                        "arbiter: game {} was voided: a bot timed out after waiting for a CPU \
                         (this machine was too busy for it); it is played again, and this \
                         worker pauses (play fewer games at once with {}, or stop other \
                         work here)",
                        lg.game.game_id,
                        crate::options::Opt::Concurrency
                    );
                } else if !reply.accepted {
                    eprintln!(
                        "arbiter: game {} had a result already (its lease ran out): dropped",
                        lg.game.game_id
                    );
                }
                if reply.stop {
                    w.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Renews this worker's leases three times per lease time.
fn renew_loop(w: &Worker) {
    while !w.stopping() {
        let every = (*w.lease.lock().unwrap() / 3).max(Duration::from_millis(200));
        std::thread::sleep(every);
        let Some(a) = w.post(
            "/api/work/renew",
            |session| Renew { session },
            Duration::from_secs(30),
        ) else {
            return;
        };
        if let Ok(reply) = serde_json::from_slice::<Reply>(&a.body) {
            if reply.stop {
                w.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}
