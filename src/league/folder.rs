//! A league's folder: everything a league is, so that a restarted server (or `league add` while
//! none runs) finds it all there. `league.toml` holds the game and the matchmaking knobs,
//! `bots.toml` the bots (added, removed), `schedule.jsonl` every game ever handed out (appended
//! before it leaves, so a restart plays again what was scheduled and not recorded), and the
//! records as every run writes them (games.csv, records.jsonl, failures/). The admin token is
//! kept hashed (`admin-token.sha256`, what the server checks) beside its plaintext
//! (`admin-token`, mode 0600, what the command line reads); `server.json` says where a running
//! server listens.

use super::scheduler::{Game, Knobs};
use crate::engine::GameSettings;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const SETTINGS: &str = "league.toml";
pub const BOTS: &str = "bots.toml";
pub const SCHEDULE: &str = "schedule.jsonl";
pub const TOKEN: &str = "admin-token";
pub const TOKEN_HASH: &str = "admin-token.sha256";
pub const SERVER: &str = "server.json";

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
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The league's recorded settings (`league.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeagueSettings {
    /// Seeds every table (`Rng::derive(seed, pair_id)`).
    pub seed: u64,
    /// Where bot paths given on the command line are found from.
    pub workdir: PathBuf,
    pub game: GameSettings,
    #[serde(default)]
    pub matchmaking: Knobs,
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

/// The schedule log, appended game by game.
pub struct ScheduleLog {
    file: std::fs::File,
    path: PathBuf,
}

impl ScheduleLog {
    /// Opens the log and reads the games it holds (a torn last line is cut off).
    pub fn open(dir: &Path) -> Result<(ScheduleLog, Vec<Game>), FolderError> {
        let path = dir.join(SCHEDULE);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io(&path))?;
        let keep = crate::results::games_csv::complete_length(&mut file).map_err(io(&path))?;
        file.set_len(keep).map_err(io(&path))?;
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        let mut games = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let game: Game = serde_json::from_str(line).map_err(|e| FolderError::Bad {
                path: path.clone(),
                what: "schedule log",
                detail: format!("line {}: {e}", n + 1),
            })?;
            games.push(game);
        }
        Ok((ScheduleLog { file, path }, games))
    }

    /// Appends `games` in one write.
    pub fn append(&mut self, games: &[Game]) -> Result<(), FolderError> {
        if games.is_empty() {
            return Ok(());
        }
        let mut text = Vec::new();
        for g in games {
            serde_json::to_writer(&mut text, g).expect("a game serialises");
            text.push(b'\n');
        }
        self.file.write_all(&text).map_err(io(&self.path))
    }
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
