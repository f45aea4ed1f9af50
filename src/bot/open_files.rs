//! The referee's limit of open files. Every game a worker plays holds files open for its bots
//! (pipes, process handles, the cgroups' control files, the fair clock's files), and a run has
//! as many workers as the machine has cores by default: on a 64-core server that is past the
//! usual soft limit of 1,024 files, and games failed to start with "Too many open files" as
//! referee errors. arbiter raises its own soft limit to the hard limit once, at start
//! ([`raise`]), and gives the programs of others it starts (bots, external referees, builds in
//! the build box) the limit arbiter was started with ([`for_children`]), so no bot runs with
//! other limits for it. (A bot's own build command, run as the user from the bot's folder,
//! inherits arbiter's, as any program started from it would.)

use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
use std::sync::OnceLock;

/// The limit arbiter was started with (soft, hard), once [`raise`] changed it.
static STARTED_WITH: OnceLock<(u64, Option<u64>)> = OnceLock::new();

/// Raises this process's soft limit of open files to its hard limit (left as it is where that
/// cannot be done). Called once by the `arbiter` program before anything starts; the library
/// never changes it on its own.
pub fn raise() {
    let now = getrlimit(Resource::Nofile);
    let Some(soft) = now.current else {
        return;
    };
    // An unlimited hard limit still stops at the kernel's most files a process may open.
    let Some(target) = now.maximum.or_else(most_files) else {
        return;
    };
    let raised = Rlimit {
        current: Some(target),
        maximum: now.maximum,
    };
    if target > soft && setrlimit(Resource::Nofile, raised).is_ok() {
        let _ = STARTED_WITH.set((soft, now.maximum));
    }
}

/// The most files a process may have open on this machine (`fs.nr_open`).
fn most_files() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The soft limit of open files in force for this process (`u64::MAX` for none).
pub fn limit() -> u64 {
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

/// The limit (soft, hard) a started program gets where [`raise`] changed arbiter's: the one
/// arbiter was started with. `None` where it was not changed (the program inherits it as is).
pub(crate) fn for_children() -> Option<libc::rlimit> {
    STARTED_WITH.get().map(|&(soft, hard)| libc::rlimit {
        rlim_cur: soft as libc::rlim_t,
        rlim_max: hard.map_or(libc::RLIM_INFINITY, |h| h as libc::rlim_t),
    })
}
