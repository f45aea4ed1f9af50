//! Reusing a game thread's bot cgroups from game to game. Making a bot's cgroups (a `mkdir` per
//! controller, its limits written) and removing them (`rmdir`, which in the memory controller
//! takes the kernel's cgroup locks and an RCU grace period) was a fifth of the referee's CPU for
//! a game's start and end. A cgroup whose bot has ended is kept by the thread that played the
//! game (a tournament worker) and given to that thread's next bot, if and only if it is proven
//! fit for a new bot:
//! - empty: no process listed in any of its controllers and, where a pids controller counts
//!   them, no task left at all (a zombie not yet reaped counts);
//! - thawed: its freezer reads THAWED (v1) or not frozen (v2), so the next bot does not start
//!   frozen;
//! - no memory charge of the last bot left: what the memory controller still counts (files the
//!   bot left in the page cache, kernel objects) is reclaimed (`memory.force_empty` in v1,
//!   `memory.reclaim` in v2); a cgroup still charged more than [`MAX_RESIDUE_BYTES`] afterwards
//!   is removed, and a smaller residue (kernel objects) is added to the next bot's limit, so no
//!   bot has less than its `--memory-mb` (it may get up to that residue more, once the kernel
//!   frees those objects);
//! - counters read afresh: the OOM-kill and refused-fork counts only grow, so the next bot's
//!   verdicts count from their values now.
//!
//! A cgroup that fails any of these is removed as before. The spares are removed when their
//! thread ends (the end of a run's workers); on a stop or a kill of the referee its watchdog
//! removes them with the rest (they keep their `arbiter-PID-nsINODE-N` names).

use super::control::{self, Control};
use super::Cgroup;
use std::cell::RefCell;
use std::path::Path;

/// Spares a thread keeps at most: enough for the seats of any game.
const MAX_SPARES: usize = 8;

/// The most memory a spare may still be charged with, after reclaim, to be reused: kernel
/// objects its last bot left, which reclaim does not free (on the 2-core VM, cgroup v1: 80 to
/// 190 KiB after a bot that played and left files in the page cache, 480 KiB after a bot killed
/// for going over its memory limit). It is added to the next bot's limit.
pub const MAX_RESIDUE_BYTES: u64 = 1024 * 1024;

thread_local! {
    /// This thread's spares, most recently ended last. Dropped (removed) when the thread ends.
    static SPARES: RefCell<Vec<Cgroup>> = const { RefCell::new(Vec::new()) };
}

/// A spare of this thread made with the same limits, if there is one.
pub(super) fn take(requested: (Option<u64>, Option<u64>)) -> Option<Cgroup> {
    SPARES
        .try_with(|spares| {
            let mut spares = spares.borrow_mut();
            let i = spares.iter().rposition(|g| g.requested == requested)?;
            Some(spares.swap_remove(i))
        })
        .ok()
        .flatten()
}

/// Takes back the cgroup of an ended bot (killed and reaped): kept for this thread's next bot
/// if it is proven fit, removed otherwise.
pub fn give_back(mut group: Cgroup) {
    let room = SPARES.try_with(|s| s.borrow().len() < MAX_SPARES);
    if room != Ok(true) || !make_ready(&mut group) {
        return;
    }
    let _ = SPARES.try_with(|s| s.borrow_mut().push(group));
}

/// Takes this thread's spares away, for another thread that starts the same worker's bots
/// (see [`adopt_spares`]).
pub fn take_spares() -> Vec<Cgroup> {
    SPARES
        .try_with(|s| std::mem::take(&mut *s.borrow_mut()))
        .unwrap_or_default()
}

/// Makes `spares` (proven fit by the thread that gave them back) this thread's, as many as it
/// may keep; the rest are removed.
pub fn adopt_spares(spares: Vec<Cgroup>) {
    let _ = SPARES.try_with(|s| {
        let mut mine = s.borrow_mut();
        let room = MAX_SPARES.saturating_sub(mine.len());
        mine.extend(spares.into_iter().take(room));
    });
}

/// Removes this thread's spares now (a worker at the end of its run), rather than when the
/// thread ends.
pub fn drop_spares() {
    let spares = SPARES.try_with(|s| std::mem::take(&mut *s.borrow_mut()));
    drop(spares);
}

/// Proves `group` fit for a new bot (see the module's comment) and sets it up for one.
fn make_ready(group: &mut Cgroup) -> bool {
    if group.has_freezer() && !(group.thaw() && thawed(group)) {
        return false;
    }
    // A pids controller that counts no task proves it empty (every task of the bot joined all
    // its cgroups at once, and none can leave them); else anything listed is killed (and the
    // cgroup then removed by the caller's drop).
    let tasks = group.pids.as_ref().and_then(|_| {
        group
            .control
            .pids_current
            .as_ref()
            .and_then(control::number)
    });
    match tasks {
        Some(0) => {}
        Some(_) => {
            group.kill_all();
            return false;
        }
        None if group.kill_all() > 0 => return false,
        None => {}
    }
    if let Some((dir, v2)) = &group.memory {
        let Some(residue) = reclaim(&group.control, dir, *v2) else {
            return false;
        };
        if let Some(limit) = group.requested.1.filter(|_| group.memory_bytes.is_some()) {
            if !set_memory_limit(&group.control, limit + residue) {
                return false;
            }
        }
    }
    group.oom_base = group.oom_kills();
    group.pids_base = group.refused_forks();
    true
}

/// Whether the freezer reads thawed.
fn thawed(group: &Cgroup) -> bool {
    let Some((_, v2, _)) = &group.freezer else {
        return true;
    };
    let mut text = Vec::new();
    let read = group.control.freeze_state.as_ref();
    if !read.is_some_and(|f| control::read(f, &mut text)) {
        return false;
    }
    let text = String::from_utf8_lossy(&text);
    match v2 {
        false => text.trim() == "THAWED",
        true => text.lines().any(|l| l.trim() == "frozen 0"),
    }
}

/// What an empty memory cgroup is still charged with, reclaimed first when it is more than
/// [`MAX_RESIDUE_BYTES`]; `None` when it stays above that.
fn reclaim(files: &Control, dir: &Path, v2: bool) -> Option<u64> {
    let usage = files.usage.as_ref()?;
    let charged = control::number(usage)?;
    if charged <= MAX_RESIDUE_BYTES {
        return Some(charged);
    }
    let _ = if v2 {
        std::fs::write(dir.join("memory.reclaim"), charged.to_string())
    } else {
        std::fs::write(dir.join("memory.force_empty"), "0")
    };
    control::number(usage).filter(|&u| u <= MAX_RESIDUE_BYTES)
}

/// Sets the memory limit (and in v1, where swap is accounted, the memory + swap limit, which
/// may not be below it).
fn set_memory_limit(files: &Control, bytes: u64) -> bool {
    let Some(limit) = &files.limit else {
        return false;
    };
    let now = control::number(limit);
    if now == Some(bytes) {
        return true;
    }
    let text = bytes.to_string();
    // Raising: memory + swap first; lowering: memory first.
    let raising = now.is_none_or(|n| bytes > n);
    if let (true, Some(memsw)) = (raising, &files.memsw) {
        control::write(memsw, &text);
    }
    let set = control::write(limit, &text);
    if let (false, Some(memsw)) = (raising, &files.memsw) {
        control::write(memsw, &text);
    }
    set
}
