//! The build box: every build, check and compile of code the user did not write (a single-file
//! bot's compiler or checker, a class submission's `bot.toml` build command) runs here, never as
//! the user who runs arbiter.
//!
//! A build runs under bubblewrap with: an unprivileged uid outside the box as well (as root,
//! arbiter switches to `nobody` before starting bwrap, so the build has no capability and no uid
//! 0 anywhere; as another user it keeps that user), a new user, pid, network, IPC and UTS
//! namespace (no network), its own session (no terminal), the system folders read-only
//! (`/usr`, `/bin`, `/sbin`, `/lib*`, `/opt`, `/etc`: only what an unprivileged user can read
//! there is readable), the build folder writable at its own path, a private `/tmp`, a minimal
//! environment (`PATH` of the system folders only, so toolchain shims under a home folder are
//! not used), the play sandbox's seccomp filter, a wall-clock limit (the whole box is killed), a
//! memory cgroup (what the build holds, its `/tmp` included), a sized `/tmp`, a cap on what its
//! folder may hold (see `caps`), an address-space and a file-size limit per process and bounded
//! output (the rest of a flood is counted and dropped). Nothing else of the host is mounted: not /root, not /home, not the
//! class folder, not the results.
//!
//! The build cache lives under a home folder the unprivileged uid cannot traverse (`/root` is
//! mode 0700), so a build is made in a [`BuildStage`]: a folder in the system's temporary folder
//! (behind a parent only arbiter's user may list), given to the build's uid and mounted in the
//! box at `/build`. After the build arbiter gives it back to its own user (so the build's uid
//! cannot change it later), makes it readable by everyone (so the bot can run from it) and moves
//! it into the cache.
//!
//! Without bwrap an untrusted build does not run: [`BoxError::NoBwrap`] names the package.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The uid and gid a build runs as when arbiter runs as root (`nobody`, `nogroup`).
pub const BUILD_ID: u32 = 65534;

/// The only folders on a build's `PATH`.
pub const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

/// The descriptor bwrap reads the seccomp filter from.
const SECCOMP_FD: i32 = 3;

/// Where the build folder is inside the box.
pub const INSIDE: &str = "/build";

/// What a build may use.
#[derive(Clone, Copy, Debug)]
pub struct BuildLimits {
    /// Wall-clock time for one build step.
    pub time: Duration,
    /// Address space of each process of the build, in bytes.
    pub address_bytes: u64,
    /// Memory of the whole build, its `/tmp` included, in bytes (a memory cgroup, where one
    /// can be made: as root).
    pub memory_bytes: u64,
    /// Size of the build's `/tmp` (a tmpfs), in bytes.
    pub tmp_bytes: u64,
    /// What the build folder may hold, in bytes (measured while the build runs and after).
    pub folder_bytes: u64,
    /// Largest file a build may write, in bytes.
    pub file_bytes: u64,
    /// Processes of the build's uid at once.
    pub processes: u64,
    /// Output (stdout and stderr together) kept; the rest is counted and dropped.
    pub output_bytes: usize,
}

impl Default for BuildLimits {
    fn default() -> Self {
        BuildLimits {
            time: Duration::from_secs(120),
            address_bytes: 8 << 30,
            memory_bytes: caps::DEFAULT_MEMORY_MB << 20,
            tmp_bytes: caps::DEFAULT_TMP_MB << 20,
            folder_bytes: caps::DEFAULT_DISK_MB << 20,
            file_bytes: 1 << 30,
            processes: 512,
            output_bytes: 64 * 1024,
        }
    }
}

/// How a boxed build step ended.
#[derive(Debug)]
pub struct StepReport {
    /// True when the step exited with status 0.
    pub success: bool,
    /// Its exit status, or why it was stopped (the cap it went over, named).
    pub status: String,
    /// The cap it went over, if it was stopped by one.
    pub cap: Option<Cap>,
    /// Its output, stdout and stderr interleaved, cut at the limit.
    pub output: String,
}

/// Why a boxed build could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum BoxError {
    #[error("source files and class submissions are built in a box that needs bubblewrap (bwrap), which is not installed; install it (Debian/Ubuntu: apt-get install bubblewrap): arbiter never builds code it was given outside that box")]
    NoBwrap,
    // (`error`, not `source`: the message holds it, so a chain of causes must not repeat it.)
    #[error("cannot prepare the build folder {path} for the build box: {error}")]
    Folder {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot start the build box (bwrap): {0}")]
    Spawn(std::io::Error),
}

/// The executable `name` in the folders of [`SYSTEM_PATH`] (what a build can run).
pub fn find_system_program(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(SYSTEM_PATH)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

mod caps;
mod stage;

pub use caps::{
    configure, configured, folder_bytes, Cap, DEFAULT_DISK_MB, DEFAULT_MEMORY_MB, DEFAULT_TMP_MB,
};
pub use stage::{finish, write_own_file, BuildStage};

/// Runs `step` (program and arguments; a program without a `/` is looked up on
/// [`SYSTEM_PATH`] inside the box) in the build folder `dir`, in the box, within `limits`.
pub fn run(step: &[String], dir: &Path, limits: &BuildLimits) -> Result<StepReport, BoxError> {
    let bwrap = super::host::bwrap().ok_or(BoxError::NoBwrap)?;
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let folder_err = |error| BoxError::Folder {
        path: dir.clone(),
        error,
    };
    let root = running_as_root();
    if root {
        stage::chown_tree(&dir, BUILD_ID, BUILD_ID).map_err(folder_err)?;
    }
    let seccomp = seccomp_fd();
    let mut args: Vec<String> = [
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--cap-drop",
        "ALL",
    ]
    .map(String::from)
    .into();
    for d in super::host::SYSTEM {
        args.extend(["--ro-bind-try", d, d].map(String::from));
    }
    args.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
    if caps::bwrap_sizes_tmpfs(&bwrap) {
        args.extend(["--size".into(), limits.tmp_bytes.to_string()]);
    }
    args.extend(["--tmpfs", "/tmp"].map(String::from));
    args.extend(["--bind".into(), dir.display().to_string(), INSIDE.into()]);
    args.extend(["--remount-ro".into(), "/".into()]);
    if seccomp.is_some() {
        args.extend(["--seccomp".into(), SECCOMP_FD.to_string()]);
    }
    args.extend(["--chdir".into(), INSIDE.into(), "--".into()]);
    args.extend(step.iter().cloned());

    let (reader, writer) = std::io::pipe().map_err(BoxError::Spawn)?;
    let mut command = Command::new(&bwrap);
    command
        .args(&args)
        .env_clear()
        .env("PATH", SYSTEM_PATH)
        .env("HOME", "/tmp")
        .env("TMPDIR", "/tmp")
        .env("LANG", "C.UTF-8")
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(writer.try_clone().map_err(BoxError::Spawn)?)
        .stderr(writer)
        .process_group(0);
    // The build's cgroup (its memory, /tmp included, and its processes), which the child joins
    // before it drops root; none where the machine allows none (then RLIMIT_AS still holds).
    let group =
        crate::bot::cgroup::Cgroup::create(Some(limits.processes), Some(limits.memory_bytes));
    let procs: Vec<std::ffi::CString> = group.as_ref().map(|g| g.procs.clone()).unwrap_or_default();
    let raw_seccomp = seccomp.as_ref().map(|f| f.as_raw_fd());
    let limits_copy = *limits;
    let open_files = crate::bot::open_files::for_children();
    // SAFETY: only async-signal-safe calls between fork and exec (close_range, dup2, fcntl,
    // setrlimit, umask, open, write, close, setgroups, setgid, setuid), no allocation.
    unsafe {
        command.pre_exec(move || {
            // A build gets only its standard streams (and the filter, below): nothing arbiter
            // inherited (see `crate::bot::inherited`).
            crate::bot::inherited::seal_in_child();
            if let Some(fd) = raw_seccomp {
                // dup2 onto itself keeps close-on-exec: clear it by hand then.
                let ok = if fd == SECCOMP_FD {
                    libc::fcntl(fd, libc::F_SETFD, 0) >= 0
                } else {
                    libc::dup2(fd, SECCOMP_FD) >= 0
                };
                if !ok {
                    return Err(std::io::Error::last_os_error());
                }
            }
            let limit = |resource, value: u64| {
                let l = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: value,
                };
                if libc::setrlimit(resource, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            limit(libc::RLIMIT_AS, limits_copy.address_bytes)?;
            // No one file past the folder's cap either: the cap is measured every 250 ms, and a
            // fast writer would be far past it by then.
            let file_bytes = limits_copy.file_bytes.min(limits_copy.folder_bytes);
            limit(libc::RLIMIT_FSIZE, file_bytes)?;
            limit(libc::RLIMIT_CORE, 0)?;
            // The open-file limit arbiter was started with, not the one it raised for itself.
            if let Some(files) = &open_files {
                if libc::setrlimit(libc::RLIMIT_NOFILE, files) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            libc::umask(0o022);
            for path in &procs {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
            }
            if root {
                limit(libc::RLIMIT_NPROC, limits_copy.processes)?;
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(BUILD_ID) != 0
                    || libc::setuid(BUILD_ID) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(BoxError::Spawn)?;
    drop(command); // closes the parent's copies of the pipe's writing end
    let keep = limits.output_bytes;
    let collector = std::thread::spawn(move || collect(reader, keep));
    let start = Instant::now();
    let mut measured = start;
    let stop = |child: &mut std::process::Child| {
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(child),
            rustix::process::Signal::KILL,
        );
        if let Some(group) = &group {
            group.kill_all();
        }
        let _ = child.wait();
    };
    // The cap that stopped it, if arbiter stopped it.
    let mut stopped = None;
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(Some(status)),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        if start.elapsed() > limits.time {
            stopped = Some(Cap::Time(limits.time));
        } else if measured.elapsed() >= caps::MEASURE_EVERY {
            measured = Instant::now();
            let seen = folder_bytes(&dir);
            if seen > limits.folder_bytes {
                let cap = limits.folder_bytes;
                stopped = Some(Cap::Folder { cap, seen });
            }
        }
        if stopped.is_some() {
            stop(&mut child);
            break Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = collector.join().unwrap_or_default();
    // The cap it went over, if any, is its verdict: a build that went over its memory may still
    // exit 0 (only one of its processes was killed), one that filled its folder and then
    // emptied it some has kept the cache's disk all the same.
    let seen = folder_bytes(&dir);
    let cap = if group.as_ref().is_some_and(|g| g.memory_exceeded()) {
        Some(Cap::Memory(limits.memory_bytes))
    } else if seen > limits.folder_bytes {
        let cap = limits.folder_bytes;
        Some(Cap::Folder { cap, seen })
    } else {
        stopped
    };
    drop(group); // kills whatever of the build is left, and removes its cgroup
    let (success, status) = match (cap, ended) {
        (Some(cap), _) => (false, cap.to_string()),
        (None, Ok(Some(status))) => (status.success(), status.to_string()),
        (None, Ok(None)) => (false, "stopped".into()),
        (None, Err(e)) => (false, e.to_string()),
    };
    Ok(StepReport {
        success,
        status,
        cap,
        output,
    })
}

/// Reads `reader` to its end, keeping its first `keep` bytes.
fn collect(mut reader: std::io::PipeReader, keep: usize) -> String {
    let mut kept = Vec::new();
    let mut dropped = 0usize;
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = keep.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buf[..room]);
                dropped += n - room;
            }
        }
    }
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if dropped > 0 {
        text.push_str(&format!("\n[... {dropped} more bytes of output dropped]\n"));
    }
    text
}

/// The play sandbox's seccomp filter in a memory file (see [`super::seccomp`]).
fn seccomp_fd() -> Option<OwnedFd> {
    use std::io::{Seek, Write};
    let program = super::seccomp::program()?;
    let fd =
        rustix::fs::memfd_create("arbiter-build-seccomp", rustix::fs::MemfdFlags::CLOEXEC).ok()?;
    let mut file = std::fs::File::from(fd);
    file.write_all(&program).ok()?;
    file.rewind().ok()?;
    Some(OwnedFd::from(file))
}

#[cfg(test)]
mod tests;
