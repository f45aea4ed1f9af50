//! CodinGame SDK games played natively: the real `arbiter` binary drives a real SDK referee (the
//! engine's `RefereeMain` in a JVM, running Take, arbiter's own small game in `tests/sdk/take`)
//! against real bots (`tests/sdk/take_bot.py`) over real pipes. The engine is compiled from its
//! source (the bundle in `../shared/third_party/`, or the clone `ARBITER_CODINGAME_ENGINE` names)
//! with plain `javac` against Debian's jars, once per test run.

use crate::common::sdk_game::*;
use crate::common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

#[test]
fn a_tournament_of_an_sdk_game_ranks_the_stronger_bot_first_and_keeps_each_turn() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "4");
    args.extend([bot("greedy", "greedy"), bot("modest", "modest")]);
    let done = arbiter().args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["reason"], "win", "{r:?}");
        let greedy_seat = if r["bot0"] == "greedy" { "0" } else { "1" };
        assert_eq!(r["winner"], greedy_seat, "{r:?}");
    }
    let first = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap_or("");
    assert!(first.contains("greedy"), "{stdout}");
    // Records: each turn's input and answer; a pair's two games share the seed (the same
    // numbers, seats swapped); the game's own scores.
    let recs = records(&out);
    let mut by_pair: HashMap<u64, Vec<&Value>> = HashMap::new();
    for rec in &recs {
        assert_eq!(rec["game"], "take");
        let inputs = rec["external"]["inputs"].as_array().unwrap();
        let moves = rec["moves"].as_array().unwrap();
        assert_eq!(inputs.len(), moves.len(), "{rec}");
        assert_eq!(moves.len(), 10, "5 rounds of 2 answers: {rec}");
        // The game's frames: its summaries turn by turn and its view data.
        let frames = rec["external"]["sdk"]["frames"].as_array().unwrap();
        let text = |f: &Value, key: &str| f[key].to_string();
        assert!(
            frames
                .iter()
                .any(|f| text(f, "summary").contains("$0 takes")),
            "{rec}"
        );
        assert!(
            frames.iter().any(|f| text(f, "view").contains("scores")),
            "{rec}"
        );
        assert_eq!(frames.last().unwrap()["answer"], 10, "{rec}");
        by_pair
            .entry(rec["pair_id"].as_u64().unwrap())
            .or_default()
            .push(rec);
    }
    for (pair, recs) in by_pair {
        assert_eq!(recs.len(), 2, "pair {pair}");
        assert_eq!(recs[0]["seed"], recs[1]["seed"]);
        assert_eq!(
            recs[0]["external"]["inputs"], recs[1]["external"]["inputs"],
            "pair {pair}"
        );
    }
}

/// CodinGame's rules for a player that fails its turn in a game of three: the referee is told
/// (a timeout), deactivates it, and the other two play on to the end.
#[test]
fn a_timeout_in_three_seats_deactivates_the_bot_and_the_others_play_on() {
    let Some(cp) = take() else { return };
    let r = play(
        &cp,
        &[
            bot("greedy", "greedy"),
            bot("sleepy", "slow 2"),
            bot("modest", "modest"),
        ],
        &["--seats", "3", "--seed", "7"],
    );
    assert_eq!(r["reason"], "win", "{r}");
    assert_eq!(r["ranks"], serde_json::json!([0, 2, 1]), "{r}");
    let forfeits = r["forfeits"].as_array().unwrap();
    assert_eq!(forfeits.len(), 1, "{r}");
    assert_eq!(forfeits[0]["seat"], 1);
    assert_eq!(forfeits[0]["reason"], "timeout");
    // The game's own limit (100 ms; the engine's soft 50 ms is arbiter's grace) was the turn's.
    assert!(
        forfeits[0]["detail"]
            .as_str()
            .unwrap()
            .contains("within 100 ms + 50 ms grace"),
        "{r}"
    );
    // Sleepy answered once; the two others played all 5 rounds.
    assert_eq!(r["moves"].as_array().unwrap().len(), 1 + 5 + 5, "{r}");
    assert_eq!(r["removed"][1], -1, "the game scored the timeout: {r}");
    assert!(
        r["detail"].as_str().unwrap().contains("sleepy timeout!"),
        "the game's message, with the bot's name: {r}"
    );
}

#[test]
fn a_crash_in_two_seats_is_the_verdict_and_an_invalid_answer_is_the_games() {
    let Some(cp) = take() else { return };
    let r = play(
        &cp,
        &[bot("crasher", "crash 3"), bot("modest", "modest")],
        &["--seed", "7"],
    );
    assert_eq!(r["reason"], "crash", "{r}");
    assert_eq!(r["winner"], 1, "{r}");
    assert!(
        r["detail"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{r}"
    );

    // The game deactivates a player for an invalid action: that is its verdict, `deactivated`
    // with the game's message, a forfeit as the table counts it.
    let r = play(
        &cp,
        &[bot("greedy", "greedy"), bot("wrong", "invalid 2")],
        &["--seed", "7"],
    );
    assert_eq!(r["reason"], "deactivated", "{r}");
    assert_eq!(r["winner"], 0, "{r}");
    assert_eq!(r["offender"], 1, "{r}");
    let detail = r["detail"].as_str().unwrap();
    assert!(
        detail.contains("wrong: invalid action") && detail.contains("banana"),
        "{r}"
    );
    assert_eq!(r["forfeits"][0]["reason"], "deactivated", "{r}");
    assert_eq!(
        r["forfeits"][0]["turn"], 3,
        "round 2 is the game's turn 3: {r}"
    );
}

/// A referee that fails (`[[FAIL]]`) or hangs ends its game as referee-error with what it
/// did and the end of its stderr; the run says so in its exit status.
/// The engine writes `[[FAIL]]` first and the stack trace on stderr after it (as the exception
/// leaves the game): a referee shut down at its `[[FAIL]]` lost the trace it was writing (seen
/// once under load). Take's `slowtrace` makes the trace come 700 ms late, in a warm launcher
/// and in a fresh JVM.
#[test]
fn a_failed_sdk_referee_is_given_time_to_write_its_trace() {
    let Some(cp) = take() else { return };
    for jvm in ["warm", "fresh"] {
        let done = arbiter()
            .env("ARBITER_SDK_JVM", jvm)
            .args(["play", "--referee", &cp, "--referee-timeout-ms", "30000"])
            .args([
                "--game-param",
                "fail=2",
                "--game-param",
                "slowtrace=1",
                "--json",
            ])
            .args([bot("greedy", "greedy"), bot("modest", "modest")])
            .output()
            .unwrap();
        let r: Value = serde_json::from_slice(&done.stdout)
            .unwrap_or_else(|e| panic!("{jvm}: {e}: {}", String::from_utf8_lossy(&done.stderr)));
        assert_eq!(r["reason"], "referee-error", "{jvm}: {r}");
        let detail = r["detail"].as_str().unwrap();
        assert!(
            detail.contains("its stderr ends:") && detail.contains("at com.codingame.game.Referee"),
            "{jvm}: the trace is missing: {detail}"
        );
    }
}

#[test]
fn a_failing_or_hanging_sdk_referee_is_a_referee_error_with_its_stderr() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "2");
    args.extend([
        "--game-param".to_string(),
        "fail=2".to_string(),
        bot("greedy", "greedy"),
        bot("modest", "modest"),
    ]);
    let done = arbiter().args(&args).output().unwrap();
    assert_eq!(
        done.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["reason"], "referee-error");
        let detail = &r["detail"];
        assert!(detail.contains("failed ([[FAIL]])"), "{r:?}");
        assert!(
            detail.contains("its stderr ends:") && detail.contains("at com.codingame.game.Referee"),
            "{r:?}"
        );
        assert!(
            detail.contains("Take was asked to fail at round 2"),
            "{r:?}"
        );
    }

    let r = play(
        &cp,
        &[bot("greedy", "greedy"), bot("modest", "modest")],
        &["--game-param", "hang=2", "--referee-timeout-ms", "2000"],
    );
    assert_eq!(r["reason"], "referee-error", "{r}");
    assert!(
        r["detail"]
            .as_str()
            .unwrap()
            .contains("wrote nothing for 2000 ms"),
        "{r}"
    );
}

#[test]
fn the_same_seed_plays_the_same_game_and_the_league_is_the_games() {
    let Some(cp) = take() else { return };
    let bots = [bot("greedy", "greedy"), bot("modest", "modest")];
    let a = play(&cp, &bots, &["--seed", "21"]);
    let b = play(&cp, &bots, &["--seed", "21"]);
    let c = play(&cp, &bots, &["--seed", "22"]);
    assert_eq!(a["moves"], b["moves"]);
    assert_eq!(a["removed"], b["removed"]);
    assert_ne!(a["moves"], c["moves"], "another seed, other numbers");
    // League 2 and up draws numbers up to 1000 (league 1: up to 100).
    let max = |r: &Value| {
        r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().parse::<u32>().unwrap())
            .max()
            .unwrap()
    };
    // Without --league the game's highest league is played (its full rules).
    assert!(max(&a) > 100, "{a}");
    let low = play(&cp, &bots, &["--seed", "21", "--league", "1"]);
    assert!(max(&low) <= 100, "{low}");
    // A seed given as a game parameter stands for every game.
    let fixed = play(&cp, &bots, &["--seed", "22", "--game-param", "seed=21"]);
    assert_eq!(fixed["moves"], a["moves"]);
}

#[test]
fn an_sdk_tournament_resumes_after_sigkill() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "8");
    args.extend([bot("greedy", "greedy"), bot("modest", "modest")]);
    let csv = out.join("games.csv");
    let before = kill_after_lines(&args, &csv, 3, Duration::from_secs(300));
    assert!(before < 8, "finished before the kill ({before} games)");
    resume_to_the_end(&args, &csv, 8);
}

#[test]
fn sprt_decides_with_an_sdk_game() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let game = ["--referee-timeout-ms", "30000", "--referee", &cp];
    let opts = [
        &game[..],
        &["--max-pairs", "20", "--elo1", "200", "--elo0", "0"],
    ]
    .concat();
    let (new, old) = (bot("greedy", "greedy"), bot("modest", "modest"));
    sprt_accepts_h1(dir.path(), &opts, &new, &old);
}

#[test]
fn grade_marks_a_class_with_an_sdk_game() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let source = std::fs::read_to_string(root().join("tests/sdk/take_bot.py")).unwrap();
    // alice plays greedy (the default mode); bob crashes at his first turn.
    let bob = "import sys\nsys.stdin.readline()\nsys.exit(1)\n";
    let students = [("alice.py", source.as_str()), ("bob.py", bob)];
    let opts = ["--referee-timeout-ms", "30000", "--referee", &cp];
    let graded = grade_class(dir.path(), &students, &source, "modest", &opts);
    assert!(
        graded.mark("alice") > graded.mark("bob"),
        "{:?}",
        graded.marks
    );
}

#[test]
fn shards_of_an_sdk_tournament_merge() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let tournament = |out: &Path| tournament_args(&cp, out, "4");
    let bots = [bot("greedy", "greedy"), bot("modest", "modest")];
    let rows = play_and_merge_shards(dir.path(), 2, tournament, &bots);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["reason"] == "win"), "{rows:?}");
}

/// The inner HTML of the element with id `id` in a dumped DOM (up to its closing tag `tag`).
fn inner<'a>(dom: &'a str, id: &str, tag: &str) -> &'a str {
    let open = format!("id=\"{id}\"");
    let Some(at) = dom.find(&open) else {
        panic!("no #{id} in the page: {dom}")
    };
    let body = &dom[at..];
    let start = body.find('>').map_or(0, |i| i + 1);
    let end = body.find(&format!("</{tag}>")).unwrap_or(body.len());
    &body[start..end]
}

/// The replay page steps through an SDK game: at each step the player's input and answer,
/// and what the game said of it (its summary lines, its tooltips), every text as text: a
/// bot's answer of markup reaches the page as characters, never as an element.
#[test]
fn the_replay_page_shows_the_games_summaries_and_tooltips_turn_by_turn() {
    let Some(cp) = take() else { return };
    let Some(browser) = chromium() else { return };
    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "2");
    args.extend([bot("greedy", "greedy"), bot("mallory", "hostile 2")]);
    let done = arbiter().args(&args).output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let rec = records(&out)
        .into_iter()
        .find(|r| r["game_id"] == 0)
        .expect("game 0's record");
    let mallory = match rec["bots"][0] == "mallory" {
        true => 0,
        false => 1,
    };
    // Round 1 (steps 1 and 2, seats 0 then 1), round 2: mallory's answer is markup.
    assert_eq!(rec["moves"].as_array().unwrap().len(), 4, "{rec}");
    let page = out.join("replays/replay.html");
    let at = |step: usize| {
        let url = format!("file://{}#game=0&step={step}", page.display());
        let (dom, console) = load(&browser, &url);
        assert!(console.is_empty(), "{console:?}");
        assert!(dom.contains("data-ready=\"1\""), "the replay ran: {dom}");
        dom
    };
    // After round 1: both players' takes, in the game's words with the bots' names; the step
    // shows both answers of the game turn (its players answered it together), numbered as the
    // game numbers its turns (turn 1 dealt).
    let dom = at(2);
    let head = inner(&dom, "head", "div");
    assert!(
        head.starts_with("game turn 2: ")
            && head.contains("(player 0) played ")
            && head.contains("(player 1) played "),
        "{head}"
    );
    let summary = inner(&dom, "summary", "pre");
    assert!(
        summary.contains("greedy takes ") && summary.contains("mallory takes "),
        "{summary}"
    );
    assert!(dom.contains("id=\"tooltips-box\" hidden"), "no tooltip yet");
    // Seat 1's first input: its line "P I" (sent in the dealing frame), then the round's X.
    let input = inner(&dom, "input", "pre");
    assert!(
        input.lines().last().unwrap_or("").parse::<u32>().is_ok(),
        "{input}"
    );
    // Round 2: mallory's answer (step 4) is markup, shown as text; the game deactivates it
    // for it (step 5): its tooltip on mallory quotes the answer. The players are named by
    // number, as the game numbers them, not by the colours of arbiter's pieces.
    let dom = at(4);
    assert!(!dom.contains("<img"), "markup from a bot was drawn: {dom}");
    if mallory == 1 {
        assert!(inner(&dom, "answer", "pre").contains("&lt;img"), "{dom}");
    }
    assert!(inner(&dom, "legend", "p").contains("player 0: "), "{dom}");
    assert!(!inner(&dom, "legend", "p").contains("White"), "{dom}");
    let dom = at(5);
    let tips = inner(&dom, "tooltips", "ul");
    assert!(
        tips.contains(
            "mallory: mallory: invalid action \"&lt;img src=x onerror=document.title='pwned'&gt;\""
        ),
        "{tips}"
    );
    assert!(!dom.contains("<img"), "markup from a bot was drawn: {dom}");
    assert!(!dom.contains("pwned</title>"), "{dom}");
    assert!(inner(&dom, "summary", "pre").contains("greedy takes "));
}

/// A referee that cannot play stops the run before any game is scheduled, with what it did,
/// the end of its stderr and what to do (a game that throws in its init); a class path without
/// the engine is refused before that, saying what to add.
#[test]
fn an_sdk_referee_that_cannot_play_stops_the_run_before_any_game() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    // The game's classes and the jars, without the engine's core.
    let no_engine: Vec<&str> = cp
        .split(':')
        .filter(|p| !p.contains("engine/classes"))
        .collect();
    assert_eq!(no_engine.len() + 1, cp.split(':').count(), "{cp}");
    let cases = [
        (
            cp.clone(),
            vec!["--game-param", "fail=init"],
            vec!["failed ([[FAIL]])", "Take was asked to fail in init"],
        ),
        (
            no_engine.join(":"),
            vec![],
            vec!["holds no CodinGame engine", "add the engine's jar"],
        ),
    ];
    for (i, (cp, extra, why)) in cases.iter().enumerate() {
        let out = dir.path().join(format!("t{i}"));
        let mut args = tournament_args(cp, &out, "4");
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend([bot("greedy", "greedy"), bot("modest", "modest")]);
        let done = arbiter().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(!done.status.success(), "{stderr}");
        for why in why {
            assert!(stderr.contains(why), "{why}: {stderr}");
        }
        if i == 0 {
            assert_eq!(done.status.code(), Some(3), "{stderr}");
            assert!(stderr.contains("cannot play"), "{stderr}");
            assert!(
                stderr.contains("[[GET_GAME_INFO] 0]") && stderr.contains("engine's core"),
                "what to do: {stderr}"
            );
        }
        let rows = std::fs::read_to_string(out.join("games.csv"))
            .map_or(0, |t| t.lines().count().saturating_sub(1));
        assert_eq!(rows, 0, "games were played: {stderr}");
    }
}

/// A class path given built is played by warm referee JVMs too: copied into a run folder of the
/// build cache with arbiter's launcher, and playing exactly the games one fresh JVM per game
/// plays.
#[test]
fn a_class_path_is_played_by_warm_jvms_and_plays_the_games_a_fresh_jvm_plays() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let cache = dir.path().join("cache");
    let run = |way: &str| {
        let out = dir.path().join(way);
        let mut args = tournament_args(&cp, &out, "4");
        args.extend([bot("greedy", "greedy"), bot("modest", "modest")]);
        let mut cmd = arbiter();
        cmd.env("ARBITER_CACHE", &cache)
            .env_remove("ARBITER_SDK_JVM");
        if way == "fresh" {
            cmd.env("ARBITER_SDK_JVM", "fresh");
        }
        let done = cmd.args(&args).output().unwrap();
        assert!(
            done.status.success(),
            "{way}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        let mut recs = records(&out);
        recs.sort_by_key(|r| r["game_id"].as_u64());
        recs
    };
    let warm = run("warm");
    let built: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("sdk-built-")
        })
        .collect();
    assert_eq!(built.len(), 1, "{built:?}");
    assert!(built[0].join("launcher/ArbiterLauncher.class").is_file());
    for r in &warm {
        assert_eq!(r["game"], "take", "the name is the class path's: {r}");
        let referee = r["external"]["referee"].as_str().unwrap();
        assert!(referee.contains("ArbiterLauncher"), "{referee}");
    }
    let fresh = run("fresh");
    assert!(fresh.iter().all(|r| r["external"]["referee"]
        .as_str()
        .unwrap()
        .contains("ArbiterLauncher")));
    let inputs = |recs: &[Value]| -> Vec<Value> {
        recs.iter()
            .map(|r| r["external"]["inputs"].clone())
            .collect()
    };
    assert_eq!(warm.len(), 4);
    assert_eq!(
        inputs(&warm),
        inputs(&fresh),
        "the same games, turn by turn"
    );
}
