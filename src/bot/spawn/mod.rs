//! Starting a bot process the cheap way: `clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn` does,
//! instead of `fork`, which copies the referee's page tables only for `exec` to throw them away
//! (and leaves every page the referee touches next copy-on-write). `posix_spawn` itself cannot be
//! used: the child must also set its parent-death signal, its resource limits and its cgroup
//! before `exec`. Measured with `arbiter bench`: a game's start and end costs about half a
//! millisecond less wall time.
//!
//! The child shares the referee's memory and runs on its own small stack until `exec`; the
//! referee's thread is suspended meanwhile. The child makes only raw system calls: no
//! allocation, no lock, nothing that could touch state another thread of the referee holds.
//!
//! What the child does, in order: a session of its own (no controlling terminal), its
//! parent-death signal, its resource limits, its cgroups (as root, before it drops that), in its
//! own mount namespace the mounts that make its files reachable ([`super::reach`]) and its own
//! /proc, its pipes and folder, then its user ([`super::isolation`]), no new privileges and the
//! seccomp filter ([`super::seccomp`]), and `exec` with the environment it was given (nothing
//! of the referee's own).
//!
//! An isolated child (the first process of a process-id namespace of its own) does not become
//! the bot: the kernel protects a namespace's first process from the signals it sends itself, so
//! a bot there would survive its own `raise(SIGSEGV)` or `abort()`. After the mounts, it starts
//! the bot as the namespace's second process (one more `vfork`-style clone, which joins the
//! cgroups and goes through the steps above), then execs the small `arbiter-init` built into
//! arbiter as the namespace's minimal init ([`super::isolation`]): it forwards TERM, INT and HUP, reaps every
//! orphan, and hands the bot's own wait status to the referee through a pipe.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What the child does before `exec`.
pub struct Request<'a> {
    pub program: &'a Path,
    pub args: &'a [String],
    pub dir: &'a Path,
    /// RLIMIT_DATA, in bytes.
    pub memory_bytes: Option<u64>,
    /// RLIMIT_NPROC.
    pub max_processes: Option<u64>,
    /// `cgroup.procs` files to write the child into (one per cgroup hierarchy).
    pub cgroup_procs: &'a [&'a CStr],
    /// The size of the private /dev/shm of an isolated child (no limit if `None`).
    pub shm_bytes: Option<u64>,
    /// Start the child in a process-id namespace of its own with its own /proc, and without
    /// any capability (for a referee running as root: see [`super::isolation`]).
    pub isolate: bool,
    /// The program's whole environment, `NAME=VALUE` each; a bare program name is looked up in
    /// its `PATH` (else /usr/local/bin:/usr/bin:/bin), not in the referee's.
    pub env: &'a [CString],
    /// Become this user and group (and no other group) before exec (a referee running as root).
    pub user: Option<u32>,
    /// Mounts, in a mount namespace of the child's own, that make its files reachable.
    pub reach: &'a [super::reach::Op],
    /// The seccomp filter installed just before exec.
    pub seccomp: Option<&'a [libc::sock_filter]>,
    /// Start a session of its own (no controlling terminal); else only a process group.
    pub new_session: bool,
    /// For an isolated child: hold the bot before its program runs (see [`Spawned::go`]),
    /// to be pinned to this CPU (if any) when let go.
    pub hold: Option<Option<usize>>,
}

/// A started child: its pid (also its process group) and the referee's ends of its pipes.
pub struct Spawned {
    pub pid: i32,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    /// An isolated child's status pipe: once its init has ended, it holds the bot's own wait
    /// status (a native-endian `i32`), unless the init was killed first.
    pub status: Option<OwnedFd>,
    /// A held bot's go: one byte written here lets the bot's program start (exec'd by the
    /// small gate that holds it, [`super::init::gate_of`]); closed unwritten, the bot ends.
    pub go: Option<OwnedFd>,
}

/// Everything the child reads, prepared by the parent; `error` is written by the child.
struct Child {
    program: *const libc::c_char,
    argv: *const *const libc::c_char,
    dir: *const libc::c_char,
    /// The child's ends: stdin's read end, stdout's and stderr's write ends.
    fds: [libc::c_int; 3],
    memory_bytes: Option<u64>,
    max_processes: Option<u64>,
    cgroup_procs: [*const libc::c_char; MAX_CGROUPS],
    isolate: bool,
    envp: *const *const libc::c_char,
    user: Option<u32>,
    /// (what, path, source): 0 tmpfs, 1 folder, 2 file, 3 bind source onto path.
    reach: *mut RawOp,
    reach_len: usize,
    seccomp: *const libc::sock_fprog,
    new_session: bool,
    /// The mount options of its private /dev/shm (its size).
    shm_options: *const libc::c_char,
    /// Set by the child when a step fails: (step, errno).
    error: (libc::c_int, libc::c_int),
    /// An isolated child's init: arbiter's own program (an open file), its arguments, the write
    /// end of the status pipe, where the child writes the bot's pid (a decimal, in argv), and
    /// the stack of the bot's clone.
    init_exe: libc::c_int,
    init_argv: *const *const libc::c_char,
    status_fd: libc::c_int,
    bot_pid_text: *mut u8,
    bot_stack_top: *mut libc::c_void,
    /// A held bot's gate: its arguments (null for a bot exec'd at once) and the read end of
    /// its go pipe, which it keeps across its exec.
    gate_argv: *const *const libc::c_char,
    go_fd: libc::c_int,
}

/// One mount step of [`super::reach`], as the child reads it.
struct RawOp {
    what: u8,
    path: *const libc::c_char,
    source: *const libc::c_char,
    /// The source, opened by the child before any mount.
    fd: libc::c_int,
}

/// The steps of the child, for error messages.
const STEPS: [&str; 15] = [
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
];

/// Most cgroup hierarchies a child joins (v1: pids, memory, freezer).
pub const MAX_CGROUPS: usize = 4;

/// Stack of the child until `exec`: the child function's frame and the system calls' only.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// Starts `req.program` with `req.args` in `req.dir`, in a new process group, with piped stdin,
/// stdout and stderr. The error says which step failed (exec errors keep their `ErrorKind`).
pub fn spawn(req: &Request<'_>) -> io::Result<Spawned> {
    let program = cstring(
        resolve(req.program, bot_path(req.env))?
            .as_os_str()
            .as_bytes(),
    )?;
    let mut envp: Vec<*const libc::c_char> = req.env.iter().map(|e| e.as_ptr()).collect();
    envp.push(std::ptr::null());
    let mut reach: Vec<RawOp> = req
        .reach
        .iter()
        .map(|op| {
            use super::reach::Op;
            match op {
                Op::Tmpfs(p) => (0, p.as_ptr(), std::ptr::null()),
                Op::Dir(p) => (1, p.as_ptr(), std::ptr::null()),
                Op::File(p) => (2, p.as_ptr(), std::ptr::null()),
                Op::Bind { from, to } => (3, to.as_ptr(), from.as_ptr()),
            }
        })
        .map(|(what, path, source)| RawOp {
            what,
            path,
            source,
            fd: -1,
        })
        .collect();
    let fprog = req.seccomp.map(|f| libc::sock_fprog {
        len: f.len() as u16,
        filter: f.as_ptr().cast_mut(),
    });
    let mut argv_c = Vec::with_capacity(req.args.len() + 1);
    argv_c.push(cstring(req.program.as_os_str().as_bytes())?);
    for a in req.args {
        argv_c.push(cstring(a.as_bytes())?);
    }
    let mut argv: Vec<*const libc::c_char> = argv_c.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    let dir = cstring(req.dir.as_os_str().as_bytes())?;

    if req.cgroup_procs.len() > MAX_CGROUPS {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "too many cgroups",
        ));
    }
    let mut cgroup_procs = [std::ptr::null(); MAX_CGROUPS];
    for (slot, procs) in cgroup_procs.iter_mut().zip(req.cgroup_procs) {
        *slot = procs.as_ptr();
    }
    let shm_options = cstring(
        match req.shm_bytes {
            Some(bytes) => format!("size={bytes},mode=1777"),
            None => "mode=1777".to_string(),
        }
        .as_bytes(),
    )?;
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let status_pipe = if req.isolate { Some(pipe()?) } else { None };
    let go_pipe = match (req.isolate, req.hold) {
        (true, Some(_)) => Some(pipe()?),
        _ => None,
    };
    let go_text = cstring(
        go_pipe
            .as_ref()
            .map_or(-1, |(r, _)| r.as_raw_fd())
            .to_string()
            .as_bytes(),
    )?;
    let cpu_text = cstring(
        req.hold
            .flatten()
            .map_or("-".to_string(), |c| c.to_string())
            .as_bytes(),
    )?;
    let gate_argv: Vec<*const libc::c_char> = match go_pipe {
        Some(_) => [
            super::isolation::GATE_NAME.as_ptr(),
            go_text.as_ptr(),
            cpu_text.as_ptr(),
            program.as_ptr(),
        ]
        .into_iter()
        .chain(argv.iter().copied())
        .collect(),
        None => Vec::new(),
    };
    let init_exe = if req.isolate {
        super::isolation::init_program()?
    } else {
        -1
    };
    let status_text = cstring(
        status_pipe
            .as_ref()
            .map_or(-1, |(_, w)| w.as_raw_fd())
            .to_string()
            .as_bytes(),
    )?;
    let user_text = cstring(
        req.user
            .map_or("-".to_string(), |u| u.to_string())
            .as_bytes(),
    )?;
    let mut bot_pid_text = [0u8; 12];
    let bot_pid_ptr = bot_pid_text.as_mut_ptr();
    let init_argv = [
        super::isolation::INIT_NAME.as_ptr(),
        status_text.as_ptr(),
        user_text.as_ptr(),
        bot_pid_ptr.cast_const().cast::<libc::c_char>(),
        std::ptr::null(),
    ];
    let mut stack = vec![0u128; 2 * CHILD_STACK_BYTES / 16];
    let bot_stack_top = stack[..CHILD_STACK_BYTES / 16]
        .as_mut_ptr_range()
        .end
        .cast::<libc::c_void>();
    let mut child = Child {
        program: program.as_ptr(),
        argv: argv.as_ptr(),
        dir: dir.as_ptr(),
        fds: [
            stdin_r.as_raw_fd(),
            stdout_w.as_raw_fd(),
            stderr_w.as_raw_fd(),
        ],
        memory_bytes: req.memory_bytes,
        max_processes: req.max_processes,
        cgroup_procs,
        isolate: req.isolate,
        envp: envp.as_ptr(),
        user: req.user,
        reach: reach.as_mut_ptr(),
        reach_len: reach.len(),
        seccomp: fprog
            .as_ref()
            .map_or(std::ptr::null(), |f| f as *const libc::sock_fprog),
        new_session: req.new_session,
        shm_options: shm_options.as_ptr(),
        error: (0, 0),
        init_exe,
        init_argv: init_argv.as_ptr(),
        status_fd: status_pipe.as_ref().map_or(-1, |(_, w)| w.as_raw_fd()),
        bot_pid_text: bot_pid_ptr,
        bot_stack_top,
        gate_argv: if gate_argv.is_empty() {
            std::ptr::null()
        } else {
            gate_argv.as_ptr()
        },
        go_fd: go_pipe.as_ref().map_or(-1, |(r, _)| r.as_raw_fd()),
    };
    // SAFETY: the stack is ours and outlives the child's use of it (CLONE_VFORK suspends this
    // thread until the child has called exec or exited); `child` and everything it points to
    // stay alive for as long. Signals are blocked around the clone so that no handler of the
    // referee runs on the child's stack; the child restores the dispositions and the mask.
    let pid = unsafe {
        let top = stack.as_mut_ptr().add(stack.len()).cast::<libc::c_void>();
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let namespaces = if req.isolate {
            libc::CLONE_NEWPID | libc::CLONE_NEWNS
        } else if !req.reach.is_empty() {
            libc::CLONE_NEWNS
        } else {
            0
        };
        let pid = libc::clone(
            child_main,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | namespaces,
            (&mut child as *mut Child).cast(),
        );
        let clone_error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(clone_error);
        }
        pid
    };
    drop(stack);
    let (step, errno) = child.error;
    if errno != 0 {
        // The child exited without exec: reap it.
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let e = io::Error::from_raw_os_error(errno);
        return Err(match STEPS.get(step as usize) {
            Some(what) if !what.is_empty() => {
                io::Error::new(e.kind(), format!("cannot {what}: {e}"))
            }
            _ => e,
        });
    }
    Ok(Spawned {
        pid,
        stdin: stdin_w,
        stdout: stdout_r,
        stderr: stderr_r,
        status: status_pipe.map(|(r, _)| r),
        go: go_pipe.map(|(_, w)| w),
    })
}

/// Records the failed step and the errno in `Child::error` (shared memory) and ends the child
/// with status 127.
unsafe fn fail(c: &mut Child, step: libc::c_int) -> libc::c_int {
    c.error = (step, *libc::__errno_location());
    libc::_exit(127)
}

/// Writes the cgroup files that move the calling process into the bot's cgroups.
unsafe fn join_cgroups(c: &mut Child) -> bool {
    for &procs in c.cgroup_procs.iter().take_while(|p| !p.is_null()) {
        let fd = libc::open(procs, libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
            return false;
        }
        libc::close(fd);
    }
    true
}

/// The child, until exec. Only async-signal-safe system calls; failures are reported through
/// `Child::error` (shared memory) and end the child with status 127.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Child`, alive until exec; every pointer in it is valid.
    unsafe {
        let c = &mut *arg.cast::<Child>();
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
            return start_init(c);
        }
        exec_bot(c)
    }
}

/// An isolated child, after its mounts: starts the bot as the second process of the namespace
/// and becomes its init (arbiter's own program, see [`super::isolation`]).
unsafe fn start_init(c: &mut Child) -> libc::c_int {
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
unsafe fn exec_bot(c: &mut Child) -> libc::c_int {
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
            if !super::isolation::drop_capabilities(c.user) {
                return fail(c, 8);
            }
        } else if let Some(id) = c.user {
            // From root to another user: every capability goes.
            if !super::isolation::become_user(id) {
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

fn cstring(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"))
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(io::Error::from)
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn request<'a>(program: &'a Path, args: &'a [String], dir: &'a Path) -> Request<'a> {
        Request {
            program,
            args,
            dir,
            memory_bytes: None,
            max_processes: None,
            cgroup_procs: &[],
            shm_bytes: None,
            isolate: false,
            env: &[],
            user: None,
            reach: &[],
            seccomp: None,
            new_session: true,
            hold: None,
        }
    }

    fn wait(pid: i32) -> i32 {
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        status
    }

    #[test]
    fn a_child_gets_its_pipes_directory_group_and_limits() {
        let dir = tempfile::tempdir().unwrap();
        let script = "read line; echo \"got $line in $(pwd)\"; echo err >&2; \
                      ps -o pgid= -p $$; ulimit -d";
        let args = vec!["-c".to_string(), script.to_string()];
        let mut req = request(Path::new("sh"), &args, dir.path());
        req.memory_bytes = Some(512 * 1024 * 1024);
        let child = spawn(&req).unwrap();
        std::fs::File::from(child.stdin)
            .write_all(b"hello\n")
            .unwrap();
        let mut out = String::new();
        std::fs::File::from(child.stdout)
            .read_to_string(&mut out)
            .unwrap();
        let mut err = String::new();
        std::fs::File::from(child.stderr)
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(wait(child.pid), 0);
        let lines: Vec<&str> = out.lines().collect();
        let here = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(lines[0], format!("got hello in {}", here.display()));
        assert_eq!(
            lines[1].trim(),
            child.pid.to_string(),
            "its own process group"
        );
        assert_eq!(
            lines[2].trim(),
            (512 * 1024).to_string(),
            "RLIMIT_DATA in KiB"
        );
        assert_eq!(err, "err\n");
    }

    #[test]
    fn exec_failures_keep_their_kind() {
        let dir = tempfile::tempdir().unwrap();
        let missing = spawn(&request(Path::new("no-such-program-here"), &[], dir.path()));
        assert_eq!(missing.err().unwrap().kind(), io::ErrorKind::NotFound);
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "not a program").unwrap();
        let denied = spawn(&request(&plain, &[], dir.path()));
        assert_eq!(
            denied.err().unwrap().kind(),
            io::ErrorKind::PermissionDenied
        );
        let gone = dir.path().join("gone");
        let bad_dir = spawn(&request(Path::new("sh"), &[], &gone));
        let e = bad_dir.err().unwrap();
        assert!(e.to_string().contains("change to its directory"), "{e}");
    }

    #[test]
    fn an_isolated_child_is_the_second_process_and_its_init_passes_on_its_own_status() {
        if !super::super::isolation::isolate() {
            assert!(
                std::env::var_os("CI").is_none(),
                "isolated bots need root with CAP_SYS_ADMIN: run the tests as root (CI does)"
            );
            eprintln!("not root: isolated bots are not tested here");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let args = vec![
            "-c".to_string(),
            "echo $$; read x; kill -SEGV $$; echo SURVIVED".to_string(),
        ];
        let mut req = request(Path::new("sh"), &args, dir.path());
        req.isolate = true;
        let child = spawn(&req).unwrap();
        let mut stdin = std::fs::File::from(child.stdin);
        stdin.write_all(b"go\n").unwrap();
        drop(stdin);
        let mut out = String::new();
        // The end of file is the bot's: its init holds none of its streams.
        std::fs::File::from(child.stdout)
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "2\n", "the bot is its namespace's second process");
        let init = wait(child.pid);
        assert!(libc::WIFEXITED(init), "{init:#x}");
        assert_eq!(libc::WEXITSTATUS(init), 128 + libc::SIGSEGV);
        let mut status = [0u8; 4];
        std::fs::File::from(child.status.unwrap())
            .read_exact(&mut status)
            .unwrap();
        let status = i32::from_ne_bytes(status);
        assert!(libc::WIFSIGNALED(status), "{status:#x}");
        assert_eq!(libc::WTERMSIG(status), libc::SIGSEGV);
    }

    #[test]
    fn the_child_starts_with_default_signals() {
        // SIGPIPE is ignored in this test process (the Rust runtime does that); the child has
        // it back at the default, and nothing blocked.
        let dir = tempfile::tempdir().unwrap();
        let args = vec![
            "-c".to_string(),
            "grep -E '^(SigBlk|SigIgn)' /proc/self/status".to_string(),
        ];
        let child = spawn(&request(Path::new("sh"), &args, dir.path())).unwrap();
        drop(child.stdin);
        let mut out = String::new();
        std::fs::File::from(child.stdout)
            .read_to_string(&mut out)
            .unwrap();
        wait(child.pid);
        for line in out.lines() {
            let mask = u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap();
            assert_eq!(mask & (1 << (libc::SIGPIPE - 1)), 0, "{out}");
            if line.starts_with("SigBlk") {
                assert_eq!(mask, 0, "{out}");
            }
        }
    }
}
