//! What users see when something goes wrong: bots left out, forfeits explained with the bot's own
//! words, settings that would be ignored, bad numbers. The real binary with real bots.

use crate::common::*;

fn standard(mode: &str) -> String {
    format!(
        "{} {}/tests/bots/standard.py {mode}",
        python(),
        root().display()
    )
}

#[test]
fn a_bot_that_cannot_start_stops_the_run_unless_asked_to_go_on_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = arbiter()
        .args(["tournament", "--games", "2", "--out"])
        .arg(dir.path().join("a"))
        .args(["./nonexistent", &random_bot(), &first_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(err.contains("--skip-broken-bots"), "{err}");
    let run = arbiter()
        .args(["tournament", "--games", "2", "--skip-broken-bots", "--out"])
        .arg(dir.path().join("b"))
        .args(["./nonexistent", &random_bot(), &first_bot()])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        out.contains("Left out: nonexistent could not play"),
        "{out}"
    );
}

#[test]
fn a_forfeit_shows_the_bots_stderr_in_play_and_in_the_tournaments_failures() {
    let crash = standard("crash-at 2");
    let run = arbiter()
        .args(["play", "--game", "draughts", &crash, &standard("first")])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains("loses by crash"), "{out}");
    assert!(out.contains("| ValueError: test crash"), "{out}");
    assert!(out.contains("its turn 2"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("t");
    let run = arbiter()
        .args(["tournament", "--game", "draughts", "--games", "2", "--out"])
        .arg(&out_dir)
        .args([
            format!("crasher={crash}"),
            format!("steady={}", standard("first")),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("Forfeits"), "{stdout}");
    assert!(
        stdout.contains("crasher") && stdout.contains("crash"),
        "{stdout}"
    );
    let files: Vec<_> = std::fs::read_dir(out_dir.join("failures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.contains("lost by crash"), "{text}");
        assert!(text.contains("ValueError: test crash"), "{text}");
    }
    let forfeits = std::fs::read_to_string(out_dir.join("forfeits.csv")).unwrap();
    assert!(forfeits.contains("crasher,crash,2"), "{forfeits}");
}

#[test]
fn a_changed_setting_on_resume_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let run = arbiter()
        .args(["tournament", "--games", "2", "--out"])
        .arg(&out)
        .args([random_bot(), first_bot()])
        .output()
        .unwrap();
    assert!(run.status.success());
    let again = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .args(["--games", "40", "--turn-ms", "5", "--concurrency", "1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(3), "{err}");
    assert!(
        err.contains("--games 40") && err.contains("--turn-ms 5"),
        "{err}"
    );
    assert!(
        !err.contains("--concurrency"),
        "concurrency may change: {err}"
    );
}

#[test]
fn bad_numbers_are_named() {
    for (args, want) in [
        (vec!["--turn-ms", "-5"], "--turn-ms"),
        (vec!["--concurrency", "0"], "--concurrency"),
    ] {
        let run = arbiter()
            .arg("tournament")
            .args(&args)
            .args([random_bot(), first_bot()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(3), "{err}");
        assert!(err.contains(want) && !err.contains("-- -5"), "{err}");
    }
}

#[test]
fn a_missing_program_is_reported_once() {
    let run = arbiter()
        .args(["play", "./no-such-bot", &random_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(err.matches("cannot start").count(), 1, "{err}");
}

#[test]
fn openings_are_checked_before_any_game_and_a_changed_book_stops_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::write(&book, "32-28 19-23\n31-27 99-98\n").unwrap();
    let out = dir.path().join("o");
    let run = arbiter()
        .args([
            "tournament",
            "--game",
            "draughts",
            "--games",
            "2",
            "--openings",
        ])
        .arg(&book)
        .arg("--out")
        .arg(&out)
        .args([standard("first"), format!("r={}", standard("random 3"))])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(
        err.contains("book.txt line 2: move 2 \"99-98\" is not legal"),
        "{err}"
    );
    assert!(!out.join("games.csv").exists(), "no game was played");

    std::fs::write(&book, "32-28 19-23\n31-27 17-21\n").unwrap();
    let run = arbiter()
        .args([
            "tournament",
            "--game",
            "draughts",
            "--games",
            "4",
            "--openings",
        ])
        .arg(&book)
        .arg("--out")
        .arg(&out)
        .args([standard("first"), format!("r={}", standard("random 3"))])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let csv = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(
        csv.contains(",32-28 19-23,") && csv.contains(",31-27 17-21,"),
        "{csv}"
    );
    std::fs::write(&book, "33-28\n").unwrap();
    let again = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(3), "{err}");
    assert!(err.contains("changed since this run began"), "{err}");
}

#[test]
fn a_mistyped_game_and_an_unreachable_position_say_what_to_do() {
    let run = arbiter()
        .args(["play", "--game", "dragts"])
        .args([random_bot(), first_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(err.contains("did you mean 'draughts'?"), "{err}");
    for (game, position, want) in [
        ("draughts", "W:W31:B1 50 0", "play cannot reach"),
        ("draughts", "w:W31:B1", "upper case"),
        (
            "impasse",
            "......../......../......../......../......../......../......../........ w",
            "the board is empty",
        ),
    ] {
        let run = arbiter()
            .args(["play", "--game", game, "--position", position])
            .args([random_bot(), first_bot()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(3), "{position}: {err}");
        assert!(err.contains(want), "{position}: {err}");
    }
}

#[test]
fn the_help_states_the_cpu_clock_cap_and_who_moves_first() {
    let run = arbiter().args(["play", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&run.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("10 x (limit + grace)"), "{help}");
    assert!(help.contains("unless --position gives the move"), "{help}");
}

#[test]
fn out_naming_a_file_is_said_once_and_a_run_that_cannot_start_leaves_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    let run = arbiter()
        .args(["tournament", "--games", "2", "--out"])
        .arg(&file)
        .args([random_bot(), first_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(err.contains("is a file, not a folder"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");

    let out = dir.path().join("t");
    let run = arbiter()
        .args(["tournament", "--games", "2", "--out"])
        .arg(&out)
        .args(["/nonexistent/bot", &random_bot(), &first_bot()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(3));
    assert!(!out.exists(), "the run played nothing and left {:?}", out);
}

#[test]
fn a_duplicate_bot_name_suggests_naming_one_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = arbiter()
        .args(["tournament", "--games", "2", "--out"])
        .arg(dir.path().join("t"))
        .args([random_bot(), random_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(err.contains("e.g. arbiter-bot-random2="), "{err}");
}

/// `--help` is the doc comments of the command line's types: a rustdoc link in one
/// ("[`X`](super::X)") reaches the user as raw text (issue 40: `sprt --help` printed
/// "[`FAIR_WALL_FACTOR`](super::FAIR_WALL_FACTOR)"), as does a pointer to a README section
/// that moved into the user guide.
#[test]
fn no_help_text_shows_a_rustdoc_link_or_a_moved_readme_section() {
    let commands = [
        "play",
        "tournament",
        "grade",
        "ratings",
        "sprt",
        "report",
        "replay",
        "stats",
        "bench",
        "games",
        "perft",
        "merge",
        "slurm",
    ];
    for command in commands {
        let run = arbiter().args([command, "--help"]).output().unwrap();
        assert!(run.status.success(), "{command} --help failed");
        let help = String::from_utf8_lossy(&run.stdout);
        for raw in ["](", "super::", "crate::", "the README"] {
            assert!(
                !help.contains(raw),
                "{command} --help shows {raw:?}:\n{help}"
            );
        }
    }
    // The fair clock's help gives the factor as a number: keep the two together.
    assert_eq!(arbiter::referee::FAIR_WALL_FACTOR, 50);
}

/// A bot path that names nothing is said to be missing, not looked for in PATH.
#[test]
fn a_bot_path_that_does_not_exist_is_named_missing() {
    let run = arbiter()
        .args(["play", "bots/nonexistent", &random_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(
        err.contains("bots/nonexistent does not exist: check the path"),
        "{err}"
    );
    assert!(!err.contains("PATH"), "{err}");
}
