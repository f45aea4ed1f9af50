//! `arbiter grade` end to end: a class of single-file bots in five languages built by the real
//! compilers (gcc, g++, javac, node, python3; `.ci/run` installs them), plus bots that do not
//! compile, crash, time out or chat on stdout; the marks, the rubric, and a re-run after one
//! student resubmits.

use crate::common::*;
use std::collections::HashMap;
use std::path::Path;

/// Reads the Impasse arena input; `answer` picks the reply from the offered moves.
const PY_LOOP: &str = r#"import sys, time
turn = 0
while True:
    turn += 1
    if turn == 1:
        input()  # colour
    for _ in range(8):
        input()
    input()  # last move
    moves = [input() for _ in range(int(input()))]
    BEHAVIOUR
    print(moves[0])
"#;

fn python_bot(behaviour: &str) -> String {
    PY_LOOP.replace("BEHAVIOUR", behaviour)
}

const C_BOT: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Answers the first offered move; no fflush, as arena bots are written. */
int main(void) {
    char line[256], move[64];
    int first = 1;
    for (;;) {
        if (first) { if (!fgets(line, sizeof line, stdin)) return 0; first = 0; }
        for (int i = 0; i < 9; i++) if (!fgets(line, sizeof line, stdin)) return 0;
        if (!fgets(line, sizeof line, stdin)) return 0;
        int n = atoi(line);
        for (int i = 0; i < n; i++) {
            if (!fgets(line, sizeof line, stdin)) return 0;
            if (i == 0) { line[strcspn(line, "\n")] = 0; strcpy(move, line); }
        }
        printf("%s\n", move);
    }
}
"#;

const CPP_BOT: &str = r#"#include <iostream>
#include <string>
#include <vector>
using namespace std;
// Answers the last offered move.
int main() {
    string line;
    bool first = true;
    while (true) {
        if (first) { if (!getline(cin, line)) return 0; first = false; }
        for (int i = 0; i < 9; i++) if (!getline(cin, line)) return 0;
        if (!getline(cin, line)) return 0;
        int n = stoi(line);
        vector<string> moves(n);
        for (auto &m : moves) getline(cin, m);
        cout << moves.back() << endl;
    }
}
"#;

/// Uses the arena's synchronous readline(), which plain node lacks.
const JS_BOT: &str = r#"let first = true;
while (true) {
    if (first) { readline(); first = false; }
    for (let i = 0; i < 9; i++) readline();
    const n = parseInt(readline());
    const moves = [];
    for (let i = 0; i < n; i++) moves.push(readline());
    console.log(moves[Math.floor(Math.random() * n)]);
}
"#;

const BROKEN_CPP: &str = "int main() { return undefined_thing; }\n";

const RUBRIC: &str = r#"not_built = 1

[[baseline]]
name = "arbiter-bot-first"
min_score = 50
points = 3

[[baseline]]
name = "arbiter-bot-random"
min_score = 50
points = 2

[rank]
points = [2, 1]
others = 0
"#;

fn write_class(dir: &Path) {
    std::fs::create_dir_all(dir.join("dave")).unwrap();
    let files: [(&str, String); 9] = [
        ("alice.py", python_bot("pass")),
        ("bob.c", C_BOT.to_string()),
        ("carol.cpp", CPP_BOT.to_string()),
        ("dave/Player.java", JAVA_BOT.to_string()),
        ("erin.js", JS_BOT.to_string()),
        ("frank.cpp", BROKEN_CPP.to_string()),
        ("gina.py", python_bot("if turn == 3: sys.exit(1)")),
        ("hank.py", python_bot("while turn == 2: pass")),
        (
            "ivan.py",
            python_bot("print('thinking about', len(moves), 'moves')"),
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    std::fs::write(dir.join("notes.txt"), "not a student").unwrap();
}

fn grade(class: &Path, out: &Path, cache: &Path) -> std::process::Output {
    arbiter()
        .env("ARBITER_CACHE", cache)
        .args([
            "grade",
            "--games",
            "2",
            "--seed",
            "3",
            "--first-turn-ms",
            "3000",
            "--turn-ms",
            "300",
            // CPU time: honest bots stay far below the limits on a loaded machine, and the
            // bot stuck in a loop still runs out.
            "--clock",
            "cpu",
            "--baseline",
            &first_bot(),
            "--baseline",
            &random_bot(),
            "--rubric",
        ])
        .arg(class.parent().unwrap().join("rubric.toml"))
        .arg("--out")
        .arg(out)
        .arg(class)
        .output()
        .unwrap()
}

/// The points a row should get from RUBRIC, from its own columns.
fn expected_mark(row: &HashMap<String, String>) -> f64 {
    if row["built"] != "yes" {
        return 1.0;
    }
    let pct = |b: &str| row[&format!("score_vs_{b}")].parse::<f64>().unwrap();
    let mut mark = 0.0;
    if pct("arbiter-bot-first") >= 50.0 {
        mark += 3.0;
    }
    if pct("arbiter-bot-random") >= 50.0 {
        mark += 2.0;
    }
    mark + match row["rank"].as_str() {
        "1" => 2.0,
        "2" => 1.0,
        _ => 0.0,
    }
}

#[test]
fn a_class_in_five_languages_is_built_played_and_marked_and_a_resubmission_replays_only_its_games()
{
    let tmp = tempfile::tempdir().unwrap();
    let class = tmp.path().join("class");
    let out = tmp.path().join("marks");
    let cache = tmp.path().join("cache");
    write_class(&class);
    std::fs::write(tmp.path().join("rubric.toml"), RUBRIC).unwrap();

    let run = grade(&class, &out, &cache);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stderr}\n{stdout}");
    assert!(
        stderr.contains("skipping") && stderr.contains("notes.txt"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "9 students (8 build), 2 baselines; each student plays 18 games (2 against each baseline)"
        ),
        "{stderr}"
    );
    for f in [
        "marks.csv",
        "grade.toml",
        "games.csv",
        "ratings.csv",
        "crosstable.csv",
        "submissions.csv",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let rows = read_csv(&out.join("marks.csv"));
    let students: Vec<&str> = rows.iter().map(|r| r["student"].as_str()).collect();
    assert_eq!(
        students,
        ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan"]
    );
    let row = |name: &str| rows.iter().find(|r| r["student"] == name).unwrap();
    // 8 students build: each plays 2 games against each of 2 baselines and each of 7 others.
    for r in &rows {
        let name = &r["student"];
        assert_eq!(
            r["mark"].parse::<f64>().unwrap(),
            expected_mark(r),
            "{name}: {r:?}"
        );
        assert_eq!(r["source_hash"].len(), 64, "{name}");
        if name == "frank" {
            continue;
        }
        assert_eq!(r["built"], "yes", "{name}: {r:?}");
        assert_eq!(r["games"], "18", "{name}: {r:?}");
        assert_eq!(r["games_vs_arbiter-bot-first"], "2", "{name}");
        assert_eq!(r["games_vs_arbiter-bot-random"], "2", "{name}");
        assert!(
            !r["elo"].is_empty() && !r["rank"].is_empty(),
            "{name}: {r:?}"
        );
        assert_eq!(r["forfeits_output_too_long"], "0", "{name}");
    }
    for name in ["alice", "bob", "carol", "dave", "erin"] {
        let r = row(name);
        for kind in ["timeout", "invalid_move", "crash"] {
            assert_eq!(r[&format!("forfeits_{kind}")], "0", "{name}: {r:?}");
        }
    }
    // The bot that does not compile: not built, the rubric's mark, the compiler's message.
    let frank = row("frank");
    assert_eq!(
        (frank["built"].as_str(), frank["games"].as_str()),
        ("no", "0")
    );
    assert_eq!(frank["mark"], "1");
    assert_eq!(frank["rank"], "");
    assert_eq!(frank["mark_detail"], "does not build");
    assert!(
        frank["problem"].contains("error") && frank["problem"].contains("undefined_thing"),
        "the compiler's first error: {frank:?}"
    );
    let log = std::fs::read_to_string(out.join("builds/frank.log")).unwrap();
    assert!(
        log.contains("undefined_thing") && log.contains("frank.cpp"),
        "{log}"
    );
    assert!(std::fs::read_to_string(out.join("builds/bob.log"))
        .unwrap()
        .contains("gcc"));
    // The misbehaving bots: every game they lose, they lose by their own fault. The chatty one
    // forfeits at once; the looping one before the crasher's third turn; both score nothing
    // against the baselines.
    let ivan = row("ivan");
    assert_eq!(ivan["forfeits_invalid_move"], "18", "{ivan:?}");
    let hank = row("hank");
    assert_eq!(
        hank["forfeits_timeout"], "16",
        "{hank:?} (wins only against ivan)"
    );
    let gina = row("gina");
    assert_eq!(
        gina["forfeits_crash"], "14",
        "{gina:?} (wins against hank and ivan)"
    );
    for r in [ivan, hank, gina] {
        assert_eq!(r["score_vs_arbiter-bot-first"], "0.0", "{r:?}");
        assert_eq!(r["mark"], "0", "{r:?}");
    }
    let ranks: Vec<&str> = [gina, hank, ivan].map(|r| r["rank"].as_str()).into();
    assert_eq!(
        ranks,
        ["6", "7", "8"],
        "bound ratings ranked by score: {stdout}\n{}",
        std::fs::read_to_string(out.join("ratings.csv")).unwrap()
    );
    assert!(
        stdout.contains("Student") && stdout.contains("/7"),
        "{stdout}"
    );
    // The report: a section per student with the build log and each forfeit's verdict.
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    for name in &students {
        assert!(page.contains(&format!("id=\"student-{name}\"")), "{name}");
    }
    assert!(page.contains("undefined_thing"), "frank's compiler message");
    assert!(page.contains("<b>crash</b>"), "gina's verdict");
    assert!(page.contains("<b>timeout</b>"), "hank's verdict");
    assert!(
        page.contains("href=\"replays/replay.html#game="),
        "games link to their replay pages"
    );

    // Bob resubmits: only his games are played again; the others' rows stay as they were.
    let games_before = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let others = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.split(',').any(|f| f == "bob"))
            .map(String::from)
            .collect()
    };
    let bob_games = games_before
        .lines()
        .filter(|l| l.split(',').any(|f| f == "bob"))
        .count();
    assert_eq!(bob_games, 18);
    std::fs::write(
        class.join("bob.c"),
        C_BOT.replace("/* Answers", "/* Resubmitted. Answers"),
    )
    .unwrap();
    let run = grade(&class, &out, &cache);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("changed since the last run: bob;"),
        "{stderr}"
    );
    assert!(stderr.contains("18 games of impasse"), "{stderr}");
    let games_after = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(others(&games_after), others(&games_before));
    assert_eq!(games_after.lines().count(), games_before.lines().count());
    let rows = read_csv(&out.join("marks.csv"));
    let bob = rows.iter().find(|r| r["student"] == "bob").unwrap();
    assert_eq!(bob["games"], "18");
    assert_ne!(
        bob["source_hash"],
        read_csv(&out.join("submissions.csv"))
            .iter()
            .find(|r| r["student"] == "alice")
            .unwrap()["source_hash"]
    );

    // Nothing changed: nothing is played.
    let run = grade(&class, &out, &cache);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains(" 0 games of impasse"), "{stderr}");
    assert!(!stderr.contains("changed since"), "{stderr}");

    // A new student changes the schedule: the folder cannot be continued, and says why.
    std::fs::write(class.join("zoe.py"), python_bot("pass")).unwrap();
    let run = grade(&class, &out, &cache);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("added: zoe.py; removed: none"), "{stderr}");
}

/// Grades a class of one honest Python student against `baseline`; returns the run's output.
fn grade_one(dir: &Path, baseline: &str) -> std::process::Output {
    let class = dir.join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("alice.py"), python_bot("")).unwrap();
    arbiter()
        .current_dir(dir)
        .env("ARBITER_CACHE", dir.join("cache"))
        .args(["grade", "--games", "2", "--seed", "3"])
        .args(["--first-turn-ms", "20000", "--turn-ms", "5000"])
        .args(["--baseline", baseline, "--out"])
        .arg(dir.join("out"))
        .arg(&class)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap()
}

/// A baseline folder reached through a symlink, whose run line climbs out of it (`../..`), plays
/// in the box as it does outside: its folder is taken as the kernel resolves it. Before, the
/// box (which mounts real paths) could not find its program, the baseline lost every game by
/// `crash`, and every student got full marks with exit status 0.
#[test]
fn a_baseline_reached_through_a_symlink_plays_in_the_box() {
    if !bwrap_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    std::fs::create_dir_all(real.join("bots/first")).unwrap();
    std::fs::create_dir_all(real.join("prog")).unwrap();
    std::fs::copy(first_bot(), real.join("prog/first")).unwrap();
    std::fs::write(
        real.join("bots/first/bot.toml"),
        "name = \"first\"\nrun = \"../../prog/first\"\n",
    )
    .unwrap();
    let here = tmp.path().join("here");
    std::fs::create_dir(&here).unwrap();
    std::os::unix::fs::symlink(real.join("bots"), here.join("bots")).unwrap();
    let out = grade_one(&here, "bots/first");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let forfeits = std::fs::read_to_string(here.join("out/forfeits.csv")).unwrap();
    assert!(!forfeits.contains("first"), "{forfeits}");
}

/// A baseline that forfeits its games gives the students points they did not earn: the
/// warning names it and the exit status is 1.
#[test]
fn a_baseline_that_forfeits_is_named_and_fails_the_grading() {
    if !bwrap_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = grade_one(tmp.path(), &format!("broken={}", hostile("exit 1 3")));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("broken forfeited 2 by crash"), "{stderr}");
}
