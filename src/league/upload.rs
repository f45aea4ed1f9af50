//! Bots uploaded over HTTP, for a class or an open league whose authors have no shell on the
//! server: `POST /api/bots/NAME` with the admin token or bot NAME's author token
//! ([`super::authors`]; `arbiter league add URL BOT --token-file F` sends it). The body is a single source file (`?file=bot.py` names it: its extension says how
//! it is built) or the bot's folder as a `.tar.gz` (or a plain `.tar`); it is size-capped
//! (`[upload] max_mib` in `league.toml`, [`DEFAULT_MAX_MIB`] unless set), kept in a new folder of
//! its own (`uploads/NAME/N/`, so a game still playing the previous version keeps its files),
//! then checked and added exactly as `league add` adds a bot of the server's machine: built in
//! the build box, test-started, played at once.
//!
//! An upload is untrusted. Nothing in it may write outside its folder: an entry whose path
//! climbs out (`..`) or is absolute, a symbolic link that is absolute or climbs, a hard link, a
//! device file or a fifo refuses the whole upload with the entry named, and what was unpacked of
//! it is removed. Unpacked, it may hold at most [`super::bundle::MAX_BYTES`] (what a remote worker
//! can fetch), which stops a compressed bomb.

use super::bundle::MAX_BYTES;
use super::folder::BotEntry;
use super::server::Shared;
use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use tokio_stream::StreamExt;

/// The largest upload unless `league.toml` says otherwise, in MiB.
pub const DEFAULT_MAX_MIB: u64 = 16;
/// Entries an archive may hold.
const MAX_ENTRIES: usize = 20_000;
/// The folder of the league that keeps uploads.
pub const UPLOADS: &str = "uploads";

/// The upload knobs (`league.toml`, under `[upload]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// The largest upload (the file or the archive as sent), in MiB.
    pub max_mib: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_mib: DEFAULT_MAX_MIB,
        }
    }
}

impl Limits {
    pub fn max_bytes(&self) -> u64 {
        self.max_mib.saturating_mul(1 << 20)
    }
}

/// An upload that cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error(transparent)]
    Name(super::names::BadName),
    #[error(
        "{file:?} cannot name the uploaded file: give its own name with its extension, such as \
         bot.py (letters, digits, '-', '_', '.')"
    )]
    FileName { file: String },
    #[error(
        "the upload is larger than this league's cap of {cap_mib} MiB: send the bot's sources \
         only, or ask the league's owner to raise [upload] max_mib in its league.toml"
    )]
    TooLarge { cap_mib: u64 },
    #[error(
        "unpacked, the upload is larger than {} MiB (or holds more than {MAX_ENTRIES} \
         entries): send the bot's sources only", MAX_BYTES >> 20
    )]
    Unpacked,
    #[error(
        "the upload is a zip archive, which a league does not take: send the bot's folder as a \
         .tar.gz (tar czf bot.tar.gz -C FOLDER .), or a single source file with ?file=NAME"
    )]
    Zip,
    #[error(
        "the upload is not a .tar.gz or .tar of a bot's folder ({why}): send one, or a single \
         source file with ?file=NAME (such as ?file=bot.py)"
    )]
    NotArchive { why: String },
    #[error("the upload is empty: send a source file or a .tar.gz of the bot's folder")]
    Empty,
    #[error("the upload was refused: its entry {entry:?} {why}; nothing of it was kept")]
    Unsafe { entry: String, why: String },
    #[error("the upload was refused: {0}; nothing of it was kept")]
    Headers(super::tar_members::MemberError),
    #[error("keeping the upload in {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl UploadError {
    fn status(&self) -> StatusCode {
        match self {
            UploadError::TooLarge { .. } | UploadError::Unpacked => StatusCode::PAYLOAD_TOO_LARGE,
            UploadError::Io { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> UploadError + '_ {
    move |source| UploadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Letters, digits, '-', '_', '.', not only dots: a file's name.
fn plain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().any(|c| c != '.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Keeps an upload of bot `name` (a file called `file`, or else an archive of its folder) in a
/// new folder under `league/uploads/NAME/`, and returns the league entry that adds it.
pub fn store(
    league: &Path,
    name: &str,
    file: Option<&str>,
    bytes: &[u8],
) -> Result<BotEntry, UploadError> {
    if let Err(e) = super::names::check(name, "bot") {
        return Err(UploadError::Name(e));
    }
    if let Some(f) = file.filter(|f| !plain(f)) {
        return Err(UploadError::FileName { file: f.into() });
    }
    if bytes.is_empty() {
        return Err(UploadError::Empty);
    }
    if bytes.starts_with(b"PK\x03\x04") && file.is_none() {
        return Err(UploadError::Zip);
    }
    let uploads = league.join(UPLOADS);
    keep_private(&uploads)?;
    let root = new_version(&uploads.join(name))?;
    let kept = match file {
        Some(f) => std::fs::write(root.join(f), bytes)
            .map_err(io(&root.join(f)))
            .map(|()| f.to_string()),
        None => unpack(bytes, &root.join("bot")).map(|()| bot_folder(&root.join("bot"))),
    };
    match kept {
        Ok(inside) => Ok(BotEntry {
            name: name.into(),
            origin: format!("{name}={inside}"),
            workdir: root,
            removed: false,
            candidate_of: None,
            sprt: None,
            suspended: None,
        }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&root);
            // The bot's folder too, if this was its first version (an upload of the same bot
            // at the same time finds it gone and makes it again).
            let _ = std::fs::remove_dir(uploads.join(name));
            Err(e)
        }
    }
}

/// Makes `uploads` (if new) a folder only the server's user may enter: an upload is someone's
/// source, not for the machine's other users. The server's own bots still run from it: a bot's
/// unprivileged user is given its own files, not the way to them (see [`crate::bot::reach`]).
fn keep_private(uploads: &Path) -> Result<(), UploadError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    if let Some(league) = uploads.parent() {
        std::fs::create_dir_all(league).map_err(io(league))?;
    }
    match std::fs::DirBuilder::new()
        .recursive(false)
        .mode(0o700)
        .create(uploads)
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let meta = std::fs::metadata(uploads).map_err(io(uploads))?;
            if meta.permissions().mode() & 0o077 != 0 {
                std::fs::set_permissions(uploads, std::fs::Permissions::from_mode(0o700))
                    .map_err(io(uploads))?;
            }
            Ok(())
        }
        Err(e) => Err(io(uploads)(e)),
    }
}

/// Makes `dir/N` for the next free N (1, 2, ...).
fn new_version(dir: &Path) -> Result<PathBuf, UploadError> {
    let mut tries = 0;
    loop {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut n = std::fs::read_dir(dir)
            .map_err(io(dir))?
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        loop {
            n += 1;
            let path = dir.join(n.to_string());
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(path),
                // Another upload of the same bot took it a moment ago.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                // A refused upload of the same bot removed its folder a moment ago.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < 3 => break,
                Err(e) => return Err(io(&path)(e)),
            }
        }
        tries += 1;
    }
}

/// The BOT argument (from the version's folder) of an unpacked archive: `bot`, or the one
/// folder it holds (`tar czf bot.tar.gz mybot/` packs a folder inside).
fn bot_folder(bot: &Path) -> String {
    let entries: Vec<_> = std::fs::read_dir(bot)
        .map(|d| d.filter_map(|e| e.ok()).collect())
        .unwrap_or_default();
    match entries.as_slice() {
        [one] if one.file_type().is_ok_and(|t| t.is_dir()) => {
            format!("bot/{}", one.file_name().to_string_lossy())
        }
        _ => "bot".into(),
    }
}

/// The relative path an entry's path names inside its folder, or why it would leave it.
fn inside(path: &Path) -> Result<PathBuf, &'static str> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err("climbs out of the bot's folder ('..')"),
            Component::RootDir | Component::Prefix(_) => {
                return Err("is an absolute path, outside the bot's folder")
            }
        }
    }
    Ok(out)
}

/// Why nothing may be written at `rel` (below `root`), if so: a folder on the way that is a
/// symbolic link (nothing is written through one) or a file.
fn blocked(root: &Path, rel: &Path) -> Option<&'static str> {
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Some("lies inside a symbolic link"),
            Ok(m) if !m.is_dir() => return Some("lies inside a file of the archive"),
            _ => {}
        }
    }
    None
}

/// Unpacks a (gzip'd) tar archive into `dest` (made here), refusing anything that could reach
/// outside it. A worker unpacks the bots' archives it fetches with it too
/// ([`super::bundle::unpack`]).
pub(crate) fn unpack(bytes: &[u8], dest: &Path) -> Result<(), UploadError> {
    use std::os::unix::fs::PermissionsExt;
    use tar::EntryType;
    std::fs::create_dir(dest).map_err(io(dest))?;
    let reader: Box<dyn Read + '_> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(bytes))
    } else if bytes.get(257..262) == Some(b"ustar") {
        Box::new(bytes)
    } else {
        return Err(UploadError::NotArchive {
            why: "neither gzip nor tar".into(),
        });
    };
    let not_archive = |e: std::io::Error| UploadError::NotArchive { why: e.to_string() };
    let mut archive = tar::Archive::new(reader);
    let mut total = 0u64;
    let mut count = 0usize;
    // Long names and PAX headers bounded before they are read (see `tar_members`).
    for member in super::tar_members::Members::new(&mut archive).map_err(not_archive)? {
        let super::tar_members::Member {
            mut entry,
            path: raw,
            link,
        } = member.map_err(|e| match e {
            super::tar_members::MemberError::Read(e) => not_archive(e),
            refused => UploadError::Headers(refused),
        })?;
        count += 1;
        if count > MAX_ENTRIES {
            return Err(UploadError::Unpacked);
        }
        let shown = raw.to_string_lossy().into_owned();
        let refused = |why: &str| UploadError::Unsafe {
            entry: shown.clone(),
            why: why.into(),
        };
        let kind = entry.header().entry_type();
        let rel = inside(&raw).map_err(&refused)?;
        if rel.as_os_str().is_empty() {
            // The folder itself ("./").
            continue;
        }
        if let Some(why) = blocked(dest, &rel) {
            return Err(refused(why));
        }
        let path = dest.join(&rel);
        let existing = std::fs::symlink_metadata(&path).ok();
        let exists = existing.is_some();
        // Readable by all (its folder is the server's alone): a bot's own unprivileged user
        // reads it.
        let mode = (entry.header().mode().unwrap_or(0o644) & 0o755) | 0o644;
        match kind {
            EntryType::Directory => match existing {
                Some(m) if m.is_dir() => {}
                Some(_) => {
                    return Err(refused(
                        "is a folder over a link or a file of the same name earlier in the \
                         archive",
                    ))
                }
                None => std::fs::create_dir_all(&path).map_err(io(&path))?,
            },
            EntryType::Regular | EntryType::Continuous => {
                if exists {
                    return Err(refused("is in the archive twice"));
                }
                total += entry.header().size().unwrap_or(u64::MAX);
                if total > MAX_BYTES {
                    return Err(UploadError::Unpacked);
                }
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                let mut data = Vec::new();
                (&mut entry)
                    .take(MAX_BYTES)
                    .read_to_end(&mut data)
                    .map_err(not_archive)?;
                std::fs::write(&path, data).map_err(io(&path))?;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                    .map_err(io(&path))?;
            }
            EntryType::Symlink => {
                let target = link.unwrap_or_default();
                // A link may point down or beside itself only: then whatever it names, through
                // other such links, is inside the folder.
                let down = !target.as_os_str().is_empty()
                    && target
                        .components()
                        .all(|c| matches!(c, Component::Normal(_)));
                if !down {
                    return Err(refused(&format!(
                        "is a symbolic link to {:?}, outside the bot's folder (a link may only \
                         name a file beside it or below)",
                        target.to_string_lossy()
                    )));
                }
                if exists {
                    return Err(refused("is in the archive twice"));
                }
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                std::os::unix::fs::symlink(&target, &path).map_err(io(&path))?;
            }
            EntryType::Link => {
                return Err(refused(
                    "is a hard link (a link can reach files outside the bot's folder); send the \
                     file itself",
                ))
            }
            EntryType::Char | EntryType::Block => {
                return Err(refused("is a device file, which a bot may not bring"))
            }
            EntryType::Fifo => return Err(refused("is a fifo, which a bot may not bring")),
            _ => {
                return Err(refused(&format!(
                    "is of a kind a bot's folder cannot hold ({kind:?}): only files, folders \
                     and links beside them"
                )))
            }
        }
    }
    Ok(())
}

/// A bot's folder as a gzip'd tar archive (for `league add URL`): its files and folders, and
/// its symbolic links as links (the server refuses any that points outside).
pub fn pack_folder(folder: &Path) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.follow_symlinks(false);
    tar.mode(tar::HeaderMode::Deterministic);
    add_folder(&mut tar, folder, Path::new(""))?;
    tar.into_inner()?.finish()
}

fn add_folder<W: std::io::Write>(
    tar: &mut tar::Builder<W>,
    folder: &Path,
    inside: &Path,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(folder)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let here = inside.join(e.file_name());
        let kind = e.file_type()?;
        if kind.is_dir() {
            tar.append_dir(&here, e.path())?;
            add_folder(tar, &e.path(), &here)?;
        } else if kind.is_file() || kind.is_symlink() {
            tar.append_path_with_name(e.path(), &here)?;
        }
    }
    Ok(())
}

#[derive(Deserialize)]
pub struct UploadQuery {
    /// The name of a single uploaded source file (its extension says how it is built).
    file: Option<String>,
    /// An SPRT of this bot against that one runs inside the league.
    candidate: Option<String>,
}

fn refuse(status: StatusCode, why: impl std::fmt::Display) -> Response {
    (status, format!("{why}\n")).into_response()
}

/// `POST /api/bots/NAME[?file=F][&candidate=OLD]` (admin, or NAME's author): keeps the body as bot NAME's new
/// version and adds it as `league add` does; answers as `POST /api/bots` does.
pub async fn upload(
    State(s): State<Arc<Shared>>,
    UrlPath(name): UrlPath<String>,
    query: Result<Query<UploadQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if let Err(r) = super::authors::owner(&s, &headers, &name) {
        return *r;
    }
    let Query(query) = match query {
        Ok(q) => q,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not an upload: {e}")),
    };
    if query.candidate.is_some() {
        // An SPRT puts its pairs first for everyone: the league's owner starts one.
        if let Err(r) = super::authors::admin(&s, &headers) {
            return *r;
        }
    }
    let cap = s.settings.upload.max_bytes();
    let too_large = || {
        let e = UploadError::TooLarge {
            cap_mib: s.settings.upload.max_mib,
        };
        refuse(e.status(), e)
    };
    // Said before any of the body is read: a client that sent `Expect: 100-continue` sends none.
    let announced = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if announced.is_some_and(|n| n > cap) {
        return too_large();
    }
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    format!("the upload did not arrive whole: {e}"),
                )
            }
        };
        if (bytes.len() + chunk.len()) as u64 > cap {
            return too_large();
        }
        bytes.extend_from_slice(&chunk);
    }
    let dir = s.dir.clone();
    let file = query.file.clone();
    let stored =
        tokio::task::spawn_blocking(move || store(&dir, &name, file.as_deref(), &bytes)).await;
    let mut entry = match stored {
        Ok(Ok(e)) => e,
        Ok(Err(e)) => return refuse(e.status(), e),
        Err(_) => {
            return refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "keeping the upload failed",
            )
        }
    };
    entry.candidate_of = query.candidate;
    let name = entry.name.clone();
    let version = entry.workdir.clone();
    let s2 = s.clone();
    match tokio::task::spawn_blocking(move || s2.admit(entry, super::versions::Admission::New))
        .await
    {
        Ok(outcome) => {
            let line = match outcome {
                Ok(()) => serde_json::json!({ "name": name, "ok": true }),
                Err(problem) => {
                    serde_json::json!({ "name": name, "ok": false, "problem": problem })
                }
            };
            let kept = version.strip_prefix(&s.dir).unwrap_or(&version);
            Json(serde_json::json!({ "added": [line], "kept": kept })).into_response()
        }
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "adding the bot failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tar.gz of raw entries (name, kind, link target, data), names written as given (the
    /// tar crate's own setters refuse `..`).
    fn archive(entries: &[(&str, tar::EntryType, &str, &[u8])]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        for (name, kind, link, data) in entries {
            let mut h = tar::Header::new_old();
            h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            h.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
            h.set_entry_type(*kind);
            h.set_mode(0o644);
            h.set_size(data.len() as u64);
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap().finish().unwrap()
    }

    #[test]
    fn a_folder_round_trips_and_nothing_may_leave_it() {
        use tar::EntryType::*;
        let tmp = tempfile::tempdir().unwrap();
        let league = tmp.path().join("league");
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("lib")).unwrap();
        std::fs::write(src.join("bot.toml"), "run = \"python3 main.py\"\n").unwrap();
        std::fs::write(src.join("lib/x.py"), "x = 1\n").unwrap();
        std::os::unix::fs::symlink("lib/x.py", src.join("main.py")).unwrap();
        let e = store(&league, "b", None, &pack_folder(&src).unwrap()).unwrap();
        assert_eq!(e.origin, "b=bot");
        assert_eq!(e.workdir, league.join("uploads/b/1"));
        assert_eq!(
            std::fs::read_to_string(e.workdir.join("bot/main.py")).unwrap(),
            "x = 1\n"
        );
        let e = store(&league, "b", Some("bot.py"), b"print(1)").unwrap();
        assert_eq!(
            (e.origin.as_str(), e.workdir.ends_with("2")),
            ("b=bot.py", true)
        );

        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let out_link = outside.to_str().unwrap();
        let abs = format!("{out_link}/abs");
        let bad: Vec<(Vec<u8>, &str)> = vec![
            (archive(&[("../evil", Regular, "", b"x")]), "'..'"),
            (archive(&[(&abs, Regular, "", b"x")]), "absolute"),
            (archive(&[("etc", Symlink, "/etc", b"")]), "\"/etc\""),
            (
                archive(&[
                    ("up", Symlink, "../..", b""),
                    ("up/planted", Regular, "", b"x"),
                ]),
                "outside",
            ),
            (
                archive(&[
                    ("ok", Directory, "", b""),
                    ("ok/h", Link, "/etc/passwd", b""),
                ]),
                "hard link",
            ),
            (archive(&[("null", Char, "", b"")]), "device file"),
            (archive(&[("p", Fifo, "", b"")]), "fifo"),
        ];
        for (bytes, why) in bad {
            let err = store(&league, "evil", None, &bytes).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(why) && text.contains("refused"), "{text}");
        }
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        assert!(!league.join("uploads/evil/evil").exists());
        assert!(
            !league.join("uploads/evil/1").exists(),
            "a refused upload is removed"
        );
        assert!(matches!(
            store(&league, "z", None, b"PK\x03\x04rest").unwrap_err(),
            UploadError::Zip
        ));
        assert!(store(&league, "../x", Some("a.py"), b"1").is_err());
        assert!(store(&league, "x", Some("../a.py"), b"1").is_err());
        assert!(store(&league, "x", None, b"not an archive").is_err());
    }
}
