//! Keeping the bots of one game apart without the sandbox, where the referee runs as root: each
//! bot starts as the first process of a process-id and a mount namespace of its own (made by the
//! spawner's `clone`, with its own /proc and /dev/shm mounted there), and without any capability.
//! It then cannot see, signal, trace or reach through /proc its opponent or the referee, and
//! everything it starts dies with it.
//!
//! A referee running as root also runs every bot, with or without the sandbox, as a user of its
//! own ([`SeatId`]): a user and group id that no host file belongs to and no other running bot
//! has. It can then write none of the files root owns (cgroup files, /proc/sys, the results),
//! nor signal, trace or write into another bot.
//!
//! The namespace's first process is not the bot but a minimal init: the kernel ignores the
//! signals a namespace's first process sends itself, so a bot in that place would survive its
//! own `raise(SIGSEGV)` or `abort()` and "exit with status 0". The spawner
//! ([`super::spawn`]) starts the bot as the namespace's second process, then execs arbiter's own
//! program (whichever binary holds this library: arbiter, or a test) as `arbiter-init`, which
//! [`init_entry`] catches before `main`: it drops its capabilities, forwards TERM, INT and HUP to
//! the bot, reaps every orphan, and once the bot has ended writes the bot's own wait status
//! into a pipe the referee reads, and exits (taking whatever the bot left with it).

/// The first user and group id of bots: 2^20, above the ids distributions hand out (system users
/// below 1000, people from 1000 up to some 60000, `nobody` 65534) and below those of container
/// tools' subordinate ranges (which start at 100000 times a small number, e.g. 100000 or
/// 165536, but only for user namespaces, never on host files).
pub const FIRST_SEAT_ID: u32 = 1 << 20;

/// Bots one referee runs at once, at most.
const SEATS: u32 = 1 << 10;

static SEATS_TAKEN: std::sync::Mutex<Vec<bool>> = std::sync::Mutex::new(Vec::new());

/// The user and group id one running bot has (as root): `FIRST_SEAT_ID`, plus 1024 times the
/// referee's process id modulo 2^14 (two referees side by side use different ids), plus a slot
/// no other bot of this referee holds. Given back when dropped.
#[derive(Debug)]
pub struct SeatId {
    slot: u32,
    pub id: u32,
}

impl SeatId {
    /// A free id, where the referee can change its user (root with CAP_SETUID and
    /// CAP_SETGID); `None` otherwise (bots then run as the referee's user).
    pub fn take() -> Option<Result<SeatId, String>> {
        if !changes_user() {
            return None;
        }
        let mut taken = SEATS_TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if taken.is_empty() {
            taken.resize(SEATS as usize, false);
        }
        let Some(slot) = taken.iter().position(|t| !t) else {
            return Some(Err(format!(
                "more than {SEATS} bots at once in one referee; play fewer games at a time"
            )));
        };
        taken[slot] = true;
        let slot = slot as u32;
        let base = FIRST_SEAT_ID + (std::process::id() % (1 << 14)) * SEATS;
        Some(Ok(SeatId {
            slot,
            id: base + slot,
        }))
    }
}

impl Drop for SeatId {
    fn drop(&mut self) {
        let mut taken = SEATS_TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = taken.get_mut(self.slot as usize) {
            *t = false;
        }
    }
}

/// The effective capability mask of this process.
fn effective_caps() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .unwrap_or(0)
}

/// Whether bots run as a user of their own: the referee is root and may change users. Found
/// once.
pub fn changes_user() -> bool {
    static CHANGES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHANGES.get_or_init(|| {
        const CAP_SETGID: u32 = 6;
        const CAP_SETUID: u32 = 7;
        let caps = effective_caps();
        rustix::process::geteuid().is_root()
            && caps & (1 << CAP_SETUID) != 0
            && caps & (1 << CAP_SETGID) != 0
            && ["uid_map", "gid_map"].iter().all(|m| {
                let map = std::fs::read_to_string(format!("/proc/self/{m}")).unwrap_or_default();
                maps_seat_ids(&map)
            })
    })
}

/// Whether a user namespace's id map (`/proc/self/uid_map`'s text) has every seat id: in a
/// container whose root maps only a small range, the seat ids do not exist.
fn maps_seat_ids(map: &str) -> bool {
    let (first, end) = (
        u64::from(FIRST_SEAT_ID),
        u64::from(FIRST_SEAT_ID) + (1 << 14) * u64::from(SEATS),
    );
    map.lines().any(|l| {
        let n: Vec<u64> = l
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        n.len() == 3 && n[0] <= first && n[0] + n[2] >= end
    })
}

/// Becomes user and group `id` (and no other group): from root, every capability goes with it.
/// Async-signal-safe: raw system calls only.
pub(super) unsafe fn become_user(id: u32) -> bool {
    libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) == 0
        && libc::syscall(libc::SYS_setresgid, id, id, id) == 0
        && libc::syscall(libc::SYS_setresuid, id, id, id) == 0
}

/// Drops every capability for good: root's exec no longer grants them back (securebits,
/// locked), the bounding set is emptied, the sets cleared, and no new privileges. With `user`,
/// it also becomes that user (between emptying the bounding set and clearing the sets).
/// Async-signal-safe: raw system calls only.
pub(super) unsafe fn drop_capabilities(user: Option<u32>) -> bool {
    // SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE, each locked.
    const SECUREBITS: libc::c_ulong = 0b1100_1111;
    if libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0) != 0 {
        return false;
    }
    for cap in 0..64 {
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    // The capabilities stay through the change of user (SECBIT_NO_SETUID_FIXUP) and are
    // cleared just below.
    if let Some(id) = user {
        if !become_user(id) {
            return false;
        }
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let none = [
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
    ];
    libc::syscall(libc::SYS_capset, &header, none.as_ptr()) == 0
        && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
}

/// The first argument (argv[0]) of arbiter's program run as a bot's init.
pub(super) const INIT_NAME: &std::ffi::CStr = c"arbiter-init";

/// Arbiter's own program, open (as root, which may read it wherever it is), for the spawner to
/// exec as a bot's init. Opened once.
pub(super) fn init_program() -> std::io::Result<libc::c_int> {
    use std::os::fd::AsRawFd;
    static EXE: std::sync::OnceLock<Result<std::fs::File, String>> = std::sync::OnceLock::new();
    // The init only runs where this entry is linked in: keep it.
    std::hint::black_box(&INIT_ENTRY);
    match EXE.get_or_init(|| std::fs::File::open("/proc/self/exe").map_err(|e| e.to_string())) {
        Ok(f) => Ok(f.as_raw_fd()),
        Err(e) => Err(std::io::Error::other(format!(
            "cannot open arbiter's own program (/proc/self/exe), which runs as each bot's init: {e}"
        ))),
    }
}

/// Runs before `main` in every process of a binary that holds this library (glibc passes
/// `argc`, `argv` and `envp` to these entries): in a bot's init, it runs the init and exits;
/// anywhere else it returns at once.
#[used]
#[link_section = ".init_array"]
static INIT_ENTRY: extern "C" fn(
    libc::c_int,
    *const *const libc::c_char,
    *const *const libc::c_char,
) = init_entry;

extern "C" fn init_entry(
    argc: libc::c_int,
    argv: *const *const libc::c_char,
    _envp: *const *const libc::c_char,
) {
    // SAFETY: argv holds argc valid C strings (glibc's arguments to .init_array entries).
    unsafe {
        if argc != 4 || argv.is_null() || (*argv).is_null() || libc::getpid() != 1 {
            return;
        }
        if std::ffi::CStr::from_ptr(*argv) != INIT_NAME {
            return;
        }
        let number = |i: usize| {
            std::ffi::CStr::from_ptr(*argv.add(i))
                .to_str()
                .ok()
                .and_then(|t| t.parse::<u32>().ok())
        };
        let (Some(status_fd), user, Some(bot)) = (number(1), number(2), number(3)) else {
            libc::_exit(127);
        };
        libc::_exit(run_init(status_fd as libc::c_int, user, bot as libc::pid_t));
    }
}

/// The init of a bot's namespace (see the module's comment); returns its own exit status: the
/// bot's, as a shell gives it (128 plus the signal that killed it).
unsafe fn run_init(status_fd: libc::c_int, user: Option<u32>, bot: libc::pid_t) -> libc::c_int {
    // Every signal stays blocked (as the spawner left them): those the init handles are taken
    // with sigwaitinfo. SIGCHLD must not be ignored (the referee ignores some signals, and an
    // exec keeps that), or children would vanish without a status.
    let mut all: libc::sigset_t = std::mem::zeroed();
    libc::sigfillset(&mut all);
    libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
    libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    // It was exec'd as root: from here on it has no capability and is the bot's user (or, as a
    // root without that user, root without capabilities). Not dumpable: the bot may not open its
    // status pipe through /proc/1/fd.
    if !drop_capabilities(user) {
        return 126;
    }
    libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    libc::prctl(
        libc::PR_SET_PDEATHSIG,
        libc::SIGKILL as libc::c_ulong,
        0,
        0,
        0,
    );
    let mut waited: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut waited);
    for sig in [libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        libc::sigaddset(&mut waited, sig);
    }
    loop {
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, libc::WNOHANG);
            if pid == bot {
                let bytes = status.to_ne_bytes();
                libc::write(status_fd, bytes.as_ptr().cast(), bytes.len());
                return if libc::WIFSIGNALED(status) {
                    128 + libc::WTERMSIG(status)
                } else {
                    libc::WEXITSTATUS(status)
                };
            }
            if pid == 0 {
                break;
            }
            if pid < 0 && *libc::__errno_location() != libc::EINTR {
                // No child at all: the bot is gone without a status (cannot happen).
                return 127;
            }
        }
        let sig = libc::sigwaitinfo(&waited, std::ptr::null_mut());
        if sig == libc::SIGTERM || sig == libc::SIGINT || sig == libc::SIGHUP {
            libc::kill(bot, sig);
        }
    }
}

/// Whether bots are isolated from each other and from the referee without the sandbox: where
/// the referee runs as root with CAP_SYS_ADMIN, which making the namespaces and mounting /proc
/// need (a container's root often lacks it). Found once.
pub fn isolate() -> bool {
    static ISOLATE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ISOLATE.get_or_init(|| {
        const CAP_SYS_ADMIN: u32 = 21;
        rustix::process::geteuid().is_root() && effective_caps() & (1 << CAP_SYS_ADMIN) != 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_ids_need_a_map_that_holds_them() {
        assert!(maps_seat_ids("         0          0 4294967295\n"));
        assert!(!maps_seat_ids("         0     100000      65536\n"));
    }
}
