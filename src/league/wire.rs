//! The worker protocol's messages (JSON over HTTP), shared by the server's door
//! ([`super::remote`]), the worker ([`super::worker`]) and the one client of the API
//! ([`super::client`]), and its limits; also the bench figure both sides measure alike
//! ([`bench()`]: a worker's is held against the server's own). It imports only the scheduler's
//! and the SPRTs' types, so that the client and the worker import this, never the server's
//! modules.

use crate::engine::GameSettings;
use crate::league::scheduler::LeagueGame;
use crate::referee::{GameResult, TurnRecord};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The longest a lease request waits for a game.
pub const LONG_POLL: Duration = Duration::from_secs(20);
/// The largest result a worker may send (a game's turns included), in bytes.
pub const RESULT_LIMIT: usize = 64 << 20;
/// The largest body of any other worker's request (a registration, a lease, a renewal), in
/// bytes.
pub const REQUEST_LIMIT: usize = 64 << 10;
/// The version a worker must run: the server's own.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// What a worker of this build speaks beyond its version (builds of one version differ): 1, a
/// leased game's opening ([`LeasedGame::opening`]) is played. A worker that says less (0: it
/// predates the field) is refused by a league whose games start from openings, as it would
/// play them from the start; elsewhere it plays as it always did.
pub const PROTOCOL: u32 = 1;
/// The first protocol that plays a leased game's opening.
pub const PROTOCOL_OPENINGS: u32 = 1;

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

/// What a worker says of itself when it registers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Register {
    pub version: String,
    pub host: String,
    pub cores: usize,
    pub memory_mb: u64,
    /// Whether bots run in arbiter's sandbox there.
    pub sandbox: bool,
    /// A quick CPU figure ([`bench()`], in milliseconds; lower is faster).
    pub bench_ms: f64,
    pub concurrency: usize,
    /// What it speaks ([`PROTOCOL`]; 0 from a worker that predates the field).
    #[serde(default)]
    pub protocol: u32,
}

/// The answer to a registration.
#[derive(Debug, Serialize, Deserialize)]
pub struct Registered {
    pub session: String,
    pub game: GameSettings,
    /// How long a lease lasts unless renewed.
    pub lease_ms: u64,
    /// What the worker should know of its standing (a bench too slow for timed games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// This start of the server (a new id at each start): a worker that registers again, or
    /// whose result is dropped, tells a server that restarted from one that forgot it or gave
    /// its game to another worker.
    #[serde(default)]
    pub server: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct LeaseRequest {
    pub session: String,
    pub slots: usize,
    /// How long the server may wait for a game (at most [`LONG_POLL`]).
    pub wait_ms: u64,
}

/// A leased game and where each of its bots (by seat) comes from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeasedGame {
    pub game: LeagueGame,
    pub bots: Vec<BotRef>,
    /// The moves the game starts from (the league's opening of its table; none: the game's
    /// start), played by the worker before the bots take over.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opening: Vec<String>,
}

/// A bot's archive (by hash) and the BOT argument that finds it once unpacked.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BotRef {
    pub hash: String,
    pub origin: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Leased {
    pub games: Vec<LeasedGame>,
    pub lease_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Renew {
    pub session: String,
}

/// A finished game as a worker sends it (the parts of [`GameResult`] its own serialisation
/// leaves out travel beside it).
#[derive(Debug, Serialize, Deserialize)]
pub struct ResultRequest {
    pub session: String,
    pub game_id: u64,
    pub result: GameResult,
    pub log: Vec<TurnRecord>,
    pub stderr_tails: Vec<String>,
    pub duration_us: u64,
}

/// A leased game the worker's machine could not start (out of descriptors, memory or
/// processes): no result, since no bot is at fault; it goes back to the queue.
#[derive(Debug, Serialize, Deserialize)]
pub struct Release {
    pub session: String,
    pub game_id: u64,
    /// What failed, as the worker says it.
    pub why: String,
}

/// The answer to a renewal or a result.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    /// The result was the first for its game (recorded); false: dropped (another came first).
    #[serde(default)]
    pub accepted: bool,
    /// The worker should stop (the league stops, or its token was revoked).
    pub stop: bool,
    /// The result was voided: the worker's load, not the bot, lost the game (see
    /// [`crate::league::trust`]); it is played again, and this worker gets no game for a pause.
    #[serde(default)]
    pub voided: bool,
}

/// What `POST /api/bots` takes (`league add` on the server's folder): bots on the server's
/// own machine, by BOT argument.
#[derive(Debug, Serialize, Deserialize)]
pub struct AddRequest {
    /// BOT arguments as on the command line.
    pub bots: Vec<String>,
    /// Where their paths are found from.
    pub workdir: std::path::PathBuf,
    /// An SPRT of the (one) new bot against this one.
    #[serde(default)]
    pub candidate_of: Option<String>,
    /// That SPRT's bounds and pair limit (the defaults where none).
    #[serde(default)]
    pub sprt: Option<crate::league::sprt::Bounds>,
}

/// The answer to an addition or an upload: each bot's outcome.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Added {
    pub added: Vec<AddedBot>,
}

/// One bot added (`ok`, with its name), or why it cannot play (`problem`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct AddedBot {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// A registered worker process.
#[derive(Clone, Debug, Serialize)]
pub struct WorkerLine {
    pub session: String,
    pub name: String,
    #[serde(flatten)]
    pub info: Register,
    pub games: u64,
    /// Its games voided (lost to its load, played again elsewhere).
    pub voided: u64,
    /// Seconds since it was last heard from.
    pub last_seen_s: u64,
    /// Heard from within two lease times.
    pub alive: bool,
    /// Why it gets no games, when it gets none (its bench, a quarantine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle: Option<String>,
}

/// A request made within a worker's session.
pub(super) trait OfSession {
    fn session(&self) -> &str;
}

impl OfSession for LeaseRequest {
    fn session(&self) -> &str {
        &self.session
    }
}

impl OfSession for Renew {
    fn session(&self) -> &str {
        &self.session
    }
}

impl OfSession for Release {
    fn session(&self) -> &str {
        &self.session
    }
}

impl OfSession for ResultRequest {
    fn session(&self) -> &str {
        &self.session
    }
}
