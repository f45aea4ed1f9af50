//! CodinGame SDK games right in every detail a contest player meets (issue 48): the limits a bot
//! is told, players out in the same game turn, `arbiter replay` of an SDK game, the game's
//! leagues, its verdicts and its own numbers in the summary. The real binary plays Take
//! (`tests/sdk/take`, built for the tests) with real bots over real pipes.

use crate::common::sdk_game::*;
use crate::common::*;
use serde_json::Value;

/// Take's game parameters: its limits set to 60 ms a turn and 700 ms for the first.
const LIMITS: [&str; 4] = [
    "--game-param",
    "turnms=60",
    "--game-param",
    "firstturnms=700",
];

/// What a bot is told of its limits (its environment), what the record and the replay keep and
/// what a timeout's verdict names are the game's own limits, the ones each turn enforces: the
/// bots used to be told arbiter's defaults (100 ms, 1000 ms) while the game's were enforced.
#[test]
fn the_limits_a_bot_is_told_recorded_and_named_are_the_games_own() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "2");
    args.extend(LIMITS.map(String::from));
    args.extend([bot("teller", "told"), bot("sleepy", "slow 2")]);
    succeeded(arbiter().args(&args));
    for rec in records(&out) {
        assert_eq!(rec["clocks"]["first_turn_us"], 700_000, "{rec}");
        assert_eq!(rec["clocks"]["turn_us"], 60_000, "{rec}");
        let teller = (rec["bots"][0] != "teller") as usize;
        let stderr = rec["stderr"][teller].as_str().unwrap();
        assert!(
            stderr.contains("told ARBITER_FIRST_TURN_MS=700 ARBITER_TURN_MS=60"),
            "the bot was told other limits: {stderr}"
        );
        let forfeit = &rec["forfeits"][0];
        assert_eq!(forfeit["reason"], "timeout", "{rec}");
        let detail = forfeit["detail"].as_str().unwrap();
        assert!(detail.contains("within 60 ms + 50 ms grace"), "{detail}");
    }
    // One game with its replay file: the file keeps the same limits.
    let replay = dir.path().join("game.jsonl");
    succeeded(
        arbiter()
            .args(["play", "--referee", &cp, "--referee-timeout-ms", "30000"])
            .args(LIMITS)
            .arg("--replay")
            .arg(&replay)
            .args([bot("teller", "told"), bot("greedy", "greedy")]),
    );
    let start = &crate::common::replay(&replay)[0];
    assert_eq!(start["turn_ms"], 60, "{start}");
    assert_eq!(start["first_turn_ms"], 700, "{start}");
}

/// Players out in the same game turn are out together: the game's scores rank them, equal
/// scores tie, and the reason says what the ranks say. A crash and a timeout in one turn were
/// "draw-referee" with the seat asked later the winner; a timeout in the turn its opponent sent
/// an invalid action made the invalid bot win outright (CodinGame deactivates both).
#[test]
fn players_out_in_the_same_game_turn_are_out_together() {
    let Some(cp) = take() else { return };
    let together = |a: String, b: String| play(&cp, &[a, b], &["--seed", "7"]);
    for r in [
        together(bot("crasher", "crash 2"), bot("sleepy", "slow 2")),
        together(bot("wrong", "invalid 2"), bot("sleepy", "slow 2")),
    ] {
        assert_eq!(r["reason"], "draw-referee", "{r}");
        assert_eq!(r["winner"], Value::Null, "{r}");
        assert_eq!(r["ranks"], serde_json::json!([0, 0]), "{r}");
        let forfeits = r["forfeits"].as_array().unwrap();
        assert_eq!(forfeits.len(), 2, "both players are out: {r}");
        // Round 2 is the game's turn 3 (its turn 1 deals), for both.
        assert!(forfeits.iter().all(|f| f["turn"] == 3), "{r}");
    }
    let r = together(bot("wrong", "invalid 2"), bot("sleepy", "slow 2"));
    let reasons: Vec<&str> = r["forfeits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["timeout", "deactivated"], "{r}");

    // Three seats: the two out in round 2 tie below the one still playing.
    let r = play(
        &cp,
        &[
            bot("crasher", "crash 2"),
            bot("sleepy", "slow 2"),
            bot("greedy", "greedy"),
        ],
        &["--seats", "3", "--seed", "7"],
    );
    assert_eq!(r["ranks"], serde_json::json!([1, 1, 0]), "{r}");
    assert_eq!(r["winner"], 2, "{r}");
    assert_eq!(r["reason"], "win", "{r}");
}

/// `arbiter replay` reads the replay file `arbiter play --replay` wrote of an SDK game (it said
/// "unknown game 'take'").
#[test]
fn arbiter_replay_reads_an_sdk_games_replay_file() {
    let Some(cp) = take() else { return };
    let dir = shared_tempdir();
    let replay = dir.path().join("take.jsonl");
    succeeded(
        arbiter()
            .args(["play", "--referee", &cp, "--referee-timeout-ms", "30000"])
            .arg("--replay")
            .arg(&replay)
            .args([bot("greedy", "greedy"), bot("wrong", "invalid 2")]),
    );
    let page = dir.path().join("take.html");
    succeeded(arbiter().arg("replay").arg(&replay).arg("--out").arg(&page));
    // The file keeps the game's frames, which the page tells step by step.
    let result = crate::common::replay(&replay).pop().unwrap();
    assert!(result["sdk"]["frames"]
        .as_array()
        .is_some_and(|f| !f.is_empty()));
    let Some(browser) = chromium() else { return };
    let (dom, console) = load(&browser, &format!("file://{}#step=2", page.display()));
    assert!(console.is_empty(), "{console:?}");
    assert!(dom.contains("data-ready=\"1\""), "the replay ran: {dom}");
    assert!(dom.contains("greedy") && dom.contains("wrong"), "{dom}");
    assert!(dom.contains("greedy takes "), "the game's summary: {dom}");
}

/// A game's leagues are listed from its files (`arbiter games --referee`), a run plays its
/// highest (its full rules) unless told otherwise and says so on its first line, and a league
/// it does not have is refused with the range. Take lists two leagues in its statement.
#[test]
fn a_games_leagues_are_listed_the_highest_is_the_default_and_others_are_refused() {
    let Some(cp) = take() else { return };
    let listed = arbiter()
        .args(["games", "--referee", &cp])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{text}");
    assert!(text.contains("leagues: 1 to 2"), "{text}");
    assert!(text.contains("players: 2 to 8"), "{text}");

    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "2");
    args.extend([bot("greedy", "greedy"), bot("modest", "modest")]);
    let done = arbiter().args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    let first = stderr
        .lines()
        .find(|l| l.contains("games of"))
        .unwrap_or("");
    assert!(
        first.contains("league 2 of 2, the game's highest"),
        "the first line: {stderr}"
    );

    let refused = arbiter()
        .args(["play", "--referee", &cp, "--league", "3"])
        .args([bot("greedy", "greedy"), bot("modest", "modest")])
        .output()
        .unwrap();
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{why}");
    assert!(
        why.contains("--league 3: the game has leagues 1 to 2"),
        "{why}"
    );
}

/// The summary of a game tells the game's own verdict (its message on the player it
/// deactivated), its own turns, its scores first and the seed it played; the tournament's
/// forfeits table counts the deactivation; a player that wrote one line of the two a turn asks
/// is told how many came.
#[test]
fn the_summary_tells_the_games_verdict_and_numbers() {
    let Some(cp) = take() else { return };
    let summary = |bots: [String; 2], extra: &[&str]| {
        let done = succeeded(
            arbiter()
                .args(["play", "--referee", &cp, "--referee-timeout-ms", "30000"])
                .args(extra)
                .args(bots),
        );
        String::from_utf8_lossy(&done.stdout).into_owned()
    };
    let text = summary(
        [bot("greedy", "greedy"), bot("wrong", "invalid 2")],
        &["--seed", "5", "--game-param", "seed=21"],
    );
    assert!(
        text.contains("greedy wins; wrong loses by deactivated: wrong: invalid action"),
        "{text}"
    );
    assert!(
        text.contains("seed 21 (the game's; arbiter's table seed 5)"),
        "{text}"
    );
    // Deal, round 1, round 2 (in which wrong is out): 3 game turns, 4 answers.
    assert!(text.contains("Turns: 3 game turns (4 answers)"), "{text}");
    assert!(
        text.contains("Scores: ") && text.contains("(the game's"),
        "{text}"
    );

    let text = summary(
        [bot("both", "twolines 2"), bot("again", "twolines 0")],
        &["--game-param", "lines=2"],
    );
    assert!(
        text.contains("(1 of the 2 lines it must write came)"),
        "{text}"
    );

    let dir = shared_tempdir();
    let out = dir.path().join("t");
    let mut args = tournament_args(&cp, &out, "2");
    args.extend([bot("greedy", "greedy"), bot("wrong", "invalid 2")]);
    let done = arbiter().args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert!(done.status.success(), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.contains("deactivated"))
        .unwrap_or_else(|| panic!("no deactivation in the forfeits table: {stdout}"));
    assert!(
        row.contains("wrong") && row.trim_end().ends_with('2'),
        "{row}"
    );
}
