//! The minimal init of an isolated bot's namespace (see `bot::isolation`), and the steps that
//! take a process from root to a bot's own user without any capability. Only raw system calls
//! through `libc`, nothing else of arbiter: the same file is the whole of the small
//! `arbiter-init` program (src/bin/arbiter-init.rs), which the spawner execs as each isolated
//! bot's first process instead of arbiter's own 40 MB program (whose loading cost each game
//! about a millisecond of CPU per bot), and the library's fallback for a binary that has no
//! `arbiter-init` beside it (a unit-test program).

/// The first argument (argv[0]) of the init.
pub const INIT_NAME: &std::ffi::CStr = c"arbiter-init";

/// Becomes user and group `id` (and no other group): from root, every capability goes with it.
/// Async-signal-safe: raw system calls only.
pub unsafe fn become_user(id: u32) -> bool {
    libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) == 0
        && libc::syscall(libc::SYS_setresgid, id, id, id) == 0
        && libc::syscall(libc::SYS_setresuid, id, id, id) == 0
}

/// Drops every capability for good: root's exec no longer grants them back (securebits,
/// locked), the bounding set is emptied, the sets cleared, and no new privileges. With `user`,
/// it also becomes that user (between emptying the bounding set and clearing the sets).
/// Async-signal-safe: raw system calls only.
pub unsafe fn drop_capabilities(user: Option<u32>) -> bool {
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

/// The init's whole run when `argv` is an init's (`arbiter-init STATUS_FD USER|- BOT_PID`, as
/// the namespace's first process): its exit status. `None` for any other program's arguments.
///
/// # Safety
/// `argv` holds `argc` valid C strings.
pub unsafe fn main_of(argc: libc::c_int, argv: *const *const libc::c_char) -> Option<libc::c_int> {
    if argc != 4 || argv.is_null() || (*argv).is_null() || libc::getpid() != 1 {
        return None;
    }
    if std::ffi::CStr::from_ptr(*argv) != INIT_NAME {
        return None;
    }
    let number = |i: usize| {
        std::ffi::CStr::from_ptr(*argv.add(i))
            .to_str()
            .ok()
            .and_then(|t| t.parse::<u32>().ok())
    };
    let (Some(status_fd), user, Some(bot)) = (number(1), number(2), number(3)) else {
        return Some(127);
    };
    Some(run_init(status_fd as libc::c_int, user, bot as libc::pid_t))
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
            // To every process of the namespace but this one (the bot, its children, even
            // those that left its process group), once: the referee sends its TERM to the init
            // alone, so the bot gets it from here and from nowhere else.
            libc::kill(-1, sig);
        }
    }
}
