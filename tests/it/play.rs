//! `arbiter play` end to end: the real binary refereeing real bot processes over real pipes.

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

#[test]
fn random_against_greedy_ends_in_a_win_or_the_turn_limit() {
    let (v, _) = play_json(&random_bot(), &greedy_bot(), &[]);
    let reason = v["reason"].as_str().unwrap();
    assert!(reason == "win" || reason == "turn-limit", "{v}");
    assert!(v["turns"].as_u64().unwrap() > 10);
    if reason == "win" {
        let w = v["winner"].as_u64().unwrap() as usize;
        assert_eq!(v["scores"][w], 12, "{v}");
    }
    assert_eq!(v["seed"], 1);
    for bot in v["bots"].as_array().unwrap() {
        assert!(bot["max_ms"].as_f64().unwrap() >= bot["mean_ms"].as_f64().unwrap());
    }
}

#[test]
fn a_summary_tells_two_bots_of_one_name_apart_by_their_seats() {
    let out = arbiter()
        .args(["play", "--seed", "3", "--turn-ms", "1000"])
        .arg(random_bot())
        .arg(random_bot())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let result = text.lines().find(|l| l.starts_with("Result: ")).unwrap();
    assert!(
        result.contains("(seat 0)") || result.contains("(seat 1)") || result.contains("draw"),
        "{text}"
    );
    assert!(text.contains("arbiter-bot-random (seat 0): "), "{text}");
    assert!(text.contains("arbiter-bot-random (seat 1): "), "{text}");
}

#[test]
fn human_summary_names_players_result_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("game.jsonl");
    let out = arbiter()
        .args(["play", "--seed", "3", "--turn-ms", "1000"])
        .arg("--replay")
        .arg(&replay)
        .arg(greedy_bot())
        .arg(random_bot())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("seed 3"), "{text}");
    assert!(text.contains("seat 0: arbiter-bot-greedy"), "{text}");
    assert!(text.contains("Result: "), "{text}");
    assert!(
        text.contains(&format!("Replay: {}", replay.display())),
        "{text}"
    );
    assert!(replay.is_file());
}

fn forfeit(v: &Value, seat: u64, reason: &str) {
    assert_eq!(v["reason"], reason, "{v}");
    assert_eq!(v["offender"], seat, "{v}");
    assert_eq!(v["winner"], 1 - seat, "{v}");
    assert_eq!(v["scores"][seat as usize], -1, "{v}");
    assert_eq!(v["scores"][1 - seat as usize], 0, "{v}");
}

#[test]
fn a_bot_that_sleeps_past_the_limit_loses_by_timeout_at_limit_plus_grace() {
    let (v, took) = play_json(
        &hostile("sleep 2 100000"),
        &random_bot(),
        &["--turn-ms", "300", "--grace-ms", "100"],
    );
    forfeit(&v, 0, "timeout");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("300 ms + 100 ms grace"),
        "{v}"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn late_answers_within_the_grace_are_strikes_and_the_third_loses() {
    // Limit 150 ms, grace 600 ms: each answer at about 300 ms is late but accepted.
    let (v, _) = play_json(
        &hostile("late 300"),
        &random_bot(),
        &["--turn-ms", "150", "--grace-ms", "600", "--strikes", "3"],
    );
    forfeit(&v, 0, "timeout");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("late answer number 3"),
        "{v}"
    );
    // Its answers: the first on time, the next two late but played, the fourth the third strike
    // (moves: its 3 played and the opponent's 3).
    assert_eq!(v["bots"][0]["strikes"], 3, "{v}");
    assert_eq!(v["moves"].as_array().unwrap().len(), 6, "{v}");
}

#[test]
fn strict_mode_loses_on_the_first_late_answer() {
    let (v, _) = play_json(
        &hostile("late 300"),
        &random_bot(),
        &["--turn-ms", "150", "--strict"],
    );
    forfeit(&v, 0, "timeout");
    // Its first answer (1000 ms first-turn limit) and the opponent's; the next one loses.
    assert_eq!(v["moves"].as_array().unwrap().len(), 2, "{v}");
}

#[test]
fn exiting_before_answering_is_a_crash_detected_at_once() {
    let (v, took) = play_json(&random_bot(), &hostile("exit 2 3"), &["--turn-ms", "20000"]);
    forfeit(&v, 1, "crash");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{v}"
    );
    assert!(
        took < Duration::from_secs(10),
        "waited out the clock: {took:?}"
    );
}

#[test]
fn a_signal_is_named_in_the_crash_verdict() {
    let (v, _) = play_json(&hostile("kill-self 2"), &random_bot(), &[]);
    forfeit(&v, 0, "crash");
    assert!(v["detail"].as_str().unwrap().contains("SIGSEGV"), "{v}");
}

#[test]
fn an_answer_not_offered_is_an_invalid_move() {
    let (v, _) = play_json(&hostile("invalid 2 zz99"), &random_bot(), &[]);
    forfeit(&v, 0, "invalid-move");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("\"zz99\" is not one of"),
        "{v}"
    );
}

#[test]
fn a_line_longer_than_ten_thousand_bytes_is_output_too_long_at_once() {
    let (v, took) = play_json(
        &random_bot(),
        &hostile("long 2 20000"),
        &["--turn-ms", "20000"],
    );
    forfeit(&v, 1, "output-too-long");
    assert!(v["detail"].as_str().unwrap().contains("xxxxxxxx"), "{v}");
    assert!(
        took < Duration::from_secs(10),
        "waited out the clock: {took:?}"
    );
}

#[test]
fn a_comment_after_a_space_is_accepted() {
    let (v, _) = play_json(&hostile("comment"), &random_bot(), &[]);
    assert!(
        ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
        "{v}"
    );
}

/// Replays a replay file through the rules: every input the bots saw must be what the rules
/// produce, and the result must be what the rules say.
fn check_replay(path: &std::path::Path) -> Vec<Value> {
    use arbiter::game::new_game;
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "start");
    assert_eq!(lines.last().unwrap()["type"], "result");
    let mut game = new_game(lines[0]["game"].as_str().unwrap(), 0).unwrap();
    let mut first = [true, true];
    for t in &lines[1..lines.len() - 1] {
        let seat = t["seat"].as_u64().unwrap() as usize;
        assert_eq!(game.to_move(), seat);
        let mut input = String::new();
        game.write_turn_input(first[seat], &mut input);
        first[seat] = false;
        assert_eq!(t["input"].as_str().unwrap(), input, "turn {}", t["turn"]);
        let played = t["played"].as_str().unwrap();
        let i = game.legal_moves().iter().position(|m| m == played).unwrap();
        game.play(i);
    }
    let result = lines.last().unwrap();
    if result["reason"] == "win" {
        let outcome = game.outcome().expect("the rules agree the game is over");
        assert_eq!(
            outcome.sole_winner().map(|w| w as u64),
            result["winner"].as_u64()
        );
        assert_eq!(result["removed"], serde_json::json!(game.scores()));
    }
    lines
}

#[test]
fn the_replay_reproduces_the_game_through_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.jsonl");
    let (v, _) = play_json(
        &greedy_bot(),
        &random_bot(),
        &["--replay", path.to_str().unwrap()],
    );
    let lines = check_replay(&path);
    assert_eq!(lines.len() as u64, v["turns"].as_u64().unwrap() + 2);
    for t in &lines[1..lines.len() - 1] {
        assert!(t["time_us"].as_u64().is_some());
        assert_eq!(t["strike"], false);
    }
}

#[test]
fn random_is_played_and_shown_as_the_real_move() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.jsonl");
    let (v, _) = play_json(
        &hostile("random-word 2"),
        &random_bot(),
        &["--replay", path.to_str().unwrap()],
    );
    let lines = check_replay(&path);
    let turns = &lines[1..lines.len() - 1];
    let k = turns
        .iter()
        .position(|t| t["answer"] == "random")
        .expect("a random answer");
    let played = turns[k]["played"].as_str().unwrap();
    assert_ne!(played, "random");
    let next_input = turns[k + 1]["input"].as_str().unwrap();
    assert!(next_input.lines().any(|l| l == played), "{next_input}");
    assert!(!next_input.contains("random"));
    assert_eq!(v["moves"][k], played);
}

#[test]
fn a_bot_that_cannot_start_is_a_clear_error_before_any_game() {
    let out = arbiter()
        .args(["play", "/no/such/bot", &random_bot()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot start") && err.contains("/no/such/bot does not exist"),
        "{err}"
    );
}

#[test]
fn a_failing_build_names_the_bot() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bot.toml"),
        "name = \"broken\"\nrun = \"./bot\"\nbuild = \"sh -c 'echo compile error >&2; exit 1'\"\n",
    )
    .unwrap();
    let out = arbiter()
        .args(["play", dir.path().to_str().unwrap(), &random_bot()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bot 'broken'") && err.contains("compile error"),
        "{err}"
    );
}

#[test]
fn the_bundled_bot_directories_run_through_bot_toml() {
    // python-starter has no build step; it runs `python3 bot.py` in its own directory.
    let (v, _) = play_json("bots/python-starter", &random_bot(), &[]);
    assert!(
        ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
        "{v}"
    );
}

/// One rule for the answer's length, as the arena applies it, whatever the split of the writes:
/// 10,000 bytes before the line end are an answer, 10,001 are too long.
#[test]
fn answer_length_is_one_rule_however_the_writes_are_split() {
    let bot = |bytes: usize, cut: usize, ending: &str| {
        format!(
            "{} {}/tests/bots/split.py {bytes} {cut} {ending}",
            python(),
            root().display()
        )
    };
    for (bytes, cut, ending) in [
        (10_000, 10_000, "crlf"),
        (10_000, 10_001, "crlf"),
        (10_000, 5_000, "lf"),
        (10_000, 10_000, "lf"),
    ] {
        let (v, _) = play_json(
            &bot(bytes, cut, ending),
            &first_bot(),
            &["--max-turns", "6"],
        );
        assert_eq!(v["reason"], "turn-limit", "{bytes} {cut} {ending}: {v}");
    }
    for (bytes, cut, ending) in [
        (10_001, 10_001, "lf"),
        (10_001, 3, "crlf"),
        (12_000, 12_000, "lf"),
        (16_000, 8_000, "crlf"),
    ] {
        let (v, _) = play_json(
            &bot(bytes, cut, ending),
            &first_bot(),
            &["--max-turns", "6"],
        );
        assert_eq!(
            v["reason"], "output-too-long",
            "{bytes} {cut} {ending}: {v}"
        );
        assert_eq!(v["offender"], 0, "{v}");
    }
}

#[test]
fn a_bot_whose_input_closed_as_it_died_is_named_by_its_death() {
    // Its input is closed at once, and it dies of TERM (what a stop of the whole job sends) a
    // moment later: the forfeit names the signal, which is what lets a stopped run hold the
    // game back instead of recording a crash. It plays Black, and White takes 200 ms over its
    // first answer, so that Black's input is closed by the time its first turn is written, and
    // it dies some 0.35 s after that write.
    let (v, _) = play_json(
        &hostile("sleep 1 200"),
        "sh -c 'exec 0<&-; sleep 0.6; kill -TERM $$'",
        &[],
    );
    forfeit(&v, 1, "crash");
    let detail = v["detail"].as_str().unwrap();
    assert!(detail.contains("SIGTERM"), "{v}");
}
