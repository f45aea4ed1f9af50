//! Builds `arbiter-init` (src/bot/init_program.rs), the first process of every isolated bot's
//! namespace, which arbiter embeds and execs. It cannot be a cargo target: it has neither the
//! standard library nor the C library (so that no dynamic loader or C start-up runs in each
//! bot's init), which needs `panic=abort`, and cargo builds test dependencies with unwinding.
//! So this script calls the same rustc cargo uses, for the same target.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let program = "src/bot/init_program.rs";
    println!("cargo:rerun-if-changed={program}");
    println!("cargo:rerun-if-changed=src/bot/init.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    let mut cmd = Command::new(rustc);
    cmd.args([
        "--edition=2021",
        "--crate-type=bin",
        "--crate-name=arbiter_init",
    ])
    .args(["--target", &target])
    .args([
        "-C",
        "panic=abort",
        "-C",
        "opt-level=2",
        "-C",
        "debuginfo=0",
    ])
    .args(["-C", "relocation-model=static", "-C", "strip=symbols"])
    .args(["-C", "link-arg=-nostartfiles", "-C", "link-arg=-nostdlib"])
    .args(["-C", "link-arg=-static", "-C", "link-arg=-no-pie"]);
    if let Some(linker) = std::env::var_os("RUSTC_LINKER") {
        cmd.arg("-C").arg({
            let mut arg = std::ffi::OsString::from("linker=");
            arg.push(linker);
            arg
        });
    }
    cmd.arg("-o").arg(out.join("arbiter-init")).arg(program);
    let result = cmd
        .output()
        .expect("cannot run rustc to build arbiter-init");
    if !result.status.success() {
        panic!(
            "building arbiter-init ({program}, no standard library, linked static) failed:\n{}",
            String::from_utf8_lossy(&result.stderr)
        );
    }
}
