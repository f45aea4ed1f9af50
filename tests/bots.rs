//! The bundled generic bots end to end: the MCTS bot plays a whole game through the real referee,
//! within the share of its turn limit that the environment gives it.

mod common;

use common::*;

#[test]
fn mcts_plays_a_whole_impasse_game_and_reports_its_search() {
    let dir = tempfile::tempdir().unwrap();
    let replay_file = dir.path().join("game.jsonl");
    let out = arbiter()
        // A short budget for the bot (40% of these), generous limits for the referee: the test
        // checks the protocol, not the strength, on a busy machine.
        .env("ARBITER_TURN_MS", "20")
        .env("ARBITER_FIRST_TURN_MS", "50")
        .args(["play", "--json", "--seed", "5", "--turn-ms", "1000"])
        .args(["--first-turn-ms", "5000", "--replay"])
        .arg(&replay_file)
        .arg(env!("CARGO_BIN_EXE_arbiter-bot-mcts"))
        .arg(random_bot())
        .output()
        .unwrap();
    let v = json_of(&out);
    let reason = v["reason"].as_str().unwrap();
    assert!(reason == "win" || reason == "turn-limit", "{v}");
    let searched: Vec<String> = replay(&replay_file)
        .into_iter()
        .filter(|t| t["type"] == "turn" && t["seat"] == 0)
        .map(|t| t["answer"].as_str().unwrap().to_string())
        .collect();
    assert!(searched.len() > 5, "{searched:?}");
    // Every answer carries the search's figures as its comment.
    assert!(
        searched.iter().all(|a| a.contains(" playouts=")),
        "{searched:?}"
    );
}
