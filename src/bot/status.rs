//! How a bot's process ended: reaping it, and its status in words.

use rustix::process::Pid;
use std::io::ErrorKind;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// The exit status of child `pid` once it has ended (waiting for it if `block`), reaping it.
pub(crate) fn reap(pid: Pid, block: bool) -> Option<ExitStatus> {
    let mut status = 0;
    let flags = if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: waits for our own child and writes only `status`.
        let rc = unsafe { libc::waitpid(pid.as_raw_nonzero().get(), &mut status, flags) };
        if rc == -1 && std::io::Error::last_os_error().kind() == ErrorKind::Interrupted {
            continue;
        }
        return (rc > 0).then(|| ExitStatus::from_raw(status));
    }
}

/// How a process ended, as a fact rather than words: decisions (was this bot killed by the
/// stop of the whole job?) match on it, and [`describe_exit`] turns it into text. Records keep
/// it as `{"status":3}` or `{"signal":11}` and read it back as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExitKind {
    /// It exited by itself with this status.
    Status(i32),
    /// A signal ended it (the signal's number).
    Signal(i32),
}

impl ExitKind {
    /// The kind of `status` (`None` for a status that is neither, e.g. a stopped process).
    pub fn of(status: ExitStatus) -> Option<ExitKind> {
        match (status.code(), status.signal()) {
            (Some(code), _) => Some(ExitKind::Status(code)),
            (None, Some(sig)) => Some(ExitKind::Signal(sig)),
            (None, None) => None,
        }
    }

    /// Whether the stop of a whole job could have sent it: a batch system (Slurm's scancel or
    /// time limit) signals every process of the job with TERM (or INT or HUP), then KILL. A
    /// crash of the bot's own (SIGSEGV, SIGABRT, ...) never is.
    pub fn may_be_a_stop(self) -> bool {
        matches!(
            self,
            ExitKind::Signal(libc::SIGTERM | libc::SIGINT | libc::SIGHUP | libc::SIGKILL)
        )
    }
}

impl std::fmt::Display for ExitKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ExitKind::Status(code) => write!(f, "exited with status {code}"),
            ExitKind::Signal(sig) => write!(f, "killed by signal {sig} ({})", signal_name(sig)),
        }
    }
}

/// Says how a process ended, in words: "exited with status 3", "killed by signal 11 (SIGSEGV)".
pub fn describe_exit(status: ExitStatus) -> String {
    match ExitKind::of(status) {
        Some(kind) => kind.to_string(),
        None => status.to_string(),
    }
}

/// The status of the program bubblewrap ran, read from bwrap's own: bwrap exits with 128 + N
/// when that program was killed by signal N (as a shell does), which would otherwise read as
/// "exited with status 139" where the same bot outside the box reads as killed by SIGSEGV. As
/// in a shell, a program that exits by itself with such a status reads as killed too; bwrap's
/// own failures exit with 1.
pub fn unboxed(status: ExitStatus) -> ExitStatus {
    match status.code() {
        Some(code) if (129..=128 + 64).contains(&code) => ExitStatus::from_raw(code - 128),
        _ => status,
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL (out of memory, or killed from outside)",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_kind_says_what_ended_the_process_and_whether_a_stop_could_have() {
        let segv = ExitKind::of(ExitStatus::from_raw(libc::SIGSEGV)).unwrap();
        assert_eq!(segv, ExitKind::Signal(libc::SIGSEGV));
        assert_eq!(segv.to_string(), "killed by signal 11 (SIGSEGV)");
        assert!(!segv.may_be_a_stop());
        let term = ExitKind::of(ExitStatus::from_raw(libc::SIGTERM)).unwrap();
        assert!(term.may_be_a_stop());
        let boxed_segv = unboxed(ExitStatus::from_raw((128 + libc::SIGSEGV) << 8));
        assert_eq!(
            ExitKind::of(boxed_segv),
            Some(ExitKind::Signal(libc::SIGSEGV))
        );
        assert_eq!(unboxed(ExitStatus::from_raw(1 << 8)).code(), Some(1));
        assert_eq!(
            unboxed(ExitStatus::from_raw(libc::SIGKILL)).signal(),
            Some(libc::SIGKILL)
        );
        let three = ExitKind::of(ExitStatus::from_raw(3 << 8)).unwrap();
        assert_eq!(three, ExitKind::Status(3));
        assert_eq!(three.to_string(), "exited with status 3");
        assert!(!three.may_be_a_stop());
    }
}
