//! The league's tokens besides the admin's: worker tokens, who may lease a league's games from
//! another machine, and author tokens, who may upload, replace and read the build log of one
//! bot (issue 45: in a class, every student holds one, for their own bot only). `arbiter league
//! token DIR NAME` (a worker's) and `arbiter league author DIR NAME` (bot NAME's author's) make
//! a random 32-byte token, print it once and keep only its SHA-256 (in `worker-tokens.toml`,
//! `author-tokens.toml`: a copy of the folder gives no one a token); `--revoke` marks it
//! revoked, which is kept so that a revoked holder is told it was revoked, not that its token
//! is unknown. The server checks every call against the file ([`Tokens`], read again when it
//! changes): a token made or revoked while it runs counts at once.

use super::folder::token_hash;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The worker tokens' file in a league's folder.
pub const FILE: &str = "worker-tokens.toml";
/// The author tokens' file in a league's folder.
pub const AUTHORS: &str = "author-tokens.toml";

/// Whose tokens: a worker's or a bot author's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Worker,
    Author,
}

impl TokenKind {
    /// The tokens' file in the league's folder.
    pub fn file(self) -> &'static str {
        match self {
            TokenKind::Worker => FILE,
            TokenKind::Author => AUTHORS,
        }
    }

    fn what(self) -> &'static str {
        match self {
            TokenKind::Worker => "worker",
            TokenKind::Author => "bot",
        }
    }

    fn command(self) -> &'static str {
        match self {
            TokenKind::Worker => "arbiter league token DIR NAME",
            TokenKind::Author => "arbiter league author DIR NAME",
        }
    }
}

/// A token file that cannot be read or written, or a name that cannot be a worker's.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a league's tokens file: {detail}; fix or remove it", path.display())]
    Bad { path: PathBuf, detail: String },
    #[error(transparent)]
    Name(#[from] super::names::BadName),
    #[error("no {what} named {name:?} has a token in {}; those that have: {known}", dir.display())]
    NoSuchHolder {
        what: &'static str,
        name: String,
        dir: PathBuf,
        known: String,
    },
}

/// Why a token is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "this league knows no such {} token: check {} (it is printed once by `{}` on the \
         server's folder; make a new one there)",
        kind.what(), crate::options::Opt::Token, kind.command()
    )]
    Unknown { kind: TokenKind },
    #[error(
        "the token of {} {name:?} was revoked: ask the league's owner for a new one (`{}`)",
        kind.what(), kind.command()
    )]
    Revoked { kind: TokenKind, name: String },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct TokenEntry {
    name: String,
    sha256: String,
    #[serde(default)]
    revoked: bool,
}

/// A tokens file: its entries under `[[worker]]` or `[[author]]`, as its kind says.
#[derive(Default, Serialize, Deserialize)]
struct File {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    worker: Vec<TokenEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    author: Vec<TokenEntry>,
}

impl File {
    fn of(&self, kind: TokenKind) -> &Vec<TokenEntry> {
        match kind {
            TokenKind::Worker => &self.worker,
            TokenKind::Author => &self.author,
        }
    }

    fn of_mut(&mut self, kind: TokenKind) -> &mut Vec<TokenEntry> {
        match kind {
            TokenKind::Worker => &mut self.worker,
            TokenKind::Author => &mut self.author,
        }
    }
}

fn load(dir: &Path, kind: TokenKind) -> Result<File, TokenError> {
    let path = dir.join(kind.file());
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str(&text).map_err(|e| TokenError::Bad {
            path,
            detail: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File::default()),
        Err(source) => Err(TokenError::Io { path, source }),
    }
}

fn save(dir: &Path, kind: TokenKind, file: &File) -> Result<(), TokenError> {
    let path = dir.join(kind.file());
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

/// Makes a new token for worker `name` (replacing an earlier one of that name) and returns it.
pub fn issue(dir: &Path, name: &str) -> Result<String, TokenError> {
    issue_for(dir, TokenKind::Worker, name)
}

/// Makes a new `kind` token for `name` (a worker, or the bot an author may upload), replacing
/// an earlier one of that name, and returns it.
pub fn issue_for(dir: &Path, kind: TokenKind, name: &str) -> Result<String, TokenError> {
    super::names::check(name, kind.what())?;
    let mut raw = [0u8; 32];
    let urandom = Path::new("/dev/urandom");
    let read = |source| TokenError::Io {
        path: urandom.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(urandom).map_err(read)?;
    std::io::Read::read_exact(&mut f, &mut raw).map_err(read)?;
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let mut file = load(dir, kind)?;
    let list = file.of_mut(kind);
    list.retain(|e| e.name != name);
    list.push(TokenEntry {
        name: name.into(),
        sha256: token_hash(&token),
        revoked: false,
    });
    save(dir, kind, &file)?;
    Ok(token)
}

/// Revokes worker `name`'s token.
pub fn revoke(dir: &Path, name: &str) -> Result<(), TokenError> {
    revoke_for(dir, TokenKind::Worker, name)
}

/// Revokes `name`'s `kind` token.
pub fn revoke_for(dir: &Path, kind: TokenKind, name: &str) -> Result<(), TokenError> {
    let mut file = load(dir, kind)?;
    let list = file.of_mut(kind);
    let Some(e) = list.iter_mut().find(|e| e.name == name) else {
        let known: Vec<&str> = list.iter().map(|e| e.name.as_str()).collect();
        return Err(TokenError::NoSuchHolder {
            what: kind.what(),
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
    save(dir, kind, &file)
}

/// The worker a token belongs to, or why it is refused (an unreadable file refuses every token).
pub fn check(dir: &Path, token: &str) -> Result<String, Refusal> {
    let file = load(dir, TokenKind::Worker).map_err(|_| Refusal::Unknown {
        kind: TokenKind::Worker,
    })?;
    find(&file, TokenKind::Worker, token)
}

fn find(file: &File, kind: TokenKind, token: &str) -> Result<String, Refusal> {
    let hash = token_hash(token.trim());
    match file.of(kind).iter().find(|e| e.sha256 == hash) {
        Some(e) if e.revoked => Err(Refusal::Revoked {
            kind,
            name: e.name.clone(),
        }),
        Some(e) => Ok(e.name.clone()),
        None => Err(Refusal::Unknown { kind }),
    }
}

/// A league's tokens of one kind as the server checks them: the file is read again only when it
/// changed ([`super::cached`]).
pub struct Tokens {
    dir: PathBuf,
    kind: TokenKind,
    file: super::cached::Cached<File>,
}

impl Tokens {
    /// The worker tokens of the league in `dir`.
    pub fn new(dir: &Path) -> Tokens {
        Tokens::of(dir, TokenKind::Worker)
    }

    /// The `kind` tokens of the league in `dir`.
    pub fn of(dir: &Path, kind: TokenKind) -> Tokens {
        Tokens {
            dir: dir.to_path_buf(),
            kind,
            file: super::cached::Cached::new(dir.join(kind.file())),
        }
    }

    /// As [`check`], from the file as last read unless it changed since.
    pub fn check(&self, token: &str) -> Result<String, Refusal> {
        let file = self
            .file
            .get(|_| load(&self.dir, self.kind))
            .map_err(|_| Refusal::Unknown { kind: self.kind })?;
        find(&file, self.kind, token)
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
        assert_eq!(
            check(dir.path(), "nope"),
            Err(Refusal::Unknown {
                kind: TokenKind::Worker
            })
        );
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(!text.contains(&t), "only the hash is kept");
        revoke(dir.path(), "lab-1").unwrap();
        assert_eq!(
            check(dir.path(), &t),
            Err(Refusal::Revoked {
                kind: TokenKind::Worker,
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
                kind: TokenKind::Worker,
                name: "lab-2".into()
            })
        );
        let t3 = issue(dir.path(), "lab-3").unwrap();
        assert_eq!(tokens.check(&t3), Ok("lab-3".into()));
        assert!(revoke(dir.path(), "other").is_err());
        assert!(issue(dir.path(), "-rf").is_err());

        // Author tokens: a file of their own; a worker's token is no author's, nor the reverse.
        let a = issue_for(dir.path(), TokenKind::Author, "alice").unwrap();
        let authors = Tokens::of(dir.path(), TokenKind::Author);
        assert_eq!(authors.check(&a), Ok("alice".into()));
        assert_eq!(
            authors.check(&t3),
            Err(Refusal::Unknown {
                kind: TokenKind::Author
            })
        );
        assert_eq!(
            tokens.check(&a),
            Err(Refusal::Unknown {
                kind: TokenKind::Worker
            })
        );
        let text = std::fs::read_to_string(dir.path().join(AUTHORS)).unwrap();
        assert!(text.contains("[[author]]") && !text.contains(&a), "{text}");
        revoke_for(dir.path(), TokenKind::Author, "alice").unwrap();
        let e = authors.check(&a).unwrap_err().to_string();
        assert!(
            e.contains("bot \"alice\" was revoked") && e.contains("league author"),
            "{e}"
        );
    }
}
