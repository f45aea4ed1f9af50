//! `arbiter league work URL --token T`: a worker on another machine. It connects out only (no
//! port of its own), registers with the league ([`super::remote`]), and plays on the engine's
//! runner with `--concurrency` workers, as the server's own workers do: each is dealt a game by
//! a long poll of the league, its bots fetched by hash (checked, cached in the cache folder,
//! built in the build box as `league add` builds them on the server), played with the same
//! engine, sandbox and clock, and its result sent as soon as it is finished. One more thread renews the lease while games are played.
//! A server that cannot be reached is tried again with back-off (said on stderr); a server that
//! restarted is registered with again; a refused token or version ends the worker with the
//! server's reason.

use super::bundle;
use super::client::{Client, ClientError};
use super::folder::BotEntry;
use super::play::{self, PlaySetup};
use super::settings::LeagueSettings;
use super::wire::{
    bench, BotRef, LeaseRequest, LeasedGame, Register, Registered, Release, Renew, ResultRequest,
    LONG_POLL, PROTOCOL, VERSION,
};
use crate::bot::BotSpec;
use crate::league::locks::Locked;
use crate::tournament::{Deal, Dealt, Finished, FinishedOrNot, Opening};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest pause between two tries to reach a lost server.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// The pause after giving back a game whose bot this worker could not fetch or ready.
const CANNOT_PLAY_PAUSE: Duration = Duration::from_secs(5);
/// How long a bot that failed its check here is not checked again.
const RECHECK_AFTER: Duration = Duration::from_secs(60);

/// A worker that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    #[error("the league at {url} refused this worker: {why}")]
    Refused { url: String, why: String },
    #[error(transparent)]
    Net(#[from] ClientError),
    #[error("the league at {url} answered {status}: {why}")]
    Answer {
        url: String,
        status: u16,
        why: String,
    },
    #[error("this worker cannot play the league's game: {0}")]
    Game(String),
    #[error(
        "bot {name} arrived damaged (its hash is {got}, not {want}); it is fetched again next time"
    )]
    Damaged {
        name: String,
        got: String,
        want: String,
    },
    #[error(transparent)]
    Unpack(#[from] bundle::BundleError),
    #[error("keeping bot {name} in {}: {source}; is the cache folder's disk full?", dir.display())]
    Keep {
        name: String,
        dir: PathBuf,
        source: std::io::Error,
    },
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

/// A bot ready to play, or why it cannot and since when (it is checked again after a while).
type Readied = Result<BotSpec, (String, Instant)>;

/// What changes while the worker runs, behind one lock ([`Worker::state`]), held only to read
/// or change it (a fetch, a check or a call to the league is made after it is dropped): its
/// registration changes as one (a new session with its server and lease time) when the
/// league forgot it or restarted.
struct WorkerState {
    session: String,
    /// The server's start it registered with ([`Registered::server`]).
    server: String,
    lease: Duration,
    /// Bots ready to play, by archive and BOT argument (or why they cannot play).
    bots: HashMap<BotRef, Readied>,
    /// Why the worker stops, if it does (the first reason).
    fatal: Option<WorkError>,
    /// Games leased and not yet dealt (a lease holds at most one: none is left in practice).
    pending: std::collections::VecDeque<LeasedGame>,
    /// The server's start each game in play was leased from ([`Registered::server`]).
    leased_from: HashMap<u64, String>,
}

struct Worker {
    opts: Options,
    client: Client,
    info: Register,
    state: Mutex<WorkerState>,
    table: PlaySetup,
    /// One fetch at a time (two threads wanting the same bot fetch it once); guards no state.
    fetching: Mutex<()>,
    stop: AtomicBool,
    /// When this machine cannot start games.
    backoff: super::backoff::Backoff,
}

/// Runs a worker until the league tells it to stop or refuses it.
pub fn work(opts: Options) -> Result<(), WorkError> {
    let bots_dir = opts.cache.join("bots");
    std::fs::create_dir_all(&bots_dir).map_err(|source| WorkError::Cache {
        path: bots_dir.clone(),
        source,
    })?;
    let info = describe(opts.concurrency);
    let client = Client::new(&opts.url, Some(&opts.token), Duration::from_secs(10))?;
    let reg = register(&client, &info)?;
    let settings = LeagueSettings {
        seed: 0,
        workdir: opts.cache.clone(),
        opening_plies: 0,
        openings: Default::default(),
        game: reg.game.clone(),
        matchmaking: Default::default(),
        upload: Default::default(),
        workers: Default::default(),
        http: Default::default(),
        page: Default::default(),
    };
    let table =
        play::table(&settings).map_err(|e| WorkError::Game(crate::errors::chain_text(&e)))?;
    eprintln!(
        "arbiter: working for the league at {} as {} ({} at once)",
        opts.url, reg.session, opts.concurrency
    );
    if let Some(note) = &reg.note {
        eprintln!("arbiter: the league says of this worker: {note}");
    }
    let w = Arc::new(Worker {
        info,
        state: Mutex::new(WorkerState {
            session: reg.session,
            server: reg.server,
            lease: Duration::from_millis(reg.lease_ms),
            bots: HashMap::new(),
            fatal: None,
            pending: Default::default(),
            leased_from: HashMap::new(),
        }),
        table,
        fetching: Mutex::new(()),
        stop: AtomicBool::new(false),
        backoff: Default::default(),
        opts,
        client,
    });
    {
        let w = w.clone();
        std::thread::Builder::new()
            .name("league-renew".into())
            .spawn(move || renew_loop(&w))
            .expect("a thread starts");
    }
    // The engine's runner plays what this worker is dealt, `--concurrency` games at once.
    let concurrency = w.opts.concurrency.max(1);
    let runner = crate::tournament::Runner::dealt(&w.table.choice, &w.table.referee, concurrency);
    let (tx, rx) = std::sync::mpsc::channel();
    // Every game is taken by the worker (its result sent to the league): none is handed here.
    runner.run_dealt(&*w, tx, rx, |queue, _| queue.into_iter().for_each(drop));
    let fatal = w.state().fatal.take();
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
        sandbox: crate::bot::host::bwrap().is_some(),
        bench_ms: bench().as_secs_f64() * 1000.0,
        concurrency,
        protocol: PROTOCOL,
    }
}

/// Makes call `ask` of the league, trying again with back-off while it cannot be reached.
/// Where this machine could not make the call (out of descriptors or memory), the league is
/// not lost: that is the machine's trouble, said once through `backoff` (where the worker has
/// one yet) with the games that cannot start meanwhile.
fn call<T>(
    url: &str,
    backoff: Option<&super::backoff::Backoff>,
    ask: impl Fn() -> Result<T, ClientError>,
) -> Result<T, ClientError> {
    let mut pause = Duration::from_secs(1);
    let mut lost = false;
    loop {
        match ask() {
            Err(e) if e.transient() => {
                match (e.machine(), backoff) {
                    (Some(fault), Some(b)) => {
                        let what = format!("this machine cannot reach the league ({e})");
                        std::thread::sleep(b.failed("this worker", fault, &what));
                        continue;
                    }
                    _ => eprintln!(
                        "arbiter: lost the league: {e}; trying again in {}s",
                        pause.as_secs()
                    ),
                }
                lost = true;
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_BACKOFF);
            }
            done => {
                if lost {
                    eprintln!("arbiter: reached the league at {url} again");
                }
                return done;
            }
        }
    }
}

/// A refusal that ends the worker (token, version), or another failed call.
fn failed(e: ClientError) -> WorkError {
    match e {
        ClientError::Status {
            url,
            status: 401 | 403 | 409,
            message,
            ..
        } => WorkError::Refused { url, why: message },
        ClientError::Status {
            url,
            status,
            message,
            ..
        } => WorkError::Answer {
            url,
            status,
            why: message,
        },
        ClientError::Decode { url, source, .. } => WorkError::Answer {
            url,
            status: 200,
            why: format!("not a registration: {source}"),
        },
        e => WorkError::Net(e),
    }
}

fn register(client: &Client, info: &Register) -> Result<Registered, WorkError> {
    call(client.url(), None, || client.register(info)).map_err(failed)
}

impl Worker {
    fn state(&self) -> std::sync::MutexGuard<'_, WorkerState> {
        self.state.locked()
    }

    fn session(&self) -> String {
        self.state().session.clone()
    }

    fn server(&self) -> String {
        self.state().server.clone()
    }

    fn lease_time(&self) -> Duration {
        self.state().lease
    }

    /// Ends the worker with `e` (the first reason is kept).
    fn fail(&self, e: WorkError) {
        self.state().fatal.get_or_insert(e);
        self.stop.store(true, Ordering::Relaxed);
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Makes call `ask` of the league for the current session; registers again when the
    /// server no longer knows it (it restarted), asks again while it takes no results (503).
    /// `None`: the worker stops (refused, or the league cannot be reached at its address);
    /// `Some(Err)`: another refusal (said here) or an answer it cannot read.
    fn post<T>(
        &self,
        ask: impl Fn(&Client, String) -> Result<T, ClientError>,
    ) -> Option<Result<T, ClientError>> {
        let (mut pause, mut said) = (Duration::from_secs(1), false);
        loop {
            let e = match call(&self.opts.url, Some(&self.backoff), || {
                ask(&self.client, self.session())
            }) {
                Ok(t) => return Some(Ok(t)),
                Err(e) => e,
            };
            match e.status() {
                Some(410) => match register(&self.client, &self.info) {
                    Ok(reg) => {
                        let session = reg.session.clone();
                        let restarted = {
                            let mut state = self.state();
                            let restarted = state.server != reg.server;
                            state.server = reg.server;
                            state.session = reg.session;
                            state.lease = Duration::from_millis(reg.lease_ms);
                            restarted
                        };
                        if restarted {
                            eprintln!(
                                "arbiter: the league's server restarted: registered again as \
                                 {session}"
                            );
                        } else {
                            let why = e.message().unwrap_or_default().trim_end();
                            eprintln!(
                                "arbiter: the league forgot this worker ({why}): registered \
                                 again as {session}"
                            );
                        }
                        continue;
                    }
                    Err(e) => {
                        self.fail(e);
                        return None;
                    }
                },
                // The league cannot record now: it is asked again, less and less often, until
                // it can (said once).
                Some(503) if !self.stopping() => {
                    if !said {
                        let why = e.message().unwrap_or_default();
                        eprintln!(
                            "arbiter: the league takes no results now: {why}; asking again \
                             every {}s at most",
                            MAX_BACKOFF.as_secs()
                        );
                        said = true;
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(MAX_BACKOFF);
                    continue;
                }
                Some(401 | 403 | 409) => {
                    self.fail(failed(e));
                    return None;
                }
                Some(status) => {
                    let why = e.message().unwrap_or_default();
                    eprintln!("arbiter: the league answered {status}: {why}");
                    return Some(Err(e));
                }
                None if matches!(e, ClientError::Decode { .. }) => return Some(Err(e)),
                None => {
                    self.fail(e.into());
                    return None;
                }
            }
        }
    }

    /// The bot `r` ready to play: fetched (checked against its hash), unpacked and built once.
    /// A check the machine failed is not kept: the bot is checked again next time; one the
    /// bot failed is kept for [`RECHECK_AFTER`] (the league checked it before it scheduled it,
    /// so what failed here may be this machine's passing trouble).
    fn bot(&self, name: &str, r: &BotRef) -> Result<BotSpec, play::NotChecked> {
        let _one = self.fetching.locked();
        match self.state().bots.get(r) {
            Some(Ok(spec)) => return Ok(spec.clone()),
            Some(Err((why, at))) if at.elapsed() < RECHECK_AFTER => {
                return Err(play::NotChecked::Broken(why.clone()))
            }
            _ => {}
        }
        let dir = self.opts.cache.join("bots").join(&r.hash);
        // A failed fetch is not kept: the next game fetches again (a server that restarted
        // has not made the archive before it leases a game of that bot again).
        self.fetch(name, &r.hash, &dir)
            .map_err(|e| play::NotChecked::Broken(fetching(name, e)))?;
        let done = {
            let entry = BotEntry {
                name: name.to_string(),
                origin: r.origin.clone(),
                workdir: dir.clone(),
                removed: false,
                candidate_of: None,
                sprt: None,
                suspended: None,
            };
            // The worker's check is its own: it tells nobody.
            let mut quiet = |_: &crate::engine::Event<'_>| std::ops::ControlFlow::Continue(());
            play::check(&entry, &self.table.referee, &mut quiet)
        };
        let kept = match &done {
            Ok(spec) => Ok(spec.clone()),
            Err(play::NotChecked::Broken(why)) => Err((why.clone(), Instant::now())),
            Err(play::NotChecked::Machine { .. }) => return done,
        };
        self.state().bots.insert(r.clone(), kept);
        done
    }

    /// Gives leased game `game_id` back to the league: this machine could not start it for
    /// `fault` (`why`). Says so once, then waits before the worker takes another; false: the
    /// worker stops.
    fn give_back(&self, game_id: u64, fault: crate::bot::MachineFault, why: &str) -> bool {
        let pause = self.backoff.failed("this worker", fault, why);
        self.release(game_id, why, pause)
    }

    /// Releases leased game `game_id` (`why`), then waits `pause` before the worker takes
    /// another game; false: the worker stops. A game this worker cannot play is never kept:
    /// its renewals would hold it (and this worker's slot) for ever.
    fn release(&self, game_id: u64, why: &str, pause: Duration) -> bool {
        self.state().leased_from.remove(&game_id);
        let answer = self.post(|client, session| {
            client.release(&Release {
                session,
                game_id,
                why: why.to_string(),
            })
        });
        if answer.is_none() {
            return false;
        }
        std::thread::sleep(pause);
        true
    }

    /// Makes sure archive `hash` is unpacked in `dir`.
    fn fetch(&self, name: &str, hash: &str, dir: &std::path::Path) -> Result<(), WorkError> {
        let mark = dir.join(".complete");
        if mark.exists() {
            return Ok(());
        }
        // The server sends a bot's archive to a session that holds one of its games only.
        let session = self.session();
        let bytes = call(&self.opts.url, Some(&self.backoff), || {
            self.client.bot_archive(hash, &session)
        })?;
        let got = bundle::hash(&bytes);
        if got != hash {
            return Err(WorkError::Damaged {
                name: name.into(),
                got,
                want: hash.into(),
            });
        }
        let tmp = dir.with_extension(format!("part-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        bundle::unpack(name, &bytes, &tmp)?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&tmp, dir)
            .and_then(|()| std::fs::write(&mark, hash))
            .map_err(|source| WorkError::Keep {
                name: name.into(),
                dir: dir.to_path_buf(),
                source,
            })
    }
}

/// The worker's games as the engine's runner deals them to its `--concurrency` workers: each
/// leases one game at a time from the league (a long poll), readies its bots, and plays it from
/// the opening the league told; its result is sent the moment it ends, on that worker's thread.
/// A game a worker cannot ready or start goes back to the league. Nothing is handed to the
/// runner's consumer: the league records.
impl Deal for Worker {
    fn next(&self, _worker: usize, halt: &AtomicBool) -> Option<Dealt> {
        loop {
            if self.stopping() || halt.load(Ordering::Relaxed) {
                return None;
            }
            let lg = match self.leased() {
                Leasing::Game(lg) => lg,
                Leasing::Again => continue,
                Leasing::Stop => return None,
            };
            let bots: Result<Vec<BotSpec>, play::NotChecked> = lg
                .game
                .bots
                .iter()
                .zip(&lg.bots)
                .map(|(name, r)| self.bot(name, r))
                .collect();
            let bots = match bots {
                Ok(b) => b,
                Err(play::NotChecked::Machine { fault, detail }) => {
                    if !self.give_back(lg.game.game_id, fault, &detail) {
                        return None;
                    }
                    continue;
                }
                Err(play::NotChecked::Broken(why)) => {
                    // The league checked its bots before it scheduled them: one that cannot be
                    // fetched or readied here is this worker's trouble. The game goes back at
                    // once for another worker (or this one, after a pause).
                    eprintln!(
                        "arbiter: cannot play game {} here: {}; it goes back to the league, \
                         and this worker pauses {} s",
                        lg.game.game_id,
                        crate::protocol::printable_lines(&why),
                        CANNOT_PLAY_PAUSE.as_secs()
                    );
                    if !self.release(lg.game.game_id, &why, CANNOT_PLAY_PAUSE) {
                        return None;
                    }
                    continue;
                }
            };
            return Some(Dealt {
                spec: play::spec_of(&lg.game, bots.len()),
                bots,
                opening: Opening::Told(lg.opening),
            });
        }
    }

    fn most(&self) -> Option<usize> {
        None
    }

    fn ahead(&self) -> bool {
        false
    }

    fn ended(&self, _worker: usize, ended: FinishedOrNot) -> Option<FinishedOrNot> {
        match ended {
            Ok(f) => {
                self.backoff.started("this worker");
                self.send_result(f);
            }
            Err(unplayed) => {
                // No bot lost it: the league gives it to another worker (or this one, once
                // its machine can start games again). A false: the worker stops (its next
                // deal says so).
                let why = unplayed.to_string();
                let _ = self.give_back(unplayed.spec.game_id, unplayed.fault, &why);
            }
        }
        // Taken either way: the league records the game, from the result sent.
        None
    }
}

/// What one lease asked of the league came to.
enum Leasing {
    Game(LeasedGame),
    /// None now (or an answer it could not read): ask again.
    Again,
    /// The worker stops.
    Stop,
}

impl Worker {
    /// The next game leased to this worker: one left of the latest lease, else one leased now
    /// (a long poll), with the server's start it was leased from noted for its result.
    fn leased(&self) -> Leasing {
        if let Some(lg) = self.state().pending.pop_front() {
            return Leasing::Game(lg);
        }
        let Some(answer) = self.post(|client, session| {
            client.lease(&LeaseRequest {
                session,
                slots: 1,
                wait_ms: LONG_POLL.as_millis() as u64,
            })
        }) else {
            return Leasing::Stop;
        };
        let Ok(leased) = answer else {
            std::thread::sleep(Duration::from_secs(1));
            return Leasing::Again;
        };
        let mut state = self.state();
        state.lease = Duration::from_millis(leased.lease_ms);
        let server = state.server.clone();
        for lg in &leased.games {
            state.leased_from.insert(lg.game.game_id, server.clone());
        }
        state.pending.extend(leased.games);
        match state.pending.pop_front() {
            Some(lg) => Leasing::Game(lg),
            None => Leasing::Again,
        }
    }

    /// Sends the result of finished game `f` to the league, and says what the league did with
    /// it where it was not taken.
    fn send_result(&self, mut f: Finished) {
        let game_id = f.spec.game_id;
        // The server's start the game was leased from.
        let leased_from = self.state().leased_from.remove(&game_id);
        let log = std::mem::take(&mut f.result.log);
        let stderr_tails = std::mem::take(&mut f.result.stderr_tails);
        let duration_us = f.result.duration.as_micros() as u64;
        let result = f.result;
        let Some(answer) = self.post(|client, session| {
            client.result(&ResultRequest {
                session,
                game_id,
                result: result.clone(),
                log: log.clone(),
                stderr_tails: stderr_tails.clone(),
                duration_us,
            })
        }) else {
            return;
        };
        let Ok(reply) = answer else {
            return;
        };
        if reply.voided {
            eprintln!(
                "arbiter: game {game_id} was voided: a bot timed out after waiting for a CPU \
                 (this machine was too busy for it); it is played again, and this worker \
                 pauses (play fewer games at once with {}, or stop other work here)",
                crate::options::Opt::Concurrency
            );
        } else if !reply.accepted && leased_from.is_some_and(|s| s != self.server()) {
            eprintln!(
                "arbiter: the result of game {game_id} was dropped: the league's server \
                 restarted since it was leased, and plays it again"
            );
        } else if !reply.accepted {
            eprintln!(
                "arbiter: game {game_id} had a result already (its lease ran out and another \
                 worker played it): dropped"
            );
        }
        if reply.stop {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// Renews this worker's leases three times per lease time.
fn renew_loop(w: &Worker) {
    while !w.stopping() {
        let every = (w.lease_time() / 3).max(Duration::from_millis(200));
        std::thread::sleep(every);
        let Some(answer) = w.post(|client, session| client.renew(&Renew { session })) else {
            return;
        };
        if let Ok(reply) = answer {
            if reply.stop {
                w.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// Why bot `name` could not be fetched, as a game that cannot be played says it.
fn fetching(name: &str, e: WorkError) -> String {
    match e {
        WorkError::Net(ClientError::Status {
            status, message, ..
        }) => format!("fetching bot {name}: {status} {message}"),
        e => e.to_string(),
    }
}
