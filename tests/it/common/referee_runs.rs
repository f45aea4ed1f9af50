//! What the tests of games whose rules are a referee process (tests/it/external.rs, sdk.rs) run
//! alike: a game played, a tournament's arguments, a run killed and resumed, shards merged, an
//! SPRT that must decide, a class graded against a baseline, and the records a run wrote.

use super::{arbiter, python, read_csv};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Runs `cmd`, which must succeed (else its stdout and stderr are shown).
pub fn succeeded(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every line of a results folder's records.jsonl.
pub fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("records.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `arbiter tournament` of `referee`'s game into `out`: `games` games a pairing, seed 5, two at
/// once, with `clock` (the referee's and the bots' time options); the bots come after.
pub fn referee_tournament_args(
    referee: &str,
    clock: &[&str],
    out: &Path,
    games: &str,
) -> Vec<String> {
    let mut args: Vec<String> = [
        "tournament",
        "--games",
        games,
        "--seed",
        "5",
        "--concurrency",
        "2",
    ]
    .iter()
    .chain(clock)
    .chain(&["--referee", referee, "--out"])
    .map(|s| s.to_string())
    .collect();
    args.push(out.display().to_string());
    args
}

/// `arbiter sprt` (seed 3, into DIR/s) with `opts` (the referee, its clock, the test's bounds)
/// of `new` against `old`: it must end well and accept H1.
pub fn sprt_accepts_h1(dir: &Path, opts: &[&str], new: &str, old: &str) {
    let out = succeeded(
        arbiter()
            .args(["sprt", "--seed", "3"])
            .args(opts)
            .arg("--out")
            .arg(dir.join("s"))
            .args([new, old]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Decision: H1 accepted"), "{stdout}");
}

/// A class graded by `arbiter grade`: its marks folder and its marks.csv.
pub struct Graded {
    pub out: PathBuf,
    pub marks: Vec<HashMap<String, String>>,
}

impl Graded {
    /// The mark of `who` (a student's row names them).
    pub fn mark(&self, who: &str) -> f64 {
        let row = self
            .marks
            .iter()
            .find(|r| r.values().any(|v| v == who))
            .unwrap_or_else(|| panic!("no row for {who}: {:?}", self.marks));
        row["mark"].parse().unwrap()
    }
}

/// Grades the class of `students` (file name and Python source, in DIR/class) against one
/// baseline, the Python `source` run as `bot.py MODE` from its own folder and named `mode`,
/// with `opts` (the referee and its clock): two games a pairing, seed 3, the cache in
/// DIR/cache, the marks in DIR/marks. The run must succeed.
pub fn grade_class(
    dir: &Path,
    students: &[(&str, &str)],
    source: &str,
    mode: &str,
    opts: &[&str],
) -> Graded {
    let class = dir.join("class");
    std::fs::create_dir_all(&class).unwrap();
    for (file, text) in students {
        std::fs::write(class.join(file), text).unwrap();
    }
    // A bot's run line names files in its own folder only.
    let baseline = dir.join("baseline");
    std::fs::create_dir_all(&baseline).unwrap();
    std::fs::write(baseline.join("bot.py"), source).unwrap();
    std::fs::write(
        baseline.join("bot.toml"),
        format!("name = \"{mode}\"\nrun = \"{} bot.py {mode}\"\n", python()),
    )
    .unwrap();
    let out_dir = dir.join("marks");
    succeeded(
        arbiter()
            .env("ARBITER_CACHE", dir.join("cache"))
            .args(["grade", "--games", "2", "--seed", "3"])
            .args(opts)
            .arg("--baseline")
            .arg(&baseline)
            .arg("--out")
            .arg(&out_dir)
            .arg(&class),
    );
    let marks = read_csv(&out_dir.join("marks.csv"));
    Graded {
        out: out_dir,
        marks,
    }
}

/// Plays a tournament in `shards` shards, shard K into DIR/shard-K with the arguments
/// `tournament(folder)` then `--shard K/N` and `bots`, then merges them into DIR/all; every run
/// must succeed. Returns the merged games.csv rows.
pub fn play_and_merge_shards(
    dir: &Path,
    shards: u32,
    tournament: impl Fn(&Path) -> Vec<String>,
    bots: &[String],
) -> Vec<HashMap<String, String>> {
    for k in 1..=shards {
        succeeded(
            arbiter()
                .args(tournament(&dir.join(format!("shard-{k}"))))
                .args(["--shard".to_string(), format!("{k}/{shards}")])
                .args(bots),
        );
    }
    merge_shards(dir, shards)
}

/// Merges the results folders DIR/shard-1 to DIR/shard-N into DIR/all; the merge must succeed.
/// Returns its games.csv rows.
pub fn merge_shards(dir: &Path, shards: u32) -> Vec<HashMap<String, String>> {
    let all = dir.join("all");
    let shards = (1..=shards).map(|k| dir.join(format!("shard-{k}")));
    succeeded(arbiter().arg("merge").arg(&all).args(shards));
    read_csv(&all.join("games.csv"))
}

/// Starts `arbiter ARGS` (a run into the folder of `csv`, its games.csv) and kills it with
/// SIGKILL once `lines` lines are in games.csv (the header counts), failing if that takes
/// longer than `within`. Returns the games it had recorded.
pub fn kill_after_lines(args: &[String], csv: &Path, lines: usize, within: Duration) -> usize {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(super::root())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + within;
    while std::fs::read_to_string(csv).map_or(0, |t| t.lines().count()) < lines {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    read_csv(csv).len()
}

/// Runs `arbiter ARGS` again after [`kill_after_lines`]: it must resume and end with every
/// game of ids 0 to `games` - 1 in games.csv (at `csv`) won. Returns its output.
pub fn resume_to_the_end(args: &[String], csv: &Path, games: u64) -> std::process::Output {
    let done = succeeded(arbiter().args(args));
    assert!(String::from_utf8_lossy(&done.stderr).contains("resuming"));
    let rows = read_csv(csv);
    let mut ids: Vec<u64> = rows.iter().map(|r| r["game_id"].parse().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..games).collect::<Vec<u64>>());
    assert!(rows.iter().all(|r| r["reason"] == "win"), "{rows:?}");
    done
}

/// `arbiter play --json` of `referee`'s game with `opts` (the clocks, the seed), then `extra`,
/// between `bots`: the game's JSON.
pub fn play_referee(referee: &str, opts: &[&str], extra: &[&str], bots: &[String]) -> Value {
    let out = arbiter()
        .args(["play", "--json"])
        .args(opts)
        .args(["--referee", referee])
        .args(extra)
        .args(bots)
        .output()
        .unwrap();
    super::json_of(&out)
}
