//! Keeping the bots of one game apart without the sandbox, where the referee runs as root: each
//! bot starts as the first process of a process-id and a mount namespace of its own (made by the
//! spawner's `clone`, with its own /proc and /dev/shm mounted there), and without any capability.
//! It then cannot see, signal, trace or reach through /proc its opponent or the referee, and
//! everything it starts dies with it.
//!
//! A referee running as root also runs every bot, with or without the sandbox, as a user of its
//! own ([`SeatId`]): a user and group id that no host file belongs to and no other running bot
//! has. It can then write none of the files root owns (cgroup files, /proc/sys, the results),
//! nor signal, trace or write into another bot.

/// The first user and group id of bots: 2^20, above the ids distributions hand out (system users
/// below 1000, people from 1000 up to some 60000, `nobody` 65534) and below those of container
/// tools' subordinate ranges (which start at 100000 times a small number, e.g. 100000 or
/// 165536, but only for user namespaces, never on host files).
pub const FIRST_SEAT_ID: u32 = 1 << 20;

/// Bots one referee runs at once, at most.
const SEATS: u32 = 1 << 10;

static SEATS_TAKEN: std::sync::Mutex<Vec<bool>> = std::sync::Mutex::new(Vec::new());

/// The user and group id one running bot has (as root): `FIRST_SEAT_ID`, plus 1024 times the
/// referee's process id modulo 2^14 (two referees side by side use different ids), plus a slot
/// no other bot of this referee holds. Given back when dropped.
#[derive(Debug)]
pub struct SeatId {
    slot: u32,
    pub id: u32,
}

impl SeatId {
    /// A free id, where the referee can change its user (root with CAP_SETUID and
    /// CAP_SETGID); `None` otherwise (bots then run as the referee's user).
    pub fn take() -> Option<Result<SeatId, String>> {
        if !changes_user() {
            return None;
        }
        let mut taken = SEATS_TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if taken.is_empty() {
            taken.resize(SEATS as usize, false);
        }
        let Some(slot) = taken.iter().position(|t| !t) else {
            return Some(Err(format!(
                "more than {SEATS} bots at once in one referee; play fewer games at a time"
            )));
        };
        taken[slot] = true;
        let slot = slot as u32;
        let base = FIRST_SEAT_ID + (std::process::id() % (1 << 14)) * SEATS;
        Some(Ok(SeatId {
            slot,
            id: base + slot,
        }))
    }
}

impl Drop for SeatId {
    fn drop(&mut self) {
        let mut taken = SEATS_TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = taken.get_mut(self.slot as usize) {
            *t = false;
        }
    }
}

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
        u64::from(FIRST_SEAT_ID) + (1 << 14) * u64::from(SEATS),
    );
    map.lines().any(|l| {
        let n: Vec<u64> = l
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        n.len() == 3 && n[0] <= first && n[0] + n[2] >= end
    })
}

/// Becomes user and group `id` (and no other group): from root, every capability goes with it.
/// Async-signal-safe: raw system calls only.
pub(super) unsafe fn become_user(id: u32) -> bool {
    libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) == 0
        && libc::syscall(libc::SYS_setresgid, id, id, id) == 0
        && libc::syscall(libc::SYS_setresuid, id, id, id) == 0
}

/// Drops every capability for good: root's exec no longer grants them back (securebits,
/// locked), the bounding set is emptied, the sets cleared, and no new privileges. With `user`,
/// it also becomes that user (between emptying the bounding set and clearing the sets).
/// Async-signal-safe: raw system calls only.
pub(super) unsafe fn drop_capabilities(user: Option<u32>) -> bool {
    // SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE, each locked.
    const SECUREBITS: libc::c_ulong = 0b1100_1111;
    if libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0) != 0 {
        return false;
    }
    for cap in 0..64 {
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    // The capabilities stay through the change of user (SECBIT_NO_SETUID_FIXUP) and are
    // cleared just below.
    if let Some(id) = user {
        if !become_user(id) {
            return false;
        }
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
        rustix::process::geteuid().is_root() && effective_caps() & (1 << CAP_SYS_ADMIN) != 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_ids_need_a_map_that_holds_them() {
        assert!(maps_seat_ids("         0          0 4294967295\n"));
        assert!(!maps_seat_ids("         0     100000      65536\n"));
    }
}
