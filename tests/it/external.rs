//! External referees (`--referee`) end to end: the real binary drives the example Stones
//! referee and the hostile test referee (tests/referees/hostile.py) with real player processes
//! (tests/referees/player.py), through play, tournament (killed and resumed), sprt, grade and
//! the report; every way a bot or the referee can fail has its verdict.

use crate::common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Generous clocks for the bots (the machine is shared).
const CLOCK: [&str; 4] = ["--first-turn-ms", "5000", "--turn-ms", "1000"];

fn stones() -> String {
    root().join("examples/referee/stones").display().to_string()
}

fn stones_bot(mode: &str) -> String {
    format!(
        "{} {}/examples/referee/stones/bot.py {mode}",
        python(),
        root().display()
    )
}

fn referee(mode: &str) -> String {
    format!(
        "{} {}/tests/referees/hostile.py {mode}",
        python(),
        root().display()
    )
}

fn player(mode: &str) -> String {
    format!(
        "{} {}/tests/referees/player.py {mode}",
        python(),
        root().display()
    )
}

/// `arbiter play --json` of an external referee with generous clocks (the machine is shared);
/// the referee gets 4 s per message unless `extra` says otherwise.
fn play(referee: &str, bots: &[String], extra: &[&str]) -> Value {
    let opts = [
        &["--seed", "11"],
        &CLOCK[..],
        &["--referee-timeout-ms", "4000"],
    ]
    .concat();
    play_referee(referee, &opts, extra, bots)
}

#[test]
fn the_example_referee_plays_from_its_folder_and_its_seed_replays_the_same_game() {
    let bots = [stones_bot(""), stones_bot("simple")];
    let a = play(&stones(), &bots, &[]);
    assert_eq!(a["game"], "stones");
    assert_eq!(a["reason"], "win", "{a}");
    assert_eq!(a["winner"], 0, "the smart bot wins from this pile: {a}");
    assert!(a["turns"].as_u64().unwrap() >= 4, "{a}");
    // referee.toml says seed = true: the same seed makes the same pile, so the same moves.
    let b = play(&stones(), &bots, &[]);
    assert_eq!(a["moves"], b["moves"]);
    // A command line works as well; without --referee-seed the referee draws its own pile.
    let cmd = format!(
        "{} {}/examples/referee/stones/referee.py",
        python(),
        root().display()
    );
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("g.jsonl");
    let c = play(&cmd, &bots, &["--replay", replay.to_str().unwrap()]);
    assert_eq!(c["game"], "referee");
    assert_eq!(c["reason"], "win", "{c}");
    // `arbiter replay` makes its page: each turn's input and answer, the referee's log.
    let out = arbiter().arg("replay").arg(&replay).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The page holds the game's data packed; the viewer draws it (the turns' inputs, the
    // referee's log).
    let page = replay.with_extension("html");
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains("arbiterGame("));
    if let Some(browser) = chromium() {
        let (dom, console) = load(&browser, &format!("file://{}", page.display()));
        assert!(console.is_empty(), "{console:?}");
        assert!(dom.contains("data-ready=\"1\""), "the replay ran");
        assert!(dom.contains("0 2 3\n"), "the first input: {dom}");
        assert!(dom.contains("turn 1: player 0 takes"), "the referee's log");
    }
}

#[test]
fn three_players_are_ranked_by_the_referees_groups() {
    let bots = [stones_bot(""), stones_bot("simple"), stones_bot("simple")];
    let r = play(&stones(), &bots, &["--seats", "3"]);
    assert_eq!(r["reason"], "win", "{r}");
    let ranks: Vec<u64> = r["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // One winner, the two others tied second ("###End w xy").
    assert_eq!(ranks.iter().filter(|&&r| r == 0).count(), 1, "{r}");
    assert_eq!(ranks.iter().filter(|&&r| r == 1).count(), 2, "{r}");
}

/// `###End 012`, every player in one group, is a draw (as the built-in games' draws), not a
/// win for seat 0.
#[test]
fn a_ranking_of_every_player_equal_is_a_draw() {
    for seats in ["2", "3"] {
        let bots = vec![player("one"); seats.parse().unwrap()];
        let r = play(&referee("tie"), &bots, &["--seats", seats]);
        assert_eq!(r["reason"], "draw-referee", "{r}");
        assert_eq!(r["winner"], Value::Null, "{r}");
        assert!(r["ranks"].as_array().unwrap().iter().all(|k| k == 0), "{r}");
    }
}

/// A bot that fails loses by arbiter's verdict, ranked last, and the referee is never fed a
/// made-up answer (its log shows only real answers).
#[test]
fn a_bot_that_times_out_crashes_or_floods_loses_by_arbiters_verdict() {
    for (mode, reason) in [
        ("sleep 2 4000", "timeout"),
        ("exit 2 3", "crash"),
        ("long 2", "output-too-long"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let replay = dir.path().join("r.jsonl");
        let r = play(
            &referee("honest"),
            &[player("one"), player(mode)],
            &[
                "--first-turn-ms",
                "5000",
                "--turn-ms",
                "1500",
                "--replay",
                replay.to_str().unwrap(),
            ],
        );
        assert_eq!(r["reason"], reason, "{mode}: {r}");
        assert_eq!(r["offender"], 1, "{mode}: {r}");
        assert_eq!(r["ranks"], serde_json::json!([0, 1]), "{mode}: {r}");
        // The referee's stderr follows the bots' in the replay's result line.
        let log = stderr_tail(&replay, 2);
        assert!(log.contains("SEED None PLAYERS 2"), "{mode}: {log}");
        assert!(log.contains("ANSWER 1 1"), "{mode}: {log}");
        assert!(
            !log.contains("ANSWER 1 x") && log.matches("ANSWER 1").count() == 1,
            "{mode}: the referee got a made-up answer: {log}"
        );
    }
}

#[test]
fn a_bots_invalid_answer_is_the_referees_verdict() {
    let r = play(
        &referee("honest"),
        &[player("garbage 1"), player("one")],
        &[],
    );
    assert_eq!(r["reason"], "win", "{r}");
    assert_eq!(r["ranks"], serde_json::json!([1, 0]), "{r}");
    assert_eq!(r["moves"][0], "zz99");
}

#[test]
fn a_referee_that_hangs_crashes_writes_garbage_or_asks_for_a_missing_player_is_a_referee_error() {
    for (mode, says) in [
        ("hang 2", "wrote nothing for 3000 ms"),
        ("crash 2", "exited with status 3 before ###End"),
        (
            "garbage 2",
            "wrote \"hello there\" where ###Input, ###Output or ###End was expected",
        ),
        (
            "missing 2",
            "asked for player 7, but the game has 2 players",
        ),
        ("bad-end", "ranks player 0 twice"),
        ("long-line", "wrote more than 4 MiB without a newline"),
        (
            "chatter",
            "wrote more than 4 MiB without asking a player for an answer",
        ),
        (
            "flood-input",
            "wrote more than 4 MiB without asking a player for an answer",
        ),
    ] {
        let r = play(
            &referee(mode),
            &[player("two"), player("one")],
            &["--referee-timeout-ms", "3000"],
        );
        assert_eq!(r["reason"], "referee-error", "{mode}: {r}");
        let detail = r["detail"].as_str().unwrap();
        assert!(detail.contains(says), "{mode}: {detail}");
        // Named with its stderr tail.
        assert!(detail.contains("its stderr ends: SEED"), "{mode}: {detail}");
        assert_eq!(r["offender"], Value::Null, "{mode}: {r}");
    }
    let crash = play(&referee("crash 2"), &[player("two"), player("one")], &[]);
    assert!(crash["detail"]
        .as_str()
        .unwrap()
        .contains("referee crashed on purpose"));
}

/// Issue 35 item 7: a referee's input of 100 KB (past a pipe's 64 KiB) to a bot frozen while
/// the other thinks (30 ms a turn, past the 5 ms after which idle bots are frozen) reaches the
/// bot whole: it was "did not read its input (the pipe stayed full for 1000 ms)", every time,
/// and a referee line was cut at 10,000 bytes.
#[test]
fn an_input_past_a_pipes_size_reaches_a_frozen_bot_whole() {
    let r = play(
        &referee("big-input 100000"),
        &[player("check 1"), player("slow 1 30")],
        &[],
    );
    assert_eq!(r["reason"], "win", "{r}");
    assert_eq!(r["offender"], Value::Null, "{r}");
    assert!(r["moves"].as_array().unwrap().len() > 2, "{r}");
    assert!(
        r["moves"].as_array().unwrap().iter().all(|m| m == "1"),
        "each input arrived whole: {r}"
    );
}

#[test]
fn quirks_of_real_referees_are_handled() {
    // Two lines a turn: the clock stops at the second line, both reach the referee.
    let r = play(
        &referee("two-lines"),
        &[player("lines 2"), player("lines 2")],
        &[],
    );
    assert_eq!(r["reason"], "win", "{r}");
    assert_eq!(r["moves"][0], "1\nextra", "{r}");
    // `###Error` on stdout and empty lines between messages are skipped.
    let r = play(
        &referee("stdout-error"),
        &[player("two"), player("one")],
        &[],
    );
    assert_eq!(r["reason"], "win", "{r}");
    // 6 stones: 2, 1, 2, 1: seat 1 takes the last.
    assert_eq!(r["moves"], serde_json::json!(["2", "1", "2", "1"]), "{r}");
    assert_eq!(r["winner"], 1, "{r}");
    // A referee that plays two whatever the count never asks the third player: its ranking
    // leaves a player out, which is the referee's error, not a loss for that player.
    let r = play(
        &referee("ignore-count"),
        &[player("two"), player("one"), player("one")],
        &["--seats", "3"],
    );
    assert_eq!(r["reason"], "referee-error", "{r}");
    assert!(r["detail"]
        .as_str()
        .unwrap()
        .contains("does not rank player 2 of 3"));
    // An empty answer line crashes some referees: it is arbiter's verdict, never sent.
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let r = play(
        &referee("honest"),
        &[player("one"), player("empty 2")],
        &["--replay", replay.to_str().unwrap()],
    );
    assert_eq!(r["reason"], "invalid-move", "{r}");
    assert_eq!(r["offender"], 1, "{r}");
    assert!(
        r["detail"].as_str().unwrap().contains("an empty line"),
        "{r}"
    );
    assert_eq!(stderr_tail(&replay, 2).matches("ANSWER 1").count(), 1);
    // After ###End: one that keeps running (and ignores SIGTERM) is killed, one that crashes
    // when its stdin closes is not an error.
    for mode in ["keep-running", "crash-after-end"] {
        let t = std::time::Instant::now();
        let r = play(&referee(mode), &[player("two"), player("one")], &[]);
        assert_eq!(r["reason"], "win", "{mode}: {r}");
        assert!(t.elapsed() < Duration::from_secs(30), "{mode}");
    }
    // Seeding is opt-in: a referee that reads the first line as ###Start fails on ###Seed ...
    let r = play(
        &referee("no-seed"),
        &[player("two"), player("one")],
        &["--referee-seed"],
    );
    assert_eq!(r["reason"], "referee-error", "{r}");
    assert!(r["detail"].as_str().unwrap().contains("expected ###Start"));
    // ... and one that reads it gets the table's seed, below 2^31.
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("r.jsonl");
    let r = play(
        &referee("honest"),
        &[player("one"), player("one")],
        &["--referee-seed", "--replay", replay.to_str().unwrap()],
    );
    assert_eq!(r["reason"], "win", "{r}");
    assert!(stderr_tail(&replay, 2).contains(&format!("SEED {} ", 11 & 0x7fff_ffff)));
}

#[test]
fn bad_referee_arguments_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = arbiter()
        .args(["play", "--referee"])
        .arg(dir.path())
        .args([player("one"), player("one")])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no referee.toml"), "{err}");
    std::fs::write(dir.path().join("referee.toml"), "run = \"x\"\nseeds = 3\n").unwrap();
    let out = arbiter()
        .args(["play", "--referee"])
        .arg(dir.path())
        .args([player("one"), player("one")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a valid referee.toml") && err.contains("line 2"),
        "{err}"
    );
    let out = arbiter()
        .args(["play", "--seats", "11", "--referee", &referee("honest")])
        .args([player("one"), player("one")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("seats 2 to 10 players"), "{err}");
}

/// Options of built-in games given with --referee are refused with what to do, never silently
/// ignored: --game (even the default's name), random opening plies, opening books.
#[test]
fn built_in_game_options_with_a_referee_are_refused() {
    let honest = referee("honest");
    let bots = [player("one"), player("one")];
    for game in ["draughts", "impasse"] {
        let out = arbiter()
            .args(["play", "--game", game, "--referee", &honest])
            .args(&bots)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("--game {game} and --referee both name the game"))
                && err.contains("give --referee alone"),
            "{err}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    for (extra, what) in [
        (
            ["--opening-plies", "2"],
            "--opening-plies 2 cannot be played with --referee",
        ),
        (
            ["--openings", "draughts-3move"],
            "--openings draughts-3move cannot be played",
        ),
    ] {
        let out_dir = dir.path().join(extra[0].trim_start_matches('-'));
        for command in ["tournament", "sprt"] {
            let mut cmd = arbiter();
            cmd.current_dir(dir.path()).arg(command).args(extra);
            cmd.args(["--referee", &honest, "--out"]).arg(&out_dir);
            cmd.args([format!("a={}", bots[0]), format!("b={}", bots[1])]);
            let out = cmd.output().unwrap();
            assert!(!out.status.success(), "{command} {extra:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(what) && err.contains("leave out"),
                "{command}: {err}"
            );
            assert!(
                !out_dir.join("games.csv").exists(),
                "{command}: no game played"
            );
        }
    }
    // bench's instant bots play only built-in games: --referee is refused, saying so.
    let out = arbiter()
        .args(["bench", "--quick", "--referee", &honest])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("arbiter bench cannot measure the external referee")
            && err.contains("arbiter tournament --referee"),
        "{err}"
    );
    // Without them the same referee plays.
    let r = play(&honest, &bots, &[]);
    assert_eq!(r["reason"], "win", "{r}");
}

/// A tournament of `referee`'s game with generous clocks and three Stones bots.
fn tournament_args(out: &Path, games: &str, referee: &str) -> Vec<String> {
    let clock = [&CLOCK[..], &["--referee-timeout-ms", "5000"]].concat();
    let mut args = referee_tournament_args(referee, &clock, out, games);
    args.extend([
        format!("smart={}", stones_bot("")),
        format!("simple={}", stones_bot("simple")),
        format!("simple2={}", stones_bot("simple")),
    ]);
    args
}

#[test]
fn a_tournament_plays_resumes_after_sigkill_rates_and_writes_replay_pages() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let args = tournament_args(&out, "12", &stones());
    let csv = out.join("games.csv");
    let before = kill_after_lines(&args, &csv, 4, Duration::from_secs(120));
    assert!(before < 36, "finished before the kill ({before} games)");

    let done = resume_to_the_end(&args, &csv, 36);
    let stdout = String::from_utf8_lossy(&done.stdout);
    // Rated: the bot that plays the winning strategy is first.
    let first = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap_or("");
    assert!(first.contains("smart"), "{stdout}");

    // Records keep each turn's input and the referee's stderr; a pair's games share the seed,
    // so the referee (seed = true in its referee.toml) played the same pile twice.
    let recs = records(&out);
    assert_eq!(recs.len(), 36);
    let mut piles: HashMap<u64, Vec<String>> = HashMap::new();
    for rec in &recs {
        assert_eq!(rec["game"], "stones");
        let ext = &rec["external"];
        let inputs = ext["inputs"].as_array().unwrap();
        assert_eq!(inputs.len(), rec["moves"].as_array().unwrap().len());
        assert!(inputs[0].as_str().unwrap().starts_with("0 2 3\n"), "{rec}");
        let log = ext["stderr"].as_str().unwrap();
        let pile = log.lines().next().unwrap().to_string();
        piles
            .entry(rec["pair_id"].as_u64().unwrap())
            .or_default()
            .push(pile);
    }
    for (pair, p) in &piles {
        assert_eq!(p.len(), 2, "pair {pair}");
        assert_eq!(p[0], p[1], "pair {pair}");
    }

    // The replay of an external game: inputs, answers and the referee's stderr.
    let report = arbiter().arg("report").arg(&out).output().unwrap();
    assert!(report.status.success());
    assert!(out.join("replays/game-0.js").is_file(), "the game's data");
    if let Some(browser) = chromium() {
        let page = format!(
            "file://{}#game=0",
            out.join("replays/replay.html").display()
        );
        let (dom, console) = load(&browser, &page);
        assert!(console.is_empty(), "{console:?}");
        assert!(dom.contains("input sent") && dom.contains("stderr of the referee"));
        assert!(dom.contains("turn 1: player 0 takes"), "the referee's log");
        assert!(dom.contains("data-ready=\"1\""), "the replay ran");
    }
}

/// A referee that fails during the games (here at its second request): the run plays every
/// game, rates none of the failed ones, and says so in its summary and its exit status.
#[test]
fn a_failing_referee_does_not_stop_the_run_and_its_games_are_not_rated() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let mut args = tournament_args(&out, "2", &referee("crash 2"));
    // Players of the hostile referee's race (the Stones bots read another input).
    args.truncate(args.len() - 3);
    args.extend([
        format!("one={}", player("one")),
        format!("two={}", player("two")),
        format!("one2={}", player("one")),
    ]);
    let done = arbiter().args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Referee errors: 6 games could not be played"),
        "{stdout}"
    );
    assert!(
        stderr.contains("6 games could not be played: the referee failed"),
        "{stderr}"
    );
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 6);
    for r in &rows {
        assert_eq!(r["reason"], "referee-error");
        assert!(r["detail"].contains("referee crashed on purpose"), "{r:?}");
    }
    // Excluded from ratings: no bot has a rated game.
    let ratings = read_csv(&out.join("ratings.csv"));
    assert_eq!(ratings.len(), 3, "{ratings:?}");
    for row in ratings {
        assert_eq!(row["games"], "0", "{row:?}");
    }
}

/// A referee that cannot start, or does not speak the protocol, is found before the first
/// game (as a bot that cannot start is): the run stops with what failed, why and what to do,
/// and plays no game.
#[test]
fn a_referee_that_cannot_play_stops_the_run_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-referee").display().to_string();
    let cases = [
        (referee("crash 1"), "exited with status 3"),
        (referee("missing 1"), "asked for player 7"),
        ("echo hello".to_string(), "wrote \"hello\" where ###Input"),
        (missing.clone(), "cannot start"),
    ];
    for (i, (command, why)) in cases.iter().enumerate() {
        let out = dir.path().join(format!("t{i}"));
        let args = tournament_args(&out, "2", command);
        let done = arbiter().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(3), "{command}: {stderr}");
        assert!(
            stderr.contains("cannot play") && stderr.contains(why),
            "{command}: {stderr}"
        );
        assert!(stderr.contains("###Start 2"), "what to do: {stderr}");
        let rows = std::fs::read_to_string(out.join("games.csv"))
            .map_or(0, |t| t.lines().count().saturating_sub(1));
        assert_eq!(rows, 0, "{command}: games were played: {stderr}");
    }
    // Its stderr is quoted.
    let out = dir.path().join("t-crash");
    let done = arbiter()
        .args(tournament_args(&out, "2", &referee("crash 1")))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(stderr.contains("referee crashed on purpose"), "{stderr}");
}

/// `arbiter slurm` starts through the engine as a tournament does: a referee that cannot play
/// is refused before a game is measured or a script written (so no job array of referee
/// errors is submitted).
#[test]
fn slurm_refuses_a_referee_that_cannot_play_before_writing_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut args = tournament_args(&out, "6", &referee("crash 1"));
    args.splice(0..1, ["slurm".to_string(), "--shards".into(), "2".into()]);
    let done = arbiter().args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("cannot play") && stderr.contains("exited with status 3"),
        "{stderr}"
    );
    assert!(!out.join("slurm").exists(), "scripts written: {stderr}");
}

#[test]
fn sprt_decides_with_an_external_referee() {
    let dir = tempfile::tempdir().unwrap();
    let stones = stones();
    let opts = [
        &CLOCK[..],
        &["--referee", &stones, "--max-pairs", "60", "--elo1", "100"],
    ]
    .concat();
    let (new, old) = (stones_bot(""), stones_bot("simple"));
    sprt_accepts_h1(
        dir.path(),
        &opts,
        &format!("smart={new}"),
        &format!("simple={old}"),
    );
}

#[test]
fn grade_marks_a_class_with_an_external_referee() {
    let dir = tempfile::tempdir().unwrap();
    let smart = std::fs::read_to_string(root().join("examples/referee/stones/bot.py")).unwrap();
    let bob = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdin.readline()\n    sys.exit(1)\n";
    let students = [("alice.py", smart.as_str()), ("bob.py", bob)];
    let stones = stones();
    let opts = [&CLOCK[..], &["--referee", &stones]].concat();
    let graded = grade_class(dir.path(), &students, &smart, "simple", &opts);
    assert!(
        graded.mark("alice") > graded.mark("bob"),
        "{:?}",
        graded.marks
    );
    let out_dir = graded.out;
    let games = read_csv(&out_dir.join("games.csv"));
    assert!(
        games
            .iter()
            .any(|g| g["reason"] == "crash" && (g["bot0"] == "bob" || g["bot1"] == "bob")),
        "{games:?}"
    );
}

/// In the sandbox the referee sees its own folder (read-only) when it is given as a folder
/// with a referee.toml: here the program imports a module from beside it.
#[test]
fn a_referee_folder_runs_in_the_sandbox() {
    if which("bwrap").is_none() {
        crate::common::skip("this test needs bubblewrap (apt-get install bubblewrap)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("stones2");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        root().join("examples/referee/stones/referee.py"),
        folder.join("rules.py"),
    )
    .unwrap();
    std::fs::write(folder.join("main.py"), "import rules\nrules.main()\n").unwrap();
    std::fs::write(
        folder.join("referee.toml"),
        "name = \"boxed\"\nrun = \"/usr/bin/python3 main.py\"\n",
    )
    .unwrap();
    // Debian's Python: an interpreter under a 0700 home folder cannot run in the box.
    let bot = root().join("examples/referee/stones/bot.py");
    let bots = [
        format!("/usr/bin/python3 {}", bot.display()),
        format!("/usr/bin/python3 {} simple", bot.display()),
    ];
    let r = play(folder.to_str().unwrap(), &bots, &["--sandbox"]);
    assert_eq!(r["game"], "boxed");
    assert_eq!(r["reason"], "win", "{r}");
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

#[test]
fn shards_of_an_external_tournament_merge() {
    let dir = tempfile::tempdir().unwrap();
    let tournament = |out: &Path| referee_tournament_args(&stones(), &CLOCK, out, "4");
    let bots = [
        format!("smart={}", stones_bot("")),
        format!("simple={}", stones_bot("simple")),
    ];
    let rows = play_and_merge_shards(dir.path(), 2, tournament, &bots);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["reason"] == "win"), "{rows:?}");
    // Each shard kept its games' records with their inputs (the merge writes games.csv only).
    for k in 1..=2 {
        let recs = records(&dir.path().join(format!("shard-{k}")));
        assert_eq!(recs.len(), 2);
        assert!(recs.iter().all(|r| r["external"]["inputs"].is_array()));
    }
}

/// The referee is untrusted code: in the sandbox it cannot read the bots' own files (a bot's
/// bot.toml folder holds its source), which it could without the box.
#[test]
fn a_boxed_referee_cannot_read_the_bots_files() {
    if which("bwrap").is_none() {
        crate::common::skip("this test needs bubblewrap (apt-get install bubblewrap)");
        return;
    }
    // Outside /tmp: an unboxed referee run by root has a /tmp of its own.
    let dir = shared_tempdir();
    let bot_dir = dir.path().join("secretbot");
    std::fs::create_dir_all(&bot_dir).unwrap();
    std::fs::copy(
        root().join("tests/referees/player.py"),
        bot_dir.join("player.py"),
    )
    .unwrap();
    std::fs::write(
        bot_dir.join("bot.toml"),
        "name = \"secret\"\nrun = \"/usr/bin/python3 player.py one\"\n",
    )
    .unwrap();
    let secret = bot_dir.join("player.py");
    let referee = format!(
        "/usr/bin/python3 {}/tests/referees/hostile.py read-file {}",
        root().display(),
        secret.display()
    );
    let other = format!(
        "/usr/bin/python3 {}/tests/referees/player.py two",
        root().display()
    );
    for (sandbox, expect) in [(false, "READ-OK"), (true, "READ-BLOCKED")] {
        let replay = dir.path().join(format!("r-{sandbox}.jsonl"));
        let mut extra = vec!["--replay", replay.to_str().unwrap()];
        if sandbox {
            extra.push("--sandbox");
        }
        let r = play(
            &referee,
            &[other.clone(), bot_dir.display().to_string()],
            &extra,
        );
        assert_eq!(r["reason"], "win", "sandbox {sandbox}: {r}");
        let log = stderr_tail(&replay, 2);
        assert!(log.contains(expect), "sandbox {sandbox}: {log}");
    }
}

/// An external referee whose game is called like a built-in one (`impasse`) is still an
/// external game: its summary shows the record's scores only, never the built-in's own
/// ("checkers removed"), and its replay page is the external one.
#[test]
fn a_referee_named_like_a_built_in_game_does_not_borrow_its_names() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("impasse");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        root().join("examples/referee/stones/referee.py"),
        folder.join("referee.py"),
    )
    .unwrap();
    std::fs::write(
        folder.join("referee.toml"),
        "name = \"impasse\"\nrun = \"python3 referee.py\"\nseed = true\n",
    )
    .unwrap();
    let replay = dir.path().join("game.jsonl");
    let out = arbiter()
        .args(["play", "--seed", "11", "--first-turn-ms", "5000"])
        .args(["--turn-ms", "1000", "--referee-timeout-ms", "4000"])
        .arg("--referee")
        .arg(&folder)
        .arg("--replay")
        .arg(&replay)
        .args([stones_bot(""), player("exit 1 3")])
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{summary}");
    assert!(summary.starts_with("impasse game"), "{summary}");
    assert!(summary.contains("loses by crash"), "{summary}");
    assert!(summary.contains("\nScores: 0 - -1\n"), "{summary}");
    assert!(!summary.contains("checkers removed"), "{summary}");
    let out = arbiter().arg("replay").arg(&replay).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let page = std::fs::read_to_string(dir.path().join("game.html")).unwrap();
    assert!(page.contains("external referee"), "not the external page");
}

/// A run made in one folder and continued (`--resume`) from another plays every game as the
/// first run did: the referee's command line, with a path relative to the folder the run was
/// made in, is found and run there, as the bots' are.
#[test]
fn a_tournament_resumed_from_another_folder_runs_its_referee_as_the_first_run_did() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let relative = |path: &str, mode: &str| format!("{} {path} {mode}", python());
    let referee = relative("tests/referees/hostile.py", "honest");
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "tournament",
            "--games",
            "8",
            "--seed",
            "5",
            "--concurrency",
            "1",
        ])
        .args(["--first-turn-ms", "5000", "--turn-ms", "1000"])
        .args([
            "--referee-timeout-ms",
            "5000",
            "--referee",
            &referee,
            "--out",
        ])
        .arg(&out)
        .args([
            format!(
                "one={}",
                relative("tests/referees/player.py", "sleep 2 300")
            ),
            format!("two={}", relative("tests/referees/player.py", "two")),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let csv = out.join("games.csv");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 2 {
        assert!(std::time::Instant::now() < deadline, "no game in 120 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let before = read_csv(&csv);
    assert!(before.len() < 8, "finished before the kill: {before:?}");
    assert!(before.iter().all(|r| r["reason"] == "win"), "{before:?}");

    let resumed = arbiter()
        .current_dir(&elsewhere)
        .arg("tournament")
        .arg("--resume")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    let rows = read_csv(&csv);
    let mut ids: Vec<u64> = rows.iter().map(|r| r["game_id"].parse().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..8).collect::<Vec<u64>>(), "{err}");
    assert!(
        rows.iter().all(|r| r["reason"] == "win"),
        "games of the continued run were not played properly: {rows:?}\n{err}"
    );
    // Every game is of the same game, named after the referee's script.
    let games: Vec<Value> = records(&out).iter().map(|r| r["game"].clone()).collect();
    assert!(games.iter().all(|g| g == "hostile"), "{games:?}");
}

/// An external referee's game has no scores: the text result prints no "Scores: 0 - 0".
#[test]
fn a_referee_game_without_scores_prints_none() {
    let run = arbiter()
        .args([
            "play",
            "--seed",
            "11",
            "--first-turn-ms",
            "5000",
            "--turn-ms",
            "1000",
        ])
        .args(["--referee", &referee("honest")])
        .args([player("one"), player("two")])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains("Result: "), "{out}");
    assert!(!out.contains("Scores:"), "{out}");
}

/// A game the referee could not play is not done (issue 40): a run whose referee fails while a
/// marker file exists records every game as referee-error; once the referee works, `--resume`
/// plays those games again, the failed rows stay in games.csv superseded, and the ratings
/// count each game once.
#[test]
fn a_resumed_run_plays_its_referee_errors_again_and_rates_each_game_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    // Outside /tmp: a referee run by root gets a /tmp of its own.
    let shared = shared_tempdir();
    let marker = shared.path().join("referee-is-broken");
    std::fs::write(&marker, "").unwrap();
    let mut args = tournament_args(
        &out,
        "2",
        &referee(&format!("crash-while {}", marker.display())),
    );
    args.truncate(args.len() - 3);
    args.extend([
        format!("one={}", player("one")),
        format!("two={}", player("two")),
        format!("one2={}", player("one")),
    ]);
    let first = arbiter().args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert_eq!(first.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("Referee errors: 6 games could not be played"),
        "{stdout}"
    );

    std::fs::remove_file(&marker).unwrap();
    let resumed = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("Referee errors"), "{stdout}");
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 12, "the failed rows stay: {rows:?}");
    let played: Vec<u64> = rows[6..]
        .iter()
        .map(|r| {
            assert_eq!(r["reason"], "win", "{r:?}");
            r["game_id"].parse().unwrap()
        })
        .collect();
    let mut played_ids = played.clone();
    played_ids.sort_unstable();
    assert_eq!(played_ids, (0..6).collect::<Vec<u64>>());
    // Each bot played 4 games (2 against each other bot), each counted once.
    let ratings = read_csv(&out.join("ratings.csv"));
    assert_eq!(ratings.len(), 3, "{ratings:?}");
    for row in ratings {
        assert_eq!(row["games"], "4", "{row:?}");
    }
    // The replay of each game is the one played.
    let recs = records(&out);
    let last: HashMap<u64, &Value> = recs
        .iter()
        .map(|r| (r["game_id"].as_u64().unwrap(), r))
        .collect();
    assert!(last.values().all(|r| r["reason"] == "win"), "{last:?}");
    // Nothing is left to play.
    let again = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(read_csv(&out.join("games.csv")).len(), 12);
}

/// SPRT counts pairs: a pair with a game the referee could not play is dropped, and the
/// summary says how many and why (issue 40) instead of leaving them out in silence.
#[test]
fn sprt_says_how_many_pairs_a_failing_referee_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let done = arbiter()
        .args(["sprt", "--seed", "3", "--concurrency", "2"])
        .args(["--first-turn-ms", "5000", "--turn-ms", "1000"])
        .args(["--referee-timeout-ms", "5000", "--referee-seed"])
        .args(["--referee", &referee("crash-seed 3")])
        .args(["--max-pairs", "8", "--elo0", "0", "--elo1", "5"])
        .arg("--out")
        .arg(&out)
        .arg(format!("one={}", player("one")))
        .arg(format!("two={}", player("two")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    let stderr = String::from_utf8_lossy(&done.stderr);
    let rows = read_csv(&out.join("games.csv"));
    let mut failed: Vec<&str> = rows
        .iter()
        .filter(|r| r["reason"] == "referee-error")
        .map(|r| r["pair_id"].as_str())
        .collect();
    failed.sort_unstable();
    failed.dedup();
    assert!(
        !failed.is_empty() && failed.len() < 8,
        "the seed gives some failing pairs and some played: {rows:?}\n{stderr}"
    );
    let line = format!(
        "Pairs dropped: {} (a game of each could not be played: referee-error",
        failed.len()
    );
    assert!(stdout.contains(&line), "{line}\n{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("{} pairs)", 8 - failed.len())),
        "{stdout}"
    );
}
