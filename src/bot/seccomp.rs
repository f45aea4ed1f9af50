//! The seccomp filter of every bot, with or without the sandbox, as a classic BPF program that
//! the spawner installs just before `exec` (with no new privileges): it refuses (EPERM) the
//! system calls that reach into another process (ptrace, reading or writing another process's
//! memory) or into kernel facilities a bot has no use for and that have been the way out of
//! sandboxes before (keyrings, perf events, eBPF, userfaultfd, kexec), and the two `ioctl`s that
//! put characters into a terminal's input (TIOCSTI, TIOCLINUX): a bot must not type commands
//! into the shell that started arbiter. Capabilities, namespaces and the bot's own session
//! already stop most of them; the filter also covers bubblewrap's first process in the box,
//! which a bot could otherwise trace.
//!
//! A bot's filter (not the build box's, whose compilers and package managers lock their
//! caches) also closes the channels that the files every bot shares would otherwise open
//! between bots, of one game or of two: the system's programs and libraries, and a sandboxed
//! bot's own read-only files, are the same files for every bot, and a lock or a watch on them
//! needs only read access. So `flock` succeeds without locking anything (the JVM locks its
//! performance-data file at every start and warns on every start where that fails; a lock that
//! always succeeds tells nothing), record locks (`fcntl` F_SETLK, F_SETLKW, F_GETLK and the
//! open-file-description ones) fail with ENOLCK ("no locks available", as on a file system
//! without locking), and file-change notification (inotify, fanotify, `fcntl` F_NOTIFY) fails
//! with EPERM. None of python3, node, java or a C program uses any of them to start (checked
//! with strace; only the JVM's `flock`).

use libc::sock_filter as Insn;

const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K: u16 = 0x06; // BPF_RET | BPF_K

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL: u32 = 0x8000_0000; // SECCOMP_RET_KILL_PROCESS
const RET_ERRNO: u32 = 0x0005_0000; // SECCOMP_RET_ERRNO, with the errno in the low 16 bits
const RET_EPERM: u32 = RET_ERRNO | libc::EPERM as u32;
const RET_ENOLCK: u32 = RET_ERRNO | libc::ENOLCK as u32;
/// Success (0) without the call being made.
const RET_ZERO: u32 = RET_ERRNO;

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
/// The low 32 bits of the second argument (little-endian; the kernel reads an ioctl's request
/// and an fcntl's command as 32 bits, so the high ones do not matter).
const ARG1_LOW: u32 = 24;

/// The ioctl requests that push input into a terminal.
const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541c;

/// The `fcntl` commands of record locks (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK,
/// F_OFD_SETLKW), and of directory notification (F_NOTIFY, which libc does not name).
const RECORD_LOCKS: [u32; 6] = [
    libc::F_GETLK as u32,
    libc::F_SETLK as u32,
    libc::F_SETLKW as u32,
    libc::F_OFD_GETLK as u32,
    libc::F_OFD_SETLK as u32,
    libc::F_OFD_SETLKW as u32,
];
const F_NOTIFY: u32 = 1026;

/// The numbers of this machine's system calls the filter looks at: (ioctl, fcntl, flock).
const CALLS: (u32, u32, u32) = (
    libc::SYS_ioctl as u32,
    libc::SYS_fcntl as u32,
    libc::SYS_flock as u32,
);

/// The system calls refused to every program the filter covers (bots and builds): they reach
/// into another process or into kernel facilities that have been the way out of sandboxes.
const REFUSED: [u32; 11] = [
    libc::SYS_ptrace as u32,
    libc::SYS_process_vm_readv as u32,
    libc::SYS_process_vm_writev as u32,
    libc::SYS_add_key as u32,
    libc::SYS_request_key as u32,
    libc::SYS_keyctl as u32,
    libc::SYS_perf_event_open as u32,
    libc::SYS_bpf as u32,
    libc::SYS_userfaultfd as u32,
    libc::SYS_kexec_load as u32,
    libc::SYS_kexec_file_load as u32,
];

/// The system calls refused to bots only: file-change notification.
#[cfg(target_arch = "x86_64")]
const BOT_REFUSED: &[u32] = &[
    libc::SYS_inotify_init as u32,
    libc::SYS_inotify_init1 as u32,
    libc::SYS_inotify_add_watch as u32,
    libc::SYS_fanotify_init as u32,
    libc::SYS_fanotify_mark as u32,
];
/// (arm64 has no `inotify_init`, only `inotify_init1`.)
#[cfg(not(target_arch = "x86_64"))]
const BOT_REFUSED: &[u32] = &[
    libc::SYS_inotify_init1 as u32,
    libc::SYS_inotify_add_watch as u32,
    libc::SYS_fanotify_init as u32,
    libc::SYS_fanotify_mark as u32,
];

/// The audit architecture of this machine's own system calls (`AUDIT_ARCH_*` of
/// linux/audit.h, which libc does not name), the refused calls, and those refused to bots only.
#[cfg(target_arch = "x86_64")]
const TARGET: Option<(u32, &[u32], &[u32])> = Some((0xc000_003e, &REFUSED, BOT_REFUSED));
#[cfg(target_arch = "aarch64")]
const TARGET: Option<(u32, &[u32], &[u32])> = Some((0xc000_00b7, &REFUSED, BOT_REFUSED));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const TARGET: Option<(u32, &[u32], &[u32])> = None;

/// Where a jump of the filter being written goes.
#[derive(Clone, Copy, PartialEq)]
enum To {
    Next,
    Allow,
    Eperm,
    Enolck,
    Zero,
    Fcntl,
    Ioctl,
}

/// One instruction before its jumps are resolved.
struct BpfStep {
    code: u16,
    jt: To,
    jf: To,
    k: u32,
    /// The label this instruction bears (the start of a block or a return).
    label: Option<To>,
}

fn step(code: u16, jt: To, jf: To, k: u32) -> BpfStep {
    BpfStep {
        code,
        jt,
        jf,
        k,
        label: None,
    }
}

fn labelled(label: To, s: BpfStep) -> BpfStep {
    BpfStep {
        label: Some(label),
        ..s
    }
}

/// The filter as the bytes of a `struct sock_filter` array, for bwrap's `--seccomp FD`: the
/// build box's (without a bot's rules on locks and notification, see the module's comment);
/// `None` on an architecture not listed above.
pub fn program() -> Option<Vec<u8>> {
    let insns = build(false)?;
    let mut bytes = Vec::with_capacity(insns.len() * 8);
    for i in &insns {
        bytes.extend_from_slice(&i.code.to_ne_bytes());
        bytes.push(i.jt);
        bytes.push(i.jf);
        bytes.extend_from_slice(&i.k.to_ne_bytes());
    }
    Some(bytes)
}

/// A bot's filter; `None` on an architecture not listed above.
pub fn filter() -> Option<Vec<Insn>> {
    build(true)
}

fn build(bot: bool) -> Option<Vec<Insn>> {
    let (arch, refused, bot_refused) = TARGET?;
    let (ioctl, fcntl, flock) = CALLS;
    let mut steps = vec![
        step(LD_W_ABS, To::Next, To::Next, ARCH),
        // Another architecture's calls (a 32-bit entry on a 64-bit kernel): not allowed at all.
        step(JEQ_K, To::Next, To::Next, arch),
        step(RET_K, To::Next, To::Next, RET_KILL),
        step(LD_W_ABS, To::Next, To::Next, NR),
    ];
    if cfg!(target_arch = "x86_64") {
        // The x32 calls (numbers with bit 30 set) bypass a list of x86-64 numbers.
        steps.push(step(JGE_K, To::Eperm, To::Next, 0x4000_0000));
    }
    let bot_only: &[u32] = if bot { bot_refused } else { &[] };
    for &nr in refused.iter().chain(bot_only) {
        steps.push(step(JEQ_K, To::Eperm, To::Next, nr));
    }
    if bot {
        steps.push(step(JEQ_K, To::Zero, To::Next, flock));
        steps.push(step(JEQ_K, To::Fcntl, To::Next, fcntl));
    }
    steps.push(step(JEQ_K, To::Ioctl, To::Allow, ioctl));
    if bot {
        steps.push(labelled(
            To::Fcntl,
            step(LD_W_ABS, To::Next, To::Next, ARG1_LOW),
        ));
        for cmd in RECORD_LOCKS {
            steps.push(step(JEQ_K, To::Enolck, To::Next, cmd));
        }
        steps.push(step(JEQ_K, To::Eperm, To::Allow, F_NOTIFY));
    }
    steps.extend([
        labelled(To::Ioctl, step(LD_W_ABS, To::Next, To::Next, ARG1_LOW)),
        step(JEQ_K, To::Eperm, To::Next, TIOCSTI),
        step(JEQ_K, To::Eperm, To::Allow, TIOCLINUX),
        labelled(To::Allow, step(RET_K, To::Next, To::Next, RET_ALLOW)),
        labelled(To::Eperm, step(RET_K, To::Next, To::Next, RET_EPERM)),
        labelled(To::Enolck, step(RET_K, To::Next, To::Next, RET_ENOLCK)),
        labelled(To::Zero, step(RET_K, To::Next, To::Next, RET_ZERO)),
    ]);
    let at = |label: To| steps.iter().position(|s| s.label == Some(label));
    let offset = |from: usize, to: To| -> u8 {
        if to == To::Next {
            return 0;
        }
        let target = at(to).expect("every jump's label is in the filter");
        u8::try_from(target - from - 1).expect("a jump within 255 instructions")
    };
    let mut insns: Vec<Insn> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| Insn {
            code: s.code,
            jt: offset(i, s.jt),
            jf: offset(i, s.jf),
            k: s.k,
        })
        .collect();
    // The architecture check's true branch skips the kill.
    insns[1].jt = 1;
    Some(insns)
}

/// A system call the filter refused by killing the process (SIGSYS: a call of another ABI, such
/// as a 32-bit program's), as the kernel logged it.
#[derive(Debug, PartialEq, Eq)]
pub struct RefusedCall {
    /// The audit architecture of the call (`AUDIT_ARCH_*`).
    pub arch: u32,
    /// Its number in that architecture's table.
    pub nr: u64,
}

impl std::fmt::Display for RefusedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let abi = match self.arch {
            0x4000_0003 => "the 32-bit x86 (i386)",
            0xc000_003e => "the x86-64",
            0x4000_0028 => "the 32-bit ARM",
            0xc000_00b7 => "the arm64",
            _ => "another",
        };
        write!(f, "system call {} of {abi} ABI", self.nr)
    }
}

/// The system call for which the filter killed process `pid` (as this process's pid namespace
/// numbers it), from the kernel's audit record of the kill (type 1326) in the kernel log. Root
/// can read the log; `None` where it cannot, where an audit daemon takes the records instead,
/// or where the bot's pid namespace numbers differ from the log's.
pub fn refused_call(pid: i32) -> Option<RefusedCall> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut log = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open("/dev/kmsg")
        .ok()?;
    let mut found = None;
    // One record a read; the ring holds a few thousand of them.
    let mut buf = vec![0u8; 8192];
    for _ in 0..100_000 {
        match log.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let record = String::from_utf8_lossy(&buf[..n]);
                if let Some(call) = parse_record(&record, pid) {
                    found = Some(call);
                }
            }
            // EPIPE: records overwritten while reading; the read goes on with the next.
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    found
}

/// The refused call of a kernel log record, if it is the seccomp kill of `pid`.
fn parse_record(record: &str, pid: i32) -> Option<RefusedCall> {
    let text = record.split_once(';').map_or(record, |(_, t)| t);
    if !text.contains("type=1326") {
        return None;
    }
    let field = |key: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .map(str::to_string)
    };
    if field("pid=")?.parse::<i32>().ok()? != pid || field("sig=")? != "31" {
        return None;
    }
    Some(RefusedCall {
        arch: u32::from_str_radix(&field("arch=")?, 16).ok()?,
        nr: field("syscall=")?.parse().ok()?,
    })
}

/// What a bot killed by SIGSYS is told: the refused call where the kernel log names it.
pub fn sigsys_note(call: Option<RefusedCall>) -> String {
    let what = match call {
        Some(call) => format!("arbiter's seccomp filter refused {call}"),
        None => "a system call arbiter's seccomp filter refuses".to_string(),
    };
    format!(
        "{what}: bots may make only this machine's own system calls, not 32-bit (or x32) ones; \
         build it as a 64-bit program"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_record_of_a_kill_names_the_call() {
        let record = "4,2213,41797000,-;audit: type=1326 audit(1764214920.136:5): auid=4294967295 \
                      uid=60001 gid=60001 ses=4294967295 pid=4242 comm=\"python3\" \
                      exe=\"/usr/bin/python3.11\" sig=31 arch=40000003 syscall=20 compat=1 \
                      ip=0x7f3b1c0d4005 code=0x80000000";
        let call = parse_record(record, 4242).unwrap();
        assert_eq!(
            call,
            RefusedCall {
                arch: 0x4000_0003,
                nr: 20
            }
        );
        assert_eq!(
            call.to_string(),
            "system call 20 of the 32-bit x86 (i386) ABI"
        );
        assert_eq!(parse_record(record, 4243), None);
        assert_eq!(parse_record("6,1,1,-;eth0: link up", 4242), None);
        assert!(
            sigsys_note(Some(call)).starts_with("arbiter's seccomp filter refused system call 20")
        );
        assert!(sigsys_note(None).contains("a system call arbiter's seccomp filter refuses"));
    }

    /// What the filter `insns` returns for system call `nr` with second argument `arg1`.
    fn run(insns: &[Insn], arch: u32, nr: u32, arg1: u32) -> u32 {
        let (mut pc, mut a) = (0, 0);
        loop {
            let i = &insns[pc];
            pc += 1;
            match i.code {
                LD_W_ABS => {
                    a = match i.k {
                        NR => nr,
                        ARCH => arch,
                        ARG1_LOW => arg1,
                        k => panic!("load of offset {k}"),
                    }
                }
                JEQ_K | JGE_K => {
                    let taken = if i.code == JEQ_K { a == i.k } else { a >= i.k };
                    pc += usize::from(if taken { i.jt } else { i.jf });
                }
                RET_K => return i.k,
                c => panic!("instruction {c:#x}"),
            }
        }
    }

    #[test]
    fn a_bots_filter_closes_locks_and_notification_and_the_build_boxs_does_not() {
        let Some((arch, refused, notify)) = TARGET else {
            return;
        };
        let (ioctl, fcntl, flock) = CALLS;
        let bot = filter().unwrap();
        let build = build(false).unwrap();
        const F_GETFL: u32 = 3;
        const F_SETLK: u32 = 6;
        const READ: u32 = if cfg!(target_arch = "x86_64") { 0 } else { 63 };
        for (nr, arg1, for_bot, for_build) in [
            (READ, 0, RET_ALLOW, RET_ALLOW),
            (refused[0], 0, RET_EPERM, RET_EPERM),
            (notify[0], 0, RET_EPERM, RET_ALLOW),
            (flock, 2, RET_ZERO, RET_ALLOW),
            (fcntl, F_GETFL, RET_ALLOW, RET_ALLOW),
            (fcntl, F_SETLK, RET_ENOLCK, RET_ALLOW),
            (fcntl, F_NOTIFY, RET_EPERM, RET_ALLOW),
            (ioctl, TIOCSTI, RET_EPERM, RET_EPERM),
            (ioctl, 0x5401, RET_ALLOW, RET_ALLOW),
        ] {
            assert_eq!(run(&bot, arch, nr, arg1), for_bot, "bot: {nr} {arg1}");
            assert_eq!(run(&build, arch, nr, arg1), for_build, "build: {nr} {arg1}");
        }
        assert_eq!(run(&bot, 0x4000_0003, READ, 0), RET_KILL);
    }

    /// The bot's filter decoded over every system-call number: exactly the calls named here
    /// are refused (with EPERM), flock alone answers success without locking, every other call
    /// of this machine's ABI is allowed.
    #[test]
    fn the_bots_filter_decodes_to_the_named_calls() {
        let Some((arch, _, _)) = TARGET else {
            return;
        };
        let bot = filter().unwrap();
        let mut named = vec![
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_keyctl,
            libc::SYS_perf_event_open,
            libc::SYS_bpf,
            libc::SYS_userfaultfd,
            libc::SYS_kexec_load,
            libc::SYS_kexec_file_load,
            libc::SYS_inotify_init1,
            libc::SYS_inotify_add_watch,
            libc::SYS_fanotify_init,
            libc::SYS_fanotify_mark,
        ];
        #[cfg(target_arch = "x86_64")]
        named.push(libc::SYS_inotify_init);
        let mut named: Vec<u32> = named.into_iter().map(|n| n as u32).collect();
        named.sort_unstable();
        let mut refused = Vec::new();
        for nr in 0..1024 {
            match run(&bot, arch, nr, 0) {
                RET_ALLOW => {}
                RET_EPERM => refused.push(nr),
                RET_ZERO => assert_eq!(nr, libc::SYS_flock as u32),
                other => panic!("call {nr}: {other:#x}"),
            }
        }
        assert_eq!(refused, named);
    }
}
