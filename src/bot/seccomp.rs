//! The seccomp filter of every bot, with or without the sandbox, as a classic BPF program that
//! the spawner installs just before `exec` (with no new privileges): it refuses (EPERM) the
//! system calls that reach into another process (ptrace, reading or writing another process's
//! memory) or into kernel facilities a bot has no use for and that have been the way out of
//! sandboxes before (keyrings, perf events, eBPF, userfaultfd, kexec), and the two `ioctl`s that
//! put characters into a terminal's input (TIOCSTI, TIOCLINUX): a bot must not type commands
//! into the shell that started arbiter. Capabilities, namespaces and the bot's own session
//! already stop most of them; the filter also covers bubblewrap's first process in the box,
//! which a bot could otherwise trace.

use libc::sock_filter as Insn;

const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K: u16 = 0x06; // BPF_RET | BPF_K

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL: u32 = 0x8000_0000; // SECCOMP_RET_KILL_PROCESS
const RET_EPERM: u32 = 0x0005_0000 | libc::EPERM as u32; // SECCOMP_RET_ERRNO

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
/// The low 32 bits of the second argument (little-endian; the kernel reads an ioctl's request
/// as 32 bits, so the high ones do not matter).
const ARG1_LOW: u32 = 24;

/// The ioctl requests that push input into a terminal.
const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541c;

/// `ioctl`'s number.
#[cfg(target_arch = "x86_64")]
const IOCTL: u32 = 16;
#[cfg(target_arch = "aarch64")]
const IOCTL: u32 = 29;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const IOCTL: u32 = u32::MAX;

/// The audit architecture and the refused system-call numbers of this machine.
#[cfg(target_arch = "x86_64")]
const TARGET: Option<(u32, &[u32])> = Some((
    0xc000_003e,
    // ptrace, process_vm_readv, process_vm_writev, add_key, request_key, keyctl,
    // perf_event_open, bpf, userfaultfd, kexec_load, kexec_file_load
    &[101, 310, 311, 248, 249, 250, 298, 321, 323, 246, 320],
));
#[cfg(target_arch = "aarch64")]
const TARGET: Option<(u32, &[u32])> = Some((
    0xc000_00b7,
    &[117, 270, 271, 217, 218, 219, 241, 280, 282, 104, 294],
));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const TARGET: Option<(u32, &[u32])> = None;

fn insn(code: u16, jt: u8, jf: u8, k: u32) -> Insn {
    Insn { code, jt, jf, k }
}

/// The filter as the bytes of a `struct sock_filter` array, for bwrap's `--seccomp FD` (the build
/// box loads it that way); `None` on an architecture not listed above.
pub fn program() -> Option<Vec<u8>> {
    let insns = filter()?;
    let mut bytes = Vec::with_capacity(insns.len() * 8);
    for i in &insns {
        bytes.extend_from_slice(&i.code.to_ne_bytes());
        bytes.push(i.jt);
        bytes.push(i.jf);
        bytes.extend_from_slice(&i.k.to_ne_bytes());
    }
    Some(bytes)
}

/// The filter's instructions; `None` on an architecture not listed above.
pub fn filter() -> Option<Vec<Insn>> {
    let (arch, refused) = TARGET?;
    let n = refused.len() as u8;
    let mut insns = vec![
        insn(LD_W_ABS, 0, 0, ARCH),
        // Another architecture's calls (a 32-bit entry on a 64-bit kernel): not allowed at all.
        insn(JEQ_K, 1, 0, arch),
        insn(RET_K, 0, 0, RET_KILL),
        insn(LD_W_ABS, 0, 0, NR),
    ];
    // After the list: the ioctl check (5 instructions, ending with the ALLOW return), then the
    // EPERM return.
    const IOCTL_CHECK: u8 = 5;
    if cfg!(target_arch = "x86_64") {
        // The x32 calls (numbers with bit 30 set) bypass a list of x86-64 numbers.
        insns.push(insn(JGE_K, n + IOCTL_CHECK, 0, 0x4000_0000));
    }
    for (i, &nr) in refused.iter().enumerate() {
        insns.push(insn(JEQ_K, n - 1 - i as u8 + IOCTL_CHECK, 0, nr));
    }
    insns.extend([
        insn(JEQ_K, 0, 3, IOCTL),
        insn(LD_W_ABS, 0, 0, ARG1_LOW),
        insn(JEQ_K, 2, 0, TIOCSTI),
        insn(JEQ_K, 1, 0, TIOCLINUX),
        insn(RET_K, 0, 0, RET_ALLOW),
        insn(RET_K, 0, 0, RET_EPERM),
    ]);
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
}
