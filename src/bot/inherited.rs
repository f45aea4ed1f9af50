//! Untrusted code gets exactly the descriptors 0, 1 and 2. arbiter may be started holding more
//! (a wrapper's lock file, a secret a service hands over on fd 7, the operator's terminal on fd
//! 9), and every one of them that is not close-on-exec would reach each program arbiter starts:
//! a bot read a root-only file that way, a student's build baked one into the class report
//! (`#include "/dev/fd/8"`). arbiter's own descriptors are all close-on-exec (the standard
//! library, rustix and its own `open` calls ask for it), so two steps close the gap:
//! - at start, the `arbiter` program marks every descriptor it inherited above 2 close-on-exec
//!   ([`seal_inherited`]);
//! - every child started for a bot, a referee or a build marks every descriptor above 2
//!   close-on-exec once more just before its exec ([`seal_in_child`]), so that a library user
//!   (or a descriptor another thread opened without the flag) cannot leak one either. The few
//!   descriptors a child hands on deliberately (an isolated bot's status pipe and go pipe, the
//!   build box's seccomp filter) have the flag cleared after that, one by one.

use std::io;

/// Marks every descriptor of this process above 2 close-on-exec (`close_range` with
/// `CLOSE_RANGE_CLOEXEC`, Linux 5.11; else each descriptor listed in /proc/self/fd). Called
/// once by the `arbiter` program at start, before any thread or child.
pub fn seal_inherited() -> io::Result<()> {
    if close_range_cloexec() {
        return Ok(());
    }
    let mut fds = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd")? {
        if let Some(fd) = entry?
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::c_int>().ok())
        {
            fds.push(fd);
        }
    }
    for fd in fds.into_iter().filter(|&fd| fd > 2) {
        // SAFETY: fcntl on a descriptor number changes only its flags; one that was closed
        // meanwhile (the listing's own) fails with EBADF, which is fine.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags >= 0 {
            // SAFETY: as above.
            unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) };
        }
    }
    Ok(())
}

/// The child's step between fork (or clone) and exec: every descriptor above 2 close-on-exec.
/// One system call, async-signal-safe; false where the kernel is older than 5.11 (then
/// [`seal_inherited`] at arbiter's start is the protection).
pub(crate) fn seal_in_child() -> bool {
    close_range_cloexec()
}

fn close_range_cloexec() -> bool {
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets flags on this process's own
    // descriptor table; it allocates nothing.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        ) == 0
    }
}
