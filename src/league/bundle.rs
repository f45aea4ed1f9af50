//! A bot's sources as a remote worker fetches them: a `.tar.gz` of its files, named by the
//! SHA-256 of its bytes (the worker checks the hash before it unpacks, and caches by it), and
//! unpacked by the worker with the very checks of an uploaded bot ([`super::unpack`]:
//! no entry outside its folder, no link out, no device). The server makes it from the bot's
//! entry as `league add` recorded it: a file (an executable or a source file) or a folder goes
//! whole; a command (`NAME="python3 bot.py"`) takes along the files its words name and keeps
//! the rest (interpreters) as the worker machine has them.
//!
//! What goes in is the bot's own files only, as another user of the machine could read them
//! (issue 45: the server runs as root, and a worker is a stranger): a file a command names lies
//! under the folder the command was given from; a folder's links lead inside it; every file is
//! readable by other users and every folder below the bot's own is theirs to enter. A bot that
//! names a file it may not ship is refused when it is added (with the file and why), and never
//! packed.

use super::folder::BotEntry;
use super::unpack::MAX_BYTES;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

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
    #[error(
        "bot {name}: its command names {}, outside the folder it was given from ({}); a league \
         sends its workers a bot's own files only: copy the file into that folder, or make the \
         bot a folder with a bot.toml",
        file.display(), folder.display()
    )]
    Outside {
        name: String,
        file: PathBuf,
        folder: PathBuf,
    },
    #[error(
        "bot {name}: {} cannot be read by other users of this machine (mode {mode:04o}); a \
         league sends its workers only what any user could read, never what only its own user \
         may: make it readable (chmod o+r {}) if it is the bot's, or leave it out",
        file.display(), file.display()
    )]
    Private {
        name: String,
        file: PathBuf,
        mode: u32,
    },
    #[error(
        "bot {name}: other users of this machine cannot enter its folder {} (mode {mode:04o}); \
         a league sends its workers only what any user could read: chmod o+rx {}",
        folder.display(), folder.display()
    )]
    Closed {
        name: String,
        folder: PathBuf,
        mode: u32,
    },
    #[error(
        "bot {name}: its link {} leads {}, outside the bot's folder; a league sends its workers \
         a bot's own files only: put the file itself in the folder",
        link.display(), where_to
    )]
    LinkOut {
        name: String,
        link: PathBuf,
        where_to: String,
    },
    #[error(
        "bot {name}: {} is not a file, a folder or a link (a fifo, socket or device), which a \
         bot may not bring: remove it",
        file.display()
    )]
    Special { name: String, file: PathBuf },
    #[error("the archive of bot {name} is damaged: {why}")]
    Damaged { name: String, why: String },
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One entry of a bot's archive.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A file, read from that path here.
    File(PathBuf),
    /// A folder.
    Dir,
    /// A symbolic link to that path, beside it or below.
    Link(PathBuf),
}

/// What a bot's archive holds: its entries (path inside the archive, what it is) and the BOT
/// argument that finds it in the unpacked folder.
#[derive(Debug, PartialEq)]
pub struct Sources {
    pub origin: String,
    pub files: Vec<(String, Item)>,
}

fn plain(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

fn read_err(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError + '_ {
    move |source| BundleError::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// `file` if other users may read it.
fn readable(name: &str, file: &Path, meta: &std::fs::Metadata) -> Result<(), BundleError> {
    if meta.mode() & 0o004 == 0 {
        return Err(BundleError::Private {
            name: name.into(),
            file: file.to_path_buf(),
            mode: meta.mode() & 0o7777,
        });
    }
    Ok(())
}

/// `folder` if other users may enter and list it.
fn enterable(name: &str, folder: &Path, meta: &std::fs::Metadata) -> Result<(), BundleError> {
    if meta.mode() & 0o005 != 0o005 {
        return Err(BundleError::Closed {
            name: name.into(),
            folder: folder.to_path_buf(),
            mode: meta.mode() & 0o7777,
        });
    }
    Ok(())
}

/// The files of `entry`'s bot and its BOT argument inside the archive, or why it may not be
/// shipped.
pub fn sources(entry: &BotEntry) -> Result<Sources, BundleError> {
    let name = entry.name.as_str();
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
        let root = std::fs::canonicalize(&path).map_err(read_err(&path))?;
        files.push(("bot".to_string(), Item::Dir));
        walk(name, &root, &root, "bot", &mut files)?;
        return Ok(Sources {
            origin: named("bot"),
            files,
        });
    }
    if path.is_file() {
        let file = std::fs::canonicalize(&path).map_err(read_err(&path))?;
        readable(
            name,
            &file,
            &std::fs::metadata(&file).map_err(read_err(&file))?,
        )?;
        let file_name = path
            .file_name()
            .map_or("bot".into(), |n| n.to_string_lossy().into_owned());
        let inside = format!("bot/{file_name}");
        files.push(("bot".to_string(), Item::Dir));
        files.push((inside.clone(), Item::File(file)));
        return Ok(Sources {
            origin: named(&inside),
            files,
        });
    }
    // A command: the files its words name go along, renamed inside the archive; each must lie
    // under the folder the command was given from.
    let folder = std::fs::canonicalize(&entry.workdir).map_err(read_err(&entry.workdir))?;
    let mut words = shell_words::split(arg).unwrap_or_else(|_| vec![arg.to_string()]);
    for (i, word) in words.iter_mut().enumerate() {
        let p = at(word);
        // An absolute program (an interpreter) is the worker machine's own.
        if (i == 0 && Path::new(word).is_absolute()) || !p.is_file() {
            continue;
        }
        let file = std::fs::canonicalize(&p).map_err(read_err(&p))?;
        let Ok(below) = file.strip_prefix(&folder) else {
            return Err(BundleError::Outside {
                name: name.into(),
                file: PathBuf::from(word.as_str()),
                folder,
            });
        };
        // Every folder on the way down from the command's folder is others' to enter.
        let mut way = folder.clone();
        for part in below.parent().into_iter().flat_map(Path::components) {
            way.push(part);
            enterable(
                name,
                &way,
                &std::fs::metadata(&way).map_err(read_err(&way))?,
            )?;
        }
        readable(
            name,
            &file,
            &std::fs::metadata(&file).map_err(read_err(&file))?,
        )?;
        let file_name = p
            .file_name()
            .map_or("file".into(), |n| n.to_string_lossy().into_owned());
        let inside = format!("files/{i}/{file_name}");
        files.push((format!("files/{i}"), Item::Dir));
        files.push((inside.clone(), Item::File(file)));
        *word = inside;
    }
    if !files.is_empty() {
        files.insert(0, ("files".to_string(), Item::Dir));
    }
    Ok(Sources {
        origin: named(&shell_words::join(&words)),
        files,
    })
}

/// The entries of folder `dir` (below the bot's folder `root`), as `inside/...`: files others
/// may read, folders they may enter, links that lead inside `root` (beside or below them as
/// they are; by `..` as the file they lead to).
fn walk(
    name: &str,
    root: &Path,
    dir: &Path,
    inside: &str,
    out: &mut Vec<(String, Item)>,
) -> Result<(), BundleError> {
    enterable(name, dir, &std::fs::metadata(dir).map_err(read_err(dir))?)?;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(read_err(dir))?
        .collect::<Result<_, _>>()
        .map_err(read_err(dir))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let here = format!("{inside}/{}", e.file_name().to_string_lossy());
        let path = e.path();
        let meta = std::fs::symlink_metadata(&path).map_err(read_err(&path))?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            let literal = std::fs::read_link(&path).map_err(read_err(&path))?;
            let link_out = |where_to: String| BundleError::LinkOut {
                name: name.into(),
                link: path.clone(),
                where_to,
            };
            let target = std::fs::canonicalize(&path)
                .map_err(|_| link_out(format!("to {} (nothing there)", literal.display())))?;
            if !target.starts_with(root) {
                return Err(link_out(format!("to {}", target.display())));
            }
            let down = literal
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
            if down {
                out.push((here, Item::Link(literal)));
            } else if target.is_file() {
                readable(
                    name,
                    &target,
                    &std::fs::metadata(&target).map_err(read_err(&target))?,
                )?;
                out.push((here, Item::File(target)));
            } else {
                return Err(link_out(format!(
                    "to the folder {} by a way up ('..'): make it lead down",
                    literal.display()
                )));
            }
        } else if kind.is_dir() {
            out.push((here.clone(), Item::Dir));
            walk(name, root, &path, &here, out)?;
        } else if kind.is_file() {
            readable(name, &path, &meta)?;
            out.push((here, Item::File(path)));
        } else {
            return Err(BundleError::Special {
                name: name.into(),
                file: path,
            });
        }
    }
    Ok(())
}

/// What the files are now (sizes and times): the archive is made again only when it changed.
pub fn fingerprint(s: &Sources) -> Vec<(u64, Option<SystemTime>)> {
    s.files
        .iter()
        .filter_map(|(_, item)| match item {
            Item::File(p) => Some(match std::fs::metadata(p) {
                Ok(m) => (m.len(), m.modified().ok()),
                Err(_) => (u64::MAX, None),
            }),
            _ => None,
        })
        .collect()
}

/// Reads `path`, a regular file others may read (checked again as it is opened: a file swapped
/// for a link since is not followed).
fn read_shared(name: &str, path: &Path) -> Result<(Vec<u8>, u32), BundleError> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(read_err(path))?;
    let meta = f.metadata().map_err(read_err(path))?;
    if !meta.is_file() {
        return Err(BundleError::Special {
            name: name.into(),
            file: path.to_path_buf(),
        });
    }
    readable(name, path, &meta)?;
    let mut data = Vec::new();
    (&mut f)
        .take(MAX_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(read_err(path))?;
    Ok((data, meta.mode()))
}

/// The archive of `s` (a gzip'd tar) and its SHA-256 in hex.
pub fn pack(name: &str, s: &Sources) -> Result<(Vec<u8>, String), BundleError> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut total = 0u64;
    let memory = |e: std::io::Error| -> BundleError {
        BundleError::Write {
            path: PathBuf::from("(memory)"),
            source: e,
        }
    };
    for (inside, item) in &s.files {
        let mut h = tar::Header::new_gnu();
        h.set_mtime(0);
        match item {
            Item::Dir => {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_mode(0o755);
                h.set_size(0);
                tar.append_data(&mut h, inside, std::io::empty())
                    .map_err(memory)?;
            }
            Item::Link(target) => {
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_mode(0o777);
                h.set_size(0);
                tar.append_link(&mut h, inside, target).map_err(memory)?;
            }
            Item::File(path) => {
                let (data, mode) = read_shared(name, path)?;
                total += data.len() as u64;
                if total > MAX_BYTES {
                    return Err(BundleError::TooLarge { name: name.into() });
                }
                h.set_entry_type(tar::EntryType::Regular);
                h.set_mode(mode & 0o755);
                h.set_size(data.len() as u64);
                tar.append_data(&mut h, inside, data.as_slice())
                    .map_err(memory)?;
            }
        }
    }
    let bytes = tar
        .into_inner()
        .and_then(|gz| gz.finish())
        .map_err(memory)?;
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

/// Unpacks an archive into `dest` (which must not exist yet) with the checks of an uploaded
/// bot: nothing of it may land outside `dest`.
pub fn unpack(name: &str, bytes: &[u8], dest: &Path) -> Result<(), BundleError> {
    super::unpack::unpack(bytes, dest).map_err(|e| {
        let _ = std::fs::remove_dir_all(dest);
        BundleError::Damaged {
            name: name.into(),
            why: e.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn entry(dir: &Path, origin: &str) -> BotEntry {
        BotEntry {
            name: "b".into(),
            origin: origin.into(),
            workdir: dir.to_path_buf(),
            removed: false,
            candidate_of: None,
            sprt: None,
            suspended: None,
        }
    }

    fn mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn files_folders_and_commands_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("f/src")).unwrap();
        std::fs::write(dir.path().join("f/src/main.py"), "print(1)").unwrap();
        std::os::unix::fs::symlink("src/main.py", dir.path().join("f/main.py")).unwrap();
        std::os::unix::fs::symlink("../src/main.py", dir.path().join("f/src/up.py")).unwrap();
        std::fs::write(dir.path().join("bot.py"), "print(2)").unwrap();
        let s = sources(&entry(dir.path(), "f")).unwrap();
        assert_eq!(s.origin, "b=bot");
        let inside: Vec<&str> = s.files.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(
            inside,
            [
                "bot",
                "bot/main.py",
                "bot/src",
                "bot/src/main.py",
                "bot/src/up.py"
            ]
        );
        let (bytes, _) = pack("b", &s).unwrap();
        let out = dir.path().join("out-f");
        unpack("b", &bytes, &out).unwrap();
        for f in ["bot/main.py", "bot/src/main.py", "bot/src/up.py"] {
            assert_eq!(
                std::fs::read_to_string(out.join(f)).unwrap(),
                "print(1)",
                "{f}"
            );
        }
        let s = sources(&entry(dir.path(), "x=python3 bot.py --fast")).unwrap();
        assert_eq!(s.origin, "b=python3 files/1/bot.py --fast");
        let (bytes, h) = pack("b", &s).unwrap();
        assert_eq!(h, hash(&bytes));
        assert_eq!(
            pack("b", &s).unwrap().1,
            h,
            "the same files make the same archive"
        );
        let out = dir.path().join("out");
        unpack("b", &bytes, &out).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("files/1/bot.py")).unwrap(),
            "print(2)"
        );
    }

    #[test]
    fn only_the_bots_own_files_readable_by_anyone_are_shipped() {
        let tmp = tempfile::tempdir().unwrap();
        let w = tmp.path().join("w");
        std::fs::create_dir_all(w.join("f")).unwrap();
        mode(&w, 0o755);
        std::fs::write(w.join("ok.py"), "print(1)").unwrap();
        std::fs::write(w.join("private"), "secret").unwrap();
        mode(&w.join("private"), 0o600);
        std::fs::write(tmp.path().join("secret"), "secret").unwrap();
        let secret = tmp.path().join("secret");
        let refused = |origin: &str| sources(&entry(&w, origin)).unwrap_err().to_string();
        let e = refused("x=python3 ok.py ../secret");
        assert!(
            e.contains("outside the folder") && e.contains("../secret"),
            "{e}"
        );
        let e = refused(&format!("x=python3 ok.py {}", secret.display()));
        assert!(e.contains("outside the folder"), "{e}");
        let e = refused("x=python3 ok.py private");
        assert!(
            e.contains("cannot be read by other users") && e.contains("0600"),
            "{e}"
        );
        // A folder: its links lead inside it, its files are readable, its folders open.
        std::fs::write(w.join("f/bot.py"), "print(1)").unwrap();
        std::os::unix::fs::symlink(&secret, w.join("f/key")).unwrap();
        let e = refused("f");
        assert!(
            e.contains("its link") && e.contains("outside the bot's folder"),
            "{e}"
        );
        std::fs::remove_file(w.join("f/key")).unwrap();
        std::fs::create_dir(w.join("f/shut")).unwrap();
        mode(&w.join("f/shut"), 0o700);
        assert!(refused("f").contains("cannot enter"), "{}", refused("f"));
        mode(&w.join("f/shut"), 0o755);
        assert!(sources(&entry(&w, "f")).is_ok());
    }

    #[test]
    fn an_archive_cannot_write_outside_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        let mut h = tar::Header::new_old();
        let name = b"../evil";
        h.as_old_mut().name[..name.len()].copy_from_slice(name);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_mode(0o644);
        h.set_size(1);
        h.set_cksum();
        b.append(&h, &b"x"[..]).unwrap();
        let bytes = b.into_inner().unwrap().finish().unwrap();
        let err = unpack("b", &bytes, &dir.path().join("out")).unwrap_err();
        assert!(err.to_string().contains("'..'"), "{err}");
        assert!(!dir.path().join("evil").exists());
        assert!(!dir.path().join("out").exists(), "nothing of it is kept");
    }
}
