//! A bot's sources as a remote worker fetches them: one gzip'd archive of its files, named by
//! the SHA-256 of its bytes (the worker checks the hash before it unpacks, and caches by it).
//! The server makes it from the bot's entry as `league add` recorded it: a file (an executable
//! or a source file) or a folder goes whole; a command (`NAME="python3 bot.py"`) takes along the
//! files its words name and keeps the rest (interpreters) as the worker machine has them. The
//! worker builds what it unpacked in its own build box, as the server does with `league add`.
//!
//! The archive is a plain sequence of entries (path, mode, bytes), so that unpacking can refuse
//! any path that would leave its folder.

use super::folder::BotEntry;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// The largest bot (its files uncompressed), in bytes.
pub const MAX_BYTES: u64 = 512 << 20;

/// A bot that cannot be sent, or an archive that cannot be unpacked.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("bot {name} is larger than {} MiB: remote workers cannot fetch it", MAX_BYTES >> 20)]
    TooLarge { name: String },
    #[error("the archive of bot {name} is damaged: {why}")]
    Damaged { name: String, why: String },
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a bot's archive holds: the files (path inside the archive, path here) and the BOT
/// argument that finds it in the unpacked folder.
#[derive(Debug, PartialEq)]
pub struct Sources {
    pub origin: String,
    pub files: Vec<(String, PathBuf)>,
}

fn plain(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

/// The files of `entry`'s bot and its BOT argument inside the archive.
pub fn sources(entry: &BotEntry) -> Result<Sources, BundleError> {
    let at = |p: &str| entry.workdir.join(p);
    let mut arg = entry.origin.as_str();
    if !at(arg).exists() {
        if let Some((name, rest)) = arg.split_once('=') {
            if plain(name) && !rest.trim().is_empty() {
                arg = rest;
            }
        }
    }
    let named = |inner: &str| {
        if plain(&entry.name) {
            format!("{}={inner}", entry.name)
        } else {
            inner.to_string()
        }
    };
    let path = at(arg);
    let mut files = Vec::new();
    if path.is_dir() {
        walk(&path, "bot", &mut files)?;
        return Ok(Sources {
            origin: named("bot"),
            files,
        });
    }
    if path.is_file() {
        let file_name = path
            .file_name()
            .map_or("bot".into(), |n| n.to_string_lossy().into_owned());
        let inside = format!("bot/{file_name}");
        files.push((inside.clone(), path));
        return Ok(Sources {
            origin: named(&inside),
            files,
        });
    }
    // A command: the files its words name go along, renamed inside the archive.
    let mut words = shell_words::split(arg).unwrap_or_else(|_| vec![arg.to_string()]);
    for (i, word) in words.iter_mut().enumerate() {
        let p = at(word);
        // An absolute program (an interpreter) is the worker machine's own.
        if (i == 0 && Path::new(word).is_absolute()) || !p.is_file() {
            continue;
        }
        let file_name = p
            .file_name()
            .map_or("file".into(), |n| n.to_string_lossy().into_owned());
        let inside = format!("files/{i}/{file_name}");
        files.push((inside.clone(), p));
        *word = inside;
    }
    Ok(Sources {
        origin: named(&shell_words::join(&words)),
        files,
    })
}

fn walk(dir: &Path, inside: &str, out: &mut Vec<(String, PathBuf)>) -> Result<(), BundleError> {
    let read = |source| BundleError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(read)?
        .collect::<Result<_, _>>()
        .map_err(read)?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let here = format!("{inside}/{name}");
        if path.is_dir() {
            walk(&path, &here, out)?;
        } else if path.is_file() {
            out.push((here, path));
        }
    }
    Ok(())
}

/// What the files are now (sizes and times): the archive is made again only when it changed.
pub fn fingerprint(s: &Sources) -> Vec<(u64, Option<SystemTime>)> {
    s.files
        .iter()
        .map(|(_, p)| match std::fs::metadata(p) {
            Ok(m) => (m.len(), m.modified().ok()),
            Err(_) => (u64::MAX, None),
        })
        .collect()
}

/// The archive of `s` (gzip'd) and its SHA-256 in hex.
pub fn pack(name: &str, s: &Sources) -> Result<(Vec<u8>, String), BundleError> {
    use std::os::unix::fs::PermissionsExt;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut total = 0u64;
    for (inside, path) in &s.files {
        let read = |source| BundleError::Read {
            path: path.clone(),
            source,
        };
        let data = std::fs::read(path).map_err(read)?;
        let mode = std::fs::metadata(path).map_err(read)?.permissions().mode() & 0o777;
        total += data.len() as u64;
        if total > MAX_BYTES {
            return Err(BundleError::TooLarge { name: name.into() });
        }
        let mut head = Vec::new();
        head.extend_from_slice(&(inside.len() as u32).to_le_bytes());
        head.extend_from_slice(inside.as_bytes());
        head.extend_from_slice(&mode.to_le_bytes());
        head.extend_from_slice(&(data.len() as u64).to_le_bytes());
        gz.write_all(&head).expect("writing to memory");
        gz.write_all(&data).expect("writing to memory");
    }
    let bytes = gz.finish().expect("writing to memory");
    let hash = hash(&bytes);
    Ok((bytes, hash))
}

/// The SHA-256 of `bytes` in hex.
pub fn hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Unpacks an archive into `dest` (which must not exist yet), refusing any path that would
/// leave it.
pub fn unpack(name: &str, bytes: &[u8], dest: &Path) -> Result<(), BundleError> {
    use std::os::unix::fs::PermissionsExt;
    let damaged = |why: &str| BundleError::Damaged {
        name: name.into(),
        why: why.into(),
    };
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(MAX_BYTES + (1 << 20))
        .read_to_end(&mut raw)
        .map_err(|e| damaged(&e.to_string()))?;
    let write = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BundleError::Write { path, source }
    };
    std::fs::create_dir_all(dest).map_err(write(dest))?;
    let mut rest = raw.as_slice();
    let mut take = |n: usize| -> Result<&[u8], BundleError> {
        if rest.len() < n {
            return Err(damaged("it ends inside a file"));
        }
        let (a, b) = rest.split_at(n);
        rest = b;
        Ok(a)
    };
    while let Ok(len) = take(4) {
        let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
        let inside = String::from_utf8(take(len)?.to_vec()).map_err(|_| damaged("a name"))?;
        let mode = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        let size = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes")) as usize;
        let data = take(size)?;
        let rel = Path::new(&inside);
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(damaged(&format!("{inside:?} would leave its folder")));
        }
        let path = dest.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(write(parent))?;
        }
        std::fs::write(&path, data).map_err(write(&path))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & 0o755))
            .map_err(write(&path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: &Path, origin: &str) -> BotEntry {
        BotEntry {
            name: "b".into(),
            origin: origin.into(),
            workdir: dir.to_path_buf(),
            removed: false,
            candidate_of: None,
        }
    }

    #[test]
    fn files_folders_and_commands_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("f/src")).unwrap();
        std::fs::write(dir.path().join("f/src/main.py"), "print(1)").unwrap();
        std::fs::write(dir.path().join("bot.py"), "print(2)").unwrap();
        let s = sources(&entry(dir.path(), "f")).unwrap();
        assert_eq!(s.origin, "b=bot");
        assert_eq!(s.files[0].0, "bot/src/main.py");
        let s = sources(&entry(dir.path(), "x=python3 bot.py --fast")).unwrap();
        assert_eq!(s.origin, "b=python3 files/1/bot.py --fast");
        let (bytes, h) = pack("b", &s).unwrap();
        assert_eq!(h, hash(&bytes));
        let out = dir.path().join("out");
        unpack("b", &bytes, &out).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("files/1/bot.py")).unwrap(),
            "print(2)"
        );
    }

    #[test]
    fn an_archive_cannot_write_outside_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let name = b"../evil";
        gz.write_all(&(name.len() as u32).to_le_bytes()).unwrap();
        gz.write_all(name).unwrap();
        gz.write_all(&0o644u32.to_le_bytes()).unwrap();
        gz.write_all(&1u64.to_le_bytes()).unwrap();
        gz.write_all(b"x").unwrap();
        let bytes = gz.finish().unwrap();
        let err = unpack("b", &bytes, &dir.path().join("out")).unwrap_err();
        assert!(err.to_string().contains("would leave its folder"), "{err}");
        assert!(!dir.path().join("evil").exists());
    }
}
