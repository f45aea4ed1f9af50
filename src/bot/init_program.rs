//! `arbiter-init`: the first process of an isolated bot's process-id namespace (see the
//! library's `bot::isolation`). Built by src/build.rs alone (not a cargo target): without the
//! standard library and the C library, linked static with no start files, and embedded in
//! arbiter, which execs it from a sealed in-memory file. Its only code is `init.rs`; this file
//! is its entry point. No dynamic loader, no glibc start-up: an init starts in a few pages.
#![no_std]
#![no_main]

#[path = "init.rs"]
#[allow(dead_code)]
mod init;

// The kernel starts a static program at `_start` with argc, then argv, on the stack.
#[cfg(target_arch = "x86_64")]
core::arch::global_asm!(
    ".globl _start",
    "_start:",
    "xor ebp, ebp",
    "mov rdi, rsp",
    "and rsp, -16",
    "call {entry}",
    "ud2",
    entry = sym entry,
);

#[cfg(target_arch = "aarch64")]
core::arch::global_asm!(
    ".globl _start",
    "_start:",
    "mov x29, #0",
    "mov x30, #0",
    "mov x0, sp",
    "bl {entry}",
    "brk #0",
    entry = sym entry,
);

/// The init's run (or a held bot's gate), or status 2 with a word on stderr when it is run by
/// hand.
///
/// # Safety
/// Called only from `_start` above, with `stack` the stack pointer the kernel started the
/// program with: argc, then argc argument pointers and a null, then the environment's pointers
/// and a null (the System V start-up layout), all valid for the program's life.
unsafe extern "C" fn entry(stack: *const usize) -> ! {
    let argc = *stack as core::ffi::c_int;
    let argv = stack.add(1).cast::<*const core::ffi::c_char>();
    // The environment follows argv's null.
    let envp = argv.add(argc as usize + 1);
    if let Some(status) = init::gate_of(argc, argv, envp) {
        init::sys::exit(status);
    }
    match init::main_of(argc, argv) {
        Some(status) => init::sys::exit(status),
        None => {
            let word = b"arbiter-init is started by arbiter, as the first process of a bot's own \
                         namespace; it is not run by hand\n";
            init::sys::call3(init::sys::WRITE, 2, word.as_ptr() as usize, word.len());
            init::sys::exit(2)
        }
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    init::sys::exit(127)
}
