//! What the record says about how a game ended (issue 24.1, 24.2, 51): draws are draws and name
//! the rule that drew them, forfeits score as losses and as each game's statement says; with the
//! real binary and real bots.

use crate::common::*;

#[test]
fn a_draughts_draw_names_its_rule_in_the_summary_the_json_and_games_csv() {
    // Two kings against one, the 5-move count at 8 of 10: after one move each it is a draw.
    let position = "W:WK49,K50:BK1 0 8";
    let (v, _) = play_json(
        &first_bot(),
        &first_bot(),
        &["--game", "draughts", "--position", position],
    );
    assert_eq!(v["reason"], "draw-5-move", "{v}");
    assert_eq!(v["winner"], serde_json::Value::Null, "{v}");
    assert_eq!(v["scores"], serde_json::json!([1, 1]), "{v}");

    let out = arbiter()
        .args(["play", "--game", "draughts", "--position", position])
        .arg(first_bot())
        .arg(first_bot())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Result: draw (draw-5-move)"), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("t");
    let run = arbiter()
        .args(["tournament", "--game", "draughts", "--games", "2"])
        .args(["--position", position, "--out"])
        .arg(&folder)
        .arg(first_bot())
        .arg(format!("other={}", first_bot()))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for row in read_csv(&folder.join("games.csv")) {
        assert_eq!(row["reason"], "draw-5-move", "{row:?}");
        assert_eq!(row["winner"], "", "{row:?}");
    }
    // The report's verdict filter offers the rule and "draw", and each drawn game carries both.
    let report = std::fs::read_to_string(folder.join("report.html")).unwrap();
    assert!(
        report.contains(r#"data-verdict="draw-5-move draw""#),
        "no drawn game in report.html"
    );
    assert!(
        report.contains(r#"<option value="draw">"#),
        "no draw filter"
    );
    let records = std::fs::read_to_string(folder.join("records.jsonl")).unwrap_or_default();
    assert!(
        records.contains("\"reason\":\"draw-5-move\""),
        "records.jsonl: {records}"
    );
}

#[test]
fn a_draughts_forfeit_scores_as_a_loss_not_a_draw() {
    let (v, _) = play_json("/bin/false", &first_bot(), &["--game", "draughts"]);
    assert_eq!(v["reason"], "crash", "{v}");
    assert_eq!(v["winner"], 1, "{v}");
    assert_eq!(v["scores"], serde_json::json!([0, 2]), "{v}");
}

/// Issue 51: Moscow Ice with two seats scores a forfeit as its statement says (-1, the other
/// keeps its pieces home), in games.csv, records.jsonl and a play's replay file, with a real bot
/// that crashes late in the game (pieces already home).
#[test]
fn a_two_seat_moscow_ice_forfeit_scores_minus_one_in_games_csv_records_and_the_replay() {
    let standard = |mode: &str| {
        format!(
            "{} {}/tests/bots/standard.py {mode}",
            python(),
            root().display()
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("t");
    let run = arbiter()
        .args(["tournament", "--game", "moscow-ice", "--games", "2"])
        .args(["--seed", "77", "--first-turn-ms", "5000", "--out"])
        .arg(&folder)
        .arg(format!("crasher={}", standard("crash-at 110")))
        .arg(format!("other={}", standard("random 1")))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = read_csv(&folder.join("games.csv"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    let mut home = 0;
    for row in &rows {
        let crasher = usize::from(row["bot1"] == "crasher");
        let other = 1 - crasher;
        assert_eq!(row["reason"], "crash", "{row:?}");
        assert_eq!(row[&format!("rank{crasher}")], "1", "{row:?}");
        assert_eq!(row[&format!("score{crasher}")], "-1", "{row:?}");
        assert_eq!(
            row[&format!("score{other}")],
            row[&format!("game_score{other}")],
            "the other keeps its pieces home: {row:?}"
        );
        home += row[&format!("score{other}")].parse::<i32>().unwrap();
    }
    assert!(home > 0, "no piece was home at the crash: {rows:?}");
    let records = std::fs::read_to_string(folder.join("records.jsonl")).unwrap();
    for line in records.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let crasher = usize::from(v["bots"][1] == "crasher");
        let row = rows
            .iter()
            .find(|r| r["game_id"].parse::<u64>().ok() == v["game_id"].as_u64())
            .unwrap();
        let scores: Vec<String> = (0..2).map(|s| row[&format!("score{s}")].clone()).collect();
        assert_eq!(v["scores"][crasher], -1, "{v}");
        assert_eq!(v["scores"].to_string(), format!("[{}]", scores.join(",")));
    }

    let replay_file = dir.path().join("replay.jsonl");
    let play = arbiter()
        .args(["play", "--game", "moscow-ice", "--seed", "77"])
        .args(["--first-turn-ms", "5000", "--replay"])
        .arg(&replay_file)
        .arg(standard("crash-at 110"))
        .arg(standard("random 1"))
        .output()
        .unwrap();
    assert!(play.status.success(), "{play:?}");
    let end = replay(&replay_file).pop().unwrap();
    assert_eq!(end["reason"], "crash", "{end}");
    assert_eq!(end["scores"][0], -1, "{end}");
    assert_eq!(end["scores"][1], end["removed"][1], "{end}");
}
