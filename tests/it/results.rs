//! What the record says about how a game ended (issue 24.1, 24.2): draws are draws and name the rule
//! that drew them, forfeits score as losses; with the real binary and real bots.

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
