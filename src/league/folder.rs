//! A league's folder: everything a league is, so that a restarted server (or `league add` while
//! none runs) finds it all there. `league.toml` holds the game and the matchmaking knobs,
//! `bots.toml` the bots (added, removed), `schedule.jsonl` every game ever handed out (appended
//! before it leaves, so a restart plays again what was scheduled and not recorded),
//! `cancelled.jsonl` the scheduled games that will never be played (a bot removed, replaced,
//! suspended: each game ends recorded or cancelled), `sprt.jsonl` the SPRTs run inside the
//! league (started, ended: a decided test is never run again), `versions.jsonl` and `build-logs/`
//! each bot's versions and their build logs ([`super::versions`]), and the
//! records as every run writes them (games.csv, records.jsonl, failures/). The admin token is
//! kept hashed (`admin-token.sha256`, what the server checks) beside its plaintext
//! (`admin-token`, mode 0600, what the command line reads); `server.json` says where a running
//! server listens.

use super::scheduler::LeagueGame;
use super::settings::LeagueSettings;
use crate::utc::UtcTime;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const SETTINGS: &str = "league.toml";
pub const BOTS: &str = "bots.toml";
pub const SCHEDULE: &str = "schedule.jsonl";
/// Every scheduled game that will not be played, a line each, with why and when.
pub const CANCELLED: &str = "cancelled.jsonl";
pub const TOKEN: &str = "admin-token";
pub const TOKEN_HASH: &str = "admin-token.sha256";
pub const SERVER: &str = "server.json";
/// Rows of games.csv a start set aside (no reader takes them), with where and why.
pub const SET_ASIDE: &str = "games-set-aside.jsonl";

/// A league folder that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a league's {what}: {detail}; fix or remove it", path.display())]
    Bad {
        path: PathBuf,
        what: &'static str,
        detail: String,
    },
    #[error(
        "{} holds no league ({SETTINGS} is missing): start one with `arbiter league serve {} {} G`",
        dir.display(), dir.display(), crate::options::Opt::Game
    )]
    NoLeague { dir: PathBuf },
    #[error(
        "{} is in use by another arbiter (pid {pid}): its league's server, or a `league add` \
         or `league remove` of it; stop that one first (a league has one server), or give \
         another folder",
        dir.display()
    )]
    Busy { dir: PathBuf, pid: String },
    #[error(
        "{} cannot be a league's folder: {} is a file; give another folder",
        dir.display(),
        file.display()
    )]
    NotAFolder { dir: PathBuf, file: PathBuf },
    #[error(transparent)]
    Lock(crate::results::lock::LockError),
}

/// Locks the league's folder `dir` for this process (made if new; removed again when this
/// process leaves nothing in it), or says who holds it.
pub fn lock(dir: &Path) -> Result<crate::results::lock::FolderLock, FolderError> {
    use crate::results::lock::{FolderLock, LockError};
    FolderLock::acquire(dir).map_err(|e| match e {
        LockError::Busy { dir, pid } => FolderError::Busy { dir, pid },
        LockError::NotAFolder { dir, file } => FolderError::NotAFolder { dir, file },
        other => FolderError::Lock(other),
    })
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One bot of the league (`bots.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotEntry {
    pub name: String,
    /// The BOT argument as typed (`NAME=COMMAND`, a path, a folder).
    pub origin: String,
    /// Where `origin` is found from.
    pub workdir: PathBuf,
    #[serde(default)]
    pub removed: bool,
    /// An SPRT of this bot against that one runs inside the league.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_of: Option<String>,
    /// That SPRT's bounds and pair limit (the defaults where none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<super::sprt::Bounds>,
    /// Suspended after this many forfeits in a row: not played after a restart either, until
    /// it is added again (which writes its entry anew).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended: Option<u32>,
}

#[derive(Default, Serialize, Deserialize)]
struct BotsFile {
    #[serde(default)]
    bot: Vec<BotEntry>,
}

/// Writes `text` to `path` whole or not at all.
fn write_atomic(path: &Path, text: &[u8]) -> Result<(), FolderError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

pub fn load_settings(dir: &Path) -> Result<Option<LeagueSettings>, FolderError> {
    let path = dir.join(SETTINGS);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&path)(e)),
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|e| FolderError::Bad {
            path,
            what: "settings",
            detail: e.to_string(),
        })
}

pub fn save_settings(dir: &Path, s: &LeagueSettings) -> Result<(), FolderError> {
    let text = toml::to_string(s).map_err(|e| FolderError::Bad {
        path: dir.join(SETTINGS),
        what: "settings",
        detail: e.to_string(),
    })?;
    write_atomic(&dir.join(SETTINGS), text.as_bytes())
}

pub fn load_bots(dir: &Path) -> Result<Vec<BotEntry>, FolderError> {
    let path = dir.join(BOTS);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(&path)(e)),
    };
    let file: BotsFile = toml::from_str(&text).map_err(|e| FolderError::Bad {
        path,
        what: "bot list",
        detail: e.to_string(),
    })?;
    Ok(file.bot)
}

pub fn save_bots(dir: &Path, bots: &[BotEntry]) -> Result<(), FolderError> {
    let text = toml::to_string(&BotsFile { bot: bots.to_vec() }).map_err(|e| FolderError::Bad {
        path: dir.join(BOTS),
        what: "bot list",
        detail: e.to_string(),
    })?;
    write_atomic(&dir.join(BOTS), text.as_bytes())
}

/// Adds `entry` to the list, or replaces the entry of the same name (a new version).
pub fn upsert(bots: &mut Vec<BotEntry>, entry: BotEntry) {
    match bots.iter_mut().find(|b| b.name == entry.name) {
        Some(b) => *b = entry,
        None => bots.push(entry),
    }
}

/// The schedule log, appended game by game (one more [`JsonLines`]).
pub struct ScheduleLog(JsonLines);

impl ScheduleLog {
    /// Opens the log and reads the games it holds (a torn last line is cut off).
    pub fn open(dir: &Path) -> Result<(ScheduleLog, Vec<LeagueGame>), FolderError> {
        let (lines, games) = JsonLines::open(dir, SCHEDULE, "schedule log")?;
        Ok((ScheduleLog(lines), games))
    }

    /// Appends `games` in one write.
    pub fn append(&mut self, games: &[LeagueGame]) -> Result<(), FolderError> {
        self.0.append(games)
    }
}

/// A line of `cancelled.jsonl`.
#[derive(Serialize, Deserialize)]
pub struct CancelLine {
    pub game_id: u64,
    pub pair_id: u64,
    pub bots: Vec<String>,
    /// The bot whose change cancelled it.
    pub bot: String,
    pub why: super::scheduler::CancelWhy,
    pub at: UtcTime,
}

/// The log of cancelled games, appended line by line.
pub struct CancelLog(JsonLines);

impl CancelLog {
    /// Opens the log and reads the ids of the games it holds (a torn last line is cut off).
    pub fn open(dir: &Path) -> Result<(CancelLog, std::collections::HashSet<u64>), FolderError> {
        let (lines, read) =
            JsonLines::open::<CancelLine>(dir, CANCELLED, "log of cancelled games")?;
        Ok((CancelLog(lines), read.iter().map(|c| c.game_id).collect()))
    }

    /// Appends `games`, cancelled `at`, in one write.
    pub fn append(
        &mut self,
        games: &[super::scheduler::Cancelled],
        at: UtcTime,
    ) -> Result<(), FolderError> {
        let lines: Vec<CancelLine> = games
            .iter()
            .map(|c| CancelLine {
                game_id: c.game.game_id,
                pair_id: c.game.pair_id,
                bots: c.game.bots.clone(),
                bot: c.bot.clone(),
                why: c.why,
                at,
            })
            .collect();
        self.0.append(&lines)
    }
}

/// The SPRTs run inside the league: a line when one starts and when it ends.
pub const SPRT: &str = "sprt.jsonl";

/// An append-only file of JSON lines (`cancelled.jsonl`, `sprt.jsonl`), each written whole in
/// one write.
pub struct JsonLines {
    file: std::fs::File,
    path: PathBuf,
}

impl JsonLines {
    /// Opens `dir/name` and reads its lines (a torn last line is cut off).
    pub fn open<T: serde::de::DeserializeOwned>(
        dir: &Path,
        name: &str,
        what: &'static str,
    ) -> Result<(JsonLines, Vec<T>), FolderError> {
        let path = dir.join(name);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io(&path))?;
        let keep = crate::results::games_csv::complete_length(&mut file).map_err(io(&path))?;
        file.set_len(keep).map_err(io(&path))?;
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            lines.push(serde_json::from_str(line).map_err(|e| FolderError::Bad {
                path: path.clone(),
                what,
                detail: format!("line {}: {e}", n + 1),
            })?);
        }
        Ok((JsonLines { file, path }, lines))
    }

    /// Appends `lines` in one write.
    pub fn append<T: Serialize>(&mut self, lines: &[T]) -> Result<(), FolderError> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut text = Vec::new();
        for l in lines {
            serde_json::to_writer(&mut text, l).expect("a line serialises");
            text.push(b'\n');
        }
        self.file.write_all(&text).map_err(io(&self.path))
    }
}

/// Appends `value` to the file at `path` (made if new) as one JSON line in one write: the file
/// is opened to append, which the kernel keeps whole for a line, so no lock is needed. Synced
/// to disk where `sync`.
pub fn append_json_line(path: &Path, value: &impl Serialize, sync: bool) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(value).expect("a log line serialises");
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(&line)?;
    if sync {
        f.sync_data()?;
    }
    Ok(())
}

/// The SHA-256 of `token`, in hex.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The hash of the admin token, made (with its 0600 plaintext) on first use.
pub fn admin_token_hash(dir: &Path) -> Result<String, FolderError> {
    let hash_path = dir.join(TOKEN_HASH);
    if let Ok(hash) = std::fs::read_to_string(&hash_path) {
        return Ok(hash.trim().to_string());
    }
    let mut raw = [0u8; 24];
    let mut urandom = std::fs::File::open("/dev/urandom").map_err(io(Path::new("/dev/urandom")))?;
    std::io::Read::read_exact(&mut urandom, &mut raw).map_err(io(Path::new("/dev/urandom")))?;
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(TOKEN);
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&path)
            .map_err(io(&path))?;
        f.write_all(token.as_bytes()).map_err(io(&path))?;
    }
    let hash = token_hash(&token);
    write_atomic(&hash_path, hash.as_bytes())?;
    Ok(hash)
}

/// The admin token's plaintext, for the command line.
pub fn admin_token(dir: &Path) -> Result<String, FolderError> {
    let path = dir.join(TOKEN);
    std::fs::read_to_string(&path)
        .map(|t| t.trim().to_string())
        .map_err(io(&path))
}

/// Where a server of this league listens.
#[derive(Debug, Serialize, Deserialize)]
pub struct ServerNote {
    pub url: String,
    pub pid: u32,
}

pub fn write_server(dir: &Path, note: &ServerNote) -> Result<(), FolderError> {
    let text = serde_json::to_vec(note).expect("a note serialises");
    write_atomic(&dir.join(SERVER), &text)
}

pub fn read_server(dir: &Path) -> Option<ServerNote> {
    let text = std::fs::read(dir.join(SERVER)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Takes from the machine's other users (neither the league's owner nor its group) the right to
/// read or enter the league's folder `dir`: it holds uploaded sources, the records and the
/// tokens' hashes. Whether it had to (the folder was open to them).
pub fn keep_private(dir: &Path) -> Result<bool, FolderError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir)
        .map_err(io(dir))?
        .permissions()
        .mode();
    if mode & 0o007 == 0 {
        return Ok(false);
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o7770))
        .map_err(io(dir))?;
    Ok(true)
}
