//! Time the hypervisor took from the CPUs a bot may run on ("steal"). On a virtual machine
//! with paravirtualised steal accounting, time in which the host ran something else on a vCPU
//! that had a task to run is neither that task's CPU time nor its waiting in a run queue (the
//! guest scheduler's task clock leaves steal out): the fair clock would charge it as the
//! bot's. Linux counts it per CPU, the 8th number of each `cpuN` line of `/proc/stat`, in clock
//! ticks (`USER_HZ`, 100 a second); this is the one place that reads it for the clock.
//!
//! Which CPUs: the ones the game's thread may run on, read once a game. The bots inherit them
//! (a game pinned to a CPU of its own starts its bots there, bots started ahead are pinned to
//! it), so on a pinned run that is the game's one CPU, whose steal was taken from the bot or
//! from its referee; on an unpinned run it is every CPU the run may use, and the steal of a
//! turn is the largest of any one of them (a thread runs on one CPU at a time; the counters do
//! not say which CPU the bot was on, and the CPUs of one virtual machine are stolen from
//! alike). The fair clock excuses it only up to the turn's time that was neither the bot's CPU
//! nor its waiting (`referee::clock`), so the choice cannot excuse computing.
//!
//! The counters are coarse (a tick is 10 ms) and reading `/proc/stat` costs about eight reads
//! of a schedstat file (`benches/turn_syscalls.c`): a turn's start reuses a reading younger
//! than [`REUSE`] (an instant bot's turns take tens of microseconds), and the steal told is
//! what the counters surely saw in the turn: their growth less one tick and less the age of
//! the start reading.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

/// A reading this young is reused as the start of the next turn, and its age is counted
/// against the steal seen.
pub const REUSE: Duration = Duration::from_millis(1);

/// Steal counters per CPU, in clock ticks: (CPU number, ticks), in the file's order.
pub type PerCpu = Vec<(usize, u64)>;

/// Reads `cpuN` lines of a `/proc/stat` text into `into`: each CPU's steal counter, the 8th
/// number. Lines without a steal column (kernels before 2.6.11) are left out; reading stops
/// at the first line past the CPU lines.
pub fn parse(stat: &[u8], into: &mut PerCpu) {
    into.clear();
    for line in stat.split(|&b| b == b'\n') {
        let Some(rest) = line.strip_prefix(b"cpu") else {
            if into.is_empty() && line.is_empty() {
                continue;
            }
            break;
        };
        // The machine's total ("cpu  ...") has no number after "cpu".
        let mut fields = rest.split(|&b| b == b' ');
        let Some(cpu) = fields.next().and_then(number) else {
            continue;
        };
        let mut fields = fields.filter(|f| !f.is_empty());
        if let Some(steal) = fields.nth(7).and_then(number) {
            into.push((cpu as usize, steal));
        }
    }
}

fn number(field: &[u8]) -> Option<u64> {
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// The most ticks any CPU of `cpus` (all of them where empty) was stolen between two readings.
pub fn most_stolen(before: &[(usize, u64)], now: &[(usize, u64)], cpus: &[usize]) -> u64 {
    now.iter()
        .filter(|(cpu, _)| cpus.is_empty() || cpus.contains(cpu))
        .filter_map(|&(cpu, after)| {
            let (_, was) = before.iter().find(|(c, _)| *c == cpu)?;
            Some(after.saturating_sub(*was))
        })
        .max()
        .unwrap_or(0)
}

/// The steal surely taken in a turn: `ticks` of counter growth (each `tick` long) less one
/// tick (a counter read just before it grows and just after shows a tick that is mostly
/// outside the turn) and less `age`, the start reading's age when the turn started.
pub fn surely_stolen(ticks: u64, tick: Duration, age: Duration) -> Duration {
    let ns = (tick.as_nanos() as u64).saturating_mul(ticks.saturating_sub(1));
    Duration::from_nanos(ns).saturating_sub(age)
}

/// One game's steal readings: the file kept open, its CPUs, the turn's start reading.
#[derive(Default)]
pub struct Steal {
    file: Option<File>,
    /// Whether the file, the CPUs and the tick were looked up (once a game).
    opened: bool,
    cpus: Vec<usize>,
    tick: Duration,
    buf: Vec<u8>,
    /// The last reading and when it was taken (`None`: none, or unreadable).
    last: Option<Instant>,
    last_values: PerCpu,
    /// The turn's start reading, and its age when the turn started.
    base: PerCpu,
    base_age: Option<Duration>,
}

impl Steal {
    /// Takes (or reuses) the reading at the start of a turn that starts now.
    pub fn start(&mut self) {
        self.open();
        let reusable = self.last.map(|at| at.elapsed()).filter(|age| *age < REUSE);
        let age = match reusable {
            Some(age) => Some(age),
            None => self.read().then_some(Duration::ZERO),
        };
        self.base_age = age;
        if age.is_some() {
            self.base.clone_from(&self.last_values);
        }
    }

    /// The steal surely taken from the CPUs since [`Steal::start`] (zero where the system
    /// does not tell).
    pub fn since_start(&mut self) -> Duration {
        let Some(age) = self.base_age else {
            return Duration::ZERO;
        };
        if !self.read() {
            return Duration::ZERO;
        }
        let ticks = most_stolen(&self.base, &self.last_values, &self.cpus);
        surely_stolen(ticks, self.tick, age)
    }

    fn open(&mut self) {
        if std::mem::replace(&mut self.opened, true) {
            return;
        }
        self.file = File::open("/proc/stat").ok();
        self.cpus = own_cpus();
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        self.tick = match hz {
            1.. => Duration::from_nanos(1_000_000_000 / hz as u64),
            _ => Duration::from_millis(10),
        };
        self.buf = vec![0; 4096];
    }

    /// Reads the counters into `last_values`; false where they cannot be read.
    fn read(&mut self) -> bool {
        let Some(file) = &self.file else { return false };
        let at = Instant::now();
        // A seq file is made afresh by a read at offset 0, whole where the buffer holds it; the
        // CPU lines come first, so a full buffer holds them once the next line shows.
        let len = loop {
            match file.read_at(&mut self.buf, 0) {
                Ok(n) if n < self.buf.len() => break n,
                Ok(n) if self.buf[..n].windows(5).any(|w| w == b"\nintr") => break n,
                Ok(n) => self.buf.resize(n * 2, 0),
                Err(_) => return false,
            }
        };
        parse(&self.buf[..len], &mut self.last_values);
        self.last = (!self.last_values.is_empty()).then_some(at);
        self.last.is_some()
    }
}

/// The CPUs the calling thread may run on (empty where the system does not tell: every CPU).
fn own_cpus() -> Vec<usize> {
    use rustix::thread::{sched_getaffinity, CpuSet};
    sched_getaffinity(None).map_or_else(
        |_| Vec::new(),
        |set| (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-CPU virtual machine's /proc/stat as Linux 6.1 writes it (steal is the 8th number).
    const SAMPLE: &str = "cpu  4663436 161544 686639 690022 13186 0 9403 5897 0 0
cpu0 2334657 74354 331210 364021 4612 0 3294 2919 0 0
cpu1 2328779 87189 355428 326001 8574 0 6108 2978 0 0
intr 265004839 0 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
ctxt 1008612838
btime 1795000000
processes 12215
procs_running 3
procs_blocked 0
softirq 138283553 2 38216711 1 3118283 2563 0 196 53284431 0 43661366
";

    #[test]
    fn each_cpus_steal_is_the_eighth_number_of_its_line() {
        let mut v = Vec::new();
        parse(SAMPLE.as_bytes(), &mut v);
        assert_eq!(v, vec![(0, 2919), (1, 2978)]);
        // CPU numbers as the kernel writes them: offline CPUs leave gaps.
        let gaps = "cpu  1 2 3 4 5 6 7 9 0 0\ncpu0 1 2 3 4 5 6 7 4 0 0\n\
                    cpu3 1 2 3 4 5 6 7 5 0 0\nintr 1\n";
        parse(gaps.as_bytes(), &mut v);
        assert_eq!(v, vec![(0, 4), (3, 5)]);
    }

    #[test]
    fn lines_without_a_steal_column_give_no_reading() {
        let mut v = vec![(9, 9)];
        // Linux 2.6.0 to 2.6.10: seven numbers, no steal.
        parse(
            b"cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\nintr 1 2\n",
            &mut v,
        );
        assert!(v.is_empty(), "{v:?}");
        parse(b"", &mut v);
        assert!(v.is_empty());
        parse(b"garbage\ncpu0 1 2 3 4 5 6 7 8\n", &mut v);
        assert!(v.is_empty(), "reading stops past the CPU lines: {v:?}");
    }

    #[test]
    fn a_turns_steal_is_the_most_any_of_its_cpus_lost() {
        let before = vec![(0, 100), (1, 200), (2, 300)];
        let now = vec![(0, 103), (1, 214), (2, 301)];
        assert_eq!(most_stolen(&before, &now, &[]), 14);
        assert_eq!(
            most_stolen(&before, &now, &[0, 2]),
            3,
            "only the bot's CPUs"
        );
        assert_eq!(most_stolen(&before, &now, &[5]), 0, "a CPU not read");
        assert_eq!(most_stolen(&[], &now, &[]), 0, "no start reading");
    }

    #[test]
    fn only_the_steal_the_counters_surely_saw_in_the_turn_is_told() {
        let ms = Duration::from_millis;
        let tick = ms(10);
        assert_eq!(surely_stolen(0, tick, ms(0)), ms(0));
        assert_eq!(
            surely_stolen(1, tick, ms(0)),
            ms(0),
            "one tick may be outside"
        );
        assert_eq!(surely_stolen(14, tick, ms(0)), ms(130));
        assert_eq!(
            surely_stolen(14, tick, Duration::from_micros(400)),
            Duration::from_micros(129_600)
        );
        assert_eq!(surely_stolen(2, tick, ms(20)), ms(0));
    }

    #[test]
    fn this_machine_reads_as_it_says() {
        // Where /proc/stat exists (always on Linux), the start and the end read; the steal
        // told is what the CPUs' counters show at most, less a tick.
        let mut s = Steal::default();
        s.start();
        let stolen = s.since_start();
        assert!(s.last.is_some(), "/proc/stat could not be read");
        assert!(stolen <= Duration::from_millis(10), "{stolen:?} in no time");
        // A machine whose CPU lines do not fit the buffer: it grows until they do.
        let mut small = Steal::default();
        small.open();
        small.buf = vec![0; 16];
        small.start();
        assert_eq!(small.last_values.len(), s.last_values.len());
        assert!(small.buf.len() > 16);
    }
}
