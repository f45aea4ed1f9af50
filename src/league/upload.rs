//! Bots uploaded over HTTP, for a class or an open league whose authors have no shell on the
//! server: `POST /api/bots/NAME` with the admin token or bot NAME's author token
//! ([`super::authors`]; `arbiter league add URL BOT --token-file F` sends it). The body is a single source file (`?file=bot.py` names it: its extension says how
//! it is built) or the bot's folder as a `.tar.gz` (or a plain `.tar`); it is size-capped
//! (`[upload] max_mib` in `league.toml`, [`super::settings::DEFAULT_MAX_MIB`] unless set), kept in a new folder of
//! its own (`uploads/NAME/N/`, so a game still playing the previous version keeps its files),
//! then checked and added exactly as `league add` adds a bot of the server's machine: built in
//! the build box, test-started, played at once.
//!
//! An upload is untrusted. Nothing in it may write outside its folder: an entry whose path
//! climbs out (`..`) or is absolute, a symbolic link that is absolute or climbs, a hard link, a
//! device file or a fifo refuses the whole upload with the entry named, and what was unpacked of
//! it is removed ([`super::unpack`], which a worker's fetched archives go through too).
//! Unpacked, it may hold at most [`super::unpack::MAX_BYTES`] (what a remote worker can fetch),
//! which stops a compressed bomb.

use super::folder::BotEntry;
use super::server::Shared;
use super::unpack::{unpack, UnpackError};
use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_stream::StreamExt;

/// The folder of the league that keeps uploads.
pub const UPLOADS: &str = "uploads";

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
        "the upload is a zip archive, which a league does not take: send the bot's folder as a \
         .tar.gz (tar czf bot.tar.gz -C FOLDER .), or a single source file with ?file=NAME"
    )]
    Zip,
    #[error("the upload is empty: send a source file or a .tar.gz of the bot's folder")]
    Empty,
    #[error(transparent)]
    Unpack(#[from] UnpackError),
    #[error("keeping the upload in {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl UploadError {
    fn status(&self) -> StatusCode {
        match self {
            UploadError::TooLarge { .. } | UploadError::Unpack(UnpackError::Unpacked) => {
                StatusCode::PAYLOAD_TOO_LARGE
            }
            UploadError::Io { .. } | UploadError::Unpack(UnpackError::Io { .. }) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
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
        None => unpack(bytes, &root.join("bot"))
            .map(|()| bot_folder(&root.join("bot")))
            .map_err(UploadError::Unpack),
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
    let announced = super::listen::announced_length(&headers);
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
                    serde_json::json!({ "name": name, "ok": false, "problem": problem.to_string() })
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
