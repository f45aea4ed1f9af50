//! `arbiter-init`: the first process of an isolated bot's process-id namespace (see the
//! library's `bot::isolation`). A program of its own, apart from arbiter's: the spawner execs it
//! once per bot, and loading arbiter's whole program for that cost about a millisecond of CPU
//! per bot. Its only code is `src/bot/init.rs` (raw system calls through `libc`); it skips
//! Rust's runtime set-up (`no_main`), which would reopen the standard streams the init closed.
#![no_main]

#[path = "../bot/init.rs"]
mod init;

/// C's `main`: the init's run, or status 2 with a word on stderr when it is run by hand.
#[no_mangle]
extern "C" fn main(argc: libc::c_int, argv: *const *const libc::c_char) -> libc::c_int {
    // SAFETY: the C runtime passes argc valid C strings in argv.
    match unsafe { init::main_of(argc, argv) } {
        Some(status) => status,
        None => {
            eprintln!(
                "arbiter-init is started by arbiter, as the first process of a bot's own \
                 namespace; it is not run by hand"
            );
            2
        }
    }
}
