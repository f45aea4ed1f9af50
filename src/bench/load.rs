//! How busy the machine was while the bench ran: the CPU time other programs used (all the
//! machine's CPU time, from `/proc/stat`, less this process's and its bots'), so that figures
//! measured on a busy machine are read as such. Also the fair clock's own cost per turn.

use super::measure::{children_cpu_us, process_cpu_us};
use std::time::Instant;

/// Other programs busy for more than this many CPUs on average make the machine busy.
const BUSY_CPUS: f64 = 0.25;

/// The readings at the start of the bench.
pub(super) struct LoadWatch {
    machine_us: Option<f64>,
    own_us: f64,
    at: Instant,
}

/// What other programs did during the bench.
pub(super) struct OtherWork {
    /// CPUs other programs kept busy on average (0 when /proc/stat cannot be read).
    pub(super) cpus: f64,
    /// The 1-minute load average at the end.
    pub(super) load_average: f64,
}

impl OtherWork {
    pub(super) fn busy(&self) -> bool {
        self.cpus > BUSY_CPUS
    }
}

impl LoadWatch {
    pub(super) fn start() -> LoadWatch {
        LoadWatch {
            machine_us: machine_busy_us(),
            own_us: process_cpu_us() + children_cpu_us(),
            at: Instant::now(),
        }
    }

    pub(super) fn finish(&self) -> OtherWork {
        let wall_us = self.at.elapsed().as_secs_f64() * 1e6;
        let own = process_cpu_us() + children_cpu_us() - self.own_us;
        let cpus = match (self.machine_us, machine_busy_us()) {
            (Some(before), Some(after)) if wall_us > 0.0 => {
                ((after - before - own) / wall_us).max(0.0)
            }
            _ => 0.0,
        };
        OtherWork {
            cpus,
            load_average: load_average().unwrap_or(0.0),
        }
    }
}

/// CPU time every CPU of the machine spent busy so far (not idle, not waiting for I/O), µs.
fn machine_busy_us() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let f: Vec<u64> = line
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal
    let busy: u64 = [0, 1, 2, 5, 6, 7].iter().filter_map(|&i| f.get(i)).sum();
    // In clock ticks, 100 a second.
    Some(busy as f64 * 1e4)
}

use crate::engine::load_average;

/// The fair clock's reading of a live bot's waiting and the referee's, done once a turn of an
/// instant bot (at the start; an answer within `QUICK_ANSWER` needs no second reading, a
/// slower turn reads again at its answer): this thread's CPU time for that, per turn, µs.
pub(super) fn fair_clock_cost_us(bot: &crate::bot::BotProcess, rounds: usize) -> f64 {
    let thread_cpu = || {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
    };
    let mut waits = Vec::new();
    let t0 = thread_cpu();
    for _ in 0..rounds {
        bot.run_queue_waits(&mut waits);
        std::hint::black_box(crate::bot::schedstat::this_thread_wait());
    }
    (thread_cpu() - t0) / rounds.max(1) as f64
}
