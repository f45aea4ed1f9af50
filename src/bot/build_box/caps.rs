//! What bounds a build as a whole, beyond each process's rlimits: the memory it holds (a memory
//! cgroup, the one bots get, so a file kept in the box's RAM-backed `/tmp` counts too), the size
//! of its `/tmp`, and what it leaves in its build folder (which becomes a cache entry): a student
//! build once kept 1.8 GB in the cache, another held 3 GB of RAM in `/tmp`. When a build is
//! stopped by one of them, its verdict names that cap and the option that sets it.
//!
//! The caps of a run are set once from the command line ([`configure`]) and read by every build
//! of the run ([`configured`]): builds start deep in bot resolution, far from the options.

use crate::options::Opt;
use std::path::Path;
use std::sync::RwLock;
use std::time::Duration;

/// The default cap on a build's memory, in MiB (`--build-memory-mb`).
pub const DEFAULT_MEMORY_MB: u64 = 2048;
/// The default size of a build's `/tmp`, in MiB (`--build-tmp-mb`).
pub const DEFAULT_TMP_MB: u64 = 512;
/// The default cap on what a build leaves in its folder, in MiB (`--build-disk-mb`).
pub const DEFAULT_DISK_MB: u64 = 512;

/// How often a running build's folder is measured against its cap.
pub(super) const MEASURE_EVERY: Duration = Duration::from_millis(250);

/// The cap a build went over, for its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// Its memory cgroup's limit (RAM, its `/tmp` included), in bytes.
    Memory(u64),
    /// The size its build folder may reach, in bytes, and what it had reached.
    Folder { cap: u64, seen: u64 },
    /// Its wall-clock time.
    Time(Duration),
}

impl std::fmt::Display for Cap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cap::Memory(bytes) => write!(
                f,
                "stopped: the build went over its memory cap of {} MiB (what its processes and its /tmp hold together; raise it with {})",
                bytes >> 20,
                Opt::BuildMemoryMb
            ),
            Cap::Folder { cap, seen } => write!(
                f,
                "stopped: the build left {} MiB in its build folder, over the cap of {} MiB on what a build may keep in the build cache (raise it with {})",
                seen.div_ceil(1 << 20),
                cap >> 20,
                Opt::BuildDiskMb
            ),
            Cap::Time(limit) => write!(
                f,
                "stopped: the build took longer than its wall-clock limit of {} s",
                limit.as_secs()
            ),
        }
    }
}

static CONFIGURED: RwLock<Option<super::BuildLimits>> = RwLock::new(None);

/// Sets the limits every build of this run gets (from the command line).
pub fn configure(limits: super::BuildLimits) {
    *CONFIGURED.write().unwrap_or_else(|e| e.into_inner()) = Some(limits);
}

/// The limits set by [`configure`], else the defaults.
pub fn configured() -> super::BuildLimits {
    CONFIGURED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or_default()
}

/// The bytes a folder holds: every file's length (a sparse file counts whole: the cache may
/// hold it whole once copied) and every folder and symlink as one block, without following
/// symlinks. A file or folder that vanishes while it is measured counts as nothing.
pub fn folder_bytes(dir: &Path) -> u64 {
    const BLOCK: u64 = 4096;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut sum = BLOCK;
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        sum += if meta.is_dir() {
            folder_bytes(&entry.path())
        } else if meta.is_file() {
            meta.len().max(BLOCK)
        } else {
            BLOCK
        };
    }
    sum
}

/// Whether this bwrap can size a tmpfs (`--size`, bubblewrap 0.8 and later); asked once.
pub(super) fn bwrap_sizes_tmpfs(bwrap: &Path) -> bool {
    static SIZES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SIZES.get_or_init(|| {
        std::process::Command::new(bwrap)
            .arg("--help")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("--size"))
    })
}
