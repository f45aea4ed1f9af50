//! Bots of one game without `--sandbox`, with the referee running as root (as in CI): a bot
//! cannot see, signal or read and write the pipes of its opponent or the referee, and nothing
//! of a bot outlives a referee killed with SIGKILL. (Run by another user, bots get no such
//! isolation; docs/isolation.md says so, and these tests check the root case only.)

use crate::common::*;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether bots are isolated here (as root with CAP_SYS_ADMIN); fails where `CI` is set
/// without it (CI runs the tests as root), so that nothing here is skipped unseen.
fn is_root() -> bool {
    let isolated = arbiter::bot::isolates_bots();
    assert!(
        isolated || std::env::var_os("CI").is_none(),
        "bots are isolated only as root with CAP_SYS_ADMIN: run the tests as root"
    );
    isolated
}

/// Starts `arbiter COMMAND ARGS...` with `mark` in the bots' environment (passed on with
/// `--bot-env`: it finds every process they start).
fn start(args: &[String], mark: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .env("ARBITER_TEST_MARKER", mark)
        .arg(&args[0])
        .args(["--bot-env", "ARBITER_TEST_MARKER"])
        .args(&args[1..])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_bot_cannot_reach_its_opponent_or_the_referee() {
    if !is_root() {
        eprintln!("not root (or no CAP_SYS_ADMIN): bots of one game are not isolated");
        return;
    }
    let dir = shared_tempdir();
    let pids = dir.path().join("pids");
    let replay = dir.path().join("r.jsonl");
    let mark = marker("attack");
    let args: Vec<String> = [
        "play",
        "--json",
        "--seed",
        "5",
        "--max-turns",
        "6",
        "--first-turn-ms",
        "20000",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "--replay".to_string(),
        replay.display().to_string(),
        hostile(&format!("attack 1 {}", pids.display())),
        hostile("honest"),
    ])
    .collect();
    let referee = start(&args, &mark);
    let t = Instant::now();
    let opponent = loop {
        let started = children_with(referee.id(), "honest").into_iter().find(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.starts_with(python().as_bytes()))
        });
        if let Some(p) = started {
            break p;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the bots never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    std::fs::write(&pids, format!("{opponent} {}", referee.id())).unwrap();
    let out = referee.wait_with_output().unwrap();
    let v = json_of(&out);
    let err = stderr_tail(&replay, 0);
    assert_eq!(v["reason"], "turn-limit", "the game goes on: {v}\n{err}");
    assert!(err.contains("CAPEFF 0000000000000000"), "{err}");
    for what in ["SEE", "SIGNAL-OPP", "SIGNAL-REF", "FD-WRITE", "FD-READ"] {
        assert!(err.contains(&format!("{what}-BLOCKED")), "{what}: {err}");
    }
    assert!(processes_with(&mark).is_empty());
}

#[test]
fn nothing_of_a_bot_outlives_a_referee_killed_with_sigkill() {
    // The bot starts a sleeper in a session of its own, out of its process group: with the
    // referee gone without cleaning up, the sleeper must still go within a second.
    let mark = marker("orphan");
    for sandbox in [false, true] {
        // The bot itself never answers (its first turn may last a minute).
        let bot = "sh -c 'setsid sleep 1000 & exec sleep 999'".to_string();
        let mut args: Vec<String> = vec!["play".into(), "--first-turn-ms".into(), "60000".into()];
        if sandbox {
            args.push("--sandbox".into());
        }
        args.extend([bot, random_bot()]);
        let mut referee = start(&args, &mark);
        let others = |referee: u32| -> Vec<u32> {
            processes_with(&mark)
                .into_iter()
                .filter(|&p| p != referee)
                .collect()
        };
        let t = Instant::now();
        while !processes_with(&mark).iter().any(|&p| {
            std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.starts_with(b"sleep\0"))
        }) {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "the sleeper never started"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let id = referee.id();
        referee.kill().unwrap(); // SIGKILL
        referee.wait().unwrap();
        let t = Instant::now();
        while !others(id).is_empty() {
            assert!(
                t.elapsed() < Duration::from_secs(1),
                "sandbox {sandbox}: left behind after a second: {:?}",
                others(id)
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn a_bot_that_ignores_the_end_of_its_input_is_ended_without_waiting_the_grace() {
    // The first process of a pid namespace ignores TERM it does not handle: a bot that would
    // have died of it is killed at once, not after the grace.
    let out = arbiter()
        .args([
            "play",
            "--json",
            "--first-turn-ms",
            "300",
            "--kill-grace-ms",
            "20000",
        ])
        .args(["sh -c 'exec sleep 1000'", &random_bot()])
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["reason"], "timeout", "{v}");
}

#[test]
fn a_bot_frozen_when_the_referee_is_killed_goes_too() {
    // White answers at once and is frozen 5 ms into Black's first turn, which lasts a minute;
    // the referee is then killed with SIGKILL. A frozen process cannot act on the signal that
    // should end it until something thaws it.
    let mark = marker("frozen-orphan");
    let args: Vec<String> = vec![
        "play".into(),
        "--first-turn-ms".into(),
        "60000".into(),
        hostile("honest"),
        hostile("sleep 1 100000"),
    ];
    let mut referee = start(&args, &mark);
    let t = Instant::now();
    let white = loop {
        let found = children_with(referee.id(), "honest").into_iter().find(|p| {
            let started = std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.starts_with(python().as_bytes()));
            started
                && std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                    matches!(s.rsplit_once(") ").map(|(_, r)| &r[..1]), Some("T" | "D"))
                })
        });
        if let Some(p) = found {
            break p;
        }
        if t.elapsed() > Duration::from_secs(10) {
            let _ = referee.kill();
            panic!("White was never frozen");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    referee.kill().unwrap(); // SIGKILL
    referee.wait().unwrap();
    let t = Instant::now();
    while std::path::Path::new(&format!("/proc/{white}")).exists() {
        let stat = std::fs::read_to_string(format!("/proc/{white}/stat")).unwrap_or_default();
        if stat.contains(") Z") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "frozen bot left: {stat}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let t = Instant::now();
    while !processes_with(&mark).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "left: {:?}",
            processes_with(&mark)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn each_bots_init_is_the_small_static_program_embedded_in_arbiter() {
    if !is_root() {
        eprintln!("not root (or no CAP_SYS_ADMIN): bots have no init of their own");
        return;
    }
    let mark = marker("init");
    let args: Vec<String> = ["play", "--max-turns", "4", "--first-turn-ms", "20000"]
        .iter()
        .map(|s| s.to_string())
        .chain([hostile("sleep 1 3000"), hostile("honest")])
        .collect();
    let mut referee = start(&args, &mark);
    let t = Instant::now();
    let inits = loop {
        let inits: Vec<u32> = std::fs::read_dir(format!("/proc/{}/task", referee.id()))
            .unwrap()
            .flatten()
            .flat_map(|task| {
                std::fs::read_to_string(task.path().join("children"))
                    .unwrap_or_default()
                    .split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok())
                    .collect::<Vec<_>>()
            })
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.starts_with(b"arbiter-init\0"))
            })
            .collect();
        if inits.len() == 2 {
            break inits;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the inits never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    for init in inits {
        let exe = std::fs::read_link(format!("/proc/{init}/exe")).unwrap();
        assert!(
            exe.to_string_lossy().starts_with("/memfd:arbiter-init"),
            "the init runs {} instead of the embedded program",
            exe.display()
        );
        // Static, without the C library: no dynamic loader, no shared library mapped.
        let maps = std::fs::read_to_string(format!("/proc/{init}/maps")).unwrap();
        assert!(!maps.contains(".so"), "{maps}");
    }
    let _ = referee.kill();
    let _ = referee.wait();
    let t = Instant::now();
    while !processes_with(&mark).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the bots outlived their referee"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn where_the_kernel_forbids_executing_an_in_memory_file_arbiter_itself_is_the_init() {
    if !is_root() {
        eprintln!("not root (or no CAP_SYS_ADMIN): bots have no init of their own");
        return;
    }
    // vm.memfd_noexec (Linux 6.3 on) belongs to a process-id namespace: set to 2 in a new one,
    // it forbids executable in-memory files there alone.
    if !std::path::Path::new("/proc/sys/vm/memfd_noexec").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "this kernel has no vm.memfd_noexec (Linux 6.3 or later has): the fallback init \
             cannot be tested"
        );
        eprintln!("no vm.memfd_noexec in this kernel: the fallback init is not tested");
        return;
    }
    let mark = marker("fallback-init");
    let script = format!(
        "echo 2 > /proc/sys/vm/memfd_noexec && exec \"$0\" play --bot-env ARBITER_TEST_MARKER \
         --max-turns 4 --first-turn-ms 20000 '{}' '{}'",
        hostile("sleep 1 1500"),
        hostile("honest")
    );
    let mut referee = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "sh", "-c", &script])
        .arg(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .env("ARBITER_TEST_MARKER", &mark)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("unshare (util-linux) is needed");
    let t = Instant::now();
    let bot = loop {
        let bots: Vec<u32> = processes_with(&mark)
            .into_iter()
            .filter(|p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .is_ok_and(|c| c.starts_with(python().as_bytes()))
            })
            .collect();
        if let Some(&bot) = bots.first() {
            break bot;
        }
        if let Ok(Some(status)) = referee.try_wait() {
            let out = referee.wait_with_output().unwrap();
            panic!(
                "arbiter ended ({status}) before its bots were seen: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the bots never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let status = std::fs::read_to_string(format!("/proc/{bot}/status")).unwrap();
    let init: u32 = status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|p| p.trim().parse().ok())
        .unwrap();
    // The bot's parent execs the init just after the bot has started: wait for it.
    let t = Instant::now();
    while !std::fs::read(format!("/proc/{init}/cmdline"))
        .unwrap_or_default()
        .starts_with(b"arbiter-init\0")
    {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the bot's parent is no init"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let exe = std::fs::read_link(format!("/proc/{init}/exe")).unwrap();
    assert_eq!(
        exe,
        std::fs::canonicalize(env!("CARGO_BIN_EXE_arbiter")).unwrap(),
        "the fallback init is arbiter's own program"
    );
    let out = referee.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the game is played with the fallback init: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(processes_with(&mark).is_empty());
}

#[test]
fn a_referee_in_another_pid_namespace_leaves_this_ones_bots_alone() {
    use arbiter::bot::{shutdown_all, wait_line, BotProcess, BotSpec, Limits, Wait};
    if !is_root() {
        return;
    }
    let echo = BotSpec::resolve(&format!(
        "{} {}/tests/bots/echo.py",
        python(),
        root().display()
    ))
    .unwrap();
    let limits = Limits::default();
    let answers = |bots: &mut [BotProcess]| {
        bots[0]
            .send(b"hello\n", Instant::now() + Duration::from_secs(5))
            .expect("the bot was killed");
        match wait_line(bots, 0, Instant::now() + Duration::from_secs(5)) {
            Wait::Line(line, _) => assert_eq!(line, b"hello"),
            other => panic!("the bot no longer answers: {other:?}"),
        }
    };
    // This referee (the test) has a bot frozen between its turns, in cgroups of its own...
    let mut idle = [BotProcess::spawn(&echo, &limits, &[]).unwrap()];
    answers(&mut idle);
    idle[0].freeze();
    let freezer = std::fs::read_to_string(format!("/proc/{}/cgroup", idle[0].pid()))
        .unwrap()
        .lines()
        .find_map(|l| l.split_once(":freezer:").map(|(_, p)| p.to_string()))
        .map(|p| format!("/sys/fs/cgroup/freezer{p}/freezer.state"));
    let state = || {
        freezer
            .as_ref()
            .map(|f| std::fs::read_to_string(f).unwrap())
    };
    // ...and the empty cgroups of an ended bot, kept for its next bot.
    let mut ended = [BotProcess::spawn(&echo, &limits, &[]).unwrap()];
    shutdown_all(&mut ended, Duration::from_millis(200));
    drop(ended);
    // A referee in a pid namespace of its own (a container sharing the cgroup tree, say), where
    // this process's id means nothing, clears the cgroups of killed referees as it starts.
    let out = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc"])
        .arg(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "play",
            "--max-turns",
            "2",
            &hostile("honest"),
            &hostile("honest"),
        ])
        .current_dir(root())
        .output()
        .expect("unshare (util-linux) is needed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // None of this referee's cgroups was its to judge: the idle bot is still frozen (thawed,
    // it could think on its opponent's time), and the next bot gets the kept cgroups.
    if let Some(state) = state() {
        assert_eq!(state.trim(), "FROZEN");
    }
    let mut next = [BotProcess::spawn(&echo, &limits, &[]).expect("its kept cgroups were removed")];
    answers(&mut next);
    shutdown_all(&mut next, Duration::from_millis(200));
    idle[0].thaw();
    answers(&mut idle);
    shutdown_all(&mut idle, Duration::from_millis(200));
}
