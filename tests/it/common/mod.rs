//! Shared helpers for the integration tests: run the real `arbiter` binary against real bot
//! processes, and look for processes a game left behind.
#![allow(dead_code)]

pub mod league;
pub mod probe;
mod referee_runs;
pub mod sdk_game;
pub mod webgl;
pub use referee_runs::*;

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python interpreter itself (not a wrapper script such as a pyenv shim, which forks and
/// slows every start).
pub fn python() -> String {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let out = std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .expect("the tests need python3 (.ci/run installs it)");
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        })
        .clone()
}

/// A command line for the hostile test bot in the given mode.
pub fn hostile(mode_and_args: &str) -> String {
    format!(
        "{} {}/tests/bots/hostile.py {mode_and_args}",
        python(),
        root().display()
    )
}

pub fn random_bot() -> String {
    env!("CARGO_BIN_EXE_arbiter-bot-random").to_string()
}

pub fn greedy_bot() -> String {
    env!("CARGO_BIN_EXE_arbiter-bot-greedy").to_string()
}

pub fn first_bot() -> String {
    env!("CARGO_BIN_EXE_arbiter-bot-first").to_string()
}

pub fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(root());
    c
}

/// Runs `arbiter play --json` with generous clocks (tests run in parallel on a small machine)
/// plus `extra` options; returns the JSON result and how long the run took.
pub fn play_json(white: &str, black: &str, extra: &[&str]) -> (Value, Duration) {
    let t = Instant::now();
    let out = arbiter()
        .args([
            "play",
            "--json",
            "--seed",
            "1",
            "--turn-ms",
            "1000",
            "--first-turn-ms",
            "5000",
        ])
        .args(extra)
        .arg(white)
        .arg(black)
        .output()
        .unwrap();
    (json_of(&out), t.elapsed())
}

/// The JSON a successful run printed; a failed run or non-JSON output fails the test, showing
/// what arbiter said.
pub fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "arbiter failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The lines of a replay file, parsed.
pub fn replay(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The stderr tail of `seat` from a replay file's result line.
pub fn stderr_tail(path: &std::path::Path, seat: usize) -> String {
    let lines = replay(path);
    let result = lines.last().expect("a result line");
    result["stderr_tail"][seat].as_str().unwrap().to_string()
}

/// Pids of live processes whose command line or environment mentions `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let has = |b: &[u8]| b.windows(marker.len()).any(|w| w == marker.as_bytes());
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map(|s| s.contains(") Z "))
            .unwrap_or(false);
        if (has(&cmdline) || has(&environ)) && !zombie {
            found.push(pid);
        }
    }
    found
}

/// A temporary folder that a test shares with its bots, outside /tmp: a bot run by root gets a
/// /tmp of its own (it would not see one there).
pub fn shared_tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in(root().join("target")).unwrap()
}

/// A marker unique to one test, to find that test's processes only.
pub fn marker(name: &str) -> String {
    format!("arbiter-test-{name}-{}", std::process::id())
}

/// The referee's children whose command line contains `text` (a bot under an init of its own
/// counts as the referee's child).
pub fn children_with(referee: u32, text: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let tasks = std::fs::read_dir(format!("/proc/{referee}/task"))
        .into_iter()
        .flatten();
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
        {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if cmdline.starts_with(b"arbiter-init\0") {
                // A bot's init (run by root, without the sandbox): the bot is its child.
                found.extend(children_with(pid, text));
            } else if String::from_utf8_lossy(&cmdline).contains(text) {
                found.push(pid);
            }
        }
    }
    found
}

/// What tells whether process `pid` is frozen: its cgroup freezer's file (v1 `freezer.state`,
/// v2 `cgroup.events`) when it is in a bot cgroup of the referee, else its pid (for /proc).
pub fn freeze_state_file(pid: u32) -> String {
    let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if !path.contains("/arbiter-") {
            continue;
        }
        let file = match controllers {
            "freezer" => format!("/sys/fs/cgroup/freezer{path}/freezer.state"),
            "" => format!("/sys/fs/cgroup{path}/cgroup.events"),
            _ => continue,
        };
        if std::path::Path::new(&file).is_file() {
            return file;
        }
    }
    pid.to_string()
}

/// The rows of a CSV file, each as a map from column name to value.
pub fn read_csv(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .map(String::from)
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The Chromium binary; without one the test is skipped locally and fails on CI.
pub fn chromium() -> Option<String> {
    for name in ["chromium", "chromium-browser"] {
        if std::process::Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(name.to_string());
        }
    }
    crate::common::skip("this test needs chromium (apt-get install chromium)");
    None
}

/// Loads `url` and returns the DOM after its scripts ran, with the page's console messages.
pub fn load(browser: &str, url: &str) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--enable-logging=stderr",
            "--v=0",
            // Replay pages unpack their data after the load event: let their scripts finish.
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .output()
        .unwrap();
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

/// A single-file Java bot (class Player) that reads the Impasse arena input and answers the
/// middle offered move.
pub const JAVA_BOT: &str = r#"import java.util.*;

class Player {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        boolean first = true;
        while (true) {
            if (first) { in.nextLine(); first = false; }
            for (int i = 0; i < 9; i++) in.nextLine();
            int n = Integer.parseInt(in.nextLine().trim());
            List<String> moves = new ArrayList<>();
            for (int i = 0; i < n; i++) moves.add(in.nextLine());
            System.out.println(moves.get(n / 2));
        }
    }
}
"#;

/// Whether bwrap is on the PATH; without it the test fails where `CI` is set, and says so
/// elsewhere.
pub fn bwrap_or_fail() -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("bwrap").is_file()));
    if !found {
        crate::common::skip("this test needs bubblewrap: apt-get install bubblewrap");
    }
    found
}

/// Starts `arbiter league serve DIR BOT... --local-workers N` on a free loopback port (Impasse,
/// generous limits, seed `seed`) and returns the process with the URL it said it listens on.
pub fn league_serve(
    dir: &std::path::Path,
    bots: &[String],
    workers: usize,
    seed: u64,
) -> (std::process::Child, String) {
    let (workers, seed) = (workers.to_string(), seed.to_string());
    let args = [
        "--local-workers",
        &workers,
        "--turn-ms",
        "2000",
        "--seed",
        &seed,
    ];
    league_serve_with(dir, bots, &args)
}

/// Starts `arbiter league serve DIR BOT... ARGS` on a free loopback port (Impasse, a first turn
/// of 5 s) and returns the process with the URL it said it listens on.
pub fn league_serve_with(
    dir: &std::path::Path,
    bots: &[String],
    args: &[&str],
) -> (std::process::Child, String) {
    league_serve_with_stderr(dir, bots, args, std::process::Stdio::inherit())
}

/// [`league_serve_with`], the server's stderr going to `stderr`.
pub fn league_serve_with_stderr(
    dir: &std::path::Path,
    bots: &[String],
    args: &[&str],
    stderr: impl Into<std::process::Stdio>,
) -> (std::process::Child, String) {
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args(["league", "serve"])
        .arg(dir)
        .args(bots)
        .args(["--listen", "127.0.0.1:0", "--game", "impasse"])
        .args(["--first-turn-ms", "5000"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let url = listening(&mut child);
    (child, url)
}

/// The URL a league server just started as `child` (its stdout piped) says it listens on.
pub fn listening(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("the server said where it listens: {line:?}"))
        .to_string()
}

/// Says that a test (or part of one) did not run, and `why`: what is missing and how to get it.
/// Under CI (the `CI` variable set) nothing may be missing: it fails the test, saying why.
#[track_caller]
pub fn skip(why: impl std::fmt::Display) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{why} (under CI a test that cannot run fails)"
    );
    eprintln!("skipped: {why} (set CI to make this a failure)");
}
