//! How a bot's program name becomes a file: looked up in the `PATH` of the environment the bot
//! is given (not the referee's), as `execvp` would. The parent does it before the clone (it
//! allocates), so that the child only execs a full path.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The bot's `PATH`, from its environment (the default when it has none).
pub fn bot_path(env: &[CString]) -> &str {
    env.iter()
        .find_map(|e| e.to_str().ok()?.strip_prefix("PATH="))
        .unwrap_or(DEFAULT_PATH)
}

/// A bot's `PATH` unless it is given another.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The file `program` names: as given when it has a `/`, else the first executable of that
/// name in `path` (as execvp looks it up).
pub fn resolve(program: &Path, path: &str) -> io::Result<PathBuf> {
    if program.as_os_str().as_bytes().contains(&b'/') {
        return Ok(program.to_path_buf());
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
