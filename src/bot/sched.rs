//! A short scheduler slice for the threads that run games. The referee must act the moment a
//! bot answers (to freeze it, to stop its clock); on a busy machine its woken thread otherwise
//! waits for the task running on its CPU to finish its slice (a few milliseconds), while the
//! bot that just answered keeps running on another CPU. Linux 6.12 and later let a thread ask
//! for a shorter slice (`sched_setattr` with `sched_runtime` under SCHED_OTHER), and a waking
//! thread with a shorter slice preempts at once. Older kernels ignore or refuse the request;
//! nothing else changes then.

use std::cell::Cell;

/// The slice asked for, in nanoseconds (the kernel accepts 0.1 to 100 ms).
const SLICE_NS: u64 = 100_000;

#[repr(C)]
#[derive(Default)]
struct SchedAttr {
    size: u32,
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
}

thread_local! {
    static DONE: Cell<bool> = const { Cell::new(false) };
}

/// Asks, once per thread, for a short slice for the calling thread, keeping its policy and
/// nice value. Returns whether the kernel took it.
pub fn short_slice_for_this_thread() -> bool {
    if DONE.with(|d| d.replace(true)) {
        return false;
    }
    let mut attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        ..SchedAttr::default()
    };
    // SAFETY: the kernel writes at most `size` bytes into `attr`.
    let got = unsafe {
        libc::syscall(
            libc::SYS_sched_getattr,
            0,
            &mut attr as *mut SchedAttr,
            std::mem::size_of::<SchedAttr>() as u32,
            0,
        )
    };
    if got != 0 || attr.policy != libc::SCHED_OTHER as u32 {
        return false;
    }
    attr.size = std::mem::size_of::<SchedAttr>() as u32;
    attr.runtime = SLICE_NS;
    attr.flags = 0;
    // SAFETY: reads `attr` only.
    unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) == 0 }
}
