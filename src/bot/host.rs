//! What arbiter's boxes take from the machine they run on: the bubblewrap program, the system
//! folders every box shows read-only (a bot's sandbox and a build's box show the same ones), and
//! the folder that holds every build. A leaf: the sandbox, the build box, the source builds and
//! the bots' specs all read these, and none of them reaches the others through it.

use std::path::{Path, PathBuf};

/// The bwrap program, if installed (found on `PATH`).
pub fn bwrap() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("bwrap"))
            .find(|p| p.is_file())
    })
}

/// The system folders (programs, libraries, /etc) every box shows, read-only.
pub const SYSTEM: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc",
];

/// Whether `path` is in one of the system folders every box shows.
pub fn is_system(path: &Path) -> bool {
    SYSTEM.iter().any(|s| path.starts_with(s))
}

/// The folder that holds every build (of source files, bot folders, SDK games):
/// `$ARBITER_CACHE`, else `$XDG_CACHE_HOME/arbiter/build`, else `~/.cache/arbiter/build`, else
/// one under the system's temporary folder.
pub fn cache_root() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("ARBITER_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("arbiter").join("build");
    }
    if let Some(home) = var("HOME") {
        return PathBuf::from(home)
            .join(".cache")
            .join("arbiter")
            .join("build");
    }
    std::env::temp_dir().join("arbiter-build")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_folders_are_the_systems_and_nothing_beside_them() {
        assert!(is_system(Path::new("/usr/bin/python3")));
        assert!(is_system(Path::new("/etc")));
        assert!(
            !is_system(Path::new("/usrlocal/bin/x")),
            "a prefix of a name is not a folder"
        );
        assert!(!is_system(Path::new("/home/me/bot")));
        assert!(!is_system(Path::new("/tmp/x")));
    }
}
