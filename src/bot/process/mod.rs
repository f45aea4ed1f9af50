//! One bot as a child process: started in its own process group, fed one write per turn, read
//! with a deadline, frozen and thawed, and ended as a group (TERM, a short grace, KILL, reap).
//!
//! Everything is non-blocking file descriptors and `poll(2)` from the game's own thread: no thread
//! or task per turn, and a bot's stderr is drained whenever the referee waits on anything.

mod wait;

use wait::wait_exit;
pub use wait::wait_line;

use super::cleanup;
use super::spec::BotSpec;
use super::status::reap;
use crate::protocol::LineBuffer;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{kill_process, kill_process_group, pidfd_open, Pid, PidfdFlags, Signal};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How much of a bot's stderr is kept (the end of it).
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// Unread stdout the referee holds at most. Past it, it stops reading and the bot's writes
/// block: a bot flooding complete lines (which queue up as its next answers) cannot exhaust the
/// referee's memory. (Flooding without a newline is `output-too-long` long before this.)
pub const MAX_PENDING_STDOUT: usize = 1024 * 1024;

thread_local! {
    /// The read buffer of the drains: one per game thread, so that no turn zeroes a fresh one.
    static SCRATCH: std::cell::RefCell<Box<[u8]>> = std::cell::RefCell::new(vec![0; 64 * 1024].into_boxed_slice());
}

/// Resource limits applied to each bot before it starts.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Largest data segment (heap and private writable mappings), in bytes.
    pub memory_bytes: Option<u64>,
    /// Largest number of processes for the bot's user (RLIMIT_NPROC).
    pub max_processes: Option<u64>,
    /// Run under bubblewrap (this is its path): see [`super::sandbox`].
    pub sandbox: Option<PathBuf>,
    /// What the bot's environment holds beyond [`super::env::BASE`] (the `ARBITER_*` settings,
    /// what the user passes on with `--bot-env`); a name given twice takes the last value.
    pub env: Vec<(String, String)>,
}

/// Why a bot could not be started.
#[derive(Debug, thiserror::Error)]
#[error("bot '{name}': cannot start `{command}` in {dir}: {reason}")]
pub struct SpawnError {
    pub name: String,
    pub command: String,
    pub dir: String,
    pub reason: String,
}

/// What waiting for a bot's answer line produced.
#[derive(Debug)]
pub enum Wait {
    /// A complete line (without its line end) and the moment its newline was read.
    Line(Vec<u8>, Instant),
    /// The bot's process exited before answering.
    Exited(ExitStatus),
    /// The bot closed its stdout but its process is still running.
    ClosedStdout,
    /// More than the allowed bytes without a newline.
    TooLong,
    /// The deadline passed.
    Timeout,
}

/// A running bot.
pub struct BotProcess {
    pub name: String,
    pgid: Pid,
    stdin: Option<File>,
    stdout: Option<File>,
    stderr: Option<File>,
    pidfd: OwnedFd,
    /// Bytes of stdout not consumed yet.
    pub out: LineBuffer,
    err_tail: Vec<u8>,
    err_total: u64,
    exited: Option<ExitStatus>,
    frozen: bool,
    ended: bool,
    sandboxed: bool,
    /// Started by an init of its own, the first process of its own pid namespace (see
    /// `super::isolation`); the init is the leader, and this pipe tells the bot's own status.
    isolated: bool,
    status: Option<File>,
    /// Dropped (killing whatever is left in it) after the bot is reaped.
    cgroup: Option<super::cgroup::Cgroup>,
    /// The memory limit, when a memory cgroup enforces it (and the bot hit it).
    memory_cap: Option<u64>,
    memory_hit: bool,
    /// The process cap, when a pids cgroup enforces it (and the bot hit it).
    process_cap: Option<u64>,
    process_hit: bool,
    inner_pid: std::cell::Cell<Option<i32>>,
    /// A held bot's go (see [`BotProcess::spawn_held`]); `None` once let go.
    go: Option<File>,
    /// The bot's own user id (as root), held until the bot is gone.
    _user: Option<super::isolation::SeatId>,
    /// The fair clock's reader of its tasks' waiting, made at its first use.
    waits: std::cell::RefCell<Option<super::schedstat::Tracker>>,
}

fn nonblocking(fd: impl AsFd) -> std::io::Result<()> {
    rustix::io::ioctl_fionbio(fd, true).map_err(std::io::Error::from)
}

impl BotProcess {
    /// Starts `spec` in its own process group with piped stdio and `limits` applied; in a
    /// sandbox, the private files of `others` are hidden from it.
    pub fn spawn(
        spec: &BotSpec,
        limits: &Limits,
        others: &[&BotSpec],
    ) -> Result<BotProcess, SpawnError> {
        // The thread that starts a bot is the one that plays its game.
        super::sched::short_slice_for_this_thread();
        Self::start(spec, limits, others, None)
    }

    /// Starts `spec` ahead of its game, as [`BotProcess::spawn`] does, but held: its process
    /// (its own user, cgroups, limits, namespaces and seccomp filter in place) waits in a small
    /// gate until [`BotProcess::release`], and only then execs the bot's program, which runs
    /// no code before its game and so still starts up in its first turn. Once let go, it is
    /// pinned to `cpu` (if any). Only an isolated bot can be held ([`BotProcess::can_hold`]);
    /// another is started at once, and its `release` does nothing.
    pub fn spawn_held(
        spec: &BotSpec,
        limits: &Limits,
        others: &[&BotSpec],
        cpu: Option<usize>,
    ) -> Result<BotProcess, SpawnError> {
        // Its processes get the scheduling of the thread that starts them, as a bot started by
        // its game's thread does.
        super::sched::short_slice_for_this_thread();
        Self::start(spec, limits, others, Some(cpu))
    }

    /// Whether bots started with `limits` can be held before their game: isolated bots (as
    /// root, without the sandbox).
    pub fn can_hold(limits: &Limits) -> bool {
        limits.sandbox.is_none() && super::isolation::isolate()
    }

    /// Lets a held bot's program start (see [`BotProcess::spawn_held`]).
    pub fn release(&mut self) {
        // The thread that lets a bot go is the one that plays its game.
        super::sched::short_slice_for_this_thread();
        if let Some(mut go) = self.go.take() {
            let _ = go.write_all(b"g");
        }
    }

    fn start(
        spec: &BotSpec,
        limits: &Limits,
        others: &[&BotSpec],
        hold: Option<Option<usize>>,
    ) -> Result<BotProcess, SpawnError> {
        let fail = |reason: String| SpawnError {
            name: spec.name.clone(),
            command: spec.command_line(),
            dir: spec.dir.display().to_string(),
            reason,
        };
        let mut env = super::env::bot_env(&limits.env);
        // Its folder, as a shell (and bwrap) would say.
        env.push(("PWD".to_string(), spec.dir.display().to_string()));
        let env_c = super::env::entries(&env);
        let path = super::spawn::bot_path(&env_c);
        // arbiter's own human seat talks to the person on arbiter's terminal: it keeps the
        // session and the user (it runs no code of anyone else's).
        let human_seat = spec.args.first().is_some_and(|a| a == "human-seat")
            && std::env::current_exe().is_ok_and(|me| me == spec.program);
        // As root, the bot runs as a user of its own, which must be able to reach its files.
        let user = if human_seat {
            None
        } else {
            super::isolation::SeatId::take()
                .transpose()
                .map_err(&fail)?
        };
        let reach = match &user {
            Some(_) => {
                let resolved = super::spawn::resolve(&spec.program, path)
                    .unwrap_or_else(|_| spec.program.clone());
                // A version manager's shim (pyenv, rbenv, asdf) runs the manager from its whole
                // installation, which stays closed to the bot's user: say so before any game.
                let is_shim = |p: &Path| {
                    p.parent()
                        .is_some_and(|d| d.file_name().is_some_and(|n| n == "shims"))
                        && super::reach::first_blocked(p).is_some()
                };
                if is_shim(&resolved) {
                    return Err(fail(format!(
                        "{} is a version manager's shim (pyenv, rbenv, asdf) in a folder other \
                         users cannot enter, and arbiter runs bots as root under an unprivileged \
                         user of their own: name the interpreter itself (`pyenv which python3` \
                         prints it), or the system's (`python3` in the bot's PATH {path})",
                        resolved.display()
                    )));
                }
                let mut paths = super::sandbox::needed_paths(spec, &resolved);
                paths.push(spec.dir.clone());
                // A command line the user typed may start its programs through a shell
                // (`sh -c 'exec /root/py/bin/python3 bot.py'`): what the script names is made
                // reachable as a plain command's program is. Not for a bot.toml's run line
                // (someone else's, maybe: its files must lie in its folder), nor in the
                // sandbox, which binds the program and script only.
                let own_folder = ["bot.toml", "referee.toml"]
                    .iter()
                    .any(|f| spec.dir.join(f).is_file());
                if limits.sandbox.is_none() && !own_folder {
                    for file in super::reach::shell_script_files(&resolved, &spec.args, &spec.dir) {
                        let file = std::path::absolute(&file).unwrap_or(file);
                        if is_shim(&file) {
                            return Err(fail(format!(
                                "its shell script names {}, a version manager's shim (pyenv, \
                                 rbenv, asdf) in a folder other users cannot enter, and arbiter \
                                 runs bots as root under an unprivileged user of their own: name \
                                 the interpreter itself (`pyenv which python3` prints it), or \
                                 the system's (`python3` in the bot's PATH {path})",
                                file.display()
                            )));
                        }
                        paths.extend(super::sandbox::program_paths(&file));
                    }
                }
                let plan = super::reach::plan(&paths)
                    .map_err(|e| fail(format!("its own user (arbiter runs bots as root under an unprivileged user of their own) cannot use its files: {e}")))?;
                if let Some(top) = plan
                    .covered
                    .first()
                    .filter(|_| !super::isolation::isolate())
                {
                    return Err(fail(format!(
                        "its own unprivileged user (arbiter runs bots as root under a user of \
                         their own) cannot enter {} (mode {:o}), and this referee cannot mount \
                         (no CAP_SYS_ADMIN) to show it the bot's files; move the bot to a folder \
                         every user may enter, or let others enter it (chmod o+x {})",
                        top.display(),
                        std::fs::metadata(top)
                            .map(|m| std::os::unix::fs::MetadataExt::mode(&m) & 0o7777)
                            .unwrap_or(0),
                        top.display()
                    )));
                }
                plan
            }
            None => super::reach::Plan::default(),
        };
        let (program, args) = match &limits.sandbox {
            Some(bwrap) => {
                let c = super::sandbox::command(bwrap, spec, others, limits.memory_bytes);
                (c.program, c.args)
            }
            None => (spec.program.clone(), spec.args.clone()),
        };
        let seccomp = super::seccomp::filter();
        // A cgroup where possible: it caps processes without counting the user's others, and
        // finds every process of the bot at the end.
        let cgroup = super::cgroup::Cgroup::create(limits.max_processes, limits.memory_bytes);
        let memory_cap = cgroup.as_ref().and_then(|g| g.memory_bytes);
        let process_cap = cgroup.as_ref().and_then(|g| g.max_pids);
        let isolated = limits.sandbox.is_none() && super::isolation::isolate();
        let procs: Vec<&std::ffi::CStr> = cgroup
            .iter()
            .flat_map(|g| g.procs.iter().map(|p| p.as_c_str()))
            .collect();
        let request = super::spawn::Request {
            program: &program,
            args: &args,
            dir: &spec.dir,
            // A memory cgroup covers the bot; otherwise RLIMIT_DATA caps each process's own.
            memory_bytes: if memory_cap.is_some() {
                None
            } else {
                limits.memory_bytes
            },
            // (The init of an isolated bot is a process of the bot's user too.)
            max_processes: if cgroup.is_some() {
                None
            } else {
                limits.max_processes.map(|n| n + u64::from(isolated))
            },
            cgroup_procs: &procs,
            // bwrap makes its own namespaces.
            shm_bytes: limits.memory_bytes,
            isolate: isolated,
            env: &env_c,
            user: user.as_ref().map(|u| u.id),
            reach: &reach.ops,
            seccomp: seccomp.as_deref(),
            new_session: !human_seat,
            hold: hold.filter(|_| isolated),
        };
        let child = super::spawn::spawn(&request).map_err(|e| {
            fail(match e.kind() {
                ErrorKind::NotFound => format!(
                    "no such program in the bot's PATH ({path}; `--bot-env PATH` passes \
                     arbiter's own), or its interpreter, named on its #! line, is missing: {e}"
                ),
                ErrorKind::PermissionDenied if user.is_some() => format!(
                    "permission denied (is the file executable, try chmod +x; and may every \
                     user read it and enter its folders? arbiter runs bots as root under an \
                     unprivileged user of their own, with PATH={path}): {e}"
                ),
                ErrorKind::PermissionDenied => {
                    format!("permission denied (is the file executable? try chmod +x): {e}")
                }
                _ => e.to_string(),
            })
        })?;
        let pgid = Pid::from_raw(child.pid).expect("a child's pid is positive");
        cleanup::register(pgid);
        let parts = (|| -> std::io::Result<_> {
            let (stdin, stdout, stderr) = (
                File::from(child.stdin),
                File::from(child.stdout),
                File::from(child.stderr),
            );
            nonblocking(&stdin)?;
            nonblocking(&stdout)?;
            nonblocking(&stderr)?;
            let pidfd = pidfd_open(pgid, PidfdFlags::empty())?;
            let status = child.status.map(File::from);
            if let Some(s) = &status {
                nonblocking(s)?;
            }
            Ok((
                stdin,
                stdout,
                stderr,
                pidfd,
                status,
                child.go.map(File::from),
            ))
        })();
        match parts {
            Ok((stdin, stdout, stderr, pidfd, status, go)) => Ok(BotProcess {
                name: spec.name.clone(),
                pgid,
                stdin: Some(stdin),
                stdout: Some(stdout),
                stderr: Some(stderr),
                pidfd,
                out: LineBuffer::new(),
                err_tail: Vec::new(),
                err_total: 0,
                exited: None,
                frozen: false,
                ended: false,
                sandboxed: limits.sandbox.is_some(),
                isolated,
                status,
                cgroup,
                memory_cap,
                memory_hit: false,
                process_cap,
                process_hit: false,
                inner_pid: std::cell::Cell::new(None),
                go,
                _user: user,
                waits: Default::default(),
            }),
            Err(e) => {
                let _ = kill_process_group(pgid, Signal::KILL);
                let _ = reap(pgid, true);
                cleanup::unregister(pgid);
                Err(fail(e.to_string()))
            }
        }
    }

    /// The bot's own process: the leader, or the process its init or bwrap started (once it has
    /// started), as for its CPU time.
    pub fn pid(&self) -> u32 {
        self.cpu_pid() as u32
    }

    /// Writes one turn's input, in one write when the pipe has room (it nearly always has).
    /// Returns `Err` when the bot closed its stdin or the pipe stayed full past `deadline`.
    pub fn send(&mut self, data: &[u8], deadline: Instant) -> Result<(), SendError> {
        let mut written = 0;
        while written < data.len() {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(SendError::Closed);
            };
            match stdin.write(&data[written..]) {
                Ok(n) => written += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(SendError::Full);
                    }
                    let mut fds = [PollFd::new(stdin, PollFlags::OUT)];
                    let _ = poll(&mut fds, Some(&timespec(deadline - now)));
                    self.drain_stderr();
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    self.stdin = None;
                    return Err(SendError::Closed);
                }
            }
        }
        Ok(())
    }

    /// Stops every process of the bot, so it cannot think on the opponent's time: through its
    /// cgroup freezer where it has one (which holds even processes that left its process
    /// group), else SIGSTOP to its process group.
    pub fn freeze(&mut self) {
        if !self.frozen {
            if !self.cgroup.as_ref().is_some_and(|g| g.set_frozen(true)) {
                let _ = kill_process_group(self.pgid, Signal::STOP);
            }
            self.frozen = true;
        }
    }

    /// Whether the bot is frozen now.
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Lets a frozen bot run again.
    pub fn thaw(&mut self) {
        if self.frozen {
            if !self.cgroup.as_ref().is_some_and(|g| g.set_frozen(false)) {
                let _ = kill_process_group(self.pgid, Signal::CONT);
            }
            self.frozen = false;
        }
    }

    /// Thaws the bot whatever froze it (its cgroup's freezer, SIGSTOP), even when the referee
    /// did not.
    fn force_thaw(&mut self) {
        if let Some(g) = &self.cgroup {
            g.set_frozen(false);
        }
        let _ = kill_process_group(self.pgid, Signal::CONT);
        self.frozen = false;
    }

    /// Reads whatever stdout holds now, without waiting.
    pub fn drain_stdout(&mut self) {
        SCRATCH.with_borrow_mut(|scratch| self.drain_stdout_into(&mut scratch[..16 * 1024]));
    }

    fn drain_stdout_into(&mut self, chunk: &mut [u8]) {
        while let Some(stdout) = self.stdout.as_mut() {
            match stdout.read(chunk) {
                Ok(0) => self.stdout = None,
                Ok(n) => {
                    self.out.extend(&chunk[..n]);
                    let full = self.out.pending().len() > MAX_PENDING_STDOUT;
                    if n < chunk.len() || full || self.out.overlong() {
                        break;
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(_) => self.stdout = None,
            }
        }
    }

    /// Reads whatever stderr holds now, keeping only the tail.
    pub fn drain_stderr(&mut self) {
        SCRATCH.with_borrow_mut(|scratch| self.drain_stderr_into(scratch));
    }

    fn drain_stderr_into(&mut self, chunk: &mut [u8]) {
        while let Some(stderr) = self.stderr.as_mut() {
            match stderr.read(chunk) {
                Ok(0) => self.stderr = None,
                Ok(n) => {
                    self.err_total += n as u64;
                    self.err_tail.extend_from_slice(&chunk[..n]);
                    if self.err_tail.len() > 2 * STDERR_TAIL_BYTES {
                        let cut = self.err_tail.len() - STDERR_TAIL_BYTES;
                        self.err_tail.drain(..cut);
                    }
                    if n < chunk.len() {
                        break;
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(_) => self.stderr = None,
            }
        }
    }

    /// The last [`STDERR_TAIL_BYTES`] the bot wrote to stderr, as text.
    pub fn stderr_tail(&self) -> String {
        let start = self.err_tail.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&self.err_tail[start..]).into_owned()
    }

    /// What the bot wrote to stderr after it had written `mark` bytes in all (a past
    /// [`stderr_bytes`](Self::stderr_bytes)), at most its last `keep` bytes, after reading
    /// whatever stderr holds now. The referee records it per turn.
    pub fn stderr_since(&mut self, mark: u64, keep: usize) -> String {
        self.drain_stderr();
        let new = self.err_total.saturating_sub(mark).min(keep as u64) as usize;
        let start = self.err_tail.len().saturating_sub(new);
        String::from_utf8_lossy(&self.err_tail[start..]).into_owned()
    }

    /// CPU time (user + system, all threads) the bot's main process has used so far. Processes
    /// it started are not included until it reaps them.
    pub fn cpu_time(&self) -> Option<Duration> {
        // The process-wide CPU-time clock of a pid, as glibc's clock_getcpuclockid builds it.
        let pid = self.cpu_pid();
        let clock = ((!pid) << 3) | 2;
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes only into `ts`.
        let rc = unsafe { libc::clock_gettime(clock as libc::clockid_t, &mut ts) };
        (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }

    /// The run-queue waiting of every task of the bot so far (see [`super::schedstat`]): its
    /// cgroup's tasks where it has one, else its process tree. False when the system does not
    /// tell.
    pub fn run_queue_waits(&self, into: &mut Vec<super::schedstat::TaskWait>) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let mut tracker = self.waits.borrow_mut();
        let tracker = tracker.get_or_insert_with(|| {
            let group = self.cgroup.as_ref().and_then(|g| g.procs.first());
            let dir = group.and_then(|p| {
                std::path::Path::new(std::ffi::OsStr::from_bytes(p.as_bytes())).parent()
            });
            super::schedstat::Tracker::new(dir, self.pgid.as_raw_nonzero().get())
        });
        tracker.read(into)
    }

    /// The process whose CPU time is the bot's: itself; isolated, the first child of its init;
    /// in a sandbox the process bwrap starts (bwrap, then bwrap's init in the new pid
    /// namespace, then the bot), found once it exists.
    fn cpu_pid(&self) -> i32 {
        let leader = self.pgid.as_raw_nonzero().get();
        if !self.sandboxed && !self.isolated {
            return leader;
        }
        if let Some(pid) = self.inner_pid.get() {
            return pid;
        }
        let first_child = |pid: i32| {
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .ok()
                .and_then(|c| {
                    c.split_whitespace()
                        .next()
                        .and_then(|c| c.parse::<i32>().ok())
                })
        };
        // The init's first child is the bot (orphans it adopts come after it in the list).
        let found = match self.isolated {
            true => first_child(leader),
            false => first_child(leader).and_then(first_child),
        };
        match found {
            Some(bot) => {
                self.inner_pid.set(Some(bot));
                bot
            }
            // Not started yet: measure bwrap for now (it uses next to nothing).
            None => leader,
        }
    }

    /// The memory limit, in bytes, if the kernel killed a process of the bot for going over it
    /// (known only where a memory cgroup enforces the limit).
    pub fn memory_limit_hit(&mut self) -> Option<u64> {
        if !self.memory_hit {
            self.memory_hit = self.cgroup.as_ref().is_some_and(|g| g.memory_exceeded());
        }
        self.memory_cap.filter(|_| self.memory_hit)
    }

    /// The process cap, if the bot tried to go over it (known only where a pids cgroup
    /// enforces it).
    pub fn process_limit_hit(&mut self) -> Option<u64> {
        if !self.process_hit {
            self.process_hit = self.cgroup.as_ref().is_some_and(|g| g.pids_exceeded());
        }
        self.process_cap.filter(|_| self.process_hit)
    }

    /// Total bytes the bot wrote to stderr.
    pub fn stderr_bytes(&self) -> u64 {
        self.err_total
    }

    /// The exit status, if the process has exited (reaping it). For an isolated bot, the bot's
    /// own status as its init passed it on (the init's, if it was killed before the bot ended).
    pub fn try_exit_status(&mut self) -> Option<ExitStatus> {
        if self.exited.is_none() {
            self.exited = reap(self.pgid, false).map(|init| self.bot_status(init));
        }
        self.exited
    }

    /// [`BotProcess::try_exit_status`], waiting up to `limit` for the exit to show.
    pub fn exit_status_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        wait_exit(self, limit)
    }

    fn bot_status(&mut self, leader: ExitStatus) -> ExitStatus {
        use std::os::unix::process::ExitStatusExt;
        let mut bytes = [0u8; 4];
        match self.status.take().map(|mut s| s.read(&mut bytes)) {
            Some(Ok(4)) => ExitStatus::from_raw(i32::from_ne_bytes(bytes)),
            _ => leader,
        }
    }

    /// Ends the bot's whole process group: TERM, up to `grace` for the leader to exit, then KILL
    /// for whatever is left, and reaps the leader. Safe to call more than once.
    pub fn shutdown(&mut self, grace: Duration) {
        shutdown_all(std::slice::from_mut(self), grace);
    }
}

/// Why a turn's input could not be written.
#[derive(Debug, PartialEq, Eq)]
pub enum SendError {
    /// The bot closed its stdin (or exited).
    Closed,
    /// The pipe stayed full until the deadline (the bot does not read its input).
    Full,
}

fn timespec(d: Duration) -> Timespec {
    Timespec {
        tv_sec: d.as_secs() as _,
        tv_nsec: d.subsec_nanos() as _,
    }
}

/// Ends every bot's process group at once: TERM (and a thaw and CONT, so a frozen or stopped
/// bot sees it), up to `grace` for the leaders to exit, then KILL to each whole group and
/// cgroup, and reaps every leader. Never waits on a bot without a deadline: a leader that is
/// still there a short while after KILL (frozen again, or stuck in the kernel) is reaped by a
/// thread of its own, and the game goes on to its verdict.
pub fn shutdown_all(bots: &mut [BotProcess], grace: Duration) {
    for bot in bots.iter_mut().filter(|b| !b.ended) {
        bot.stdin = None;
        // A bot still held (its game ended before its first turn) ends at once: its gate reads
        // the end of its go pipe and exits without running the bot.
        bot.go = None;
        // An isolated bot's group holds its init, which passes a TERM on to the bot (and
        // everything else of it): sent to the whole group, the bot would get two. A sandboxed
        // bot's group holds bwrap and bwrap's init, which a TERM kills, and the kernel then
        // kills everything in the box at once: the TERM goes to the box's processes alone.
        let boxed = match bot.sandboxed {
            true => boxed_processes(bot.pgid),
            false => Vec::new(),
        };
        let _ = match (bot.isolated, boxed.is_empty()) {
            (true, _) => kill_process(bot.pgid, Signal::TERM),
            (false, false) => {
                for pid in boxed {
                    let _ = kill_process(pid, Signal::TERM);
                }
                Ok(())
            }
            (false, true) => kill_process_group(bot.pgid, Signal::TERM),
        };
        bot.force_thaw();
    }
    let deadline = Instant::now() + grace;
    for bot in bots.iter_mut().filter(|b| !b.ended) {
        let left = deadline.saturating_duration_since(Instant::now());
        wait_exit(bot, left);
    }
    for bot in bots.iter_mut().filter(|b| !b.ended) {
        let _ = kill_process_group(bot.pgid, Signal::KILL);
        // However it was frozen, a frozen process does not die until thawed.
        bot.force_thaw();
        if let Some(g) = &bot.cgroup {
            g.kill_all();
        }
    }
    let deadline = Instant::now() + grace.max(KILL_WAIT);
    for bot in bots.iter_mut().filter(|b| !b.ended) {
        let left = deadline.saturating_duration_since(Instant::now());
        bot.exited = bot.exited.or_else(|| wait_exit(bot, left));
        if bot.exited.is_none() {
            reap_later(bot.pgid);
        }
        // Read before the cgroup goes: the verdict may depend on it.
        bot.memory_limit_hit();
        bot.process_limit_hit();
        // Processes that left the group (setsid) are still in the bot's cgroup: it is kept for
        // this thread's next bot only once proven empty, thawed and reset, else removed.
        if let Some(group) = bot.cgroup.take() {
            super::cgroup::give_back(group);
        }
        bot.drain_stderr();
        bot.stdout = None;
        bot.stderr = None;
        bot.ended = true;
        cleanup::unregister(bot.pgid);
    }
}

/// The processes inside a sandboxed bot's box: every descendant of bwrap's init (the first
/// child of bwrap, the leader), not bwrap nor that init; none before the box has started.
fn boxed_processes(leader: Pid) -> Vec<Pid> {
    let mut inside = Vec::new();
    let mut todo: Vec<Pid> = children(leader).into_iter().flat_map(children).collect();
    while let Some(pid) = todo.pop() {
        if !inside.contains(&pid) {
            todo.extend(children(pid));
            inside.push(pid);
        }
    }
    inside
}

/// The direct children of `pid` (all its threads').
fn children(pid: Pid) -> Vec<Pid> {
    let pid = pid.as_raw_nonzero().get();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .flat_map(|t| {
            std::fs::read_to_string(t.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|c| c.parse::<i32>().ok())
                .collect::<Vec<_>>()
        })
        .filter_map(Pid::from_raw)
        .collect()
}

/// The least time given to a killed bot's leader to be reaped, whatever the kill grace.
const KILL_WAIT: Duration = Duration::from_millis(100);

/// Reaps `pid` on a thread of its own, whenever it ends (it is killed already).
fn reap_later(pid: Pid) {
    let _ = std::thread::Builder::new()
        .name("arbiter-reaper".into())
        .spawn(move || reap(pid, true));
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        if !self.ended {
            let _ = kill_process_group(self.pgid, Signal::KILL);
            self.force_thaw();
            if let Some(g) = &self.cgroup {
                g.kill_all();
            }
            if self.exited.is_none() && wait_exit(self, KILL_WAIT).is_none() {
                reap_later(self.pgid);
            }
            self.cgroup = None;
            cleanup::unregister(self.pgid);
        }
    }
}
