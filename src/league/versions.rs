//! A bot's versions (issue 47): each upload or `league add` of a bot is a version of it, listed
//! on its page with when the league was given it, a hash of its files and its build log.
//! `bots.toml` keeps only a bot's latest entry and the build cache may be emptied, so neither
//! can say what a student sent last week or how it built: `versions.jsonl` keeps a line per
//! version (appended, never rewritten; a torn last line is cut off at the next start) and
//! `build-logs/NAME/N.log` the log of version N's latest check. A bot checked again without
//! being sent anew (every start checks every bot) is a new version only when its files changed
//! meanwhile.

use super::bundle::{Item, Sources};
use super::folder::{FolderError, JsonLines};
use super::unpack::MAX_BYTES;
use crate::utc::UtcTime;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The log of versions in the league's folder.
pub const FILE: &str = "versions.jsonl";
/// The folder of the versions' build logs (`build-logs/NAME/N.log`).
pub const BUILD_LOGS: &str = "build-logs";
/// The longest build log kept of a version, in bytes (the first ones: the first errors matter
/// most).
const MAX_LOG_BYTES: u64 = 1 << 20;
/// The hex digits of a hash shown on a page.
pub const SHORT_HASH: usize = 12;

/// A version of a bot (a line of `versions.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Version {
    pub bot: String,
    /// 1 for its first version, then 2, ...
    pub version: u32,
    /// When the league was given it (an upload, an add; a start for files changed meanwhile),
    pub at: UtcTime,
    /// The SHA-256 of its files as workers are sent them (paths, modes, contents) and of the
    /// command that runs them, in hex; none when they could not be read (the bot is then broken,
    /// saying why).
    #[serde(default)]
    pub hash: Option<String>,
}

/// How a bot came to be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Added or uploaded: a new version, even of the same files.
    New,
    /// Checked again (at a start, or after the machine could not check it): a new version only
    /// when its files changed since its latest.
    Again,
}

/// Every bot's versions, as read back from `versions.jsonl` and noted since.
#[derive(Debug, Default)]
pub struct Versions {
    by_bot: HashMap<String, Vec<Version>>,
}

impl Versions {
    /// Reads the league's versions in `dir` (a torn last line is cut off).
    pub fn read(dir: &Path) -> Result<Versions, FolderError> {
        let (_, lines) = JsonLines::open::<Version>(dir, FILE, "log of bot versions")?;
        let mut v = Versions::default();
        for line in lines {
            v.by_bot.entry(line.bot.clone()).or_default().push(line);
        }
        Ok(v)
    }

    /// Bot `bot`'s versions, the oldest first.
    pub fn of(&self, bot: &str) -> &[Version] {
        self.by_bot.get(bot).map_or(&[], Vec::as_slice)
    }

    /// Notes that `bot` (its files hashing to `hash`) is being checked, `how`, at `at`: its
    /// version number, and the new version to append to the file if it is one.
    pub fn note(
        &mut self,
        bot: &str,
        hash: Option<String>,
        how: Admission,
        at: UtcTime,
    ) -> (u32, Option<Version>) {
        let list = self.by_bot.entry(bot.to_string()).or_default();
        if let Some(latest) = list.last() {
            if how == Admission::Again && latest.hash == hash {
                return (latest.version, None);
            }
        }
        let v = Version {
            bot: bot.to_string(),
            version: list.last().map_or(1, |l| l.version + 1),
            at,
            hash,
        };
        list.push(v.clone());
        (v.version, Some(v))
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Appends `v` to `dir`'s `versions.jsonl` in one write (no lock is held meanwhile: the file is
/// opened to append, which the kernel keeps whole for a line this short).
pub fn append(dir: &Path, v: &Version) -> Result<(), FolderError> {
    let path = dir.join(FILE);
    super::folder::append_json_line(&path, v, false).map_err(io(&path))
}

/// Where version `version` of `bot` keeps its build log.
pub fn log_path(dir: &Path, bot: &str, version: u32) -> PathBuf {
    dir.join(BUILD_LOGS)
        .join(bot)
        .join(format!("{version}.log"))
}

/// Keeps `text` as the build log of version `version` of `bot` (whole or not at all), its first
/// [`MAX_LOG_BYTES`] only.
pub fn keep_log(dir: &Path, bot: &str, version: u32, text: &str) -> Result<(), FolderError> {
    let path = log_path(dir, bot, version);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let mut end = text.len().min(MAX_LOG_BYTES as usize);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut kept = text[..end].to_string();
    if end < text.len() {
        kept.push_str(&format!(
            "\n[the log goes on: only its first {} KiB are kept]\n",
            MAX_LOG_BYTES >> 10
        ));
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, kept).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

/// The build log kept of version `version` of `bot`, if any.
pub fn read_log(dir: &Path, bot: &str, version: u32) -> Result<Option<String>, FolderError> {
    let path = log_path(dir, bot, version);
    match std::fs::File::open(&path) {
        Ok(f) => {
            let mut bytes = Vec::new();
            f.take(2 * MAX_LOG_BYTES)
                .read_to_end(&mut bytes)
                .map_err(io(&path))?;
            Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(&path)(e)),
    }
}

/// The build log of a bot just built in `build_dir` (its `build.log`, its first
/// [`MAX_LOG_BYTES`]), or what says it needed none.
pub fn build_log_of(bot: &str, build_dir: &Path) -> String {
    let path = build_dir.join("build.log");
    match std::fs::File::open(&path) {
        Ok(f) => {
            let mut bytes = Vec::new();
            match f.take(MAX_LOG_BYTES + 1).read_to_end(&mut bytes) {
                Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => format!(
                    "bot {bot}'s build log {} cannot be read: {e}",
                    path.display()
                ),
            }
        }
        Err(_) => format!("bot {bot} needed no build (it runs as it was given)\n"),
    }
}

/// The SHA-256 of what a bot's workers are sent (see [`Version::hash`]), in hex, read file by
/// file (never a whole bot in memory).
pub fn digest(s: &Sources) -> std::io::Result<String> {
    use sha2::Digest;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let mut h = sha2::Sha256::new();
    let field = |h: &mut sha2::Sha256, bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(&mut h, s.origin.as_bytes());
    for (inside, item) in &s.files {
        match item {
            Item::Dir => {
                field(&mut h, b"dir");
                field(&mut h, inside.as_bytes());
            }
            Item::Link(target) => {
                field(&mut h, b"link");
                field(&mut h, inside.as_bytes());
                field(&mut h, target.as_os_str().as_bytes());
            }
            Item::File(path) => {
                // Not through a link a file was swapped for since it was found.
                let f = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                    .open(path)?;
                let meta = f.metadata()?;
                field(&mut h, b"file");
                field(&mut h, inside.as_bytes());
                h.update((meta.mode() & 0o755).to_le_bytes());
                h.update(meta.len().to_le_bytes());
                std::io::copy(&mut f.take(MAX_BYTES), &mut h)?;
            }
        }
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_new_version_is_noted_for_every_add_and_for_changed_files_only_when_checked_again() {
        let mut v = Versions::default();
        let h = |s: &str| Some(s.to_string());
        let at = UtcTime::now;
        assert_eq!(v.note("a", h("1"), Admission::Again, at()).0, 1);
        assert_eq!(v.note("a", h("1"), Admission::Again, at()), (1, None));
        assert_eq!(v.note("a", h("1"), Admission::New, at()).0, 2);
        let (n, new) = v.note("a", h("2"), Admission::Again, at());
        assert_eq!((n, new.map(|v| v.hash)), (3, Some(h("2"))));
        assert_eq!(v.note("b", None, Admission::Again, at()).0, 1);
        assert_eq!(v.note("b", None, Admission::Again, at()), (1, None));
        assert_eq!(v.of("a").len(), 3);
        assert!(v.of("c").is_empty());
    }

    #[test]
    fn versions_and_logs_are_read_back_and_a_torn_line_is_cut() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut v = Versions::default();
        for how in [Admission::New, Admission::New] {
            let (_, new) = v.note("a", Some("ff".into()), how, UtcTime::now());
            append(dir, &new.unwrap()).unwrap();
        }
        let path = dir.join(FILE);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"bot\":\"a\",\"vers").unwrap();
        let back = Versions::read(dir).unwrap();
        assert_eq!(back.of("a"), v.of("a"));
        keep_log(dir, "a", 2, "$ cc bot.c\nok\n").unwrap();
        assert_eq!(
            read_log(dir, "a", 2).unwrap().as_deref(),
            Some("$ cc bot.c\nok\n")
        );
        assert_eq!(read_log(dir, "a", 1).unwrap(), None);
        let long = "é".repeat(MAX_LOG_BYTES as usize);
        keep_log(dir, "a", 1, &long).unwrap();
        let kept = read_log(dir, "a", 1).unwrap().unwrap();
        assert!(kept.len() < long.len() && kept.ends_with("are kept]\n"));
    }

    #[test]
    fn a_digest_changes_with_a_files_contents_mode_or_the_command() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("bot.py");
        std::fs::write(&file, "print(1)\n").unwrap();
        let sources = |origin: &str| Sources {
            origin: origin.into(),
            files: vec![
                ("bot".into(), Item::Dir),
                ("bot/bot.py".into(), Item::File(file.clone())),
            ],
        };
        let first = digest(&sources("a=bot/bot.py")).unwrap();
        assert_eq!(first.len(), 64);
        assert_eq!(digest(&sources("a=bot/bot.py")).unwrap(), first);
        assert_ne!(digest(&sources("a=python3 bot/bot.py")).unwrap(), first);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        let exec = digest(&sources("a=bot/bot.py")).unwrap();
        assert_ne!(exec, first);
        std::fs::write(&file, "print(2)\n").unwrap();
        assert_ne!(digest(&sources("a=bot/bot.py")).unwrap(), exec);
    }
}
