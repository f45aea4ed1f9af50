//! Java bots without the sandbox: each JVM is the first process (pid 1) of its own process-id
//! namespace, and a JVM keeps its perf-data file under /tmp/hsperfdata_USER/PID. Two such JVMs
//! of one user share that file and the second warns, on stdout where its answers go, that it
//! cannot use it. As root each bot has a user of its own (with no name: no file at all); as
//! root of a user namespace that maps only itself (a container's root) every bot is root. Real
//! games of two single-file Java bots (built by the real javac) in both show that neither
//! writes anything but its moves.

use crate::common::*;

fn need(program: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        crate::common::skip(format!(
            "this test needs {program}: install a JDK (apt-get install default-jdk-headless)"
        ));
    }
    found
}

#[test]
fn two_java_bots_at_once_without_the_sandbox_write_only_their_moves() {
    if !need("javac") || !need("java") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    for name in ["ann", "ben"] {
        std::fs::create_dir(work.join(name)).unwrap();
        // Different sources: two build folders, two bots as different as two students'.
        let source = format!("// {name}\n{JAVA_BOT}");
        std::fs::write(work.join(name).join("Player.java"), source).unwrap();
    }
    // Plainly, then as root of a user namespace that maps only root (the bots, built by the
    // first run, are found in the cache).
    let unshare = ["unshare", "--user", "--map-root-user"];
    for (run, wrapper) in [("plain", &[][..]), ("userns", &unshare[..])] {
        if !wrapper.is_empty() && !need("unshare") {
            continue;
        }
        let out_dir = work.join(run);
        let mut cmd = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = std::process::Command::new(program);
                c.args(args).arg(env!("CARGO_BIN_EXE_arbiter"));
                c
            }
            None => std::process::Command::new(env!("CARGO_BIN_EXE_arbiter")),
        };
        let out = cmd
            .current_dir(work)
            .env("ARBITER_CACHE", work.join("cache"))
            .args([
                "tournament",
                "--games",
                "4",
                "--seed",
                "3",
                "--concurrency",
                "2",
            ])
            .args(["--first-turn-ms", "10000", "--turn-ms", "2000", "--out"])
            .arg(&out_dir)
            .args(["ann", "ben"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{run}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let rows = read_csv(&out_dir.join("games.csv"));
        assert_eq!(rows.len(), 4, "{run}");
        let records = std::fs::read_to_string(out_dir.join("records.jsonl")).unwrap();
        for row in &rows {
            assert!(
                ["win", "turn-limit"].contains(&row["reason"].as_str()),
                "{run}: a JVM wrote something else than a move: {row:?}\n{records}"
            );
        }
        for word in ["hsperfdata", "warning"] {
            assert!(!records.contains(word), "{run}: {word} in {records}");
        }
    }
}
