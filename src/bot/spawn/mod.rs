//! Starting a bot process the cheap way: `clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn` does,
//! instead of `fork`, which copies the referee's page tables only for `exec` to throw them away
//! (and leaves every page the referee touches next copy-on-write). `posix_spawn` itself cannot be
//! used: the child must also set its parent-death signal, its resource limits and its cgroup
//! before `exec`. Measured with `arbiter bench`: a game's start and end costs about half a
//! millisecond less wall time.
//!
//! This file is the parent's side: what the referee prepares (everything allocated before the
//! clone), the clone itself, and what it makes of the child's failure. What the child runs
//! between `clone` and `exec` is in [`child`]; how a program's name becomes a file, in [`path`].

mod child;
mod path;

use child::{child_main, Child, RawOp, STEPS};
pub use path::{bot_path, resolve, DEFAULT_PATH};
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What the child does before `exec`.
pub struct SpawnRequest<'a> {
    pub program: &'a Path,
    pub args: &'a [String],
    pub dir: &'a Path,
    /// RLIMIT_DATA, in bytes.
    pub memory_bytes: Option<u64>,
    /// RLIMIT_NPROC.
    pub max_processes: Option<u64>,
    /// `cgroup.procs` files to write the child into (one per cgroup hierarchy).
    pub cgroup_procs: &'a [&'a CStr],
    /// The size of the private /dev/shm and scratch folders ([`super::reach::Op::Scratch`]) of
    /// an isolated child (no limit if `None`).
    pub shm_bytes: Option<u64>,
    /// Start the child in a process-id namespace of its own with its own /proc, and without
    /// any capability (for a referee running as root: see [`super::isolation`]).
    pub isolate: bool,
    /// For an isolated child: the network namespace it joins (see [`super::netns`]); `None`
    /// makes a new one with it.
    pub net: Option<libc::c_int>,
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

/// Most cgroup hierarchies a child joins (v1: pids, memory, freezer).
pub const MAX_CGROUPS: usize = 4;

/// Stack of the child until `exec`: the child function's frame and the system calls' only.
const CHILD_STACK_BYTES: usize = 64 * 1024;

thread_local! {
    /// The children's stacks (the isolated child's and its bot's), kept by the thread that
    /// starts bots: free again once `clone` returns (both children have called exec, or ended),
    /// and zeroing 128 KiB anew for every bot cost more than the rest of the parent's side.
    static STACKS: std::cell::Cell<Option<Box<[u128]>>> = const { std::cell::Cell::new(None) };
}

/// Starts `req.program` with `req.args` in `req.dir`, in a new process group, with piped stdin,
/// stdout and stderr. The error says which step failed (exec errors keep their `ErrorKind`).
pub fn spawn(req: &SpawnRequest<'_>) -> io::Result<Spawned> {
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
                Op::Scratch(p) => (4, p.as_ptr(), std::ptr::null()),
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
    let mut stack = STACKS
        .take()
        .unwrap_or_else(|| vec![0u128; 2 * CHILD_STACK_BYTES / 16].into_boxed_slice());
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
        net_fd: req.net.filter(|_| req.isolate).unwrap_or(-1),
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
        open_files: crate::bot::open_files::for_children(),
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
        // An isolated bot also gets its own System V and POSIX IPC objects and its own network
        // (only its loopback): nothing there reaches another bot, or outlives the bot. Its
        // network namespace is one made ahead where there is one (the child joins it).
        let namespaces = if req.isolate {
            let net = match child.net_fd {
                -1 => libc::CLONE_NEWNET,
                _ => 0,
            };
            libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC | net
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
    STACKS.set(Some(stack));
    let (step, errno) = child.error;
    if errno != 0 {
        // The child exited without exec: reap it.
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let e = io::Error::from_raw_os_error(errno);
        return Err(match STEPS.get(step as usize) {
            Some(what) if !what.is_empty() => io::Error::new(e.kind(), StepFailed { what, e }),
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

/// A step of the child before `exec` that failed (its errno kept for
/// [`crate::bot::MachineFault::of`]).
#[derive(Debug)]
struct StepFailed {
    what: &'static str,
    e: io::Error,
}

impl std::fmt::Display for StepFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot {}: {}", self.what, self.e)
    }
}

impl std::error::Error for StepFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.e)
    }
}

fn cstring(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"))
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn request<'a>(program: &'a Path, args: &'a [String], dir: &'a Path) -> SpawnRequest<'a> {
        SpawnRequest {
            program,
            args,
            dir,
            memory_bytes: None,
            max_processes: None,
            cgroup_procs: &[],
            shm_bytes: None,
            isolate: false,
            net: None,
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
