//! Untrusted bots at play time, attacked as a hostile bot author would (issue 21): run by root,
//! a bot is not root and writes no cgroup, kernel or results file; a bot frozen by someone else
//! still gets a verdict; no bot types into the terminal arbiter runs in; a bot's environment is
//! small and documented; a fork bomb loses by `process-limit`; two identical submissions play
//! each other in the sandbox.

use crate::common::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether this test can run: it needs root (bots then run as users of their own, in cgroups).
/// Without root it fails where `CI` is set, and says so elsewhere.
fn as_root(what: &str) -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    crate::common::skip(format!(
        "{what} needs root (CI runs the tests as root): run `cargo test` as root"
    ));
    false
}

/// Whether bwrap is there; without it the test fails where `CI` is set.
fn has_bwrap(what: &str) -> bool {
    if arbiter::bot::host::bwrap().is_some() {
        return true;
    }
    crate::common::skip(format!(
        "{what} needs bubblewrap: apt-get install bubblewrap (.ci/run installs it)"
    ));
    false
}

/// Plays `white` against the random bot (a few turns, generous clocks) with `extra` options;
/// returns the result and White's stderr tail.
fn play(white: &str, extra: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let out = arbiter()
        .args(["play", "--json", "--seed", "4", "--max-turns", "4"])
        .args(["--first-turn-ms", "20000", "--turn-ms", "5000"])
        .args(extra)
        .arg("--replay")
        .arg(&replay)
        .arg(white)
        .arg(random_bot())
        .output()
        .unwrap();
    (json_of(&out), stderr_tail(&replay, 0))
}

fn modes() -> Vec<&'static [&'static str]> {
    let mut modes: Vec<&[&str]> = vec![&[]];
    if has_bwrap("the sandbox half of this test") {
        modes.push(&["--sandbox"]);
    }
    modes
}

#[test]
fn a_bot_run_by_root_is_not_root_and_writes_no_cgroup_kernel_or_results_file() {
    if !as_root("running bots as their own user") {
        return;
    }
    // A results folder as `arbiter` makes one: root's, readable by all (outside /tmp, which
    // is the bot's own).
    let results = shared_tempdir();
    std::fs::set_permissions(results.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bot = hostile(&format!("privileges 1 {}", results.path().display()));
    for extra in modes() {
        let (v, err) = play(&bot, extra);
        assert_eq!(v["reason"], "turn-limit", "{extra:?}: {v}\n{err}");
        let uid: u32 = err
            .lines()
            .find_map(|l| l.strip_prefix("UID "))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|u| u.parse().ok())
            .unwrap_or_else(|| panic!("{extra:?}: no UID line: {err}"));
        assert_ne!(uid, 0, "{extra:?}: {err}");
        for what in ["CGROUP", "SYSCTL", "RESULTS"] {
            assert!(
                err.contains(&format!("{what}-BLOCKED")),
                "{extra:?}: {what}: {err}"
            );
        }
        assert!(!results.path().join("forged.csv").exists());
    }
}

#[test]
fn a_bot_frozen_by_someone_else_is_thawed_killed_and_judged() {
    if !as_root("a cgroup freezer") {
        return;
    }
    if !arbiter::bot::cgroup::freezer_available() {
        crate::common::skip("no cgroup freezer here as root (CI has cgroup v2 with cgroup.freeze)");
        return;
    }
    // Black sleeps through its first turn; once it is on turn, its cgroup is frozen from outside
    // (as a bot with root's rights could): the referee must still end the game on time.
    let mut referee = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args(["play", "--json", "--first-turn-ms", "3000"])
        .args(["--kill-grace-ms", "200"])
        .arg(hostile("honest"))
        .arg(hostile("sleep 1 100000"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let black = loop {
        // The python process itself (before its exec, a child shows the referee's command line).
        let started = children_with(referee.id(), "100000").into_iter().find(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.starts_with(python().as_bytes()))
        });
        if let Some(p) = started {
            break p;
        }
        if t.elapsed() > Duration::from_secs(10) {
            let _ = referee.kill();
            panic!("Black never started");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // White answers at once; Black is on turn a moment later.
    std::thread::sleep(Duration::from_millis(1500));
    let state = freeze_state_file(black);
    assert!(state.ends_with("freezer.state"), "no freezer: {state}");
    std::fs::write(&state, "FROZEN").unwrap();
    let t = Instant::now();
    let ended = loop {
        if let Some(status) = referee.try_wait().unwrap() {
            break Some(status);
        }
        if t.elapsed() > Duration::from_secs(15) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if ended.is_none() {
        let _ = std::fs::write(&state, "THAWED");
        let _ = referee.kill();
        panic!("the referee hung on a frozen bot");
    }
    let out = referee.wait_with_output().unwrap();
    let v = json_of(&out);
    assert_eq!(v["reason"], "timeout", "{v}");
    assert_eq!(v["offender"], 1, "{v}");
    let t = Instant::now();
    while std::path::Path::new(&format!("/proc/{black}/stat")).exists()
        && !std::fs::read_to_string(format!("/proc/{black}/stat"))
            .unwrap_or_default()
            .contains(") Z")
    {
        assert!(t.elapsed() < Duration::from_secs(2), "Black is still there");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `arbiter play EXTRA <tiocsti bot> <random>` under a real pseudo-terminal, in a shell
/// that afterwards reads one line from that terminal for up to 2 s; returns everything the
/// terminal showed and the bot's stderr tail.
fn play_in_a_terminal(extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let play = format!(
        "'{}' play --json --max-turns 2 --first-turn-ms 20000 {} --replay '{}' \"$BOT\" '{}'",
        env!("CARGO_BIN_EXE_arbiter"),
        extra.join(" "),
        replay.display(),
        random_bot()
    );
    let shell = format!("{play} >/dev/null; read -t 2 line && echo \"INJECTED[$line]\"; echo DONE");
    // Python's pty module: a child on a new terminal (its controlling one), the parent reading
    // what the terminal shows until the child ends.
    let harness = r#"
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv("/bin/sh", ["sh", "-c", sys.argv[1]])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
"#;
    let out = Command::new(python())
        .current_dir(root())
        .env("BOT", hostile("tiocsti 1"))
        .args(["-c", harness, &shell])
        .output()
        .expect("python3 with its pty module");
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    (shown, stderr_tail(&replay, 0))
}

#[test]
fn no_bot_types_into_the_terminal_arbiter_runs_in() {
    for extra in modes() {
        let (shown, err) = play_in_a_terminal(extra);
        assert!(shown.contains("DONE"), "{extra:?}: {shown}");
        assert!(err.contains("TIOCSTI-BLOCKED"), "{extra:?}: {err}");
        assert!(!shown.contains("INJECTED["), "{extra:?}: {shown}");
    }
}

#[test]
fn a_bot_gets_only_its_documented_environment() {
    for extra in modes() {
        let mut args = extra.to_vec();
        args.extend(["--bot-env", "EXTRA_FOR_BOT=1"]);
        let dir = tempfile::tempdir().unwrap();
        let replay = dir.path().join("r.jsonl");
        let out = arbiter()
            .env("FAKE_SECRET_TOKEN", "hunter2")
            .args(["play", "--json", "--max-turns", "2"])
            .args(["--first-turn-ms", "20000"])
            .args(&args)
            .arg("--replay")
            .arg(&replay)
            .arg(hostile("env-dump"))
            .arg(random_bot())
            .output()
            .unwrap();
        let v = json_of(&out);
        let err = stderr_tail(&replay, 0);
        assert_eq!(v["reason"], "turn-limit", "{v}");
        let names: Vec<&str> = err
            .lines()
            .skip_while(|l| *l != "ENV-BEGIN")
            .skip(1)
            .take_while(|l| *l != "ENV-END")
            .collect();
        assert_eq!(
            names,
            [
                "ARBITER_CLOCK",
                "ARBITER_FIRST_TURN_MS",
                "ARBITER_SEED",
                "ARBITER_TURN_MS",
                "EXTRA_FOR_BOT",
                "HOME",
                "LANG",
                "PATH",
                "PWD",
                "TMPDIR"
            ],
            "{extra:?}: {err}"
        );
    }
}

#[test]
fn a_fork_bomb_loses_by_process_limit_and_leaves_nothing() {
    if !as_root("a pids cgroup") {
        return;
    }
    let mark = marker("fork-bomb");
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    // No --max-processes: the default cap holds.
    let out = arbiter()
        .env("ARBITER_TEST_MARKER", &mark)
        .args(["play", "--json", "--first-turn-ms", "20000"])
        .args(["--bot-env", "ARBITER_TEST_MARKER", "--replay"])
        .arg(&replay)
        .arg(hostile("fork-bomb 1 300"))
        .arg(random_bot())
        .output()
        .unwrap();
    let v = json_of(&out);
    let err = stderr_tail(&replay, 0);
    assert_eq!(v["reason"], "process-limit", "{v}\n{err}");
    assert_eq!(v["offender"], 0, "{v}");
    assert!(err.contains("FORK-REFUSED"), "{err}");
    assert!(processes_with(&mark).is_empty());
}

#[test]
fn identical_submissions_each_see_their_own_program_in_the_sandbox() {
    if !has_bwrap("identical submissions in the sandbox") {
        return;
    }
    // Two students hand in the same starter bot: one build folder in the cache for both.
    let class = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let code = std::fs::read_to_string(root().join("tests/bots/hostile.py")).unwrap();
    let starter = format!("import sys\nsys.argv[1:] = ['honest']\n{code}");
    for student in ["alice", "bob"] {
        let dir = class.path().join(student);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("bot.py"), &starter).unwrap();
    }
    let out = arbiter()
        .env("ARBITER_CACHE", cache.path())
        .args(["play", "--json", "--sandbox", "--max-turns", "6"])
        .args(["--first-turn-ms", "20000", "--turn-ms", "5000"])
        .arg(class.path().join("alice"))
        .arg(class.path().join("bob"))
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["reason"], "turn-limit", "{v}");
}

#[test]
fn the_start_up_check_names_an_interpreter_its_user_cannot_use() {
    if !as_root("running bots as their own user") {
        return;
    }
    // A pyenv-style shim under a folder only root may enter (as /root is).
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let shims = home.path().join(".pyenv/shims");
    std::fs::create_dir_all(&shims).unwrap();
    let shim = shims.join("python3");
    std::fs::write(
        &shim,
        "#!/bin/sh\nexec \"$(dirname \"$0\")/../libexec/pyenv\" \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = arbiter()
        .args(["play", "--json"])
        .arg(format!("{} tests/bots/hostile.py honest", shim.display()))
        .arg(random_bot())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&shim.display().to_string()), "{err}");
    assert!(err.contains("shim"), "{err}");
}

/// A command that starts its program through a shell (`sh -c 'exec /root/x/bot'`) runs as a
/// plain command does: run by root, the program the script names, in a folder only root may
/// enter, is made reachable for the bot's own user; a version manager's shim named there is
/// refused before the game, as when the command names it directly.
#[test]
fn a_program_named_in_a_shells_script_is_reachable_for_the_bots_user() {
    if !as_root("running bots as their own user") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let program = home.path().join("bin/first");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    std::fs::copy(first_bot(), &program).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    for shell in ["sh -c", "bash -ec"] {
        let bot = format!("{shell} 'cd /tmp && exec {}'", program.display());
        let (v, tail) = play(&bot, &[]);
        assert!(
            ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
            "{bot}: {v}
{tail}"
        );
    }
    let shims = home.path().join(".pyenv/shims");
    std::fs::create_dir_all(&shims).unwrap();
    let shim = shims.join("python3");
    std::fs::write(
        &shim,
        "#!/bin/sh
exec \"$(dirname \"$0\")/../libexec/pyenv\" \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = arbiter()
        .args(["play", "--json"])
        .arg(format!(
            "sh -c '{} tests/bots/hostile.py honest'",
            shim.display()
        ))
        .arg(random_bot())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("its shell script names"), "{err}");
    assert!(err.contains(&shim.display().to_string()), "{err}");
    assert!(err.contains("shim"), "{err}");
}

/// A bot's signals keep their ordinary meaning without the sandbox: run by root, a bot starts in
/// a process-id namespace of its own, whose first process the kernel protects from its own
/// signals; the bot is not that process (an init is), so a bot that raises SIGSEGV on itself,
/// or is killed by its own child with SIGKILL, crashes instead of going on.
#[test]
fn a_bot_that_raises_a_fatal_signal_on_itself_crashes_without_the_sandbox() {
    if !as_root("a bot in a process-id namespace of its own") {
        return;
    }
    let (v, err) = play(&hostile("raise-segv 1"), &[]);
    assert_eq!(v["reason"], "crash", "{v}\n{err}");
    assert_eq!(v["offender"], 0, "{v}");
    let detail = v["detail"].as_str().unwrap();
    assert!(
        detail.contains("killed by signal 11 (SIGSEGV)"),
        "{detail}\n{err}"
    );
    assert!(!err.contains("SURVIVED-SIGSEGV"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bot = dir.path().join("killed-by-its-child.sh");
    std::fs::write(
        &bot,
        "#!/bin/sh\nread line\nsh -c 'kill -KILL $PPID'\necho SURVIVED-SIGKILL >&2\nsleep 5\n",
    )
    .unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (v, err) = play(bot.to_str().unwrap(), &[]);
    assert_eq!(v["reason"], "crash", "{v}\n{err}");
    assert_eq!(v["offender"], 0, "{v}");
    let detail = v["detail"].as_str().unwrap();
    assert!(
        detail.contains("killed by signal 9 (SIGKILL"),
        "{detail}\n{err}"
    );
    assert!(!err.contains("SURVIVED-SIGKILL"), "{err}");
}
