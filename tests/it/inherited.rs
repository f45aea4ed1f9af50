//! Descriptors arbiter was started with reach no untrusted code (issue 35, item 3): arbiter is
//! run here as a wrapper or a service would run it, holding a secret (in a folder only root may
//! enter) open on fd 7 and
//! a lock file on fd 9 (neither close-on-exec). A bot (with and without `--sandbox`), an
//! external referee and a build in the build box each look for them: before the fix a bot read
//! the secret from fd 7 and a C build put it into its error output with `#include "/dev/fd/7"`.

use crate::common::*;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A secret of the operator's and a lock file in a fresh folder, and the secret's word.
struct Held {
    dir: tempfile::TempDir,
    secret: PathBuf,
    lock: PathBuf,
    word: String,
}

fn held() -> Held {
    let dir = tempfile::tempdir().unwrap();
    let word = format!("FDSECRET{}X", std::process::id());
    // Readable by anyone who holds it, reachable by path by root only: a program given the
    // descriptor (or opening /dev/fd/7, which follows the descriptor, not the path) reads it.
    let private = dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let secret = private.join("secret.txt");
    std::fs::write(&secret, format!("{word} of the operator\n")).unwrap();
    let lock = dir.path().join("run.lock");
    std::fs::write(&lock, "").unwrap();
    Held {
        dir,
        secret,
        lock,
        word,
    }
}

/// Runs the real `arbiter` with `args` in `dir`, holding the secret on fd 7 and the lock file
/// (for appending) on fd 9, both inheritable, as a wrapper script's `exec 7<secret 9>>lock`,
/// with `env` added to its environment.
fn arbiter_holding(held: &Held, dir: &Path, args: &[String], env: &[(&str, &Path)]) -> Output {
    let secret = std::fs::File::open(&held.secret).unwrap();
    let lock = std::fs::OpenOptions::new()
        .append(true)
        .open(&held.lock)
        .unwrap();
    let (s, l) = (secret.as_raw_fd(), lock.as_raw_fd());
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command.current_dir(dir).args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    // SAFETY: only dup2 between fork and exec; dup2 gives copies without close-on-exec.
    unsafe {
        command.pre_exec(move || {
            if libc::dup2(s, 7) != 7 || libc::dup2(l, 9) != 9 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    drop((secret, lock));
    out
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn has_bwrap() -> bool {
    if arbiter::bot::host::bwrap().is_some() {
        return true;
    }
    crate::common::skip(
        "this test needs bubblewrap: apt-get install bubblewrap (.ci/run installs it)",
    );
    false
}

#[test]
fn a_bot_gets_only_descriptors_0_to_2_in_every_mode() {
    let held = held();
    let mut modes = vec![vec![]];
    if has_bwrap() {
        modes.push(vec!["--sandbox"]);
    }
    for extra in modes {
        let replay = held.dir.path().join("r.jsonl");
        let mut args = strings(&["play", "--json", "--seed", "4", "--max-turns", "2"]);
        args.extend(strings(&["--first-turn-ms", "20000", "--turn-ms", "5000"]));
        args.extend(strings(&extra));
        args.extend(["--replay".to_string(), replay.display().to_string()]);
        args.extend([hostile("fds 1"), random_bot()]);
        let out = arbiter_holding(&held, &root(), &args, &[]);
        let v = json_of(&out);
        assert_eq!(v["reason"], "turn-limit", "{extra:?}: {v}");
        let err = stderr_tail(&replay, 0);
        assert!(err.contains("FDS-NONE"), "{extra:?}: the bot saw: {err}");
        assert!(!err.contains(&held.word), "{extra:?}: {err}");
    }
}

#[test]
fn an_external_referee_gets_only_descriptors_0_to_2() {
    let held = held();
    let replay = held.dir.path().join("r.jsonl");
    let referee = format!(
        "/usr/bin/python3 {}/tests/referees/hostile.py read-file /dev/fd/7",
        root().display()
    );
    let player = |n: &str| {
        format!(
            "/usr/bin/python3 {}/tests/referees/player.py {n}",
            root().display()
        )
    };
    let mut args = strings(&["play", "--json", "--seed", "11", "--referee"]);
    args.push(referee);
    args.extend(strings(&["--first-turn-ms", "5000", "--turn-ms", "1000"]));
    args.extend(["--replay".to_string(), replay.display().to_string()]);
    args.extend([player("one"), player("two")]);
    let out = arbiter_holding(&held, &root(), &args, &[]);
    let v = json_of(&out);
    assert_eq!(v["reason"], "win", "{v}");
    let log = stderr_tail(&replay, 2);
    assert!(log.contains("READ-BLOCKED"), "the referee read fd 7: {log}");
    assert!(!log.contains(&held.word), "{log}");
}

#[test]
fn a_build_cannot_include_a_descriptor_arbiter_was_started_with() {
    if !has_bwrap() {
        return;
    }
    let held = held();
    let class = held.dir.path().join("bot");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(
        class.join("thief.c"),
        "#include \"/dev/fd/7\"\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let cache = held.dir.path().join("cache");
    let mut args = strings(&["play", "--seed", "1", "thief.c"]);
    args.push(first_bot());
    let out = arbiter_holding(&held, &class, &args, &[("ARBITER_CACHE", &cache)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stderr}\n{stdout}");
    assert!(stderr.contains("/dev/fd/7"), "{stderr}");
    assert!(!stderr.contains(&held.word), "{stderr}");
    assert!(!stdout.contains(&held.word), "{stdout}");
}
