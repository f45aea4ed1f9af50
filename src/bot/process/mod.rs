//! One bot as a child process: started in its own process group, fed one write per turn, read
//! with a deadline, frozen and thawed, and ended as a group (TERM, a short grace, KILL, reap).
//!
//! Everything is non-blocking file descriptors and `poll(2)` from the game's own thread: no thread
//! or task per turn, and a bot's stderr is drained whenever the referee waits on anything.
//!
//! This file holds the bot itself, its input and output, its freezing and its clocks; its start
//! is in `start.rs`, its end in `end.rs`, and the waiting on bots in `wait.rs`.

mod cpu;
mod end;
mod reach_plan;
mod start;
mod wait;

pub use end::shutdown_all;
use wait::wait_exit;
pub use wait::wait_line;

use super::status::reap;
use crate::protocol::LineBuffer;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{kill_process_group, Pid, Signal};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::OwnedFd;
use std::path::PathBuf;
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
    /// The machine could not start it (out of descriptors, memory, processes, disk): no bot's
    /// failure (see [`crate::bot::MachineFault`]).
    pub machine: Option<crate::bot::MachineFault>,
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
    /// An isolated bot's network namespace, when one was made ahead for it: given back for a
    /// later bot once the bot is reaped (see [`super::netns`]).
    net: Option<super::netns::NetNs>,
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
    /// Its CPU time read from its main process's clock while its cgroup never held another
    /// task (see `cpu.rs`).
    sole: std::cell::Cell<cpu::Sole>,
}

impl BotProcess {
    /// The bot's own process: the leader, or the process its init or bwrap started (once it has
    /// started), as for its CPU time.
    pub fn pid(&self) -> u32 {
        self.cpu_pid() as u32
    }

    /// Writes one turn's input, in one write when the pipe has room (it nearly always has).
    /// Returns `Err` when the bot closed its stdin or the pipe stayed full past `deadline`.
    pub fn send(&mut self, data: &[u8], deadline: Instant) -> Result<(), SendError> {
        let mut written = self.send_now(data)?;
        while written < data.len() {
            // The pipe is full: wait for room (reading stderr meanwhile) until the deadline.
            let now = Instant::now();
            if now >= deadline {
                return Err(SendError::Full);
            }
            if let Some(stdin) = self.stdin.as_ref() {
                let mut fds = [PollFd::new(stdin, PollFlags::OUT)];
                let _ = poll(&mut fds, Some(&timespec(deadline - now)));
            }
            self.drain_stderr();
            written += self.send_now(&data[written..])?;
        }
        Ok(())
    }

    /// Writes as much of `data` as the pipe takes now, without waiting (a frozen bot's turn:
    /// the rest is sent with [`BotProcess::send`] once it runs); returns how many bytes.
    pub fn send_now(&mut self, data: &[u8]) -> Result<usize, SendError> {
        let mut written = 0;
        while written < data.len() {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(SendError::Closed);
            };
            match stdin.write(&data[written..]) {
                Ok(n) => written += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    self.stdin = None;
                    return Err(SendError::Closed);
                }
            }
        }
        Ok(written)
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
            g.thaw();
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
                    let full =
                        self.out.pending().len() > MAX_PENDING_STDOUT.max(self.out.max_line());
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

    /// What a bot killed by SIGSYS is told: the system call the seccomp filter refused, where
    /// the kernel's log names it (see [`super::seccomp::refused_call`]). Unless `killed` (its
    /// status says SIGSYS), `None` where the log shows no such kill.
    pub fn sigsys_note(&self, killed: bool) -> Option<String> {
        let call = super::seccomp::refused_call(self.cpu_pid());
        (killed || call.is_some()).then(|| super::seccomp::sigsys_note(call))
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
    /// own status as its init passed it on (the init's, if it was killed before the bot ended);
    /// for a sandboxed one, the status bwrap passed on, a signal decoded.
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
            // bwrap is the leader and passes a signal on as 128 + N.
            _ if self.sandboxed => super::status::unboxed(leader),
            _ => leader,
        }
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
