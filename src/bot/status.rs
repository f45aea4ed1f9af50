//! How a bot's process ended: reaping it, its status in words, and whether it would have died
//! of the TERM that starts a shutdown.

use rustix::process::Pid;
use std::io::ErrorKind;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// Whether process `pid` catches or ignores SIGTERM (from its /proc status).
pub(crate) fn handles_term(pid: Pid) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid.as_raw_nonzero()))
        .unwrap_or_default();
    let term = 1u64 << (libc::SIGTERM - 1);
    status.lines().any(|l| {
        (l.starts_with("SigCgt:") || l.starts_with("SigIgn:"))
            && l.split_whitespace()
                .nth(1)
                .and_then(|m| u64::from_str_radix(m, 16).ok())
                .is_some_and(|m| m & term != 0)
    })
}

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

/// Says how a process ended, in words: "exited with status 3", "killed by signal 11 (SIGSEGV)".
pub fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(sig) => format!("killed by signal {sig} ({})", signal_name(sig)),
        None => status.to_string(),
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
        _ => "signal",
    }
}
