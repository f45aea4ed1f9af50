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
//! memory limit (address space), a file-size limit and bounded output (the rest of a flood is
//! counted and dropped). Nothing else of the host is mounted: not /root, not /home, not the
//! class folder, not the results.
//!
//! The build cache lives under a home folder the unprivileged uid cannot traverse (`/root` is
//! mode 0700), so a build is made in a [`Stage`]: a folder in the system's temporary folder
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

/// Read-only system folders a build sees.
const SYSTEM: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc",
];

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
    pub memory_bytes: u64,
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
            memory_bytes: 8 << 30,
            file_bytes: 1 << 30,
            processes: 512,
            output_bytes: 64 * 1024,
        }
    }
}

/// How a boxed build step ended.
#[derive(Debug)]
pub struct Outcome {
    /// True when the step exited with status 0.
    pub success: bool,
    /// Its exit status, or why it was stopped (the time limit, named).
    pub status: String,
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

/// Gives every entry under `dir` (and `dir`) to `uid`:`gid`, without following symlinks.
fn chown_tree(dir: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(dir, Some(uid), Some(gid))?;
    if std::fs::symlink_metadata(dir)?.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}

/// Makes every file under `dir` readable, and every folder and executable file enterable, by
/// everyone (so a bot run later as another user can start from it); never follows symlinks.
fn open_to_all(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let mode = meta.permissions().mode() & 0o7777 & !0o7000;
    let wanted = if meta.is_dir() || mode & 0o100 != 0 {
        mode | 0o555
    } else {
        mode | 0o444
    };
    if wanted != meta.permissions().mode() & 0o7777 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(wanted))?;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            open_to_all(&entry?.path())?;
        }
    }
    Ok(())
}

/// Removes every symlink under `dir` that leads out of `root` (or to nothing): a build may
/// leave `build.log -> /root/secret` for arbiter to read or write as itself.
fn drop_outside_links(root: &Path, dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            let inside = std::fs::canonicalize(&path).is_ok_and(|t| t.starts_with(root));
            if !inside {
                std::fs::remove_file(&path)?;
            }
        } else if meta.is_dir() {
            drop_outside_links(root, &path)?;
        }
    }
    Ok(())
}

/// Hands the build folder `dir` back to arbiter's user after the builds (see the module
/// documentation): owned by it, without symlinks leading out of it, nothing set-id, readable
/// by all. Every process of the builds has ended (each box is killed with its step).
pub fn finish(dir: &Path) -> Result<(), BoxError> {
    let err = |error| BoxError::Folder {
        path: dir.to_path_buf(),
        error,
    };
    if running_as_root() {
        chown_tree(dir, 0, 0).map_err(err)?;
    }
    let root = std::fs::canonicalize(dir).map_err(err)?;
    drop_outside_links(&root, &root).map_err(err)?;
    open_to_all(dir).map_err(err)
}

/// Writes arbiter's own file `name` (a build log) into a build folder, replacing whatever the
/// build left there under that name (a symlink is replaced, never followed).
pub fn write_own_file(dir: &Path, name: &str, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path)?,
        Ok(_) => std::fs::remove_file(&path)?,
        Err(_) => {}
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    file.write_all(data)
}

/// A build folder in the making, reachable by the build's uid; removed unless installed.
pub struct Stage {
    parent: PathBuf,
    work: PathBuf,
}

impl Stage {
    /// A fresh stage in the system's temporary folder (`/tmp` when arbiter runs as root).
    pub fn new() -> std::io::Result<Stage> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // As root, /tmp itself: a TMPDIR under root's home could not be entered by the build.
        let tmp = if running_as_root() {
            PathBuf::from("/tmp")
        } else {
            std::env::temp_dir()
        };
        let parent = tmp.join(format!(
            "arbiter-build-{}-{nanos}-{}",
            std::process::id(),
            STAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        // Enterable, not listable, by others: the build's uid reaches its folder by name.
        std::fs::DirBuilder::new().mode(0o711).create(&parent)?;
        let stage = Stage {
            work: parent.join("work"),
            parent,
        };
        std::fs::DirBuilder::new().mode(0o700).create(&stage.work)?;
        Ok(stage)
    }

    /// The folder the build works in (`/build` inside the box).
    pub fn dir(&self) -> &Path {
        &self.work
    }

    /// Ends the builds ([`finish`]) and moves the folder to `dest` (a folder that must not
    /// exist yet; if another run installed it meanwhile, that one is kept).
    pub fn install(self, dest: &Path) -> Result<(), BoxError> {
        finish(&self.work)?;
        let err = |error| BoxError::Folder {
            path: dest.to_path_buf(),
            error,
        };
        if std::fs::rename(&self.work, dest).is_err() && !dest.is_dir() {
            // Another file system: copied beside the destination, then renamed into place.
            let beside = dest.with_extension(format!("part-{}", std::process::id()));
            copy_tree(&self.work, &beside).map_err(err)?;
            if let Err(e) = std::fs::rename(&beside, dest) {
                let _ = std::fs::remove_dir_all(&beside);
                if !dest.is_dir() {
                    return Err(err(e));
                }
            }
        }
        Ok(())
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.parent);
    }
}

static STAGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Copies the tree `from` to `to` (files, folders and symlinks as they are).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else if meta.is_dir() {
        std::fs::create_dir(to)?;
        std::fs::set_permissions(to, meta.permissions())?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else if meta.is_file() {
        std::fs::copy(from, to).map(|_| ())
    } else {
        Ok(()) // a FIFO or socket a build left behind is not part of the bot
    }
}

/// Runs `step` (program and arguments; a program without a `/` is looked up on
/// [`SYSTEM_PATH`] inside the box) in the build folder `dir`, in the box, within `limits`.
pub fn run(step: &[String], dir: &Path, limits: &BuildLimits) -> Result<Outcome, BoxError> {
    let bwrap = super::sandbox::bwrap().ok_or(BoxError::NoBwrap)?;
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let folder_err = |error| BoxError::Folder {
        path: dir.clone(),
        error,
    };
    let root = running_as_root();
    if root {
        chown_tree(&dir, BUILD_ID, BUILD_ID).map_err(folder_err)?;
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
    for d in SYSTEM {
        args.extend(["--ro-bind-try", d, d].map(String::from));
    }
    args.extend(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"].map(String::from));
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
    let raw_seccomp = seccomp.as_ref().map(|f| f.as_raw_fd());
    let limits_copy = *limits;
    let open_files = crate::bot::open_files::for_children();
    // SAFETY: only async-signal-safe calls between fork and exec (close_range, dup2, fcntl,
    // setrlimit, umask, setgroups, setgid, setuid), no allocation.
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
            limit(libc::RLIMIT_AS, limits_copy.memory_bytes)?;
            limit(libc::RLIMIT_FSIZE, limits_copy.file_bytes)?;
            limit(libc::RLIMIT_CORE, 0)?;
            // The open-file limit arbiter was started with, not the one it raised for itself.
            if let Some(files) = &open_files {
                if libc::setrlimit(libc::RLIMIT_NOFILE, files) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            libc::umask(0o022);
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
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        if start.elapsed() > limits.time {
            let _ = rustix::process::kill_process_group(
                rustix::process::Pid::from_child(&child),
                rustix::process::Signal::KILL,
            );
            let _ = child.wait();
            break Err(std::io::Error::other(format!(
                "stopped: the build took longer than its wall-clock limit of {} s",
                limits.time.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = collector.join().unwrap_or_default();
    Ok(match status {
        Ok(status) => Outcome {
            success: status.success(),
            status: status.to_string(),
            output,
        },
        Err(e) => Outcome {
            success: false,
            status: e.to_string(),
            output,
        },
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
