//! The end of bots: a game's bots ended together (TERM, a short grace, KILL to each group and
//! cgroup, reap), never waiting on one without a deadline; a leader not reaped in time is left
//! to a thread of its own. A bot dropped without being shut down is killed at once.

use super::wait::wait_exit;
use super::BotProcess;
use crate::bot::cleanup;
use crate::bot::status::reap;
use rustix::process::{kill_process, kill_process_group, Pid, Signal};
use std::time::{Duration, Instant};

impl BotProcess {
    /// Ends the bot's whole process group: TERM, up to `grace` for the leader to exit, then KILL
    /// for whatever is left, and reaps the leader. Safe to call more than once.
    pub fn shutdown(&mut self, grace: Duration) {
        shutdown_all(std::slice::from_mut(self), grace);
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
        // An isolated bot whose init was reaped has nothing left: the init's end ended every
        // process of its pid namespace (and its pid may be another process's by now).
        if bot.isolated && bot.exited.is_some() {
            continue;
        }
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
    for bot in bots
        .iter_mut()
        .filter(|b| !(b.ended || (b.isolated && b.exited.is_some())))
    {
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
            crate::bot::cgroup::give_back(group);
        }
        // Its network namespace, once nothing of the bot can be in it: its init was reaped
        // (the init's end ends every process of its pid namespace).
        if let (Some(net), Some(_)) = (bot.net.take(), bot.exited) {
            crate::bot::netns::give_back(net);
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
