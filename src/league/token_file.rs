//! A worker token kept in a file (`league work --token-file F`, `league slurm --token-file F`):
//! a token on the command line shows in `ps` to every user of the machine, and in a batch
//! script to everyone who may read it; a file that only its owner reads shows it to no one. So
//! a token file that others may read is refused (with the `chmod` that fixes it), rather than
//! used and left open.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A token file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    #[error("cannot read the token file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the token file {} can be read by others (mode {mode:04o}): anyone on the machine could \
         use its token; make it yours alone with `chmod 600 {}`",
        path.display(),
        path.display()
    )]
    Open { path: PathBuf, mode: u32 },
    #[error(
        "the token file {} holds no token: put in it the line that `arbiter league token DIR \
         NAME` (or `arbiter league author DIR NAME`) printed on the server",
        path.display()
    )]
    Empty { path: PathBuf },
    #[error(
        "the token file {} holds more than a token (a token is one line of letters and digits): \
         put in it only the line that `arbiter league token DIR NAME` printed",
        path.display()
    )]
    NotAToken { path: PathBuf },
}

/// Checks that `path` is a file only its owner may read, holding one token, and returns the
/// token.
pub fn read(path: &Path) -> Result<String, TokenFileError> {
    let io = |source| TokenFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(TokenFileError::Open {
            path: path.to_path_buf(),
            mode,
        });
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let token = text.trim();
    if token.is_empty() {
        return Err(TokenFileError::Empty {
            path: path.to_path_buf(),
        });
    }
    if !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(TokenFileError::NotAToken {
            path: path.to_path_buf(),
        });
    }
    Ok(token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    #[test]
    fn only_a_file_its_owner_alone_reads_gives_its_token() {
        let dir = tempfile::tempdir().unwrap();
        let good = file(dir.path(), "good", "abc123\n", 0o600);
        assert_eq!(read(&good).unwrap(), "abc123");
        let open = file(dir.path(), "open", "abc123\n", 0o644);
        let e = read(&open).unwrap_err().to_string();
        assert!(e.contains("mode 0644") && e.contains("chmod 600"), "{e}");
        let group = file(dir.path(), "group", "abc123\n", 0o640);
        assert!(matches!(read(&group), Err(TokenFileError::Open { .. })));
        let empty = file(dir.path(), "empty", "\n", 0o600);
        assert!(matches!(read(&empty), Err(TokenFileError::Empty { .. })));
        let two = file(dir.path(), "two", "abc\ndef\n", 0o600);
        assert!(matches!(read(&two), Err(TokenFileError::NotAToken { .. })));
        let e = read(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("cannot read the token file"), "{e}");
    }
}
