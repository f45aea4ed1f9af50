//! What `league.toml` holds: a league's settings and the limits it keeps (uploads, remote
//! workers, HTTP connections, what the pages show). Data only, read and written by
//! [`super::folder`]; the parts that keep each limit (the upload route, the workers' door, the
//! connections) take it from here, so that the folder's data model imports none of them.

use super::scheduler::Knobs;
use crate::engine::settings::OpeningsSettings;
use crate::engine::GameSettings;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The league's recorded settings (`league.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeagueSettings {
    /// Seeds every table (`Rng::derive(seed, pair_id)`).
    pub seed: u64,
    /// Where bot paths given on the command line are found from.
    pub workdir: PathBuf,
    /// Random legal plies each table's games start with (after the book's line, if any), as
    /// a tournament's `--opening-plies`.
    #[serde(default)]
    pub opening_plies: u32,
    /// The opening book each table takes its line from, as a tournament's `--openings`.
    #[serde(flatten)]
    pub openings: OpeningsSettings,
    pub game: GameSettings,
    #[serde(default)]
    pub matchmaking: Knobs,
    /// Bots uploaded over HTTP (`[upload]`).
    #[serde(default)]
    pub upload: UploadLimits,
    /// Remote workers (`[workers]`): sessions per token, games per session.
    #[serde(default)]
    pub workers: WorkerLimits,
    /// The HTTP connections' timeouts and caps (`[http]`).
    #[serde(default)]
    pub http: HttpLimits,
    /// What the pages show everyone (`[page]`).
    #[serde(default)]
    pub page: PageSettings,
}

/// What the league's pages show everyone (`league.toml`, under `[page]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageSettings {
    /// A bot's stderr (on its page and in `/api/bots/NAME`) and its build logs (`GET
    /// /api/bots/NAME/build`) for everyone; when false (the default) only its author and the
    /// admin read them (with their token; its stderr at `GET /api/bots/NAME/stderr`).
    pub show_stderr: bool,
}

/// The largest upload unless `league.toml` says otherwise, in MiB.
pub const DEFAULT_MAX_MIB: u64 = 16;

/// The upload knobs (`league.toml`, under `[upload]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UploadLimits {
    /// The largest upload (the file or the archive as sent), in MiB.
    pub max_mib: u64,
}

impl Default for UploadLimits {
    fn default() -> UploadLimits {
        UploadLimits {
            max_mib: DEFAULT_MAX_MIB,
        }
    }
}

impl UploadLimits {
    pub fn max_bytes(&self) -> u64 {
        self.max_mib.saturating_mul(1 << 20)
    }
}

/// The knobs of remote workers (`league.toml`, under `[workers]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkerLimits {
    /// Sessions one worker token may hold at once (a registration past it is refused with 429;
    /// a session not heard from in half a lease time gives its place up).
    pub sessions_per_token: usize,
    /// The most games one session plays at once, whatever it says (and at most its cores).
    pub max_concurrency: usize,
}

impl Default for WorkerLimits {
    fn default() -> WorkerLimits {
        WorkerLimits {
            sessions_per_token: 64,
            max_concurrency: 256,
        }
    }
}

impl WorkerLimits {
    /// The games a worker that says it has `cores` and plays `concurrency` at once may hold.
    pub fn slots(&self, cores: usize, concurrency: usize) -> usize {
        concurrency.min(cores).min(self.max_concurrency).max(1)
    }
}

/// The connection knobs (`league.toml`, under `[http]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HttpLimits {
    /// Seconds a request's header may take to arrive whole, and a connection may wait for its
    /// next request.
    pub header_timeout_s: u64,
    /// Seconds a request body may stop arriving, or an answer stop being taken, before the
    /// connection is closed.
    pub stall_timeout_s: u64,
    /// Connections open at once (lowered to what the open-file limit allows).
    pub max_connections: usize,
    /// Pages following the live events (`/api/events`) at once; beyond, 503.
    pub max_event_streams: usize,
}

impl Default for HttpLimits {
    fn default() -> HttpLimits {
        HttpLimits {
            header_timeout_s: 10,
            stall_timeout_s: 60,
            max_connections: 4096,
            max_event_streams: 256,
        }
    }
}

impl HttpLimits {
    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs(self.header_timeout_s.max(1))
    }

    pub fn stall_timeout(&self) -> Duration {
        Duration::from_secs(self.stall_timeout_s.max(1))
    }
}
