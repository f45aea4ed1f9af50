//! A bot's folder unpacked from a (gzip'd) tar archive, refusing whatever could reach outside
//! it: the one unpacker of the league, for uploads ([`super::upload`]) and for the archives a
//! worker fetches ([`super::bundle::unpack`]). An entry whose path climbs out (`..`) or is
//! absolute, a symbolic link that is absolute or climbs, a hard link, a device file or a fifo
//! refuses the whole archive with the entry named; unpacked, it may hold at most [`MAX_BYTES`]
//! in at most [`MAX_ENTRIES`] entries, which stops a compressed bomb. The members are read
//! with their headers bounded ([`super::tar_members`]).

use super::tar_members::{Member, MemberError, Members};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The largest bot (its files uncompressed), in bytes: what an archive may unpack to, and what
/// [`super::bundle`] packs for a remote worker at most.
pub const MAX_BYTES: u64 = 512 << 20;
/// Entries an archive may hold.
pub const MAX_ENTRIES: usize = 20_000;

/// An archive that cannot be unpacked (said as an upload's refusal, which it most often is).
#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error(
        "unpacked, the upload is larger than {} MiB (or holds more than {MAX_ENTRIES} \
         entries): send the bot's sources only", MAX_BYTES >> 20
    )]
    Unpacked,
    #[error(
        "the upload is not a .tar.gz or .tar of a bot's folder ({why}): send one, or a single \
         source file with ?file=NAME (such as ?file=bot.py)"
    )]
    NotArchive { why: String },
    #[error("the upload was refused: its entry {entry:?} {why}; nothing of it was kept")]
    Unsafe { entry: String, why: String },
    #[error("the upload was refused: {0}; nothing of it was kept")]
    Headers(MemberError),
    #[error("keeping the upload in {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> UnpackError + '_ {
    move |source| UnpackError::Io {
        path: path.to_path_buf(),
        source,
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
/// outside it.
pub fn unpack(bytes: &[u8], dest: &Path) -> Result<(), UnpackError> {
    use std::os::unix::fs::PermissionsExt;
    use tar::EntryType;
    std::fs::create_dir(dest).map_err(io(dest))?;
    let reader: Box<dyn Read + '_> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(bytes))
    } else if bytes.get(257..262) == Some(b"ustar") {
        Box::new(bytes)
    } else {
        return Err(UnpackError::NotArchive {
            why: "neither gzip nor tar".into(),
        });
    };
    let not_archive = |e: std::io::Error| UnpackError::NotArchive { why: e.to_string() };
    let mut archive = tar::Archive::new(reader);
    let mut total = 0u64;
    let mut count = 0usize;
    // Long names and PAX headers bounded before they are read (see `tar_members`).
    for member in Members::new(&mut archive).map_err(not_archive)? {
        let Member {
            mut entry,
            path: raw,
            link,
        } = member.map_err(|e| match e {
            MemberError::Read(e) => not_archive(e),
            refused => UnpackError::Headers(refused),
        })?;
        count += 1;
        if count > MAX_ENTRIES {
            return Err(UnpackError::Unpacked);
        }
        let shown = raw.to_string_lossy().into_owned();
        let refused = |why: &str| UnpackError::Unsafe {
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
                    return Err(UnpackError::Unpacked);
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
