//! Keeping the bots of one game apart without the sandbox, where the referee runs as root: each
//! bot starts as the first process of a process-id and a mount namespace of its own (made by the
//! spawner's `clone`, with its own /proc and /dev/shm mounted there), and without any capability.
//! It then cannot see, signal, trace or reach through /proc its opponent or the referee, and
//! everything it starts dies with it.

/// Drops every capability for good: root's exec no longer grants them back (securebits,
/// locked), the bounding set is emptied, the sets cleared, and no new privileges.
/// Async-signal-safe: raw system calls only.
pub(super) unsafe fn drop_capabilities() -> bool {
    // SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE, each locked.
    const SECUREBITS: libc::c_ulong = 0b1100_1111;
    if libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0) != 0 {
        return false;
    }
    for cap in 0..64 {
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let none = [
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
    ];
    libc::syscall(libc::SYS_capset, &header, none.as_ptr()) == 0
        && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
}

/// Whether bots are isolated from each other and from the referee without the sandbox: where
/// the referee runs as root with CAP_SYS_ADMIN, which making the namespaces and mounting /proc
/// need (a container's root often lacks it). Found once.
pub fn isolate() -> bool {
    static ISOLATE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ISOLATE.get_or_init(|| {
        const CAP_SYS_ADMIN: u32 = 21;
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let effective = status
            .lines()
            .find_map(|l| l.strip_prefix("CapEff:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .unwrap_or(0);
        rustix::process::geteuid().is_root() && effective & (1 << CAP_SYS_ADMIN) != 0
    })
}
