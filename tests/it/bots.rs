//! The bundled generic bots end to end: the MCTS bot plays a whole game through the real referee,
//! within the share of its turn limit that the environment gives it.

use crate::common::*;

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

/// A bot folder whose bot.toml runs `program` and says it plays `games` only.
fn bot_folder(root: &std::path::Path, name: &str, program: &str, games: &str) -> String {
    let dir = root.join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"{program}\"\ngames = {games}\n"),
    )
    .unwrap();
    dir.to_str().unwrap().to_string()
}

#[test]
fn a_run_with_a_bot_that_does_not_play_the_game_stops_before_any_game_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let only = bot_folder(dir.path(), "only", &greedy_bot(), r#"["impasse"]"#);
    let out = dir.path().join("t");
    let stopped = arbiter()
        .args(["tournament", "--game", "draughts", "--games", "2", "--out"])
        .arg(&out)
        .args([&only, &random_bot(), &first_bot()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(3), "{err}");
    assert!(
        err.contains("bot 'only' does not play draughts") && err.contains(r#"["impasse"]"#),
        "{err}"
    );
    assert!(!out.join("games.csv").exists(), "no game was played");

    let run = arbiter()
        .args(["tournament", "--game", "draughts", "--games", "2"])
        .args(["--turn-ms", "1000", "--skip-broken-bots", "--out"])
        .arg(&out)
        .args([&only, &random_bot(), &first_bot()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r["bot0"] != "only" && r["bot1"] != "only"));

    // `play` refuses it too, and a bot listing the game plays.
    let play = arbiter()
        .args(["play", "--game", "draughts", &only])
        .arg(random_bot())
        .output()
        .unwrap();
    assert_eq!(play.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&play.stderr).contains("does not play draughts"));
    let both = bot_folder(
        dir.path(),
        "both",
        &first_bot(),
        r#"["impasse", "draughts"]"#,
    );
    let (v, _) = play_json(&both, &random_bot(), &["--game", "draughts"]);
    assert_eq!(v["bots"][0]["name"], "both", "{v}");
}

#[test]
fn the_bundled_impasse_bots_given_another_game_say_so_on_stderr() {
    let starter = format!(
        "{} {}/bots/python-starter/bot.py",
        python(),
        root().display()
    );
    for bot in [greedy_bot(), starter] {
        let out = arbiter()
            .args(["play", "--game", "alva", &bot])
            .arg(random_bot())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("plays only Impasse") && text.contains("given alva standard"),
            "{bot}: {text}"
        );
    }
}

#[test]
fn a_tournament_of_the_bundled_bots_does_not_warn_about_its_own_repeats() {
    // `first` always plays the first offered move; greedy and python-starter choose between
    // nearly equal moves at random, seeded from the game's seed, so their games vary. Not
    // always: a greedy game against `first` may meet no tie at all and replay an earlier one
    // (1 run in 34 seeds tried, seed 8: games 1 and 3, 81 turns each), which the note then
    // rightly reports. The run's seed is fixed so the test is reproducible; bots that ignored
    // their seed (or one seed for every game) would repeat here.
    let dir = tempfile::tempdir().unwrap();
    let starter = format!(
        "{} {}/bots/python-starter/bot.py",
        python(),
        root().display()
    );
    let run = arbiter()
        .args([
            "tournament",
            "--games",
            "6",
            "--seed",
            "1",
            "--turn-ms",
            "1000",
            "--out",
        ])
        .arg(dir.path().join("t"))
        .args([first_bot(), greedy_bot(), starter])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!out.contains("repeat"), "{out}");
}
