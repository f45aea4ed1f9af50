//! How long a bot waited for a CPU: Linux accounts, per task, the time it spent runnable but
//! waiting in a run queue (the second field of `/proc/TID/schedstat`, in nanoseconds). The fair
//! clock (`--clock fair`) reads it for every task of the bot's whole process tree at the start
//! and the end of a turn and does not charge the difference: a bot is charged for the time it
//! could have run, so its verdicts do not follow how busy the machine is.
//!
//! The bot's tasks come from its cgroup where it has one (cgroup v1 `tasks` lists every thread;
//! v2 `cgroup.procs` lists its processes), else from its process tree (`/proc/PID/task/*/children`
//! from its first process). A task that ends during a turn takes that turn's waiting with it
//! (the count errs towards charging the bot), and a task started during the turn counts from 0.
//!
//! The same line's first field, the time each task ran, gives the CPU time of the bot's live
//! tasks; the fair clock charges at least that where the bot has no cgroup to account its CPU
//! time whole (see `BotProcess::cpu_time`).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

/// One task's run-queue waiting and running so far: (thread id, nanoseconds waited,
/// nanoseconds run).
pub type TaskWait = (i32, u64, u64);

/// Where a bot's tasks are listed.
#[derive(Clone, Copy, Debug)]
pub enum Tasks<'a> {
    /// A cgroup's folder (v1 `tasks`, or v2 `cgroup.procs` and each process's threads).
    Cgroup(&'a Path),
    /// The process tree below (and including) this process.
    Tree(i32),
}

/// Fills `into` with the run-queue waiting of every task of the bot, sorted by thread id.
/// False when none could be read (the system does not tell, or the bot is gone).
pub fn collect(tasks: Tasks<'_>, into: &mut Vec<TaskWait>) -> bool {
    into.clear();
    let mut text = String::new();
    match tasks {
        Tasks::Cgroup(dir) => {
            if read_into(&dir.join("tasks"), &mut text) {
                for tid in ids(&text) {
                    if let Some((w, r)) = wait_of(&format!("/proc/{tid}/schedstat")) {
                        into.push((tid, w, r));
                    }
                }
            } else if read_into(&dir.join("cgroup.procs"), &mut text) {
                for pid in ids(&text).collect::<Vec<_>>() {
                    threads_of(pid, into, None);
                }
            } else {
                return false;
            }
        }
        Tasks::Tree(leader) => {
            let mut stack = vec![leader];
            while let Some(pid) = stack.pop() {
                threads_of(pid, into, Some(&mut stack));
            }
        }
    }
    into.sort_unstable_by_key(|&(tid, ..)| tid);
    !into.is_empty()
}

/// The waiting of `pid`'s threads into `into`; with `children`, its child processes are pushed
/// there.
fn threads_of(pid: i32, into: &mut Vec<TaskWait>, mut children: Option<&mut Vec<i32>>) {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return;
    };
    let mut text = String::new();
    for entry in dir.flatten() {
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((w, r)) = wait_of(&format!("/proc/{pid}/task/{tid}/schedstat")) {
            into.push((tid, w, r));
        }
        if let Some(stack) = children.as_deref_mut() {
            if read_into(
                Path::new(&format!("/proc/{pid}/task/{tid}/children")),
                &mut text,
            ) {
                stack.extend(ids(&text));
            }
        }
    }
}

fn ids(text: &str) -> impl Iterator<Item = i32> + '_ {
    text.split_whitespace().filter_map(|t| t.parse().ok())
}

fn read_into(path: &Path, text: &mut String) -> bool {
    text.clear();
    crate::bot::machine::open(path)
        .and_then(|mut f| f.read_to_string(text))
        .is_ok()
}

/// The waiting and running of a schedstat file.
fn wait_of(path: &str) -> Option<(u64, u64)> {
    let mut buf = [0u8; 96];
    let n = crate::bot::machine::open(path)
        .and_then(|f| f.read_at(&mut buf, 0))
        .ok()?;
    parse_wait(&buf[..n])
}

/// The run-queue waiting and the running of a schedstat line ("run_ns wait_ns slices").
fn parse_wait(line: &[u8]) -> Option<(u64, u64)> {
    let mut fields = std::str::from_utf8(line).ok()?.split_whitespace();
    let run = fields.next()?.parse().ok()?;
    let wait = fields.next()?.parse().ok()?;
    Some((wait, run))
}

/// Of the tasks in `tasks` (a reading of [`collect`] or a [`Tracker`]), those that are
/// runnable now (state R: on a CPU or waiting in its run queue), with their running so far, into
/// `into`. The kernel adds a wait to a task's run-queue waiting only when the wait ends (when the
/// task gets a CPU): a task in the queue now has its current wait missing from every reading,
/// and two of these readings tell it from one that runs (its running does not grow).
pub fn runnable(tasks: &[TaskWait], into: &mut Vec<(i32, u64)>) {
    into.clear();
    let mut buf = [0u8; 512];
    for &(tid, ..) in tasks {
        let Ok(n) = crate::bot::machine::open(format!("/proc/{tid}/stat"))
            .and_then(|f| f.read_at(&mut buf, 0))
        else {
            continue;
        };
        if state_of(&buf[..n]) != Some(b'R') {
            continue;
        }
        if let Some((_, run)) = wait_of(&format!("/proc/{tid}/schedstat")) {
            into.push((tid, run));
        }
    }
}

/// The state letter of a `/proc/TID/stat` line (after the command name, which may hold any
/// byte but ends at the last ')').
fn state_of(line: &[u8]) -> Option<u8> {
    let close = line.iter().rposition(|&b| b == b')')?;
    line.get(close + 2).copied()
}

/// Whether a task runnable at both readings (`before`, then `now`, both of [`runnable`]) did
/// not run between them: it has been waiting for a CPU since `before` at least.
pub fn queued_since(before: &[(i32, u64)], now: &[(i32, u64)]) -> bool {
    now.iter()
        .any(|&(tid, run)| before.iter().any(|&(t, r)| t == tid && r == run))
}

/// Waiting and running, each summed over the tasks in `now`, since `base` (a task missing from
/// `base` started since).
pub fn waited_since(base: &[TaskWait], now: &[TaskWait]) -> (Duration, Duration) {
    let (mut waited, mut ran) = (0u64, 0u64);
    for &(tid, w, r) in now {
        let (w0, r0) = match base.binary_search_by_key(&tid, |&(t, ..)| t) {
            Ok(i) => (base[i].1, base[i].2),
            Err(_) => (0, 0),
        };
        waited += w.saturating_sub(w0);
        ran += r.saturating_sub(r0);
    }
    (Duration::from_nanos(waited), Duration::from_nanos(ran))
}

/// Reads one bot's waiting cheaply, turn after turn: the schedstat files of its tasks stay open
/// (a proc seq file reads afresh at offset 0), and its tasks are listed again only when a cheap
/// sign says they changed (the cgroup's task count, or each process's thread count and each
/// thread's children) or a task ended. One or two system calls a reading for a bot of
/// one thread, instead of a dozen.
#[derive(Debug)]
pub struct Tracker {
    /// The cgroup's folder, or the bot's first process.
    dir: Option<std::path::PathBuf>,
    leader: i32,
    tasks: Vec<(i32, File)>,
    guards: Vec<Guard>,
    scratch: Vec<TaskWait>,
}

/// A sign that a bot's set of tasks changed.
#[derive(Debug)]
enum Guard {
    /// A file whose text changes with the set (a task count, a list of children).
    Text(File, Vec<u8>),
    /// A `/proc/PID/task` folder, whose link count grows and shrinks with its threads.
    Links(File, u64),
}

impl Guard {
    fn text(path: &str) -> Option<Guard> {
        let f = crate::bot::machine::open(path).ok()?;
        let mut buf = [0u8; 512];
        let n = f.read_at(&mut buf, 0).ok()?;
        Some(Guard::Text(f, buf[..n].to_vec()))
    }

    fn links(path: &str) -> Option<Guard> {
        use std::os::unix::fs::MetadataExt;
        let f = crate::bot::machine::open(path).ok()?;
        let n = f.metadata().ok()?.nlink();
        Some(Guard::Links(f, n))
    }

    fn holds(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        match self {
            Guard::Text(f, seen) => {
                let mut buf = [0u8; 512];
                f.read_at(&mut buf, 0).is_ok_and(|n| buf[..n] == seen[..])
            }
            Guard::Links(f, seen) => f.metadata().is_ok_and(|m| m.nlink() == *seen),
        }
    }
}

impl Tracker {
    /// A tracker of the tasks in the cgroup folder `dir`, or else of the process tree of
    /// `leader`.
    pub fn new(dir: Option<&Path>, leader: i32) -> Tracker {
        Tracker {
            dir: dir.map(Path::to_path_buf),
            leader,
            tasks: Vec::new(),
            guards: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Lists the tasks again and opens their files; the signs of change are taken first, so a
    /// change during the listing shows at the next reading.
    fn rescan(&mut self) {
        self.guards.clear();
        match &self.dir {
            Some(dir) => {
                let guard = ["pids.current", "tasks", "cgroup.procs"]
                    .iter()
                    .find_map(|f| Guard::text(&dir.join(f).to_string_lossy()));
                self.guards.extend(guard);
                collect(Tasks::Cgroup(dir), &mut self.scratch);
            }
            None => {
                self.scratch.clear();
                let mut stack = vec![self.leader];
                while let Some(pid) = stack.pop() {
                    self.guards
                        .extend(Guard::links(&format!("/proc/{pid}/task")));
                    let from = self.scratch.len();
                    threads_of(pid, &mut self.scratch, Some(&mut stack));
                    // Any thread may start a process: each one's children are watched.
                    for &(tid, ..) in &self.scratch[from..] {
                        self.guards
                            .extend(Guard::text(&format!("/proc/{pid}/task/{tid}/children")));
                    }
                }
                self.scratch.sort_unstable_by_key(|&(tid, ..)| tid);
            }
        }
        self.tasks.clear();
        for &(tid, ..) in &self.scratch {
            if let Ok(f) = crate::bot::machine::open(format!("/proc/{tid}/schedstat")) {
                self.tasks.push((tid, f));
            }
        }
    }

    /// Fills `into` with the waiting of every task of the bot, sorted by thread id; false when
    /// none could be read.
    pub fn read(&mut self, into: &mut Vec<TaskWait>) -> bool {
        for attempt in 0..2 {
            if attempt == 1 || self.tasks.is_empty() || !self.guards.iter().all(Guard::holds) {
                self.rescan();
            }
            into.clear();
            let mut ended = false;
            for (tid, f) in &self.tasks {
                let mut buf = [0u8; 96];
                match f
                    .read_at(&mut buf, 0)
                    .ok()
                    .and_then(|n| parse_wait(&buf[..n]))
                {
                    Some((w, r)) => into.push((*tid, w, r)),
                    None => ended = true,
                }
            }
            if !ended {
                break;
            }
        }
        !into.is_empty()
    }
}

thread_local! {
    /// This thread's schedstat file, kept open (a seq file reads afresh at offset 0).
    static OWN: Option<File> = File::open("/proc/thread-self/schedstat").ok();
}

/// How long the calling thread has waited for a CPU so far, where the system tells it. The
/// referee's own waiting during a turn (to read the answer it was woken for) is not the bot's.
pub fn this_thread_wait() -> Option<Duration> {
    OWN.with(|f| {
        let mut buf = [0u8; 96];
        let n = f.as_ref()?.read_at(&mut buf, 0).ok()?;
        parse_wait(&buf[..n]).map(|(w, _)| Duration::from_nanos(w))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_of_a_stat_line_is_after_the_last_parenthesis() {
        assert_eq!(state_of(b"42 (a) b) R 1 42"), Some(b'R'));
        assert_eq!(state_of(b"42 (sleepy) S 1 42"), Some(b'S'));
        assert_eq!(state_of(b"garbage"), None);
    }

    #[test]
    fn a_runnable_task_that_did_not_run_between_two_readings_is_queued() {
        assert!(queued_since(&[(7, 100), (8, 5)], &[(7, 100), (8, 9)]));
        assert!(!queued_since(&[(7, 100)], &[(7, 150)]), "it ran");
        assert!(!queued_since(&[], &[(7, 100)]), "one reading tells nothing");
    }

    #[test]
    fn reads_the_second_field() {
        assert_eq!(
            parse_wait(b"187490867 10870438 425\n"),
            Some((10870438, 187490867))
        );
        assert_eq!(parse_wait(b"1\n"), None);
    }

    #[test]
    fn waiting_counts_new_tasks_whole_and_ignores_ended_ones() {
        let base = [(10, 100, 5), (11, 50, 9), (12, 7, 1)];
        let now = [(10, 160, 25), (12, 7, 1), (13, 30, 4)];
        let ns = Duration::from_nanos;
        assert_eq!(waited_since(&base, &now), (ns(60 + 30), ns(20 + 4)));
    }

    #[test]
    fn a_tracker_sees_new_tasks_and_keeps_reading_its_files() {
        let me = std::process::id() as i32;
        let mut tracker = Tracker::new(None, me);
        let mut first = Vec::new();
        assert!(tracker.read(&mut first));
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let mut now = Vec::new();
        assert!(tracker.read(&mut now));
        let _ = child.kill();
        let _ = child.wait();
        assert!(now.iter().any(|&(t, ..)| t == child.id() as i32), "{now:?}");
        assert!(waited_since(&first, &now).0 < Duration::from_secs(5));
    }

    #[test]
    fn finds_this_process_and_its_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let me = std::process::id() as i32;
        let mut waits = Vec::new();
        let found = collect(Tasks::Tree(me), &mut waits);
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            found,
            "no /proc/TID/schedstat on this machine (CONFIG_SCHED_INFO)"
        );
        assert!(waits.iter().any(|&(t, ..)| t == me));
        assert!(waits.iter().any(|&(t, ..)| t == child.id() as i32));
        assert!(this_thread_wait().is_some());
    }
}
