//! Keeping the bots of one game apart without the sandbox, where the referee runs as root: each
//! bot starts as the first process of a process-id, a mount, an IPC and a network namespace of
//! its own (made by the spawner's `clone`, with its own /proc, /dev/shm and scratch folders over
//! /tmp, /var/tmp and /run/lock mounted there, see [`super::reach`], and only its own loopback),
//! and without any capability. It then cannot see, signal, trace or reach through /proc its
//! opponent or the referee, shares no folder, IPC object, socket or port with another bot, and
//! everything it starts, writes there or creates dies with it. (Locks and watches on the files
//! every bot reads are refused by its seccomp filter, see [`super::seccomp`]. What stays shared
//! is the machine itself: the time another bot's work takes, and the load it puts on the CPUs
//! and memory, are side channels no namespace closes.) Their cost, measured with `arbiter
//! bench --quick` (2 busy cores, medians of 9 alternated runs, 4 for the split): a game's start
//! and end (two bots) takes about 2.5 ms of the referee's CPU instead of 1.0 ms, 1.2 ms of it
//! for the two network namespaces (their creation and teardown), the rest for the IPC
//! namespaces, the scratch folders and the lease of the user ids.
//!
//! A referee running as root also runs every bot, with or without the sandbox, as a user of its
//! own ([`SeatId`]): a user and group id that no host file belongs to and no other running bot
//! on the machine has. It can then write none of the files root owns (cgroup files, /proc/sys,
//! the results), nor signal, trace or write into another bot.
//!
//! The namespace's first process is not the bot but a minimal init: the kernel ignores the
//! signals a namespace's first process sends itself, so a bot in that place would survive its
//! own `raise(SIGSEGV)` or `abort()` and "exit with status 0". The spawner
//! ([`super::spawn`]) starts the bot as the namespace's second process, then execs the small
//! `arbiter-init` program embedded in arbiter (or, where the kernel will not execute it from
//! memory, arbiter's own program, whose [`init_entry`] catches the init's arguments before
//! `main`); either runs
//! [`super::init`]: it drops its capabilities, forwards TERM, INT and HUP to
//! every other process of the namespace (the referee sends its TERM to the init alone, so the
//! bot gets exactly one), reaps every orphan, and once the bot has ended writes the bot's own wait status
//! into a pipe the referee reads, and exits (taking whatever the bot left with it).

/// The first user and group id of bots: 2^20, above the ids distributions hand out (system users
/// below 1000, people from 1000 up to some 60000, `nobody` 65534) and below those of container
/// tools' subordinate ranges (which start at 100000 times a small number, e.g. 100000 or
/// 165536, but only for user namespaces, never on host files).
pub const FIRST_SEAT_ID: u32 = 1 << 20;

/// How many seat ids there are, machine-wide (leased by [`SeatId`]).
pub const SEAT_IDS: u32 = 1 << 24;

pub use super::seat_id::SeatId;

/// The effective capability mask of this process.
fn effective_caps() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .unwrap_or(0)
}

/// Whether bots run as a user of their own: the referee is root and may change users. Found
/// once.
pub fn changes_user() -> bool {
    static CHANGES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHANGES.get_or_init(|| {
        const CAP_SETGID: u32 = 6;
        const CAP_SETUID: u32 = 7;
        let caps = effective_caps();
        rustix::process::geteuid().is_root()
            && caps & (1 << CAP_SETUID) != 0
            && caps & (1 << CAP_SETGID) != 0
            && ["uid_map", "gid_map"].iter().all(|m| {
                let map = std::fs::read_to_string(format!("/proc/self/{m}")).unwrap_or_default();
                maps_seat_ids(&map)
            })
    })
}

/// Whether a user namespace's id map (`/proc/self/uid_map`'s text) has every seat id: in a
/// container whose root maps only a small range, the seat ids do not exist.
fn maps_seat_ids(map: &str) -> bool {
    let (first, end) = (
        u64::from(FIRST_SEAT_ID),
        u64::from(FIRST_SEAT_ID) + u64::from(SEAT_IDS),
    );
    map.lines().any(|l| {
        let n: Vec<u64> = l
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        n.len() == 3 && n[0] <= first && n[0] + n[2] >= end
    })
}

pub(super) use super::init::{become_user, drop_capabilities, GATE_NAME, INIT_NAME};

/// The program each isolated bot's init runs, open, for the spawner to exec: the small
/// `arbiter-init` embedded in arbiter (see src/bot/init_program.rs), copied once into an
/// in-memory file sealed against every change (no file on disk to install, find or trust);
/// where the kernel refuses an executable in-memory file (`vm.memfd_noexec`), arbiter's own
/// program, whose entry below catches the init's arguments before `main`.
pub(super) fn init_program() -> std::io::Result<libc::c_int> {
    use std::os::fd::AsRawFd;
    static EXE: std::sync::OnceLock<Result<std::fs::File, String>> = std::sync::OnceLock::new();
    // The fallback init only runs where this entry is linked in: keep it.
    std::hint::black_box(&INIT_ENTRY);
    let open = || {
        if let Ok(init) = embedded_init() {
            return Ok(init);
        }
        std::fs::File::open("/proc/self/exe").map_err(|e| e.to_string())
    };
    match EXE.get_or_init(open) {
        Ok(f) => Ok(f.as_raw_fd()),
        Err(e) => Err(std::io::Error::other(format!(
            "cannot open arbiter's own program (/proc/self/exe), which runs as each bot's init: {e}"
        ))),
    }
}

/// The bytes of `arbiter-init`, built by src/build.rs.
pub(super) const EMBEDDED_INIT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/arbiter-init"));

/// `arbiter-init` in a sealed in-memory file (close-on-exec: the spawner execs it by its
/// descriptor, and no bot inherits it).
pub(super) fn embedded_init() -> std::io::Result<std::fs::File> {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    let flags = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
    // MFD_EXEC says the file is to be executed (kernels from 6.3 on, where the default may
    // forbid it); older kernels refuse the flag, and allow it anyway.
    // SAFETY: a C string and flags.
    let mut fd = unsafe { libc::memfd_create(c"arbiter-init".as_ptr(), flags | libc::MFD_EXEC) };
    if fd < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
        // SAFETY: as above.
        fd = unsafe { libc::memfd_create(c"arbiter-init".as_ptr(), flags) };
    }
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a new descriptor, owned from here on.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.write_all(EMBEDDED_INIT)?;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: fcntl on an open descriptor.
    if unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, seals) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

/// Runs before `main` in every process of a binary that holds this library (glibc passes
/// `argc`, `argv` and `envp` to these entries): in a bot's init, it runs the init and exits;
/// anywhere else it returns at once.
#[used]
#[link_section = ".init_array"]
static INIT_ENTRY: extern "C" fn(
    libc::c_int,
    *const *const libc::c_char,
    *const *const libc::c_char,
) = init_entry;

extern "C" fn init_entry(
    argc: libc::c_int,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
) {
    // SAFETY: argv holds argc valid C strings, envp the environment (glibc's arguments to
    // .init_array entries).
    if let Some(status) = unsafe { super::init::gate_of(argc, argv, envp) } {
        super::init::sys::exit(status);
    }
    // SAFETY: as above.
    if let Some(status) = unsafe { super::init::main_of(argc, argv) } {
        // Ending this process, which was only ever an init.
        super::init::sys::exit(status);
    }
}

/// Whether bots are isolated from each other and from the referee without the sandbox: where
/// the referee runs as root with CAP_SYS_ADMIN, which making the namespaces and mounting /proc
/// need (a container's root often lacks it). Found once.
pub fn isolate() -> bool {
    static ISOLATE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ISOLATE.get_or_init(|| {
        const CAP_SYS_ADMIN: u32 = 21;
        rustix::process::geteuid().is_root() && effective_caps() & (1 << CAP_SYS_ADMIN) != 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_init_is_a_static_program_sealed_against_change() {
        use std::io::{Read, Seek, Write};
        let mut init = embedded_init().unwrap();
        let mut bytes = Vec::new();
        init.rewind().unwrap();
        init.read_to_end(&mut bytes).unwrap();
        assert_eq!(bytes, EMBEDDED_INIT);
        assert_eq!(&bytes[..4], b"\x7fELF");
        // No program interpreter (PT_INTERP): nothing but the kernel loads it.
        assert!(
            !bytes.windows(8).any(|w| w == b"ld-linux"),
            "a dynamic program"
        );
        init.rewind().unwrap();
        assert!(
            init.write_all(b"\x7fELF").is_err(),
            "the in-memory file can be written"
        );
        assert!(init.set_len(1).is_err(), "the in-memory file can be shrunk");
    }

    #[test]
    fn seat_ids_need_a_map_that_holds_them() {
        assert!(maps_seat_ids("         0          0 4294967295\n"));
        assert!(!maps_seat_ids("         0     100000      65536\n"));
    }
}
