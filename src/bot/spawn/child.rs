//! The child side of [`super::spawn`]: what runs between `clone` and `exec`.
//!
//! The child shares the referee's memory and runs on its own small stack until `exec`; the
//! referee's thread is suspended meanwhile. The child makes only raw system calls: no
//! allocation, no lock, nothing that could touch state another thread of the referee holds.
//! (The heap, the buffers of `std` and their locks are the referee's, and its other threads go
//! on using them while the child runs: only the thread that called `clone` waits.) So the child
//! works only on what the parent prepared for it ([`Child`]); a failed step is written there
//! (the parent reads it once the clone returns) and ends the child with status 127.
//!
//! What the child does, in order: a session of its own (no controlling terminal), its
//! parent-death signal, its resource limits, its cgroups (as root, before it drops that), in its
//! own mount namespace the mounts that make its files reachable and its scratch folders
//! ([`crate::bot::reach`]), its own /proc and /dev/shm, the loopback of its own network
//! namespace brought up (or one made ahead joined), its pipes and folder, then its user ([`crate::bot::isolation`]), no new privileges
//! and the seccomp filter ([`crate::bot::seccomp`]), and `exec` with the environment it was
//! given (nothing of the referee's own).
//!
//! An isolated child (the first process of a process-id namespace of its own) does not become
//! the bot: the kernel protects a namespace's first process from the signals it sends itself, so
//! a bot there would survive its own `raise(SIGSEGV)` or `abort()`. After the mounts, it starts
//! the bot as the namespace's second process (one more `vfork`-style clone, which joins the
//! cgroups and goes through the steps above), then execs the small `arbiter-init` built into
//! arbiter as the namespace's minimal init ([`crate::bot::isolation`]): it forwards TERM, INT
//! and HUP, reaps every orphan, and hands the bot's own wait status to the referee through a
//! pipe.

use super::MAX_CGROUPS;

/// Everything the child reads, prepared by the parent; `error` is written by the child.
pub(super) struct Child {
    pub(super) program: *const libc::c_char,
    pub(super) argv: *const *const libc::c_char,
    pub(super) dir: *const libc::c_char,
    /// The child's ends: stdin's read end, stdout's and stderr's write ends.
    pub(super) fds: [libc::c_int; 3],
    pub(super) memory_bytes: Option<u64>,
    pub(super) max_processes: Option<u64>,
    pub(super) cgroup_procs: [*const libc::c_char; MAX_CGROUPS],
    pub(super) isolate: bool,
    /// The network namespace an isolated child joins (-1: one was made with it).
    pub(super) net_fd: libc::c_int,
    pub(super) envp: *const *const libc::c_char,
    pub(super) user: Option<u32>,
    /// (what, path, source): 0 tmpfs, 1 folder, 2 file, 3 bind source onto path, 4 a scratch
    /// tmpfs (writable by all, sized as /dev/shm).
    pub(super) reach: *mut RawOp,
    pub(super) reach_len: usize,
    pub(super) seccomp: *const libc::sock_fprog,
    pub(super) new_session: bool,
    /// The mount options of its private /dev/shm and scratch folders (their size).
    pub(super) shm_options: *const libc::c_char,
    /// Set by the child when a step fails: (step, errno).
    pub(super) error: (libc::c_int, libc::c_int),
    /// An isolated child's init: arbiter's own program (an open file), its arguments, the write
    /// end of the status pipe, where the child writes the bot's pid (a decimal, in argv), and
    /// the stack of the bot's clone.
    pub(super) init_exe: libc::c_int,
    pub(super) init_argv: *const *const libc::c_char,
    pub(super) status_fd: libc::c_int,
    pub(super) bot_pid_text: *mut u8,
    pub(super) bot_stack_top: *mut libc::c_void,
    /// A held bot's gate: its arguments (null for a bot exec'd at once) and the read end of
    /// its go pipe, which it keeps across its exec.
    pub(super) gate_argv: *const *const libc::c_char,
    pub(super) go_fd: libc::c_int,
    /// The open-file limit arbiter was started with, where it raised its own (see
    /// [`crate::bot::open_files`]).
    pub(super) open_files: Option<libc::rlimit>,
}

/// One mount step of [`crate::bot::reach`], as the child reads it.
pub(super) struct RawOp {
    pub(super) what: u8,
    pub(super) path: *const libc::c_char,
    pub(super) source: *const libc::c_char,
    /// The source, opened by the child before any mount.
    pub(super) fd: libc::c_int,
}

/// The steps of the child, for error messages.
pub(super) const STEPS: [&str; 16] = [
    "",
    "start its own session",
    "set its parent-death signal",
    "set its resource limits",
    "join its cgroup",
    "set up its standard input and output",
    "change to its directory",
    "mount its own /proc",
    "drop its capabilities",
    "make its files reachable for its user (a mount in its namespace failed)",
    "become its own unprivileged user",
    "set no new privileges or install its seccomp filter",
    "make its mounts private",
    "start its init (arbiter's own program, as the first process of the bot's namespace)",
    "start its gate (the small program that holds a bot started ahead of its game)",
    "join its own network namespace",
];

/// Records the failed step and the errno in `Child::error` (shared memory) and ends the child
/// with status 127.
///
/// # Safety
/// Only in the child, between `clone` and `exec` (the module's doc): the parent's thread is
/// suspended and `c` is the [`Child`] it prepared, every pointer in it valid (NUL-terminated
/// strings, null-terminated arrays, `reach_len` ops) until the child execs or exits. Nothing
/// here allocates or locks.
unsafe fn fail(c: &mut Child, step: libc::c_int) -> libc::c_int {
    // SAFETY: in the clone's child with the parent's `Child` (this function's contract): raw
    // system calls on the pointers it prepared, nothing that allocates or locks.
    unsafe {
        c.error = (step, *libc::__errno_location());
        libc::_exit(127)
    }
}

/// Writes the cgroup files that move the calling process into the bot's cgroups.
///
/// # Safety
/// Only in the child, between `clone` and `exec` (the module's doc): the parent's thread is
/// suspended and `c` is the [`Child`] it prepared, every pointer in it valid (NUL-terminated
/// strings, null-terminated arrays, `reach_len` ops) until the child execs or exits. Nothing
/// here allocates or locks.
unsafe fn join_cgroups(c: &mut Child) -> bool {
    // SAFETY: in the clone's child with the parent's `Child` (this function's contract): raw
    // system calls on the pointers it prepared, nothing that allocates or locks.
    unsafe {
        for &procs in c.cgroup_procs.iter().take_while(|p| !p.is_null()) {
            let fd = libc::open(procs, libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                return false;
            }
            libc::close(fd);
        }
        true
    }
}

/// The child, until exec. Only async-signal-safe system calls; failures are reported through
/// `Child::error` (shared memory) and end the child with status 127.
pub(super) extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Child`, alive until exec; every pointer in it is valid.
    unsafe {
        let c = &mut *arg.cast::<Child>();
        // Nothing but its pipes crosses the exec: every other descriptor (one arbiter
        // inherited, or one a thread opened without the flag) is marked close-on-exec; the
        // status and go pipes of an isolated bot get the flag cleared where they are handed on.
        crate::bot::inherited::seal_in_child();
        // Its own session and process group: no controlling terminal to read, signal or type
        // into.
        let grouped = if c.new_session {
            libc::setsid() >= 0
        } else {
            libc::setpgid(0, 0) == 0
        };
        if !grouped {
            return fail(c, 1);
        }
        for (resource, value) in [
            (libc::RLIMIT_DATA, c.memory_bytes),
            (libc::RLIMIT_NPROC, c.max_processes),
        ] {
            if let Some(v) = value {
                let limit = libc::rlimit {
                    rlim_cur: v as libc::rlim_t,
                    rlim_max: v as libc::rlim_t,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return fail(c, 3);
                }
            }
        }
        // An isolated child's init stays out of the bot's cgroups: it is not the bot (its
        // memory, its process and its CPU time are not the bot's).
        if !c.isolate && !join_cgroups(c) {
            return fail(c, 4);
        }
        // Its own network namespace, made ahead (see `crate::bot::netns`), joined before
        // anything else of it is set up.
        if c.isolate && c.net_fd >= 0 && libc::setns(c.net_fd, libc::CLONE_NEWNET) != 0 {
            return fail(c, 15);
        }
        let none = std::ptr::null::<libc::c_char>();
        if c.isolate || c.reach_len > 0 {
            // Mounts made from here on stay in the child's mount namespace.
            if libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return fail(c, 12);
            }
        }
        // Every source first: a later in-memory folder may cover it.
        for i in 0..c.reach_len {
            let op = &mut *c.reach.add(i);
            if op.what == 3 {
                op.fd = libc::open(op.source, libc::O_PATH | libc::O_CLOEXEC);
                if op.fd < 0 {
                    return fail(c, 9);
                }
            }
        }
        for i in 0..c.reach_len {
            let op = &*c.reach.add(i);
            let ok = match op.what {
                0 => {
                    libc::mount(
                        c"tmpfs".as_ptr(),
                        op.path,
                        c"tmpfs".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV,
                        c"mode=0755".as_ptr().cast(),
                    ) == 0
                }
                4 => {
                    libc::mount(
                        c"tmpfs".as_ptr(),
                        op.path,
                        c"tmpfs".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV,
                        c.shm_options.cast(),
                    ) == 0
                }
                1 => libc::mkdir(op.path, 0o755) == 0 || *libc::__errno_location() == libc::EEXIST,
                2 => {
                    let fd = libc::open(
                        op.path,
                        libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                        0o644,
                    );
                    fd >= 0 && libc::close(fd) == 0
                }
                _ => {
                    let mut source = [0u8; 32];
                    fd_path(op.fd, &mut source);
                    libc::mount(
                        source.as_ptr().cast(),
                        op.path,
                        none,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ) == 0
                }
            };
            if !ok {
                return fail(c, 9);
            }
        }
        if c.isolate {
            // Its /proc shows only its own process-id namespace (itself and what it starts).
            if libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ) != 0
            {
                return fail(c, 7);
            }
            // A /dev/shm of its own (charged to its memory cgroup), gone with the bot. Where
            // the machine has none, there is nothing to hide.
            libc::mount(
                c"tmpfs".as_ptr(),
                c"/dev/shm".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c.shm_options.cast(),
            );
            if c.net_fd < 0 {
                loopback_up();
            }
            return start_init(c);
        }
        exec_bot(c)
    }
}

/// An isolated child, after its mounts: starts the bot as the second process of the namespace
/// and becomes its init (arbiter's own program, see [`crate::bot::isolation`]).
///
/// # Safety
/// Only in the child, between `clone` and `exec` (the module's doc): the parent's thread is
/// suspended and `c` is the [`Child`] it prepared, every pointer in it valid (NUL-terminated
/// strings, null-terminated arrays, `reach_len` ops) until the child execs or exits. Nothing
/// here allocates or locks.
unsafe fn start_init(c: &mut Child) -> libc::c_int {
    // SAFETY: in the clone's child with the parent's `Child` (this function's contract): raw
    // system calls on the pointers it prepared, nothing that allocates or locks.
    unsafe {
        let bot = libc::clone(
            bot_main,
            c.bot_stack_top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (c as *mut Child).cast(),
        );
        if bot < 0 {
            return fail(c, 13);
        }
        if c.error.1 != 0 {
            // The bot's clone failed a step and said which.
            libc::_exit(127);
        }
        let mut text = [0u8; 32];
        let len = decimal(bot, &mut text);
        std::ptr::copy_nonoverlapping(text.as_ptr(), c.bot_pid_text, len + 1);
        // The init holds none of the referee's or the bot's standard streams (the bot's end of
        // file must be the bot's), only the status pipe, across its exec.
        for fd in 0..3 {
            libc::close(fd);
        }
        if libc::fcntl(c.status_fd, libc::F_SETFD, 0) != 0 {
            return fail(c, 13);
        }
        let no_env: [*const libc::c_char; 1] = [std::ptr::null()];
        libc::syscall(
            libc::SYS_execveat,
            c.init_exe,
            c"".as_ptr(),
            c.init_argv,
            no_env.as_ptr(),
            libc::AT_EMPTY_PATH,
        );
        // The bot is running already: it ends with this process, the first of its namespace.
        fail(c, 13)
    }
}

/// The bot's clone in an isolated child: joins the bot's cgroups and becomes the bot.
extern "C" fn bot_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: as in `child_main` (the isolated child, suspended until this exec, holds `arg`
    // from the referee, suspended too).
    unsafe {
        let c = &mut *arg.cast::<Child>();
        if !join_cgroups(c) {
            return fail(c, 4);
        }
        exec_bot(c)
    }
}

/// The last steps of the bot's process: its standard streams and folder, its user and
/// capabilities, its parent-death signal, no new privileges and its seccomp filter, default
/// signals, and `exec`.
///
/// # Safety
/// Only in the child, between `clone` and `exec` (the module's doc): the parent's thread is
/// suspended and `c` is the [`Child`] it prepared, every pointer in it valid (NUL-terminated
/// strings, null-terminated arrays, `reach_len` ops) until the child execs or exits. Nothing
/// here allocates or locks.
unsafe fn exec_bot(c: &mut Child) -> libc::c_int {
    // SAFETY: in the clone's child with the parent's `Child` (this function's contract): raw
    // system calls on the pointers it prepared, nothing that allocates or locks.
    unsafe {
        {
            for (target, fd) in c.fds.into_iter().enumerate() {
                let target = target as libc::c_int;
                // The pipes are close-on-exec; dup2 gives copies that are not (and one that is
                // already in place only needs the flag cleared).
                let ok = if fd == target {
                    libc::fcntl(fd, libc::F_SETFD, 0) == 0
                } else {
                    libc::dup2(fd, target) == target
                };
                if !ok {
                    return fail(c, 5);
                }
            }
            if libc::chdir(c.dir) != 0 {
                return fail(c, 6);
            }
            if c.isolate {
                if !crate::bot::isolation::drop_capabilities(c.user) {
                    return fail(c, 8);
                }
            } else if let Some(id) = c.user {
                // From root to another user: every capability goes.
                if !crate::bot::isolation::become_user(id) {
                    return fail(c, 10);
                }
            }
            // A referee killed without warning takes its bots with it. (Set after the change of
            // user, which clears it.)
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return fail(c, 2);
            }
            // The limit of open files arbiter was started with, not the one it raised for its own
            // many games. Set last (nothing opens a file after it), before the seccomp filter.
            if let Some(limit) = &c.open_files {
                if libc::setrlimit(libc::RLIMIT_NOFILE, limit) != 0 {
                    return fail(c, 3);
                }
            }
            // No exec of the bot's gains privileges (set-user-ID programs, file capabilities).
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || (!c.seccomp.is_null()
                    && libc::prctl(
                        libc::PR_SET_SECCOMP,
                        libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                        c.seccomp,
                        0,
                        0,
                    ) != 0)
            {
                return fail(c, 11);
            }
            // The referee ignores SIGPIPE and handles a few signals; the bot starts with the
            // defaults and nothing blocked, as from a shell.
            for sig in [
                libc::SIGPIPE,
                libc::SIGINT,
                libc::SIGTERM,
                libc::SIGHUP,
                libc::SIGSEGV,
                libc::SIGBUS,
                libc::SIGCHLD,
            ] {
                libc::signal(sig, libc::SIG_DFL);
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            if !c.gate_argv.is_null() {
                // Held: the small gate (with everything above in place) waits for the game. The
                // program is checked now, as the bot's user sees it, so that one it cannot run is
                // a bot that cannot start, as without the gate.
                if libc::access(c.program, libc::X_OK) != 0 {
                    return fail(c, 0);
                }
                if libc::fcntl(c.go_fd, libc::F_SETFD, 0) != 0 {
                    return fail(c, 14);
                }
                libc::syscall(
                    libc::SYS_execveat,
                    c.init_exe,
                    c"".as_ptr(),
                    c.gate_argv,
                    c.envp,
                    libc::AT_EMPTY_PATH,
                );
                return fail(c, 14);
            }
            libc::execve(c.program, c.argv, c.envp);
            fail(c, 0)
        }
    }
}

/// Brings up the loopback of the child's own network namespace (down in a new one), so that a
/// bot's own processes may talk over 127.0.0.1; nothing else is in that namespace. A failure
/// only leaves it down.
///
/// # Safety
/// Only in the clone's child (the module's doc), in the bot's own new network namespace:
/// raw system calls on a socket of its own, nothing that allocates or locks.
unsafe fn loopback_up() {
    // SAFETY: in the clone's child (this function's contract): raw system calls on a
    // socket it opens here, nothing that allocates or locks.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return;
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        req.ifr_name[0] = b'l' as libc::c_char;
        req.ifr_name[1] = b'o' as libc::c_char;
        if libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut req) == 0 {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(fd, libc::SIOCSIFFLAGS, &req);
        }
        libc::close(fd);
    }
}

/// Writes `/proc/self/fd/<fd>` and a NUL into `out`, without allocating.
fn fd_path(fd: libc::c_int, out: &mut [u8; 32]) {
    const PREFIX: &[u8] = b"/proc/self/fd/";
    out[..PREFIX.len()].copy_from_slice(PREFIX);
    let mut digits = [0u8; 32];
    let len = decimal(fd, &mut digits);
    out[PREFIX.len()..=PREFIX.len() + len].copy_from_slice(&digits[..=len]);
}

/// Writes `n` (0 if negative) in decimal and a NUL into `out`, without allocating; returns the
/// number of digits.
fn decimal(n: libc::c_int, out: &mut [u8; 32]) -> usize {
    let mut digits = [0u8; 10];
    let (mut n, mut len) = (n.max(0) as u32, 0);
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        out[i] = digits[len - 1 - i];
    }
    out[len] = 0;
    len
}
