//! Waiting for one seat's answer on the wall, fair or CPU clock, freezing the idle seats on time,
//! and the verdict on a seat that ended instead of answering.

use super::clock::{charged, Excuse, FAIR_WALL_FACTOR, SETTLE_AFTER};
use super::seat::Seat;
use super::verdict::{LimitHit, ProcessEnd, Verdict};
use super::Clock;
use crate::bot::schedstat::queued_since;
use crate::bot::schedstat::this_thread_wait;
use crate::bot::Wait;
use std::time::{Duration, Instant};

/// How often the fair clock looks again at a bot whose charge reached its limit while a task of
/// it waits in a run queue (see [`wait_fair`]).
const QUEUED_LOOK: Duration = Duration::from_millis(2);

/// What a turn's wait may use.
pub(super) struct Allowed<'a> {
    /// When the clock started.
    pub(super) start: Instant,
    /// The limit, grace included.
    pub(super) allowed: Duration,
    pub(super) clock: Clock,
    /// The bot's CPU clock at `start`.
    pub(super) cpu_before: Option<Duration>,
    /// When the idle bots still running are frozen.
    pub(super) freeze_at: Option<Instant>,
    /// The fair clock's readings at `start`.
    pub(super) excuse: Option<&'a mut Excuse>,
}

/// Waits for the answer of `seat` until its clock (wall or CPU) passes `allowed`. On the CPU
/// clock the wait goes in slices of the CPU time still allowed (a process cannot use CPU faster
/// than wall time per thread), with a wall-time cap of ten times `allowed`. At `freeze_at` every
/// other bot that has answered before (`first` false) is frozen. On the fair clock, see
/// [`wait_fair`].
pub(super) fn wait_answer<S: Seat>(
    procs: &mut [S],
    seat: usize,
    mut a: Allowed<'_>,
    first: &[bool],
    out: &[bool],
) -> Wait {
    // The referee's own time spent freezing the idle bots (see `Excuse::referee_busy`).
    let mut wait_until = |procs: &mut [S], deadline: Instant, busy: &mut Duration| {
        if let Some(at) = a.freeze_at.filter(|&at| at < deadline) {
            match S::wait_line(procs, seat, at) {
                Wait::Timeout => {
                    a.freeze_at = None;
                    let (began, queued) = (Instant::now(), this_thread_wait());
                    for (i, p) in procs.iter_mut().enumerate() {
                        if i != seat && !first[i] && !out[i] {
                            p.freeze();
                        }
                    }
                    // Its waiting for a CPU meanwhile is excused as the referee's already.
                    let queued = match (queued, this_thread_wait()) {
                        (Some(before), Some(after)) => after.saturating_sub(before),
                        _ => Duration::ZERO,
                    };
                    *busy += began.elapsed().saturating_sub(queued);
                }
                other => return other,
            }
        }
        S::wait_line(procs, seat, deadline)
    };
    if let (Clock::Fair, Some(excuse)) = (a.clock, a.excuse.take()) {
        let (start, allowed, cpu_before) = (a.start, a.allowed, a.cpu_before);
        return wait_fair(procs, seat, start, allowed, cpu_before, excuse, wait_until);
    }
    let mut busy = Duration::ZERO;
    let (Clock::Cpu, Some(cpu_before)) = (a.clock, a.cpu_before) else {
        return wait_until(procs, a.start + a.allowed, &mut busy);
    };
    let wall_cap = a.start + a.allowed * 10;
    loop {
        let used = procs[seat]
            .cpu_time()
            .unwrap_or(cpu_before)
            .saturating_sub(cpu_before);
        if used >= a.allowed || Instant::now() >= wall_cap {
            return Wait::Timeout;
        }
        let slice = (a.allowed - used).max(Duration::from_millis(1));
        match wait_until(procs, (Instant::now() + slice).min(wall_cap), &mut busy) {
            Wait::Timeout => continue,
            other => return other,
        }
    }
}

/// The fair clock's wait: until the wall deadline, then, while the time charged (wall time less
/// the waiting for a CPU and the steal, see [`charged`]) is still under `allowed`, on to the
/// earliest moment it could reach it, never past [`FAIR_WALL_FACTOR`] times `allowed` of wall
/// time. A bot is not killed at its wall limit for having been starved.
fn wait_fair<S: Seat>(
    procs: &mut [S],
    seat: usize,
    start: Instant,
    allowed: Duration,
    cpu_before: Option<Duration>,
    excuse: &mut Excuse,
    mut wait_until: impl FnMut(&mut [S], Instant, &mut Duration) -> Wait,
) -> Wait {
    let cap = start + allowed * FAIR_WALL_FACTOR;
    let mut deadline = start + allowed;
    // An answer this slow: the excuse's start readings now (see `Excuse::start`).
    match wait_until(
        procs,
        (start + SETTLE_AFTER).min(deadline),
        &mut excuse.referee_busy,
    ) {
        Wait::Timeout => excuse.settle(&procs[seat]),
        other => return other,
    }
    // The bot's runnable tasks at the last look past the limit (see below).
    let (mut looked, mut runnable) = (None::<Vec<(i32, u64)>>, Vec::new());
    loop {
        match wait_until(procs, deadline, &mut excuse.referee_busy) {
            Wait::Timeout => {}
            other => return other,
        }
        // A timed-out wait ended at its deadline at the earliest.
        let now = Instant::now().max(deadline);
        if now >= cap {
            return Wait::Timeout;
        }
        let waited = excuse.waited(&procs[seat]);
        let cpu = procs[seat]
            .cpu_time()
            .zip(cpu_before)
            .map_or(Duration::ZERO, |(after, before)| {
                after.saturating_sub(before)
            });
        let cpu = cpu.max(waited.ran);
        let used = charged(now - start, waited.waited, cpu, waited.stolen);
        if used >= allowed {
            // The kernel counts a wait for a CPU when it ends: a task of the bot in its run queue
            // now has its current wait in no reading yet, and that wait looks charged ("neither"
            // CPU nor waiting). Where the bot's CPU time (the floor of its charge) is under the
            // limit, the verdict waits while a task of the bot is runnable and did not run since
            // the last look: the wait is counted when it ends. A bot that computes runs (its
            // running grows) and is cut at the next look, a step later.
            procs[seat].runnable_tasks(&mut runnable);
            let queued = match &looked {
                None => !runnable.is_empty(),
                Some(before) => queued_since(before, &runnable),
            };
            if cpu < allowed && queued {
                looked = Some(std::mem::take(&mut runnable));
                deadline = (now + QUEUED_LOOK).min(cap);
                continue;
            }
            return Wait::Timeout;
        }
        looked = None;
        // The charge grows at most as fast as wall time.
        deadline = (now + (allowed - used)).min(cap);
    }
}

/// The verdict on a bot that ended (`how`): over its memory limit (where a memory cgroup
/// tells), over its process cap (where a pids cgroup tells), else a crash.
pub(super) fn exit_verdict<S: Seat>(bot: &mut S, how: ProcessEnd) -> Verdict {
    let limit = match bot.memory_limit_hit() {
        Some(bytes) => Some(LimitHit::Memory(bytes)),
        None => bot.process_limit_hit().map(LimitHit::Processes),
    };
    Verdict::Ended { how, limit }
}
