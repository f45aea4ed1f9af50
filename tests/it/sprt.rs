//! `arbiter sprt` and `arbiter stats` end to end: exit codes, the final block, JSON figures.

use crate::common::*;
use serde_json::Value;

fn sprt(new: &str, old: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = arbiter()
        .args(["sprt", "--seed", "7", "--turn-ms", "1000", "--out"])
        .arg(dir.path().join("s"))
        .args(extra)
        .arg(new)
        .arg(old)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn greedy_against_random_accepts_h1_within_a_bounded_number_of_pairs() {
    let (code, out, err) = sprt(&greedy_bot(), &random_bot(), &["--max-pairs", "400"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Decision: H1 accepted"), "{out}");
    assert!(out.contains("Ptnml(0-2): ["), "{out}");
    assert!(
        out.contains("LLR: ") && out.contains("(-2.94, 2.94) [0.00, 5.00]"),
        "{out}"
    );
    assert!(
        out.contains("nElo:") && out.contains("LOS:") && out.contains("PairsRatio:"),
        "{out}"
    );
}

#[test]
fn random_against_greedy_accepts_h0() {
    let (code, out, err) = sprt(&random_bot(), &greedy_bot(), &["--max-pairs", "400"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("Decision: H0 accepted"), "{out}");
}

#[test]
fn too_few_pairs_end_without_a_decision() {
    let (code, out, err) = sprt(&greedy_bot(), &random_bot(), &["--max-pairs", "2"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(out.contains("(4 games, 2 pairs)"), "{out}");
    assert!(out.contains("No decision"), "{out}");
}

#[test]
fn bad_arguments_exit_with_three() {
    let (code, _, err) = sprt(
        &greedy_bot(),
        &random_bot(),
        &["--elo0", "5", "--elo1", "0"],
    );
    assert_eq!(code, 3, "{err}");
    let (code, _, err) = sprt(&greedy_bot(), "/no/such/bot", &[]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("cannot play") || err.contains("cannot start"),
        "{err}"
    );
    let out = arbiter().args(["sprt", "--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn an_sprt_records_each_forfeit_in_failures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let crasher = format!("crasher={}", hostile("exit 2 3"));
    let honest = format!("honest={}", hostile("honest"));
    let run = arbiter()
        .args([
            "sprt",
            "--seed",
            "7",
            "--turn-ms",
            "1000",
            "--max-pairs",
            "2",
        ])
        .args(["--first-turn-ms", "10000", "--out"])
        .arg(&out)
        .args([&crasher, &honest])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 4, "{err}");
    for row in &rows {
        assert_eq!(row["reason"], "crash", "{row:?}");
        let id = &row["game_id"];
        let file = out.join("failures").join(format!("game-{id}-crasher.txt"));
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(text.contains("exited with status 3"), "{text}");
    }
}

/// A batch system stopping a job (Slurm's scancel, or its time limit, which follows TERM with
/// KILL) signals every process of the job at once: here the bots die of SIGKILL a moment before
/// the referee gets its SIGTERM. Those games are the stop's work, not the bots' crashes: the SPRT
/// must not count them (nor record them, so that a continued run plays them).
#[test]
fn a_stopped_sprt_records_no_crash_for_bots_killed_by_the_stop() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    // Both bots play two turns, then sleep: the games are under way when the job is stopped.
    let (a, b) = (
        format!("a={}", hostile("sleep 3 100000")),
        format!("b={}", hostile("sleep 3 100000")),
    );
    let referee = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args(["sprt", "--seed", "7", "--concurrency", "2"])
        .args(["--turn-ms", "60000", "--first-turn-ms", "60000", "--out"])
        .arg(&out)
        .args([&a, &b])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = referee.id();
    // Two games, two bots each (the start-up checks start one bot at a time).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let bots = loop {
        let bots = children_with(pid, "hostile.py");
        if bots.len() >= 4 {
            break bots;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the games did not start: {bots:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    for bot in bots {
        unsafe { libc::kill(bot as i32, libc::SIGKILL) };
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let end = referee.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&end.stderr);
    assert_eq!(end.status.code(), Some(128 + libc::SIGTERM), "{err}");
    let rows = read_csv(&out.join("games.csv"));
    assert!(
        rows.iter().all(|r| r["reason"] != "crash"),
        "games ended by the stop were recorded as crashes: {rows:?}\n{err}"
    );
}

fn stats(args: &[&str]) -> Value {
    let out = arbiter()
        .arg("stats")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    json_of(&out)
}

fn close(v: &Value, x: f64) -> bool {
    (v.as_f64().unwrap() - x).abs() < 0.005
}

#[test]
fn stats_matches_the_check_values() {
    let v = stats(&["--wdl", "60,20,20"]);
    assert!(
        close(&v["elo"], 147.19) && close(&v["elo_margin"], 66.01),
        "{v}"
    );
    assert!(
        close(&v["nelo"], 173.72) && close(&v["nelo_margin"], 68.10),
        "{v}"
    );
    assert!(v["los"].as_f64().unwrap() > 0.9999);
    assert_eq!(v["llr"], Value::Null);
    let v = stats(&["--wdl", "510,480,450"]);
    assert!(
        close(&v["elo"], 14.48) && close(&v["elo_margin"], 14.67),
        "{v}"
    );
    assert!((v["los"].as_f64().unwrap() - 0.9738).abs() < 0.0001, "{v}");
    let v = stats(&[
        "--wdl",
        "10500,21000,10400",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--model",
        "logistic",
    ]);
    assert!(close(&v["llr"], -5.81), "{v}");
    assert!(
        close(&v["lower"], -2.944) && close(&v["upper"], 2.944),
        "{v}"
    );
    let v = stats(&["--wdl", "2000,4000,1900", "--elo0", "0", "--elo1", "2"]);
    assert!(close(&v["llr"], 0.69), "{v}");
}

#[test]
fn stats_edge_cases_are_honest() {
    let v = stats(&["--wdl", "10,0,0", "--elo0", "0", "--elo1", "5"]);
    assert_eq!(v["elo"], "+inf");
    assert!(v["llr"].as_f64().unwrap().is_finite());
    let v = stats(&["--ptnml", "0,0,0,0,0", "--elo0", "0", "--elo1", "5"]);
    assert_eq!(v["elo"], Value::Null);
    let out = arbiter()
        .args(["stats", "--wdl", "0,0,0"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("n/a") && !text.to_lowercase().contains("nan"),
        "{text}"
    );
    let out = arbiter().args(["stats", "--wdl", "1,2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
}

/// The LLR crosses a bound while a game of an earlier pair is still being played (concurrency
/// 2): pair 0's candidate loses both games, one of them only once pairs 1 to 3 (all won by the
/// candidate) are recorded and the test has decided on them. The late pair takes the LLR back
/// between the bounds. The printed decision, the exit status and the statistics of the printed
/// pentanomial count must all be the decision on the same games: those recorded in games.csv.
#[test]
fn a_decision_that_a_late_pair_undoes_is_taken_again_on_every_recorded_game() {
    use std::os::unix::fs::PermissionsExt;
    // Not in /tmp: isolated bots have a /tmp of their own.
    let dir = shared_tempdir();
    let out = dir.path().join("s");
    // The bots run under a uid of their own: they meet in a folder anyone may write.
    let meet = dir.path().join("meet");
    std::fs::create_dir(&meet).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&meet, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (claim, go, csv) = (meet.join("claim"), meet.join("go"), out.join("games.csv"));
    let seed0 = arbiter::tournament::schedule(2, arbiter::tournament::Format::RoundRobin, 2, 7)[0]
        .seed
        .to_string();
    let bot = |role: &str| {
        let mode = format!(
            "pair-fate {role} {seed0} {} {}",
            claim.display(),
            go.display()
        );
        format!("{role}={}", hostile(&mode))
    };
    // One pair won by the candidate adds 0.40 to the LLR: pairs 1 to 3 make 1.21 >= 0.85, and
    // with pair 0 lost 0.81.
    let bounds = [
        "--elo0", "-50", "--elo1", "50", "--alpha", "0.3", "--beta", "0.3",
    ];
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "sprt",
            "--seed",
            "7",
            "--concurrency",
            "2",
            "--max-pairs",
            "20",
        ])
        .args(["--first-turn-ms", "60000", "--turn-ms", "1000"])
        .args(bounds)
        .arg("--out")
        .arg(&out)
        .args([bot("new"), bot("old")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Pair 0's waiting game ends once the 7 other games of pairs 0 to 3 are recorded.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let recorded =
        || std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count().saturating_sub(1));
    while recorded() < 7 {
        assert!(
            std::time::Instant::now() < deadline,
            "pairs 1 to 3 were not recorded in 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::write(&go, "").unwrap();
    let run = run.wait_with_output().unwrap();
    let (stdout, err) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    let rows = read_csv(&csv);
    // Pair 0's second game was recorded after pairs 1 to 3 (the rows are in record order).
    let pair0: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i]["seed"] == seed0)
        .collect();
    assert!(
        pair0.len() == 2 && pair0[1] >= 7 && rows.iter().all(|r| r["reason"] == "crash"),
        "pair 0 was not played as planned: {rows:?}\n{err}"
    );
    let decision = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Decision: "))
        .unwrap_or_else(|| panic!("no decision line: {stdout}"));
    let code = run.status.code().unwrap();
    let expected = match code {
        0 => "H1 accepted",
        1 => "H0 accepted",
        2 => "none yet",
        _ => panic!("exit status {code}: {stdout}\n{err}"),
    };
    assert!(
        decision.starts_with(expected),
        "exit status {code} but 'Decision: {decision}':\n{stdout}\n{err}"
    );
    assert_eq!(code, 0, "{stdout}\n{err}");
    // The figures printed are those of every recorded game.
    // "(N games, P pairs)", or "(N games: P pairs and 1 game whose pair was not finished)"
    // where a game of a later pair was under way when the test decided (a busy machine).
    let games = format!("({} games", rows.len());
    assert!(
        [", ", ": "]
            .iter()
            .any(|after| stdout.contains(&format!("{games}{after}"))),
        "{games} in\n{stdout}"
    );
    let ptnml = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Ptnml(0-2): ["))
        .and_then(|l| l.strip_suffix(']'))
        .unwrap_or_else(|| panic!("no pentanomial count: {stdout}"))
        .replace(' ', "");
    let mut args = vec!["--ptnml", &ptnml];
    args.extend(bounds);
    let v = stats(&args);
    let llr = v["llr"].as_f64().unwrap();
    assert!(llr >= v["upper"].as_f64().unwrap(), "{v}\n{stdout}");
    assert!(
        stdout.contains(&format!("LLR: {llr:.2} (")),
        "LLR {llr:.2} in\n{stdout}"
    );
}

/// A pentanomial record's draw ratio is the share of pairs split 1-1 (a record without one
/// drawn game may have many): it is named as such, the games' draw ratio as before.
#[test]
fn the_draw_ratio_of_pairs_is_named_as_one() {
    let text = |args: &[&str]| {
        let out = arbiter().arg("stats").args(args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let pairs = text(&["--ptnml", "1,2,3,2,1"]);
    assert!(
        pairs.contains("PairDrawRatio: 33.33% (pairs scoring 1-1)"),
        "{pairs}"
    );
    let games = text(&["--wdl", "5,2,3"]);
    assert!(games.contains(", DrawRatio: 20.00%"), "{games}");
}

/// An SPRT's report.html shows the test: its LLR (the result block's), the bounds, the
/// decision and the LLR's course over the pairs; `arbiter report` rebuilds the same.
#[test]
fn an_sprts_report_shows_the_llr_its_bounds_the_decision_and_its_course() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let run = arbiter()
        .args([
            "sprt",
            "--seed",
            "7",
            "--turn-ms",
            "1000",
            "--max-pairs",
            "400",
        ])
        .arg("--out")
        .arg(&out)
        .arg(greedy_bot())
        .arg(random_bot())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    let llr = stdout
        .lines()
        .find_map(|l| l.strip_prefix("LLR: "))
        .and_then(|l| l.split_whitespace().next())
        .expect("an LLR line")
        .to_string();
    // "(296 games, 148 pairs):" or, where the test decided while a pair's other game was
    // played, "(295 games: 147 pairs and 1 game whose pair was not finished):".
    let pairs = stdout
        .lines()
        .next()
        .and_then(|l| l.split(" pairs").next())
        .and_then(|s| s.rsplit(' ').next())
        .expect("a pair count on the first line")
        .to_string();
    for rebuilt in [false, true] {
        if rebuilt {
            let again = arbiter().arg("report").arg(&out).output().unwrap();
            assert!(again.status.success());
        }
        let page = std::fs::read_to_string(out.join("report.html")).unwrap();
        let section = page
            .split("id=\"sprt\"")
            .nth(1)
            .expect("an SPRT section")
            .split("<h2")
            .next()
            .unwrap();
        let cells: Vec<&str> = section
            .split("<td")
            .skip(1)
            .map(|c| &c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()])
            .collect();
        assert_eq!(cells[0], pairs, "pairs: {section}");
        assert_eq!(cells[1], llr, "the result block's LLR: {section}");
        assert_eq!((cells[2], cells[3]), ("-2.94", "2.94"), "{section}");
        assert!(cells[4].starts_with("H1 accepted"), "{section}");
        let points = section
            .split("points=\"")
            .nth(1)
            .expect("the LLR's course")
            .split('"')
            .next()
            .unwrap();
        assert_eq!(
            points.split(' ').count().to_string(),
            pairs,
            "a point per pair: {section}"
        );
    }
}
