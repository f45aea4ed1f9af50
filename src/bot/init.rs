//! The minimal init of an isolated bot's namespace (see `bot::isolation`), and the steps that
//! take a process from root to a bot's own user without any capability. Only `core` and raw
//! system calls (its own [`sys`]): no libc, no allocation, nothing else of arbiter. The same
//! file is the whole of the small `arbiter-init` program (src/bot/init_program.rs, built by
//! src/build.rs without the C library and embedded in arbiter), which the spawner execs as each
//! isolated bot's first process: a program that the dynamic loader and glibc's start-up never
//! touch (they cost an init about 0.6 ms of CPU on a virtual machine, where reading the CPU's
//! features traps to the hypervisor). The library runs it too, as the fallback init of a
//! process that cannot execute the embedded program (see `isolation::init_program`).

use core::ffi::{c_char, c_int, CStr};

/// The first argument (argv[0]) of the init.
pub const INIT_NAME: &CStr = c"arbiter-init";

/// The first argument (argv[0]) of a held bot's gate (see [`gate_of`]).
pub const GATE_NAME: &CStr = c"arbiter-gate";

/// [`GATE_NAME`]'s bytes.
const GATE_NAME_BYTES: &[u8] = b"arbiter-gate";

/// [`INIT_NAME`]'s bytes (a `CStr`'s length is found with the C library's `strlen`, which the
/// init does not have).
const INIT_NAME_BYTES: &[u8] = b"arbiter-init";

/// Raw Linux system calls for the init (x86-64 and AArch64): numbers and constants as the
/// kernel's headers give them; a unit test checks each against the libc crate's.
pub mod sys {
    #[cfg(target_arch = "x86_64")]
    mod nr {
        pub const READ: usize = 0;
        pub const CLOSE: usize = 3;
        pub const EXECVE: usize = 59;
        pub const SCHED_SETAFFINITY: usize = 203;
        pub const WRITE: usize = 1;
        pub const RT_SIGACTION: usize = 13;
        pub const RT_SIGPROCMASK: usize = 14;
        pub const GETPID: usize = 39;
        pub const WAIT4: usize = 61;
        pub const KILL: usize = 62;
        pub const SETRESUID: usize = 117;
        pub const SETRESGID: usize = 119;
        pub const SETGROUPS: usize = 116;
        pub const CAPSET: usize = 126;
        pub const RT_SIGTIMEDWAIT: usize = 128;
        pub const PRCTL: usize = 157;
        pub const EXIT_GROUP: usize = 231;
    }
    #[cfg(target_arch = "aarch64")]
    mod nr {
        pub const READ: usize = 63;
        pub const CLOSE: usize = 57;
        pub const EXECVE: usize = 221;
        pub const SCHED_SETAFFINITY: usize = 122;
        pub const WRITE: usize = 64;
        pub const RT_SIGACTION: usize = 134;
        pub const RT_SIGPROCMASK: usize = 135;
        pub const GETPID: usize = 172;
        pub const WAIT4: usize = 260;
        pub const KILL: usize = 129;
        pub const SETRESUID: usize = 147;
        pub const SETRESGID: usize = 149;
        pub const SETGROUPS: usize = 159;
        pub const CAPSET: usize = 91;
        pub const RT_SIGTIMEDWAIT: usize = 137;
        pub const PRCTL: usize = 167;
        pub const EXIT_GROUP: usize = 94;
    }
    pub use nr::*;

    pub const PR_SET_PDEATHSIG: usize = 1;
    pub const PR_SET_DUMPABLE: usize = 4;
    pub const PR_CAPBSET_DROP: usize = 24;
    pub const PR_SET_SECUREBITS: usize = 28;
    pub const PR_SET_NO_NEW_PRIVS: usize = 38;
    pub const SIG_SETMASK: usize = 2;
    pub const WNOHANG: usize = 1;
    pub const EINTR: isize = 4;
    pub const EINVAL: isize = 22;
    pub const SIGHUP: u32 = 1;
    pub const SIGINT: u32 = 2;
    pub const SIGKILL: u32 = 9;
    pub const SIGTERM: u32 = 15;
    pub const SIGCHLD: u32 = 17;
    /// The kernel's signal set: one bit per signal, signal n at bit n - 1.
    pub type SigSet = u64;

    /// System call `n` with six arguments: its result, or minus the error number.
    ///
    /// # Safety
    /// The arguments must be what system call `n` expects: every address among them points to
    /// memory valid for what the call reads and writes there, for as long as the call runs, and
    /// what the call changes (memory, descriptors, credentials, signals, the process itself)
    /// must break nothing the caller's program relies on.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub unsafe fn call(n: usize, a: [usize; 6]) -> isize {
        // SAFETY: `syscall` takes the number in rax and the arguments in rdi, rsi, rdx, r10,
        // r8 and r9, returns in rax and clobbers only rcx and r11 (declared), without the
        // stack; what the call does besides is the caller's to vouch for (see # Safety).
        unsafe {
            let ret: isize;
            core::arch::asm!(
                "syscall",
                inlateout("rax") n as isize => ret,
                in("rdi") a[0], in("rsi") a[1], in("rdx") a[2],
                in("r10") a[3], in("r8") a[4], in("r9") a[5],
                lateout("rcx") _, lateout("r11") _,
                options(nostack),
            );
            ret
        }
    }

    /// System call `n` with six arguments: its result, or minus the error number.
    ///
    /// # Safety
    /// As the x86-64 `call`: the arguments must be what system call `n` expects, every
    /// address among them valid for what the call reads and writes there, and what it changes
    /// must break nothing the caller's program relies on.
    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    pub unsafe fn call(n: usize, a: [usize; 6]) -> isize {
        // SAFETY: `svc 0` takes the number in x8 and the arguments in x0 to x5, returns in x0
        // and clobbers no other register, without the stack; what the call does besides is
        // the caller's to vouch for (see # Safety).
        unsafe {
            let ret: isize;
            core::arch::asm!(
                "svc 0",
                in("x8") n,
                inlateout("x0") a[0] as isize => ret,
                in("x1") a[1], in("x2") a[2], in("x3") a[3], in("x4") a[4], in("x5") a[5],
                options(nostack),
            );
            ret
        }
    }

    /// `call` with fewer arguments (the rest zero).
    ///
    /// # Safety
    /// As [`call`], for system call `n` with these three arguments and zero for the others
    /// (which the calls made through it ignore or read as "none").
    #[inline(always)]
    pub unsafe fn call3(n: usize, a0: usize, a1: usize, a2: usize) -> isize {
        // SAFETY: the caller vouches for `n` with these arguments and zeros (see # Safety),
        // which is `call`'s contract.
        unsafe { call(n, [a0, a1, a2, 0, 0, 0]) }
    }

    /// Ends the process with `status`.
    pub fn exit(status: i32) -> ! {
        loop {
            // SAFETY: exit_group takes its status by value, reads no memory and ends every
            // thread of the process: nothing of the program runs after it.
            unsafe { call3(EXIT_GROUP, status as usize, 0, 0) };
        }
    }
}

use sys::call3;

/// Becomes user and group `id` (and no other group): from root, every capability goes with it.
/// Async-signal-safe: raw system calls only.
///
/// # Safety
/// The calling thread must be the only one of its process (a child just forked, the init):
/// the raw system calls change the credentials of the calling thread alone (the C library's
/// wrappers change every thread's), so any other thread would go on as root.
pub unsafe fn become_user(id: u32) -> bool {
    // SAFETY: setgroups with a size of 0 reads no list (the null address is never read);
    // setresgid and setresuid take ids by value. No memory is touched, and the caller is the
    // process's one thread (see # Safety).
    unsafe {
        let id = id as usize;
        call3(sys::SETGROUPS, 0, 0, 0) == 0
            && call3(sys::SETRESGID, id, id, id) == 0
            && call3(sys::SETRESUID, id, id, id) == 0
    }
}

/// Drops every capability for good: root's exec no longer grants them back (securebits,
/// locked), the bounding set is emptied, the sets cleared, and no new privileges. With `user`,
/// it also becomes that user (between emptying the bounding set and clearing the sets).
/// Async-signal-safe: raw system calls only.
///
/// # Safety
/// As [`become_user`]: the calling thread must be the only one of its process (securebits,
/// the bounding set and the capability sets are the calling thread's, as its credentials).
pub unsafe fn drop_capabilities(user: Option<u32>) -> bool {
    // SAFETY: the prctl calls take values only; capset reads `header` (two words) and `none`
    // (two sets of three words), locals alive during the call; `become_user` asks what this
    // function's caller vouches for: the process's one thread (see # Safety).
    unsafe {
        // SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE, each locked.
        const SECUREBITS: usize = 0b1100_1111;
        if call3(sys::PRCTL, sys::PR_SET_SECUREBITS, SECUREBITS, 0) != 0 {
            return false;
        }
        // Capabilities are numbered from 0 up to the kernel's last one, past which the kernel says
        // EINVAL: the first EINVAL ends the bounding set.
        for cap in 0..64 {
            if call3(sys::PRCTL, sys::PR_CAPBSET_DROP, cap, 0) == -sys::EINVAL {
                break;
            }
        }
        // The capabilities stay through the change of user (SECBIT_NO_SETUID_FIXUP) and are
        // cleared just below.
        if let Some(id) = user {
            if !become_user(id) {
                return false;
            }
        }
        // _LINUX_CAPABILITY_VERSION_3 and pid 0 (this thread); two empty sets of three words.
        let header: [u32; 2] = [0x2008_0522, 0];
        let none = [0u32; 6];
        call3(
            sys::CAPSET,
            header.as_ptr() as usize,
            none.as_ptr() as usize,
            0,
        ) == 0
            && call3(sys::PRCTL, sys::PR_SET_NO_NEW_PRIVS, 1, 0) == 0
    }
}

/// The bytes of the C string at `p` (without its NUL).
///
/// # Safety
/// `p` is a valid C string: not null, readable up to and with its NUL, and unchanged for as
/// long as the returned slice (`'a`) is used.
unsafe fn c_bytes<'a>(p: *const c_char) -> &'a [u8] {
    // SAFETY: every read is at `p + len` with no NUL before it, so inside the string the
    // caller vouches for; the slice covers those bytes only, valid for `'a` by the same
    // contract (see # Safety).
    unsafe {
        let mut len = 0;
        // Read one by one as written: optimised, a plain loop becomes a call to the C library's
        // `strlen`, which the init does not have.
        while core::ptr::read_volatile(p.add(len)) != 0 {
            len += 1;
        }
        core::slice::from_raw_parts(p.cast::<u8>(), len)
    }
}

/// A decimal `u32` (digits only).
fn decimal(text: &[u8]) -> Option<u32> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u32, |n, &b| {
        b.is_ascii_digit()
            .then_some(())
            .and_then(|_| n.checked_mul(10))
            .and_then(|n| n.checked_add((b - b'0') as u32))
    })
}

/// The init's whole run when `argv` is an init's (`arbiter-init STATUS_FD USER|- BOT_PID`, as
/// the namespace's first process): its exit status. `None` for any other program's arguments.
///
/// # Safety
/// `argv` points to `argc` pointers, each a valid C string (see [`c_bytes`]). Where the process
/// is pid 1 of its namespace and the arguments are an init's, it runs the init (see
/// [`run_init`]): then the caller must be the process's only thread, and the init's status
/// descriptor and bot process those of a namespace arbiter started.
pub unsafe fn main_of(argc: c_int, argv: *const *const c_char) -> Option<c_int> {
    // SAFETY: `*argv` is read only once `argc` is 4 and `argv` is not null, and `argv.add(i)`
    // only for `i` from 1 to 3, all inside the `argc` pointers the caller vouches for, each a
    // valid C string as `c_bytes` asks; `run_init` runs only as pid 1 with an init's
    // arguments, where the caller vouches for its contract (see # Safety).
    unsafe {
        if argc != 4 || argv.is_null() || (*argv).is_null() || call3(sys::GETPID, 0, 0, 0) != 1 {
            return None;
        }
        if c_bytes(*argv) != INIT_NAME_BYTES {
            return None;
        }
        let number = |i: usize| decimal(c_bytes(*argv.add(i)));
        let (Some(status_fd), user, Some(bot)) = (number(1), number(2), number(3)) else {
            return Some(127);
        };
        Some(run_init(status_fd as c_int, user, bot as i32))
    }
}

/// The gate of a bot started ahead of its game (`arbiter-gate GO_FD CPU|- PROGRAM ARGV0
/// ARGS...`, run as the bot's process, with the bot's user, cgroups, limits and seccomp filter
/// already in place): waits for one byte on GO_FD, which the referee writes when the bot's
/// game starts, then pins itself to CPU (if one is given) and execs the bot's program with the
/// bot's environment `envp`. No code of the bot runs before its game, so its first turn still
/// holds its whole start-up. An end of file on GO_FD (the game was not played) ends it with
/// status 0. Its exit status, when the exec fails, is 127 (the reason on stderr). `None` for
/// any other program's arguments.
///
/// # Safety
/// `argv` points to `argc` pointers, each a valid C string (see [`c_bytes`]), and a null after
/// them; `envp` is a null-terminated list of C strings. Where the arguments are a gate's, it
/// reads from and closes GO_FD and execs the bot's program in place of the process, which the
/// caller must intend (the gate is the whole of its process).
pub unsafe fn gate_of(
    argc: c_int,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> Option<c_int> {
    // SAFETY: `*argv` is read only once `argc` is at least 5 and `argv` is not null, and
    // `argv.add(i)` for `i` up to 4, inside the `argc` pointers the caller vouches for, each a
    // valid C string as `c_bytes` asks. read writes one byte into `byte`, sched_setaffinity
    // reads `mask` (its size given), write reads `text`: locals alive during each call.
    // execve reads the program's path (argv[3]), the list from argv[4] to the null after
    // argv[argc - 1], and `envp`, null-terminated: all as the caller vouches for.
    unsafe {
        if argc < 5 || argv.is_null() || (*argv).is_null() || c_bytes(*argv) != GATE_NAME_BYTES {
            return None;
        }
        let Some(go) = decimal(c_bytes(*argv.add(1))) else {
            return Some(127);
        };
        let mut byte = 0u8;
        let got = loop {
            let n = call3(sys::READ, go as usize, &mut byte as *mut u8 as usize, 1);
            if n != -sys::EINTR {
                break n;
            }
        };
        if got != 1 {
            return Some(0);
        }
        call3(sys::CLOSE, go as usize, 0, 0);
        if let Some(cpu) = decimal(c_bytes(*argv.add(2))).filter(|&c| c < 1024) {
            let mut mask = [0u64; 16];
            mask[cpu as usize / 64] = 1 << (cpu % 64);
            call3(
                sys::SCHED_SETAFFINITY,
                0,
                core::mem::size_of_val(&mask),
                mask.as_ptr() as usize,
            );
        }
        let error = call3(
            sys::EXECVE,
            *argv.add(3) as usize,
            argv.add(4) as usize,
            envp as usize,
        );
        let mut text = *b"arbiter: cannot execute the bot's program (error 000)\n";
        let errno = (-error).clamp(0, 999) as u32;
        let at = text.len() - 5;
        text[at] = b'0' + (errno / 100) as u8;
        text[at + 1] = b'0' + (errno / 10 % 10) as u8;
        text[at + 2] = b'0' + (errno % 10) as u8;
        call3(sys::WRITE, 2, text.as_ptr() as usize, text.len());
        Some(127)
    }
}

/// The bit of signal `sig` in a [`sys::SigSet`].
const fn bit(sig: u32) -> sys::SigSet {
    1 << (sig - 1)
}

/// The init of a bot's namespace (see the module's comment); returns its own exit status: the
/// bot's, as a shell gives it (128 plus the signal that killed it).
///
/// # Safety
/// The caller is the only thread of the first process (pid 1) of a bot's namespace, `bot` its
/// child and `status_fd` the descriptor the referee reads the bot's status from. It blocks
/// every signal, takes SIGCHLD back to its default, drops its capabilities (see
/// [`drop_capabilities`]), reaps every child of the namespace and sends the namespace the
/// signals that stop it: the process is the init's from then on.
unsafe fn run_init(status_fd: c_int, user: Option<u32>, bot: i32) -> c_int {
    // SAFETY: rt_sigprocmask reads `all` and rt_sigaction `default` (32 zero bytes, at least
    // the kernel's sigaction), locals alive during the call, each with the signal set's size;
    // no old set or action is written back (null). `drop_capabilities` is called by the
    // process's one thread (see # Safety). The prctl calls take values only. wait4 writes
    // `status`, a local (no usage record: null); write reads its 4 bytes; rt_sigtimedwait
    // reads `waited` (no info or timeout: null). kill(-1) signals every process the init may
    // signal: by the caller's contract, those of the bot's namespace.
    unsafe {
        // Every signal stays blocked (as the spawner left them): those the init handles are taken
        // with sigwaitinfo. SIGCHLD must not be ignored (the referee ignores some signals, and an
        // exec keeps that), or children would vanish without a status.
        let all: sys::SigSet = !0;
        let set = core::mem::size_of::<sys::SigSet>();
        call(
            sys::RT_SIGPROCMASK,
            sys::SIG_SETMASK,
            &all as *const _ as usize,
            0,
            set,
        );
        // The kernel's sigaction (handler, flags, restorer, mask), all zero: SIG_DFL.
        let default = [0usize; 4];
        call(
            sys::RT_SIGACTION,
            sys::SIGCHLD as usize,
            default.as_ptr() as usize,
            0,
            set,
        );
        // It was exec'd as root: from here on it has no capability and is the bot's user (or, as a
        // root without that user, root without capabilities). Not dumpable: the bot may not open its
        // status pipe through /proc/1/fd.
        if !drop_capabilities(user) {
            return 126;
        }
        call3(sys::PRCTL, sys::PR_SET_DUMPABLE, 0, 0);
        call3(sys::PRCTL, sys::PR_SET_PDEATHSIG, sys::SIGKILL as usize, 0);
        let waited: sys::SigSet =
            bit(sys::SIGCHLD) | bit(sys::SIGTERM) | bit(sys::SIGINT) | bit(sys::SIGHUP);
        loop {
            loop {
                let mut status: c_int = 0;
                let pid = call(
                    sys::WAIT4,
                    -1isize as usize,
                    &mut status as *mut c_int as usize,
                    sys::WNOHANG,
                    0,
                );
                if pid == bot as isize {
                    let bytes = status.to_ne_bytes();
                    call3(sys::WRITE, status_fd as usize, bytes.as_ptr() as usize, 4);
                    // As the C library's WIFSIGNALED, WTERMSIG and WEXITSTATUS read it.
                    let signal = status & 0x7f;
                    return if signal != 0 && signal != 0x7f {
                        128 + signal
                    } else {
                        (status >> 8) & 0xff
                    };
                }
                if pid == 0 {
                    break;
                }
                if pid < 0 && pid != -sys::EINTR {
                    // No child at all: the bot is gone without a status (cannot happen).
                    return 127;
                }
            }
            let sig = call(
                sys::RT_SIGTIMEDWAIT,
                &waited as *const _ as usize,
                0,
                0,
                set,
            );
            if sig == sys::SIGTERM as isize
                || sig == sys::SIGINT as isize
                || sig == sys::SIGHUP as isize
            {
                // To every process of the namespace but this one (the bot, its children, even
                // those that left its process group), once: the referee sends its TERM to the init
                // alone, so the bot gets it from here and from nowhere else.
                call3(sys::KILL, -1isize as usize, sig as usize, 0);
            }
        }
    }
}

/// `sys::call` with four arguments (the rest zero).
///
/// # Safety
/// As [`sys::call`], for system call `n` with these four arguments and zero for the others.
unsafe fn call(n: usize, a0: usize, a1: usize, a2: usize, a3: usize) -> isize {
    // SAFETY: the caller vouches for `n` with these arguments and zeros (see # Safety), which
    // is `sys::call`'s contract.
    unsafe { sys::call(n, [a0, a1, a2, a3, 0, 0]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_call_numbers_and_constants_are_the_kernels() {
        let pairs: [(usize, libc::c_long); 17] = [
            (sys::READ, libc::SYS_read),
            (sys::CLOSE, libc::SYS_close),
            (sys::EXECVE, libc::SYS_execve),
            (sys::SCHED_SETAFFINITY, libc::SYS_sched_setaffinity),
            (sys::WRITE, libc::SYS_write),
            (sys::RT_SIGACTION, libc::SYS_rt_sigaction),
            (sys::RT_SIGPROCMASK, libc::SYS_rt_sigprocmask),
            (sys::GETPID, libc::SYS_getpid),
            (sys::WAIT4, libc::SYS_wait4),
            (sys::KILL, libc::SYS_kill),
            (sys::SETRESUID, libc::SYS_setresuid),
            (sys::SETRESGID, libc::SYS_setresgid),
            (sys::SETGROUPS, libc::SYS_setgroups),
            (sys::CAPSET, libc::SYS_capset),
            (sys::RT_SIGTIMEDWAIT, libc::SYS_rt_sigtimedwait),
            (sys::PRCTL, libc::SYS_prctl),
            (sys::EXIT_GROUP, libc::SYS_exit_group),
        ];
        for (ours, theirs) in pairs {
            assert_eq!(ours as libc::c_long, theirs);
        }
        assert_eq!(sys::PR_SET_PDEATHSIG, libc::PR_SET_PDEATHSIG as usize);
        assert_eq!(sys::PR_SET_DUMPABLE, libc::PR_SET_DUMPABLE as usize);
        assert_eq!(sys::PR_CAPBSET_DROP, libc::PR_CAPBSET_DROP as usize);
        assert_eq!(sys::PR_SET_SECUREBITS, libc::PR_SET_SECUREBITS as usize);
        assert_eq!(sys::PR_SET_NO_NEW_PRIVS, libc::PR_SET_NO_NEW_PRIVS as usize);
        assert_eq!(sys::SIG_SETMASK, libc::SIG_SETMASK as usize);
        assert_eq!(sys::WNOHANG, libc::WNOHANG as usize);
        assert_eq!(sys::EINTR, libc::EINTR as isize);
        assert_eq!(sys::EINVAL, libc::EINVAL as isize);
        for (ours, theirs) in [
            (sys::SIGHUP, libc::SIGHUP),
            (sys::SIGINT, libc::SIGINT),
            (sys::SIGKILL, libc::SIGKILL),
            (sys::SIGTERM, libc::SIGTERM),
            (sys::SIGCHLD, libc::SIGCHLD),
        ] {
            assert_eq!(ours as libc::c_int, theirs);
        }
    }

    #[test]
    fn raw_calls_work_and_report_errors() {
        // SAFETY: getpid and kill(pid, 0) (a probe) have no effect.
        unsafe {
            assert_eq!(call3(sys::GETPID, 0, 0, 0), std::process::id() as isize);
            assert_eq!(call3(sys::KILL, std::process::id() as usize, 0, 0), 0);
            // No process has pid 2^30 - 1 (the kernel's pid_max is at most 2^22).
            assert_eq!(
                call3(sys::KILL, (1 << 30) - 1, 0, 0),
                -(libc::ESRCH as isize)
            );
        }
    }

    #[test]
    fn the_inits_name_is_one() {
        assert_eq!(INIT_NAME.to_bytes(), INIT_NAME_BYTES);
        assert_eq!(GATE_NAME.to_bytes(), GATE_NAME_BYTES);
    }

    #[test]
    fn arguments_are_read_as_decimals() {
        assert_eq!(decimal(b"0"), Some(0));
        assert_eq!(decimal(b"1048576"), Some(1 << 20));
        assert_eq!(decimal(b"4294967295"), Some(u32::MAX));
        assert_eq!(decimal(b"4294967296"), None);
        assert_eq!(decimal(b"-"), None);
        assert_eq!(decimal(b""), None);
        assert_eq!(decimal(b"12a"), None);
    }

    #[test]
    fn only_an_inits_arguments_run_the_init() {
        let args = [
            c"arbiter-init".as_ptr(),
            c"5".as_ptr(),
            c"-".as_ptr(),
            c"2".as_ptr(),
        ];
        // SAFETY: four valid C strings, and neither call reads more than `argc` of them. This
        // test's process is not pid 1, so no init runs.
        assert_eq!(unsafe { main_of(4, args.as_ptr()) }, None);
        assert_eq!(unsafe { main_of(3, args.as_ptr()) }, None);
    }
}
