//! The seam between the referee and the processes it referees: what the turn loop asks of a
//! seat (send a turn, wait for a line, freeze, thaw, read its CPU clock, learn how it ended).
//! [`BotProcess`] is the real seat; the unit tests drive the same loop with scripted seats, so
//! clocks, strikes, freezing decisions and verdicts are tested without processes (the real
//! processes stay tested end to end in `tests/`).

use crate::bot::{self, BotProcess, SendError, Wait};
use crate::protocol::LineBuffer;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// One seat of a game as the turn loop sees it.
pub trait Seat {
    /// Writes one turn's input, waiting for room in the pipe until `deadline`.
    fn send(&mut self, data: &[u8], deadline: Instant) -> Result<(), SendError>;
    /// Writes as much of `data` as its pipe takes now, without waiting; returns how much.
    fn send_now(&mut self, data: &[u8]) -> Result<usize, SendError> {
        self.send(data, Instant::now()).map(|()| data.len())
    }
    /// Stops the seat (it is not on turn).
    fn freeze(&mut self);
    fn is_frozen(&self) -> bool;
    /// Lets a frozen seat run again.
    fn thaw(&mut self);
    /// Reads whatever the seat has written without blocking.
    fn drain_stdout(&mut self);
    /// What the seat has written and the referee has not consumed yet.
    fn out(&self) -> &LineBuffer;
    /// The CPU time the seat has used so far, where the system tells it.
    fn cpu_time(&self) -> Option<Duration>;
    /// [`Seat::cpu_time`] as the seat's turn starts, where reading it then can be cheaper (the
    /// turn's end reads it whole).
    fn cpu_time_start(&self) -> Option<Duration> {
        self.cpu_time()
    }
    /// Whether [`Seat::cpu_time`] counts every process and thread of the seat, those that
    /// ended included (a cgroup's CPU accounting); else it is its main process's.
    fn cpu_is_whole(&self) -> bool {
        false
    }
    /// The run-queue waiting of each of its tasks so far (see [`bot::schedstat`]); false where
    /// the system does not tell (then the fair clock reads as the wall clock).
    fn run_queue_waits(&self, _into: &mut Vec<bot::schedstat::TaskWait>) -> bool {
        false
    }
    /// Its tasks runnable now, with their running so far (see [`bot::schedstat::runnable`]);
    /// none where the system does not tell.
    fn runnable_tasks(&self, into: &mut Vec<(i32, u64)>) {
        into.clear();
    }
    /// The time the hypervisor took from its CPUs since `steal` started (see
    /// [`bot::steal`]): the machine's counters, the same for every seat of a game.
    fn stolen_since_start(&self, steal: &mut bot::steal::Steal) -> Duration {
        steal.since_start()
    }
    /// How it ended, if it has.
    fn try_exit_status(&mut self) -> Option<ExitStatus>;
    /// How it ended, waiting up to `limit` for its end to show (a process whose pipe closed
    /// because it died may not be reaped yet).
    fn exit_status_within(&mut self, _limit: Duration) -> Option<ExitStatus> {
        self.try_exit_status()
    }
    /// Why the system killed it with SIGSYS (the system call its seccomp filter refused);
    /// unless `killed` (it is known to have died of SIGSYS), only where the system says so.
    fn sigsys_note(&self, killed: bool) -> Option<String> {
        killed.then(|| crate::bot::sigsys_note(None))
    }
    /// The memory limit it went over, if the system says it was killed for that.
    fn memory_limit_hit(&mut self) -> Option<u64>;
    /// The process cap it tried to go over, where the system tells.
    fn process_limit_hit(&mut self) -> Option<u64> {
        None
    }
    /// Ends it (TERM, `grace`, KILL).
    fn shutdown(&mut self, grace: Duration);
    /// The last part of what it wrote to stderr, and how much it wrote in all.
    fn stderr_tail(&self) -> String;
    fn stderr_bytes(&self) -> u64;
    /// What it wrote to stderr since it had written `mark` bytes in all, at most the last
    /// `keep` bytes of it.
    fn stderr_since(&mut self, mark: u64, keep: usize) -> String {
        let tail = self.stderr_tail();
        let new = (self.stderr_bytes().saturating_sub(mark) as usize).min(keep);
        let mut start = tail.len().saturating_sub(new);
        while !tail.is_char_boundary(start) {
            start += 1;
        }
        tail[start..].to_string()
    }
    /// Ends them all at once (TERM to all, one shared grace, then KILL).
    fn shutdown_all(seats: &mut [Self], grace: Duration)
    where
        Self: Sized;
    /// Waits until `seats[seat]` has written a line (or ended, or `deadline` passed), keeping
    /// every seat's stderr drained meanwhile.
    fn wait_line(seats: &mut [Self], seat: usize, deadline: Instant) -> Wait
    where
        Self: Sized;
}

impl Seat for BotProcess {
    fn send(&mut self, data: &[u8], deadline: Instant) -> Result<(), SendError> {
        BotProcess::send(self, data, deadline)
    }
    fn send_now(&mut self, data: &[u8]) -> Result<usize, SendError> {
        BotProcess::send_now(self, data)
    }
    fn freeze(&mut self) {
        BotProcess::freeze(self)
    }
    fn is_frozen(&self) -> bool {
        BotProcess::is_frozen(self)
    }
    fn thaw(&mut self) {
        BotProcess::thaw(self)
    }
    fn drain_stdout(&mut self) {
        BotProcess::drain_stdout(self)
    }
    fn out(&self) -> &LineBuffer {
        &self.out
    }
    fn cpu_time(&self) -> Option<Duration> {
        BotProcess::cpu_time(self)
    }
    fn cpu_time_start(&self) -> Option<Duration> {
        BotProcess::cpu_time_start(self)
    }
    fn cpu_is_whole(&self) -> bool {
        BotProcess::cpu_is_whole(self)
    }
    fn run_queue_waits(&self, into: &mut Vec<bot::schedstat::TaskWait>) -> bool {
        BotProcess::run_queue_waits(self, into)
    }
    fn runnable_tasks(&self, into: &mut Vec<(i32, u64)>) {
        let mut tasks = Vec::new();
        match BotProcess::run_queue_waits(self, &mut tasks) {
            true => bot::schedstat::runnable(&tasks, into),
            false => into.clear(),
        }
    }
    fn try_exit_status(&mut self) -> Option<ExitStatus> {
        BotProcess::try_exit_status(self)
    }
    fn sigsys_note(&self, killed: bool) -> Option<String> {
        BotProcess::sigsys_note(self, killed)
    }
    fn exit_status_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        BotProcess::exit_status_within(self, limit)
    }
    fn memory_limit_hit(&mut self) -> Option<u64> {
        BotProcess::memory_limit_hit(self)
    }
    fn process_limit_hit(&mut self) -> Option<u64> {
        BotProcess::process_limit_hit(self)
    }
    fn shutdown(&mut self, grace: Duration) {
        BotProcess::shutdown(self, grace)
    }
    fn stderr_tail(&self) -> String {
        BotProcess::stderr_tail(self)
    }
    fn stderr_bytes(&self) -> u64 {
        BotProcess::stderr_bytes(self)
    }
    fn stderr_since(&mut self, mark: u64, keep: usize) -> String {
        BotProcess::stderr_since(self, mark, keep)
    }
    fn shutdown_all(seats: &mut [Self], grace: Duration) {
        bot::shutdown_all(seats, grace)
    }
    fn wait_line(seats: &mut [Self], seat: usize, deadline: Instant) -> Wait {
        bot::wait_line(seats, seat, deadline)
    }
}
