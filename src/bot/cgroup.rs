//! A cgroup per bot, where the machine lets the referee create one (as root, with cgroup v1 or
//! v2). It is what makes the limits cover the whole bot, children and all:
//! - pids: `--max-processes` counts the bot's processes without the user's others;
//! - memory: `--memory-mb` covers everything the bot and its children hold, shared memory and
//!   files in RAM (tmpfs, /dev/shm) included, and an overrun is told apart from a crash;
//! - freezer: freezing stops every process of the bot, even one that left its process group;
//! - cpuacct (v1; v2's `cpu.stat` is always there): the CPU time of every process and thread
//!   of the bot, those that ended included, which the clocks charge;
//! - and at the end every process still in it is found and killed.
//!
//! Each controller is optional: where one cannot be had the caller falls back (RLIMIT_NPROC,
//! RLIMIT_DATA, SIGSTOP to the process group). The cgroups are made below the referee's own, so
//! limits set on the referee still hold for its bots. A game thread keeps the cgroups of its
//! ended bots, proven empty, for its next bots (see `pool`).

mod control;
mod pool;

pub use pool::{adopt_spares, drop_spares, give_back, take_spares};

use rustix::process::{kill_process, Pid, Signal};
use std::ffi::CString;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Where this machine lets the referee make bot cgroups, found once.
#[derive(Debug, Default)]
struct Places {
    /// cgroup v2: one folder (below the referee's own cgroup, or the root) for everything.
    v2: Option<PathBuf>,
    /// cgroup v1: the folders, below the referee's own cgroups, of each controller.
    pids: Option<PathBuf>,
    memory: Option<PathBuf>,
    freezer: Option<PathBuf>,
    cpuacct: Option<PathBuf>,
}

fn places() -> &'static Places {
    static PLACES: OnceLock<Places> = OnceLock::new();
    PLACES.get_or_init(|| {
        let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let places = find_places(&own, Path::new("/sys/fs/cgroup"));
        let dirs: Vec<&PathBuf> = [
            &places.v2,
            &places.pids,
            &places.memory,
            &places.freezer,
            &places.cpuacct,
        ]
        .into_iter()
        .flatten()
        .collect();
        for dir in &dirs {
            sweep_stale(dir);
        }
        if !dirs.is_empty() {
            start_watchdog(&dirs);
        }
        places
    })
}

/// The watchdog's end of its pipe: held, never written, for as long as the referee lives.
static WATCHDOG: std::sync::Mutex<Option<std::process::ChildStdin>> = std::sync::Mutex::new(None);

/// Starts a small shell that waits for the referee to end, however it ends (even by SIGKILL:
/// its pipe then reaches end of file), and then thaws, kills and removes every bot cgroup the
/// referee left. A frozen process cannot die (a v1 freezer holds even SIGKILL), so without it a
/// bot frozen when its referee was killed would stay, frozen, for good.
fn start_watchdog(dirs: &[&PathBuf]) {
    let script = r#"trap '' INT TERM HUP
while read -r _; do :; done
for round in 1 2 3 4 5 6 7 8 9 10; do
  left=0
  for base in "$@"; do
    for g in "$base"/arbiter-"$PPID_OF_BOTS"-*; do
      [ -d "$g" ] || continue
      left=1
      [ -f "$g/freezer.state" ] && echo THAWED > "$g/freezer.state"
      [ -f "$g/cgroup.freeze" ] && echo 0 > "$g/cgroup.freeze"
      for p in $(cat "$g/cgroup.procs"); do kill -9 "$p"; done
      rmdir "$g" 2>/dev/null
    done
  done
  [ "$left" = 0 ] && exit 0
  sleep 0.05
done"#;
    let child = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .arg("arbiter-watchdog")
        .args(dirs)
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("PPID_OF_BOTS", own_tag())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = child {
        *WATCHDOG.lock().unwrap_or_else(|e| e.into_inner()) = child.stdin.take();
    }
}

/// Finds the places from `/proc/self/cgroup`'s text and the cgroup mount `root`.
fn find_places(own: &str, root: &Path) -> Places {
    let mut places = Places::default();
    let writable = |dir: &Path| dir.join("cgroup.procs").is_file() && access_w(dir);
    if root.join("cgroup.controllers").is_file() {
        // Pure v2: the referee's own cgroup if it can delegate pids and memory to children,
        // else the root cgroup (which has no rule against processes beside children).
        let path = own
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .unwrap_or("/");
        let mine = root.join(path.trim_start_matches('/'));
        for dir in [mine.as_path(), root] {
            if writable(dir) && delegate(dir) {
                places.v2 = Some(dir.to_path_buf());
                break;
            }
        }
        return places;
    }
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => continue,
        };
        for c in controllers.split(',') {
            let slot = match c {
                "pids" => &mut places.pids,
                "memory" => &mut places.memory,
                "freezer" => &mut places.freezer,
                "cpuacct" => &mut places.cpuacct,
                _ => continue,
            };
            let dir = root.join(c).join(path.trim_start_matches('/'));
            if writable(&dir) {
                *slot = Some(dir);
            }
        }
    }
    places
}

fn access_w(dir: &Path) -> bool {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).is_ok()
}

/// Makes sure the children of v2 cgroup `dir` get the pids and memory controllers.
fn delegate(dir: &Path) -> bool {
    let wanted = ["pids", "memory"];
    let has = |file: &str| {
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        wanted
            .iter()
            .all(|w| text.split_whitespace().any(|c| c == *w))
    };
    if has("cgroup.subtree_control") {
        return true;
    }
    if !has("cgroup.controllers") {
        return false;
    }
    let _ = std::fs::write(dir.join("cgroup.subtree_control"), "+pids +memory");
    has("cgroup.subtree_control")
}

/// Whether bots get a memory cgroup here, so that `--memory-mb` covers all they hold; else
/// the limit is RLIMIT_DATA, per process and for private memory only.
pub fn memory_cap_is_full() -> bool {
    let p = places();
    p.v2.is_some() || p.memory.is_some()
}

/// The process cap of a bot when the user gives none (processes and threads at once): a fork
/// bomb stops there, while a JVM, which starts some 20 threads on a small machine and about 80
/// on one of 64 cores (garbage collector and compiler threads grow with the cores), still runs.
pub const DEFAULT_MAX_PROCESSES: u64 = 128;

/// [`DEFAULT_MAX_PROCESSES`] where a pids cgroup enforces it for the bot alone; `None` elsewhere
/// (RLIMIT_NPROC would count all of the user's processes).
pub fn default_max_processes() -> Option<u64> {
    let p = places();
    (p.v2.is_some() || p.pids.is_some()).then_some(DEFAULT_MAX_PROCESSES)
}

/// Whether bots get a cgroup freezer here (else freezing is SIGSTOP to the process group).
pub fn freezer_available() -> bool {
    let p = places();
    p.v2.is_some() || p.freezer.is_some()
}

/// One bot's cgroups; removed (after killing what is left in them) when dropped.
#[derive(Debug)]
pub struct Cgroup {
    dirs: Vec<PathBuf>,
    /// The `cgroup.procs` files, ready for the child to write itself into before exec.
    pub procs: Vec<CString>,
    /// The memory controller's folder and whether it is v2.
    memory: Option<(PathBuf, bool)>,
    /// The memory limit, in bytes, when the cgroup enforces it.
    pub memory_bytes: Option<u64>,
    /// The pids controller's folder, and its cap when it enforces one.
    pids: Option<PathBuf>,
    pub max_pids: Option<u64>,
    /// The freezer's file, open, whether it is v2 (`cgroup.freeze`) or v1 (`freezer.state`),
    /// and its folder.
    freezer: Option<(std::fs::File, bool, PathBuf)>,
    /// The limits it was made with (process cap, memory), which a reuse must ask for again.
    requested: (Option<u64>, Option<u64>),
    /// The counts of OOM kills and of refused forks when its bot started: both counters only
    /// grow, so a reused cgroup's verdicts count from there.
    oom_base: u64,
    pids_base: u64,
    /// Its control files, held open (see `control`).
    control: control::Control,
}

impl Cgroup {
    /// Creates the cgroups of one bot: at most `max_pids` processes and `memory_bytes` of
    /// memory (no limit for `None`); `None` when this machine allows none.
    pub fn create(max_pids: Option<u64>, memory_bytes: Option<u64>) -> Option<Cgroup> {
        if let Some(spare) = pool::take((max_pids, memory_bytes)) {
            return Some(spare);
        }
        let places = places();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("arbiter-{}-{n}", own_tag());
        let mut group = Cgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            memory: None,
            memory_bytes: None,
            pids: None,
            max_pids: None,
            freezer: None,
            requested: (max_pids, memory_bytes),
            oom_base: 0,
            pids_base: 0,
            control: control::Control::default(),
        };
        let mut make = |base: &Option<PathBuf>| -> Option<PathBuf> {
            let dir = base.as_ref()?.join(&name);
            std::fs::create_dir(&dir).ok()?;
            group.dirs.push(dir.clone());
            let procs = dir
                .join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes();
            group.procs.push(CString::new(procs).ok()?);
            Some(dir)
        };
        let v2 = make(&places.v2);
        let pids = v2.clone().or_else(|| make(&places.pids));
        let memory = v2.clone().or_else(|| make(&places.memory));
        let freezer = v2.clone().or_else(|| make(&places.freezer));
        // Made last: the first folder is the one whose tasks the fair clock lists.
        let cpu = v2.clone().or_else(|| make(&places.cpuacct));
        if group.dirs.is_empty() {
            return None;
        }
        let v2 = v2.is_some();
        if let (Some(dir), Some(max)) = (&pids, max_pids) {
            std::fs::write(dir.join("pids.max"), max.to_string()).ok()?;
            group.max_pids = Some(max);
        }
        group.pids = pids;
        if let Some(dir) = memory {
            if let Some(bytes) = memory_bytes {
                let set = if v2 {
                    let _ = std::fs::write(dir.join("memory.swap.max"), "0");
                    std::fs::write(dir.join("memory.max"), bytes.to_string())
                } else {
                    let r = std::fs::write(dir.join("memory.limit_in_bytes"), bytes.to_string());
                    // With swap accounting, swap counts too (set after the RAM limit).
                    let _ =
                        std::fs::write(dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
                    r
                };
                if set.is_ok() {
                    group.memory_bytes = Some(bytes);
                }
            }
            group.memory = Some((dir, v2));
        }
        if let Some(dir) = freezer {
            let file = if v2 { "cgroup.freeze" } else { "freezer.state" };
            group.freezer = control::read_writer(&dir, file).map(|f| (f, v2, dir));
        }
        group.control = control::Control::open(
            &group.dirs,
            group.memory.as_ref().map(|(d, _)| d.as_path()),
            group.pids.as_deref(),
            group.freezer.as_ref().map(|(_, _, d)| d.as_path()),
            cpu.as_deref(),
            v2,
        );
        Some(group)
    }

    /// Whether the kernel killed a process of the bot for going over its memory limit (since
    /// this bot started: a reused cgroup's earlier kills are not its bot's).
    pub fn memory_exceeded(&self) -> bool {
        self.oom_kills() > self.oom_base
    }

    /// The cgroup's count of OOM kills so far (`oom_kill` of v1 `memory.oom_control` or v2
    /// `memory.events`); 0 without a memory controller.
    fn oom_kills(&self) -> u64 {
        control::count_in(self.control.oom.as_ref(), "oom_kill")
    }

    /// Whether a fork or thread of the bot was refused for going over its process cap
    /// (`pids.events`' `max` count, in cgroup v1 and v2), since this bot started.
    pub fn pids_exceeded(&self) -> bool {
        self.refused_forks() > self.pids_base
    }

    fn refused_forks(&self) -> u64 {
        control::count_in(self.control.pids_events.as_ref(), "max")
    }

    /// The CPU time (user and system) of every process and thread that has been in the cgroup,
    /// those that ended included: v1 `cpuacct.usage`, v2 `cpu.stat`'s `usage_usec`. `None`
    /// without CPU accounting. It only grows, so a reused cgroup's bots differ readings.
    pub fn cpu_usage(&self) -> Option<std::time::Duration> {
        self.control.cpu_usage()
    }

    /// Whether it never held more than one task at once (its pids controller's `pids.peak`,
    /// Linux 6.1 and later): then every CPU time it accounted since its bot started is that
    /// one task's. False where that cannot be told. (A reused cgroup's peak counts its earlier
    /// bots' tasks too: one that ever held two says false for good.)
    pub fn held_one_task(&self) -> bool {
        self.control
            .pids_peak
            .as_ref()
            .and_then(control::number)
            .is_some_and(|peak| peak <= 1)
    }

    /// Whether it accounts its processes' CPU time ([`Cgroup::cpu_usage`]).
    pub fn accounts_cpu(&self) -> bool {
        self.control.cpu.is_some()
    }

    /// Freezes (or thaws) every process of the bot; false when there is no freezer.
    pub fn set_frozen(&self, frozen: bool) -> bool {
        let Some((file, v2, _)) = &self.freezer else {
            return false;
        };
        let text: &[u8] = match (v2, frozen) {
            (true, true) => b"1",
            (true, false) => b"0",
            (false, true) => b"FROZEN",
            (false, false) => b"THAWED",
        };
        file.write_at(text, 0).is_ok()
    }

    /// Whether its freezer is asked to freeze it (v1 `freezer.state` other than THAWED, v2
    /// `cgroup.freeze` 1), by the referee or anyone; false without a freezer.
    pub fn freeze_requested(&self) -> bool {
        let Some((file, v2, _)) = &self.freezer else {
            return false;
        };
        let mut text = Vec::new();
        if !control::read(file, &mut text) {
            return true;
        }
        let text = String::from_utf8_lossy(&text);
        match v2 {
            true => text.trim() != "0",
            false => text.trim() != "THAWED",
        }
    }

    /// Thaws it where it is frozen (asked to be), whoever froze it: one read of its freezer
    /// where it is not (a write to v2's `cgroup.freeze` takes a lock every cgroup of the
    /// machine shares). True when it is not asked to freeze any more (or has no freezer).
    pub fn thaw(&self) -> bool {
        !self.freeze_requested() || self.set_frozen(false)
    }

    /// Whether the bot has a freezer.
    pub fn has_freezer(&self) -> bool {
        self.freezer.is_some()
    }

    /// Sends SIGKILL to every process in the cgroups; returns how many there were.
    pub fn kill_all(&self) -> usize {
        // The files held open, or by path for a cgroup being removed or found on disk (see
        // `sweep_stale`).
        let held = self.control.procs.len() == self.dirs.len();
        let mut text = Vec::new();
        let mut listed = 0;
        for (i, dir) in self.dirs.iter().enumerate() {
            let read = match held {
                true => control::read(&self.control.procs[i], &mut text),
                false => std::fs::read(dir.join("cgroup.procs"))
                    .map(|t| text = t)
                    .is_ok(),
            };
            if !read {
                continue;
            }
            for pid in String::from_utf8_lossy(&text).split_whitespace() {
                if let Some(pid) = pid.parse().ok().and_then(Pid::from_raw) {
                    let _ = kill_process(pid, Signal::KILL);
                    listed += 1;
                }
            }
        }
        listed
    }
}

/// What names this referee's bot cgroups (`arbiter-TAG-N`): its process id and its pid
/// namespace (`PID-nsINODE`). A process id means a process only within its pid namespace, and
/// referees in different pid namespaces (a container, `unshare --pid`) may share one cgroup
/// tree: each must know the others' cgroups from its own.
fn own_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| tag_of(std::process::id(), pid_namespace()))
}

/// The inode of this process's pid namespace, where `/proc` tells it.
fn pid_namespace() -> Option<u64> {
    std::fs::metadata("/proc/self/ns/pid")
        .ok()
        .map(|m| std::os::unix::fs::MetadataExt::ino(&m))
}

fn tag_of(pid: u32, namespace: Option<u64>) -> String {
    match namespace {
        Some(ns) => format!("{pid}-ns{ns}"),
        None => pid.to_string(),
    }
}

/// The referee's process id a bot cgroup's name holds, if it is one of this pid namespace's
/// referees' (a cgroup of a referee in another namespace is not this one's to judge: its
/// process id means nothing here; that referee's watchdog removes it).
fn referee_of(name: &str, namespace: Option<u64>) -> Option<u32> {
    let mut parts = name.strip_prefix("arbiter-")?.split('-');
    let pid = parts.next()?.parse::<u32>().ok()?;
    let ns = parts
        .next()
        .and_then(|p| p.strip_prefix("ns"))
        .and_then(|n| n.parse::<u64>().ok());
    // Names from before namespaces were in them (`arbiter-PID-N`) are judged by the pid.
    (ns.is_none() || ns == namespace).then_some(pid)
}

/// Removes the cgroups of referees (of this pid namespace) that were killed before they could
/// clean up, and kills what is still in them.
fn sweep_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let namespace = pid_namespace();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = referee_of(&name, namespace) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            drop(Cgroup {
                dirs: vec![entry.path()],
                procs: Vec::new(),
                memory: None,
                memory_bytes: None,
                pids: None,
                max_pids: None,
                freezer: None,
                requested: (None, None),
                oom_base: 0,
                pids_base: 0,
                control: control::Control::default(),
            });
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // Its folders go one by one below: what is in them is then read by path, and the
        // files held open are closed before the folders are removed.
        self.control = control::Control::default();
        // Frozen processes do not die until thawed (this cgroup's, or a stale one's).
        if !self.set_frozen(false) {
            for dir in &self.dirs {
                let _ = std::fs::write(dir.join("freezer.state"), "THAWED");
                let _ = std::fs::write(dir.join("cgroup.freeze"), "0");
            }
        }
        for _ in 0..100 {
            let killed = self.kill_all();
            self.dirs.retain(|d| std::fs::remove_dir(d).is_err());
            if killed == 0 && self.dirs.is_empty() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cgroup_is_judged_only_by_a_referee_of_its_pid_namespace() {
        assert_eq!(tag_of(42, Some(4026531836)), "42-ns4026531836");
        assert_eq!(
            referee_of("arbiter-42-ns4026531836-7", Some(4026531836)),
            Some(42)
        );
        // Another namespace's referee 42 is not this namespace's process 42.
        assert_eq!(
            referee_of("arbiter-42-ns4026532000-7", Some(4026531836)),
            None
        );
        // Names from before namespaces were in them are judged by their process id.
        assert_eq!(referee_of("arbiter-42-7", Some(4026531836)), Some(42));
        assert_eq!(referee_of("arbiter-watchdog", Some(1)), None);
        assert_eq!(referee_of("user.slice", Some(1)), None);
    }

    #[test]
    fn v1_places_are_below_the_referees_own_cgroups() {
        let root = tempfile::tempdir().unwrap();
        for dir in ["memory/jobs/42", "pids", "freezer"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
            std::fs::write(root.path().join(dir).join("cgroup.procs"), "").unwrap();
        }
        let own = "9:name=systemd:/\n8:pids:/\n6:freezer:/\n4:memory:/jobs/42\n0::/\n";
        let p = find_places(own, root.path());
        assert_eq!(p.memory, Some(root.path().join("memory/jobs/42")));
        assert_eq!(p.pids, Some(root.path().join("pids")));
        assert_eq!(p.freezer, Some(root.path().join("freezer")));
        assert_eq!(p.v2, None);
    }

    #[test]
    fn v2_falls_back_to_the_root_when_its_own_cgroup_cannot_delegate() {
        let root = tempfile::tempdir().unwrap();
        let mine = root.path().join("system.slice/job.service");
        std::fs::create_dir_all(&mine).unwrap();
        for dir in [root.path(), mine.as_path()] {
            std::fs::write(dir.join("cgroup.procs"), "").unwrap();
        }
        std::fs::write(root.path().join("cgroup.controllers"), "cpu memory pids").unwrap();
        std::fs::write(root.path().join("cgroup.subtree_control"), "memory pids").unwrap();
        // Its own cgroup offers only cpu: nothing to delegate from there.
        std::fs::write(mine.join("cgroup.controllers"), "cpu").unwrap();
        std::fs::write(mine.join("cgroup.subtree_control"), "").unwrap();
        let p = find_places("0::/system.slice/job.service\n", root.path());
        assert_eq!(p.v2, Some(root.path().to_path_buf()));
        // Where it delegates them already, its own cgroup is used.
        std::fs::write(mine.join("cgroup.controllers"), "cpu memory pids").unwrap();
        std::fs::write(mine.join("cgroup.subtree_control"), "memory pids").unwrap();
        let p = find_places("0::/system.slice/job.service\n", root.path());
        assert_eq!(p.v2, Some(mine));
    }
}
