//! The seccomp filter of the sandbox, as a classic BPF program for bwrap's `--seccomp`: it
//! refuses (EPERM) the system calls that reach into another process (ptrace, reading or writing
//! another process's memory) or into kernel facilities a bot has no use for and that have been
//! the way out of sandboxes before (keyrings, perf events, eBPF, userfaultfd, kexec). Capabilities
//! and namespaces already stop most of them; the filter also covers the box's own first process,
//! which a bot could otherwise trace.

/// `struct sock_filter`: one instruction.
struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

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

/// The filter's bytes, as bwrap reads them; `None` on an architecture not listed above.
pub fn program() -> Option<Vec<u8>> {
    let (arch, refused) = TARGET?;
    let n = refused.len() as u8;
    let mut insns = vec![
        Insn {
            code: LD_W_ABS,
            jt: 0,
            jf: 0,
            k: ARCH,
        },
        // Another architecture's calls (a 32-bit entry on a 64-bit kernel): not allowed at all.
        Insn {
            code: JEQ_K,
            jt: 1,
            jf: 0,
            k: arch,
        },
        Insn {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: RET_KILL,
        },
        Insn {
            code: LD_W_ABS,
            jt: 0,
            jf: 0,
            k: NR,
        },
    ];
    if cfg!(target_arch = "x86_64") {
        // The x32 calls (numbers with bit 30 set) bypass a list of x86-64 numbers.
        insns.push(Insn {
            code: JGE_K,
            jt: n + 1,
            jf: 0,
            k: 0x4000_0000,
        });
    }
    for (i, &nr) in refused.iter().enumerate() {
        // Jump to the EPERM return, which follows the ALLOW return after the list.
        insns.push(Insn {
            code: JEQ_K,
            jt: n - i as u8,
            jf: 0,
            k: nr,
        });
    }
    insns.push(Insn {
        code: RET_K,
        jt: 0,
        jf: 0,
        k: RET_ALLOW,
    });
    insns.push(Insn {
        code: RET_K,
        jt: 0,
        jf: 0,
        k: RET_EPERM,
    });
    let mut bytes = Vec::with_capacity(insns.len() * 8);
    for i in insns {
        bytes.extend_from_slice(&i.code.to_ne_bytes());
        bytes.push(i.jt);
        bytes.push(i.jf);
        bytes.extend_from_slice(&i.k.to_ne_bytes());
    }
    Some(bytes)
}
