//! Games of more than two seats end to end: Moscow Ice for four players through play,
//! tournament (killed and resumed), records and ratings, with real bot processes.

use crate::common::*;
use std::collections::HashSet;
use std::time::Duration;

fn standard(mode: &str) -> String {
    format!(
        "{} {}/tests/bots/standard.py {mode}",
        python(),
        root().display()
    )
}

#[test]
fn a_four_seat_game_plays_on_without_a_seat_that_timed_out() {
    let run = arbiter()
        .args([
            "play",
            "--game",
            "moscow-ice",
            "--seats",
            "4",
            "--json",
            "--seed",
            "3",
        ])
        .args(["--turn-ms", "300", "--first-turn-ms", "10000"])
        .args([
            standard("random 1"),
            standard("random 2"),
            standard("timeout-at 2"),
            standard("first"),
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let v = json_of(&run);
    let forfeits = v["forfeits"].as_array().unwrap();
    assert_eq!(forfeits.len(), 1, "{v}");
    assert_eq!(forfeits[0]["seat"], 2);
    assert_eq!(forfeits[0]["reason"], "timeout");
    // The others played on to the end the rules give, and seat 2 ranks last.
    assert!(
        ["win", "turn-limit"].contains(&v["reason"].as_str().unwrap()),
        "{v}"
    );
    assert!(v["turns"].as_u64().unwrap() > 20, "{v}");
    let ranks: Vec<u64> = v["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap())
        .collect();
    assert_eq!(ranks[2], 3, "{v}");
    assert!(
        ranks.iter().enumerate().all(|(s, &r)| s == 2 || r < 3),
        "{v}"
    );
}

#[test]
fn a_four_seat_tournament_killed_with_sigkill_resumes_and_rates_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mi");
    let bots = [
        format!("r1={}", standard("random 1")),
        format!("r2={}", standard("random 2")),
        format!("r3={}", standard("random 3")),
        format!("f={}", standard("first")),
        format!("g={}", standard("random 4")),
    ];
    let args = |c: &mut std::process::Command| {
        c.current_dir(root())
            .args([
                "tournament",
                "--game",
                "moscow-ice",
                "--seats",
                "4",
                "--games",
                "4",
            ])
            .args([
                "--seed",
                "9",
                "--turn-ms",
                "500",
                "--first-turn-ms",
                "3000",
                "--out",
            ])
            .arg(&out)
            .args(&bots);
    };
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    args(&mut cmd);
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let csv = out.join("games.csv");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 4 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    args(&mut cmd);
    let done = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    // C(5, 4) = 5 tables of 4 games, each game once.
    let mut r = csv::Reader::from_path(&csv).unwrap();
    let headers = r.headers().unwrap().clone();
    for col in ["bot0", "bot3", "rank0", "rank3", "forfeits", "moves_hash"] {
        assert!(headers.iter().any(|h| h == col), "no column {col}");
    }
    let ids: Vec<String> = r.records().map(|rec| rec.unwrap()[0].to_string()).collect();
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (20, 20));
    for name in ["r1", "r2", "r3", "f", "g"] {
        assert!(stdout.contains(name), "{stdout}");
    }
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    assert_eq!(ratings.lines().count(), 6, "{ratings}");
    // `arbiter ratings` reads the same file back.
    let again = arbiter().arg("ratings").arg(&csv).output().unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn a_results_file_from_before_seats_were_counted_is_still_rated() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    std::fs::write(
        &csv,
        "game_id,pair_id,seed,opening,bot0,bot1,winner,reason,turns,score0,score1,removed0,removed1,max_ms0,max_ms1,mean_ms0,mean_ms1,strikes0,strikes1,cpu_ms0,cpu_ms1,detail\n\
         0,0,7,,a,b,0,win,80,12,3,12,3,1.5,2.0,0.5,0.7,0,0,0.2,0.3,\n\
         1,0,7,,b,a,1,win,90,5,12,5,12,1.5,2.0,0.5,0.7,0,0,0.2,0.3,\n\
         2,1,8,,a,b,,turn-limit,250,0,0,6,6,1.5,2.0,0.5,0.7,0,0,0.2,0.3,\n\
         3,1,8,,b,a,0,timeout,12,0,-1,2,1,1.5,2.0,0.5,0.7,0,0,0.2,0.3,no answer\n",
    )
    .unwrap();
    let run = arbiter()
        .args(["ratings", "--json"])
        .arg(&csv)
        .output()
        .unwrap();
    let v = json_of(&run);
    let ratings = v["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 2);
    let a = ratings.iter().find(|r| r["bot"] == "a").unwrap();
    assert_eq!(a["points"].as_f64(), Some(2.5), "{v}");
}

#[test]
fn a_partners_forfeit_ranks_the_forfeiting_team_below_the_intact_team() {
    // Seat 0 crashes on its second turn; its partner (seat 2) must not win for the team.
    let run = arbiter()
        .args(["play", "--game", "moscow-ice", "--variant", "partners"])
        .args(["--seats", "4", "--json", "--seed", "5"])
        .args(["--turn-ms", "300", "--first-turn-ms", "10000"])
        .args([
            standard("crash-at 2"),
            standard("random 1"),
            standard("random 2"),
            standard("random 3"),
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let v = json_of(&run);
    assert_eq!(v["reason"], "crash", "{v}");
    assert_eq!(v["offender"], 0, "{v}");
    assert_eq!(v["ranks"], serde_json::json!([3, 0, 2, 0]), "{v}");
    assert_eq!(v["scores"][0], -1, "{v}");
}

#[test]
fn a_four_seat_game_ending_forfeit_scores_minus_one_like_the_others() {
    let run = arbiter()
        .args(["play", "--game", "moscow-ice", "--seats", "4", "--json"])
        .args(["/bin/false", "/bin/false", "/bin/false"])
        .arg(random_bot())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let v = json_of(&run);
    assert_eq!(v["scores"], serde_json::json!([-1, -1, -1, 0]), "{v}");
    assert_eq!(v["ranks"][3], 0, "{v}");
    assert_eq!(v["forfeits"].as_array().unwrap().len(), 3, "{v}");
}

#[test]
fn a_four_seat_summary_names_the_seats_of_bots_with_the_same_name() {
    let run = arbiter()
        .args(["play", "--game", "moscow-ice", "--seats", "4", "/bin/false"])
        .args([random_bot(), random_bot(), random_bot()])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{text}");
    let ranking = text
        .lines()
        .find(|l| l.starts_with("Ranking ("))
        .unwrap_or_else(|| panic!("{text}"));
    for seat in 0..4 {
        assert!(ranking.contains(&format!("(seat {seat})")), "{ranking}");
    }
    assert!(ranking.ends_with("4. false (seat 0)"), "{ranking}");
    assert!(text.contains("false (seat 0) was out at turn 1"), "{text}");
}
