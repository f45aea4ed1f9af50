//! The fair clock's accounting for one turn: how long the bot on turn (its whole process tree)
//! and the referee's own thread waited for a CPU since the clock started. That waiting is the
//! machine's load, not the bot's thinking, so the fair clock does not charge it.
//!
//! Only waiting that other programs caused is excused. The bot's own tasks queueing behind each
//! other (three processes pinned to one CPU wait two thirds of the time each, and their waiting
//! summed is twice the wall time) is not: the charge is never less than the CPU time of the
//! whole bot, every process and thread, those that ended included (its cgroup's CPU
//! accounting, see `BotProcess::cpu_time`; without a cgroup, its main process and its live
//! process tree), so the waiting excused is at most the wall time during which the bot did not
//! compute.
//!
//! On a virtual machine the hypervisor also takes time from the bot's CPUs (steal, see
//! [`crate::bot::steal`]): time the bot had a CPU in the guest's eyes but did not run, so
//! neither its CPU time nor its waiting. The fair clock excuses the steal seen on the bot's
//! CPUs during the turn, but only out of that "neither" time (wall time less CPU time less the
//! waiting excused): never the bot's computing, never its waiting twice.

use super::seat::Seat;
use crate::bot::schedstat::{this_thread_wait, waited_since, TaskWait};
use crate::bot::steal::Steal;
use std::time::Duration;

/// On the fair clock, the wall time a turn may take is capped at this many times its limit
/// (grace included): a bot starved for longer than that loses even if it was not to blame,
/// so that a game on a hopelessly overloaded machine still ends. Only waiting for a CPU can
/// keep a turn going that long (sleeping, blocking and computing are all charged), and on a
/// 2-core machine at a load average of 20 a bot gets a few percent of a CPU: 70 ms of its own
/// time then takes some 2.5 s (measured by `benches/fair_clock.py`).
pub const FAIR_WALL_FACTOR: u32 = 50;

/// An answer this fast (and within its limit) is in time whatever the waiting, so its waiting
/// is not read at the end of the turn: it counts as none (`waited_us` 0). A fast turn needs no
/// excuse, and the reading is half the fair clock's cost of such a turn.
pub const QUICK_ANSWER: Duration = Duration::from_millis(1);

/// How far into a turn the fair clock takes its start readings where the bot's CPU time is
/// accounted whole (see [`Excuse::start`]): when the idle bots are frozen
/// ([`FREEZE_AFTER`](super::FREEZE_AFTER)), whose wake-up the turn has already. A wake-up of
/// its own a millisecond in (under a kernel tick: the CPU's next timer event, armed and
/// cancelled every turn) cost more than the readings it saved: 60 games of instant bots, the
/// game's thread's CPU time 155-181 ms with the readings at 5 ms, 181-271 ms at 1 ms, 201-234
/// ms with them at the start (2-core VM, load 7-10).
pub const SETTLE_AFTER: Duration = super::FREEZE_AFTER;

/// The waiting readings at the start of a turn, and room for the later ones (kept between
/// turns so a turn allocates nothing).
#[derive(Default)]
pub(super) struct Excuse {
    base: Vec<TaskWait>,
    now: Vec<TaskWait>,
    /// Whether the start readings were taken this turn (see [`Excuse::start`]).
    settled: bool,
    /// Whether the bot's tasks could be read at the start.
    known: bool,
    referee: Option<Duration>,
    /// The wall time the referee's thread spent, since the start, in its own work that cannot
    /// notice an answer: freezing the idle bots, a write to the kernel's freezer that can wait
    /// on the cgroup locks for over 100 ms while other programs make and remove cgroups. An
    /// answer that came meanwhile is read late, and that lateness is the machine's, as the
    /// referee's own waiting for a CPU is: excused (its waiting for a CPU in that time is not
    /// counted twice).
    pub(super) referee_busy: Duration,
    /// The steal of the bot's CPUs.
    steal: Steal,
}

impl Excuse {
    /// Starts `bot`'s turn's excuse. Where the bot's CPU time is accounted whole (its cgroup's,
    /// every process and thread of it: see [`Seat::cpu_is_whole`]) the readings are taken only
    /// once the answer is slow ([`Excuse::settle`], at [`SETTLE_AFTER`] into the turn): most
    /// turns of fast bots take less, and their waiting is never needed (the readings were a
    /// tenth of the referee's CPU a turn). The waiting of the turn's first [`SETTLE_AFTER`] is
    /// then charged: the excuse errs towards the bot's charge, never away from it. Elsewhere
    /// the live tasks' running since the start is a floor of the bot's CPU time, which must
    /// count from the start: the readings are taken now.
    pub(super) fn start<S: Seat>(&mut self, bot: &S) {
        self.referee_busy = Duration::ZERO;
        self.settled = false;
        if !bot.cpu_is_whole() {
            self.settle(bot);
        }
    }

    /// Takes the start readings (the bot's tasks' waiting, the referee thread's, the steal of
    /// the bot's CPUs) unless they were taken this turn.
    pub(super) fn settle<S: Seat>(&mut self, bot: &S) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        self.known = bot.run_queue_waits(&mut self.base);
        self.referee = this_thread_wait();
        self.steal.start();
    }

    /// The waiting since the start readings ([`Excuse::settle`]): the bot's tasks', plus the
    /// referee thread's own (its delay in reading an answer it was woken for, and its time
    /// freezing idle bots); the CPU time the bot's live tasks used meanwhile; and the steal of
    /// the bot's CPUs. Zero where the system does not tell, and where the readings were not
    /// taken (an answer the referee read before it settled: all of it is charged but the
    /// time it spent freezing idle bots).
    pub(super) fn waited<S: Seat>(&mut self, bot: &S) -> Waited {
        if !self.settled {
            return Waited {
                waited: self.referee_busy,
                referee_busy: self.referee_busy,
                ..Waited::default()
            };
        }
        let (bot_wait, ran) = if self.known && bot.run_queue_waits(&mut self.now) {
            waited_since(&self.base, &self.now)
        } else {
            (Duration::ZERO, Duration::ZERO)
        };
        let own = match (self.referee, this_thread_wait()) {
            (Some(before), Some(after)) => after.saturating_sub(before),
            _ => Duration::ZERO,
        };
        Waited {
            waited: bot_wait + own + self.referee_busy,
            ran,
            referee_busy: self.referee_busy,
            stolen: bot.stolen_since_start(&mut self.steal),
        }
    }
}

/// What [`Excuse::waited`] read.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Waited {
    /// The run-queue waiting of every task of the bot, summed, and the referee thread's.
    pub(super) waited: Duration,
    /// The CPU time of the bot's tasks alive at the reading (a floor of its CPU time where no
    /// cgroup accounts it whole).
    pub(super) ran: Duration,
    /// Of `waited`, the referee's time freezing the idle bots ([`Excuse::referee_busy`]).
    pub(super) referee_busy: Duration,
    /// The steal the bot's CPUs surely saw (see [`crate::bot::steal`]), not yet bounded.
    pub(super) stolen: Duration,
}

/// The waiting the fair clock excuses: what the bot's tasks waited for a CPU, but never more
/// than the wall time less the CPU time of the whole bot, so that a bot cannot hide its own
/// computing behind waiting counted twice, nor behind its own tasks queueing behind each other.
pub fn excused(wall: Duration, waited: Duration, cpu: Duration) -> Duration {
    waited.min(wall.saturating_sub(cpu))
}

/// The steal the fair clock excuses: what the hypervisor took from the bot's CPUs (`stolen`),
/// but never more than the wall time that was neither the bot's CPU time nor its [`excused`]
/// waiting, so that steal excuses neither computing nor waiting already excused.
pub fn excused_steal(
    wall: Duration,
    waited: Duration,
    cpu: Duration,
    stolen: Duration,
) -> Duration {
    let neither = wall
        .saturating_sub(cpu)
        .saturating_sub(excused(wall, waited, cpu));
    stolen.min(neither)
}

/// The time the fair clock charges: the wall time less the [`excused`] waiting and the
/// [`excused_steal`], so never less than the CPU time the whole bot used (up to the wall time).
pub fn charged(wall: Duration, waited: Duration, cpu: Duration, stolen: Duration) -> Duration {
    wall - excused(wall, waited, cpu) - excused_steal(wall, waited, cpu, stolen)
}

/// Time a timeout verdict tells apart: less is the clocks' own slack.
pub(super) const NOTABLE: Duration = Duration::from_millis(2);

/// Where a turn's time went, for messages.
#[derive(Clone, Copy, Debug)]
pub(super) struct Spent {
    pub(super) wall: Duration,
    pub(super) cpu: Duration,
    /// Waiting for a CPU, not charged (fair clock only).
    pub(super) excused: Duration,
    /// Of `excused`, the referee's own time freezing the idle bots.
    pub(super) referee_busy: Duration,
    /// Taken by the hypervisor, not charged ([`excused_steal`]; fair clock only).
    pub(super) stolen: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fair_clocks_help_states_the_wall_factor() {
        use clap::ValueEnum;
        let value = super::super::Clock::Fair.to_possible_value().unwrap();
        let help = value.get_help().unwrap().to_string();
        assert!(
            help.contains(&format!("{FAIR_WALL_FACTOR} times its limit")),
            "{help}"
        );
    }

    #[test]
    fn waiting_is_not_charged_but_computing_is() {
        let ms = Duration::from_millis;
        // Idle machine: the wall time.
        assert_eq!(charged(ms(80), ms(0), ms(79), ms(0)), ms(80));
        // Starved: 70 ms of computing over 400 ms of wall time.
        assert_eq!(charged(ms(400), ms(330), ms(70), ms(0)), ms(70));
        // Over-counted waiting cannot hide computing.
        assert_eq!(charged(ms(400), ms(390), ms(160), ms(0)), ms(160));
        // Three processes of the bot pinned to one CPU: each waits two thirds of the time (1200
        // ms summed in 600 ms) while one of them computes; all 600 ms are its own.
        assert_eq!(charged(ms(600), ms(1200), ms(600), ms(0)), ms(600));
        assert_eq!(excused(ms(600), ms(1200), ms(600)), ms(0));
        // Two threads on two CPUs: the wall time, as on the wall clock.
        assert_eq!(charged(ms(100), ms(0), ms(200), ms(0)), ms(100));
        // A sleeping bot is charged for its sleep.
        assert_eq!(charged(ms(150), ms(1), ms(0), ms(0)), ms(149));
    }

    /// The fair clock's decision from a turn's readings (wall, waiting, CPU, steal seen): a
    /// turn is in time where its charge is within the limit.
    #[test]
    fn steal_is_excused_only_out_of_the_time_that_was_neither_cpu_nor_waiting() {
        let ms = Duration::from_millis;
        let limit = ms(100);
        // The turn of the issue: 187.7 ms of wall time, 7.6 ms of CPU, 37.5 ms waiting, the
        // rest taken by the hypervisor (130 ms seen): charged 20.2 ms, in time.
        let us = Duration::from_micros;
        let (wall, cpu, waited) = (us(187_700), us(7_600), us(37_500));
        assert!(
            charged(wall, waited, cpu, ms(0)) > limit,
            "over its limit without steal"
        );
        assert_eq!(excused_steal(wall, waited, cpu, ms(130)), ms(130));
        assert_eq!(charged(wall, waited, cpu, ms(130)), us(20_200));
        assert!(
            charged(wall, waited, cpu, ms(130)) <= limit,
            "in time: over only by steal"
        );
        // Over its limit by its own CPU time: late whatever the steal.
        for stolen in [ms(0), ms(50), ms(500), ms(10_000)] {
            assert_eq!(
                charged(ms(300), ms(50), ms(160), stolen),
                ms(250) - stolen.min(ms(90))
            );
            assert!(charged(ms(300), ms(50), ms(160), stolen) >= ms(160));
            assert!(charged(ms(300), ms(50), ms(160), stolen) > limit);
        }
        // Never more than the neither-time (wall - CPU - waiting), whatever was seen.
        assert_eq!(excused_steal(ms(200), ms(40), ms(60), ms(500)), ms(100));
        assert_eq!(charged(ms(200), ms(40), ms(60), ms(500)), ms(60));
        // Waiting that already covers the wall time leaves nothing to excuse as steal.
        assert_eq!(excused_steal(ms(200), ms(190), ms(10), ms(50)), ms(0));
        // Computing on two CPUs (CPU time past the wall time): nothing is neither.
        assert_eq!(excused_steal(ms(100), ms(0), ms(200), ms(50)), ms(0));
        // No steal seen: as before.
        assert_eq!(charged(ms(150), ms(1), ms(0), ms(0)), ms(149));
        // Steal seen but less than the neither-time: only what was seen.
        assert_eq!(excused_steal(ms(150), ms(1), ms(0), ms(30)), ms(30));
        assert_eq!(charged(ms(150), ms(1), ms(0), ms(30)), ms(119));
    }
}
