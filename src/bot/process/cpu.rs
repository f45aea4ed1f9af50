//! A bot's CPU time, as the clocks charge it: every process and thread of the bot, those that
//! ended included, where its cgroup accounts them (as root); else its main process's.
//!
//! Reading a cgroup's CPU time costs little alone, but cgroup v2's `cpu.stat` first gathers
//! every CPU's figures under a lock that all cgroups of the machine share: 2 µs alone, 109 µs
//! with 16 readers at once on a 16-core machine (docs/performance.md), and the clocks read it
//! at the start and the end of every turn. A bot that never had a second task (no thread, no
//! child: most bots that answer fast) has no CPU time but its main process's, which its own
//! CPU clock tells without a lock; the cgroup's `pids.peak` (the most tasks it ever held at
//! once) says whether that is still so. So where the peak is one, the bot's CPU time is the
//! cgroup's reading when that was first seen plus what the main process's clock added since:
//! exact, with no cgroup-wide reading. The first time the peak shows more (a thread or a
//! helper started), the cgroup is read again, and from then on always.
//!
//! The start of a turn ([`BotProcess::cpu_time_start`]) reads only the main process's clock;
//! its end ([`BotProcess::cpu_time`]) reads the peak too. A helper started between the two
//! readings, or since the last answer, is seen at the turn's end: its CPU time since the last
//! answer is then counted in the turn (the charge errs towards the bot), and from the next
//! turn on the cgroup is read at both ends, so a helper computing while its bot is idle is
//! seen at its next turn's start, as it was before.

use super::BotProcess;
use std::time::Duration;

/// Whether a bot's CPU time is read from its main process's clock.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum Sole {
    /// Not looked at yet.
    #[default]
    Unknown,
    /// Its cgroup held only the main process so far: its CPU time is `group` plus what the
    /// main process's clock added since it read `main`.
    Since { group: Duration, main: Duration },
    /// Its cgroup is read: it held more than one task, or cannot tell.
    No,
}

impl BotProcess {
    /// CPU time (user + system) the bot has used so far: where it has a cgroup with CPU
    /// accounting (as root: cgroup v1 `cpuacct`, or v2), every process and thread of it,
    /// including those that ended and those that left its process group; elsewhere its main
    /// process's, all threads (processes it started are not included until it reaps them; the
    /// fair clock adds its live process tree, see [`super::super::schedstat`]). Both clocks
    /// charge it, so a bot cannot compute unseen in helper processes.
    pub fn cpu_time(&self) -> Option<Duration> {
        let Some(group) = self.cgroup.as_ref() else {
            return self.main_cpu_time();
        };
        // The bot's own process is found while it lives (once), for `sigsys_note` and the
        // reading below.
        let own = self.own_process_known();
        match self.sole.get() {
            Sole::No => {}
            _ if !own => {}
            _ if !group.held_one_task() => self.sole.set(Sole::No),
            Sole::Since { group, main } => {
                if let Some(now) = self.main_cpu_time() {
                    return Some(group + now.saturating_sub(main));
                }
            }
            Sole::Unknown => {
                // The main process's clock first: the cgroup read after it has counted at
                // least as much, so the sum errs towards the bot's charge.
                let main = self.main_cpu_time();
                let used = group.cpu_usage();
                if let (Some(main), Some(used)) = (main, used) {
                    self.sole.set(Sole::Since { group: used, main });
                    return Some(used);
                }
            }
        }
        group.cpu_usage().or_else(|| self.main_cpu_time())
    }

    /// [`BotProcess::cpu_time`] as a turn starts: where it is read from the main process's
    /// clock, that clock alone (the cgroup's peak is read at the turn's end).
    pub fn cpu_time_start(&self) -> Option<Duration> {
        match self.sole.get() {
            Sole::Since { group, main } if self.own_process_known() => self
                .main_cpu_time()
                .map(|now| group + now.saturating_sub(main))
                .or_else(|| self.cpu_time()),
            _ => self.cpu_time(),
        }
    }

    /// Whether [`BotProcess::cpu_time`] counts every process and thread of the bot, those that
    /// ended included (its cgroup's CPU accounting).
    pub fn cpu_is_whole(&self) -> bool {
        self.cgroup.as_ref().is_some_and(|g| g.accounts_cpu())
    }

    /// Whether the process [`BotProcess::cpu_pid`] names is the bot's own (in its cgroups):
    /// the leader of a bot that is neither isolated nor sandboxed, the init's first child of
    /// an isolated one once found; never a sandboxed one's (bwrap and its init share the
    /// bot's cgroups).
    fn own_process_known(&self) -> bool {
        let leader = self.pgid.as_raw_nonzero().get();
        // Looked for whatever the mode (a sandboxed bot's is needed by `sigsys_note`).
        let own = self.cpu_pid();
        !self.sandboxed && (!self.isolated || own != leader)
    }

    /// The CPU time of the bot's main process (all its threads).
    pub(super) fn main_cpu_time(&self) -> Option<Duration> {
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
}
