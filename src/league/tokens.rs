//! Worker tokens: who may lease a league's games from another machine. `arbiter league token DIR
//! NAME` makes a random 32-byte token, prints it once and keeps only its SHA-256 in
//! `worker-tokens.toml` (so a copy of the folder gives no one a token); `--revoke NAME` marks it
//! revoked, which is kept so that a revoked worker is told it was revoked, not that its token is
//! unknown. The server checks every worker call against the file ([`Tokens`], read again when
//! it changes): a token made or revoked while it runs counts at once.

use super::folder::token_hash;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE: &str = "worker-tokens.toml";

/// A token file that cannot be read or written, or a name that cannot be a worker's.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a league's worker tokens: {detail}; fix or remove it", path.display())]
    Bad { path: PathBuf, detail: String },
    #[error("{name:?} cannot name a worker: use letters, digits, '-', '_' and '.' (at most 64)")]
    Name { name: String },
    #[error("no worker named {name:?} has a token in {}; its workers: {known}", dir.display())]
    NoSuchWorker {
        name: String,
        dir: PathBuf,
        known: String,
    },
}

/// Why a worker's token is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "this league knows no such worker token: check {} (it is printed once by \
         `arbiter league token DIR NAME` on the server's folder; make a new one there)",
        crate::options::Opt::Token
    )]
    Unknown,
    #[error(
        "the token of worker {name:?} was revoked: ask the league's owner for a new one \
         (`arbiter league token DIR NAME`)"
    )]
    Revoked { name: String },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    name: String,
    sha256: String,
    #[serde(default)]
    revoked: bool,
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    worker: Vec<Entry>,
}

fn load(dir: &Path) -> Result<File, TokenError> {
    let path = dir.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str(&text).map_err(|e| TokenError::Bad {
            path,
            detail: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File::default()),
        Err(source) => Err(TokenError::Io { path, source }),
    }
}

fn save(dir: &Path, file: &File) -> Result<(), TokenError> {
    let path = dir.join(FILE);
    let text = toml::to_string(file).map_err(|e| TokenError::Bad {
        path: path.clone(),
        detail: e.to_string(),
    })?;
    let tmp = path.with_extension("tmp");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| TokenError::Io { path, source }
    };
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

fn plain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Makes a new token for worker `name` (replacing an earlier one of that name) and returns it.
pub fn issue(dir: &Path, name: &str) -> Result<String, TokenError> {
    if !plain(name) {
        return Err(TokenError::Name { name: name.into() });
    }
    let mut raw = [0u8; 32];
    let urandom = Path::new("/dev/urandom");
    let read = |source| TokenError::Io {
        path: urandom.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(urandom).map_err(read)?;
    std::io::Read::read_exact(&mut f, &mut raw).map_err(read)?;
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let mut file = load(dir)?;
    file.worker.retain(|e| e.name != name);
    file.worker.push(Entry {
        name: name.into(),
        sha256: token_hash(&token),
        revoked: false,
    });
    save(dir, &file)?;
    Ok(token)
}

/// Revokes worker `name`'s token.
pub fn revoke(dir: &Path, name: &str) -> Result<(), TokenError> {
    let mut file = load(dir)?;
    let Some(e) = file.worker.iter_mut().find(|e| e.name == name) else {
        let known: Vec<&str> = file.worker.iter().map(|e| e.name.as_str()).collect();
        return Err(TokenError::NoSuchWorker {
            name: name.into(),
            dir: dir.to_path_buf(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        });
    };
    e.revoked = true;
    save(dir, &file)
}

/// The worker a token belongs to, or why it is refused (an unreadable file refuses every token).
pub fn check(dir: &Path, token: &str) -> Result<String, Refusal> {
    let file = load(dir).map_err(|_| Refusal::Unknown)?;
    find(&file, token)
}

fn find(file: &File, token: &str) -> Result<String, Refusal> {
    let hash = token_hash(token.trim());
    match file.worker.iter().find(|e| e.sha256 == hash) {
        Some(e) if e.revoked => Err(Refusal::Revoked {
            name: e.name.clone(),
        }),
        Some(e) => Ok(e.name.clone()),
        None => Err(Refusal::Unknown),
    }
}

/// A league's worker tokens as the server checks them: the file is read again only when it
/// changed ([`super::cached`]).
pub struct Tokens {
    dir: PathBuf,
    file: super::cached::Cached<File>,
}

impl Tokens {
    pub fn new(dir: &Path) -> Tokens {
        Tokens {
            dir: dir.to_path_buf(),
            file: super::cached::Cached::new(dir.join(FILE)),
        }
    }

    /// As [`check`], from the file as last read unless it changed since.
    pub fn check(&self, token: &str) -> Result<String, Refusal> {
        let file = self
            .file
            .get(|_| load(&self.dir))
            .map_err(|_| Refusal::Unknown)?;
        find(&file, token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_check_revoke() {
        let dir = tempfile::tempdir().unwrap();
        let t = issue(dir.path(), "lab-1").unwrap();
        assert_eq!(t.len(), 64);
        assert_eq!(check(dir.path(), &t), Ok("lab-1".into()));
        assert_eq!(check(dir.path(), "nope"), Err(Refusal::Unknown));
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(!text.contains(&t), "only the hash is kept");
        revoke(dir.path(), "lab-1").unwrap();
        assert_eq!(
            check(dir.path(), &t),
            Err(Refusal::Revoked {
                name: "lab-1".into()
            })
        );
        assert!(issue(dir.path(), "a b").is_err());
        // The server's cached check: a token revoked after it was let in is refused at its next
        // check, and one made meanwhile is let in.
        let tokens = Tokens::new(dir.path());
        let t2 = issue(dir.path(), "lab-2").unwrap();
        assert_eq!(tokens.check(&t2), Ok("lab-2".into()));
        assert_eq!(tokens.check(&t2), Ok("lab-2".into()));
        revoke(dir.path(), "lab-2").unwrap();
        assert_eq!(
            tokens.check(&t2),
            Err(Refusal::Revoked {
                name: "lab-2".into()
            })
        );
        let t3 = issue(dir.path(), "lab-3").unwrap();
        assert_eq!(tokens.check(&t3), Ok("lab-3".into()));
        assert!(revoke(dir.path(), "other").is_err());
    }
}
