//! Failures of the machine arbiter runs on, told apart from a bot's own: when a process cannot
//! be started because the machine is out of descriptors, memory, processes or disk, no bot is
//! at fault, and the game must not be recorded as anyone's `referee-error`, crash or loss (a
//! league whose descriptors a stranger held recorded 78,537 such games in 40 s). A bot whose
//! program is missing, not executable or exits at once is still the bot's failure: only the
//! errors below, which name the machine's state, are the machine's.

use std::fmt;

/// Why the machine could not start a process (an `errno` of the machine's state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MachineFault {
    errno: i32,
}

impl MachineFault {
    /// The machine's fault in `e`, if `e` is one: out of descriptors (EMFILE, ENFILE), memory
    /// (ENOMEM, ENOBUFS), processes (EAGAIN from fork, clone or a change of user) or disk
    /// (ENOSPC, EDQUOT).
    pub fn of(e: &std::io::Error) -> Option<MachineFault> {
        if let Some(errno) = e.raw_os_error() {
            return MachineFault::of_errno(errno);
        }
        // An error that wraps the system's (a step of a process's start that failed).
        let mut inner: Option<&(dyn std::error::Error + 'static)> = e.get_ref().map(|r| r as _);
        while let Some(err) = inner {
            if let Some(errno) = err
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.raw_os_error())
            {
                return MachineFault::of_errno(errno);
            }
            inner = err.source();
        }
        None
    }

    pub fn of_errno(errno: i32) -> Option<MachineFault> {
        matches!(
            errno,
            libc::EMFILE
                | libc::ENFILE
                | libc::ENOMEM
                | libc::ENOBUFS
                | libc::EAGAIN
                | libc::ENOSPC
                | libc::EDQUOT
        )
        .then_some(MachineFault { errno })
    }

    pub fn errno(&self) -> i32 {
        self.errno
    }

    /// What the machine ran out of.
    pub fn what(&self) -> &'static str {
        match self.errno {
            libc::EMFILE => "arbiter is out of open files (its open-file limit)",
            libc::ENFILE => "the machine is out of open files (its system-wide limit)",
            libc::ENOMEM | libc::ENOBUFS => "the machine is out of memory",
            libc::EAGAIN => "the machine or the bots' users are out of processes",
            _ => "the disk is full",
        }
    }

    /// What to do about it.
    pub fn advice(&self) -> &'static str {
        match self.errno {
            libc::EMFILE => {
                "raise the limit (ulimit -n, or LimitNOFILE= in a systemd unit), play fewer games \
                 at once, or find what holds arbiter's files"
            }
            libc::ENFILE => "close other programs' files, or raise fs.file-max",
            libc::ENOMEM | libc::ENOBUFS => {
                "play fewer games at once, lower the bots' memory limit, or stop other work here"
            }
            libc::EAGAIN => {
                "raise the process limit (ulimit -u, or the pids limit of arbiter's cgroup), play \
                 fewer games at once, or end leftover processes"
            }
            _ => "free some disk space",
        }
    }
}

thread_local! {
    /// The machine's first failure this thread met while it watched a game's bots (see
    /// [`note`]).
    static NOTED: std::cell::Cell<Option<MachineFault>> = const { std::cell::Cell::new(None) };
}

/// Notes `e` if it is the machine's, for [`take_noted`]: what a game's thread reads of its bots
/// while they play (their clocks' files, their cgroups) fails when the machine is out of
/// descriptors, and a bot could then lose on time for the machine's failure.
pub fn note(e: &std::io::Error) {
    if let Some(fault) = MachineFault::of(e) {
        NOTED.with(|n| {
            if n.get().is_none() {
                n.set(Some(fault));
            }
        });
    }
}

/// The machine's failure this thread noted since the last call, if any (and forgets it).
pub fn take_noted() -> Option<MachineFault> {
    NOTED.with(|n| n.take())
}

/// `File::open(path)`, noting a failure of the machine's ([`note`]).
pub fn open(path: impl AsRef<std::path::Path>) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path).inspect_err(note)
}

/// Opens `path` with `options`, noting a failure of the machine's ([`note`]).
pub fn open_with(
    options: &std::fs::OpenOptions,
    path: impl AsRef<std::path::Path>,
) -> std::io::Result<std::fs::File> {
    options.open(path).inspect_err(note)
}

impl fmt::Display for MachineFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({})",
            self.what(),
            std::io::Error::from_raw_os_error(self.errno)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machines_errors_are_told_from_a_bots() {
        for errno in [
            libc::EMFILE,
            libc::ENFILE,
            libc::ENOMEM,
            libc::EAGAIN,
            libc::ENOSPC,
        ] {
            let e = std::io::Error::from_raw_os_error(errno);
            assert_eq!(MachineFault::of(&e).map(|m| m.errno()), Some(errno));
        }
        // A missing program, one that may not run, a bad format: the bot's.
        for errno in [
            libc::ENOENT,
            libc::EACCES,
            libc::ENOEXEC,
            libc::ENOTDIR,
            libc::E2BIG,
        ] {
            let e = std::io::Error::from_raw_os_error(errno);
            assert_eq!(MachineFault::of(&e), None, "{e}");
        }
        assert_eq!(MachineFault::of(&std::io::Error::other("no errno")), None);
        let text = MachineFault::of_errno(libc::EMFILE).unwrap().to_string();
        assert!(
            text.contains("open files") && text.contains("os error"),
            "{text}"
        );
    }

    #[test]
    fn a_thread_notes_the_machines_first_failure_only() {
        assert_eq!(take_noted(), None);
        note(&std::io::Error::from_raw_os_error(libc::ENOENT));
        assert_eq!(take_noted(), None, "a missing file is no machine's failure");
        note(&std::io::Error::from_raw_os_error(libc::EMFILE));
        note(&std::io::Error::from_raw_os_error(libc::ENOMEM));
        std::thread::spawn(|| assert_eq!(take_noted(), None, "each thread its own"))
            .join()
            .unwrap();
        assert_eq!(take_noted().map(|f| f.errno()), Some(libc::EMFILE));
        assert_eq!(take_noted(), None, "taken");
    }
}
