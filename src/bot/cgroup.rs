//! A pids cgroup per bot, where the machine lets the referee create one: it caps the bot's
//! process count (`--max-processes`) without counting the user's other processes, and it lets
//! the referee find and kill every process the bot started, even one that left its process
//! group. Where no cgroup can be created the caller falls back to RLIMIT_NPROC.

use rustix::process::{kill_process, Pid, Signal};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// One bot's cgroup; removed (after killing what is left in it) when dropped.
#[derive(Debug)]
pub struct Cgroup {
    dir: PathBuf,
    /// `cgroup.procs`, ready for the child to write itself into before exec.
    pub procs: CString,
}

/// The pids hierarchy: cgroup v1's pids controller, else a v2 hierarchy that offers pids.
fn root() -> Option<PathBuf> {
    let v1 = Path::new("/sys/fs/cgroup/pids");
    if v1.join("cgroup.procs").is_file() {
        return Some(v1.to_path_buf());
    }
    let v2 = Path::new("/sys/fs/cgroup");
    let controllers = std::fs::read_to_string(v2.join("cgroup.controllers")).ok()?;
    controllers
        .split_whitespace()
        .any(|c| c == "pids")
        .then(|| v2.to_path_buf())
}

impl Cgroup {
    /// Creates a cgroup limited to `max_pids` processes (no limit if `None`); `None` when this
    /// machine does not allow it.
    pub fn create(max_pids: Option<u64>) -> Option<Cgroup> {
        let root = root()?;
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| sweep_stale(&root));
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = root.join(format!("arbiter-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir).ok()?;
        let group = Cgroup {
            procs: CString::new(
                dir.join("cgroup.procs")
                    .into_os_string()
                    .into_encoded_bytes(),
            )
            .ok()?,
            dir,
        };
        if let Some(max) = max_pids {
            std::fs::write(group.dir.join("pids.max"), max.to_string()).ok()?;
        }
        Some(group)
    }

    /// Sends SIGKILL to every process in the cgroup; returns how many there were.
    pub fn kill_all(&self) -> usize {
        let text = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
        let mut n = 0;
        for pid in text
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = kill_process(pid, Signal::KILL);
                n += 1;
            }
        }
        n
    }
}

/// Removes the cgroups of referees that were killed before they could clean up (their bots died
/// with them, by their parent-death signal, but the folders stay).
fn sweep_stale(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("arbiter-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            drop(Cgroup {
                procs: CString::default(),
                dir: entry.path(),
            });
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        for _ in 0..100 {
            if self.kill_all() == 0 && std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}
