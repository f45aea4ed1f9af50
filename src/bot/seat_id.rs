//! The user id of each bot a referee running as root starts ([`SeatId`]), leased machine-wide
//! so that no two bots that could see each other's leftovers ever share one: not two bots of
//! one run, and not two bots of two runs at once (ids that a referee once derived from its own
//! process id were shared by two referees whose ids differ by a multiple of 16,384).
//!
//! Every referee on the machine leases its ids through one file, /run/arbiter/seats (root's,
//! in a folder only root may enter; /run is emptied at each boot): a bot's id is held by an
//! open-file-description lock on one byte of it (the byte at 8 plus the id's slot), which the
//! kernel drops when the referee ends, however it ends, so an id is never leased twice at once
//! and never left leased by a referee that died. A cursor in the file's first 8 bytes (read and
//! moved under a lock of its own) hands out the slots in turn, machine-wide, so a slot comes
//! back only after all 2^24 have been used.
//!
//! Ids are still reused after that. What keeps a bot from ever finding an earlier one's
//! leftovers is that no bot can leave any: an isolated bot writes only into scratch folders of
//! its own and keeps its IPC objects in a namespace of its own (see [`super::reach`] and
//! [`super::isolation`]); a sandboxed one sees only the box's own /tmp and /dev/shm. (A root
//! referee without CAP_SYS_ADMIN can do neither: there the turn of 2^24 slots is all there is.)

use super::isolation::{changes_user, FIRST_SEAT_ID, SEAT_IDS};
use std::collections::HashSet;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::{Mutex, OnceLock};

/// The folder and file of the lease.
const LEASE_DIR: &str = "/run/arbiter";
const LEASE_FILE: &str = "/run/arbiter/seats";

/// The bytes of the cursor, at the start of the file; a slot's lock is at `SLOTS_AT + slot`.
const CURSOR_LEN: i64 = 8;
const SLOTS_AT: i64 = CURSOR_LEN;

/// The slots this referee holds (a lock of this process does not conflict with its own).
static HELD: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

/// The user and group id one running bot has (as root), leased machine-wide until dropped.
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
        Some(take_slot().map(|slot| SeatId {
            slot,
            id: FIRST_SEAT_ID + slot,
        }))
    }
}

impl Drop for SeatId {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        if let Ok(file) = lease_file() {
            let _ = lock(
                file,
                libc::F_UNLCK,
                SLOTS_AT + i64::from(self.slot),
                1,
                false,
            );
        }
        if let Some(h) = held.as_mut() {
            h.remove(&self.slot);
        }
    }
}

/// The lease file, opened once.
fn lease_file() -> Result<&'static File, String> {
    static FILE: OnceLock<Result<File, String>> = OnceLock::new();
    FILE.get_or_init(|| {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(LEASE_DIR);
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(LEASE_FILE)
            .map_err(|e| {
                format!(
                    "cannot open {LEASE_FILE}, where referees running as root lease their \
                     bots' user ids: {e}; arbiter needs /run writable by root"
                )
            })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// An open-file-description lock of `kind` on `len` bytes at `start`: `Ok(false)` when another
/// holds a conflicting one (and `wait` is false).
fn lock(file: &File, kind: i32, start: i64, len: i64, wait: bool) -> std::io::Result<bool> {
    // SAFETY: a zeroed flock is valid; fcntl reads it.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_start = start;
    fl.l_len = len;
    let cmd = if wait {
        libc::F_OFD_SETLKW
    } else {
        libc::F_OFD_SETLK
    };
    loop {
        // SAFETY: fcntl on an open descriptor with a valid flock.
        if unsafe { libc::fcntl(file.as_raw_fd(), cmd, &fl) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN | libc::EACCES) if !wait => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// Leases the next free slot after the machine-wide cursor.
fn take_slot() -> Result<u32, String> {
    use std::os::unix::fs::FileExt;
    let file = lease_file()?;
    let failed =
        |e: std::io::Error| format!("cannot lease a user id for the bot in {LEASE_FILE}: {e}");
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    let held = held.get_or_insert_with(HashSet::new);
    lock(file, libc::F_WRLCK, 0, CURSOR_LEN, true).map_err(failed)?;
    let taken = (|| {
        let mut bytes = [0u8; CURSOR_LEN as usize];
        let cursor = match file.read_exact_at(&mut bytes, 0) {
            Ok(()) => u64::from_le_bytes(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => 0,
            Err(e) => return Err(failed(e)),
        };
        for i in 0..u64::from(SEAT_IDS) {
            let slot = ((cursor + i) % u64::from(SEAT_IDS)) as u32;
            if held.contains(&slot) {
                continue;
            }
            if lock(file, libc::F_WRLCK, SLOTS_AT + i64::from(slot), 1, false).map_err(failed)? {
                let next = (u64::from(slot) + 1) % u64::from(SEAT_IDS);
                file.write_all_at(&next.to_le_bytes(), 0).map_err(failed)?;
                held.insert(slot);
                return Ok(slot);
            }
        }
        Err(format!(
            "all {SEAT_IDS} bot user ids are in use on this machine; play fewer games at a time"
        ))
    })();
    let _ = lock(file, libc::F_UNLCK, 0, CURSOR_LEN, false);
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_held_at_once_differ_and_the_cursor_moves_on() {
        if !changes_user() {
            assert!(
                std::env::var_os("CI").is_none(),
                "seat ids are leased only as root: run the tests as root (CI does)"
            );
            return;
        }
        let a = SeatId::take().unwrap().unwrap();
        let b = SeatId::take().unwrap().unwrap();
        assert_ne!(a.id, b.id);
        let a_id = a.id;
        drop(a);
        // A freed id does not come back next: the cursor has moved past it.
        let c = SeatId::take().unwrap().unwrap();
        assert_ne!(c.id, a_id);
        assert_ne!(c.id, b.id);
    }
}
