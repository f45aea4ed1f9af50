//! `arbiter tournament` and `arbiter ratings` end to end, with real bots and the real binary.

use crate::common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

#[test]
fn a_two_bot_tournament_writes_every_file_and_the_match_block() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let run = arbiter()
        .args([
            "tournament",
            "--games",
            "6",
            "--seed",
            "11",
            "--turn-ms",
            "1000",
            "--opening-plies",
            "4",
            "--out",
        ])
        .arg(&out)
        .arg(greedy_bot())
        .arg(random_bot())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for f in [
        "games.csv",
        "ratings.csv",
        "crosstable.csv",
        "los.csv",
        "ratings.json",
        "tournament.toml",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 6);
    for col in [
        "game_id", "pair_id", "seed", "opening", "bot0", "bot1", "winner", "reason", "turns",
        "score0", "score1", "max_ms0", "max_ms1", "mean_ms0", "mean_ms1",
    ] {
        assert!(rows[0].contains_key(col), "no column {col}");
    }
    // Rows are written as games finish; group them by pair.
    let mut pairs: HashMap<String, Vec<&HashMap<String, String>>> = HashMap::new();
    for r in &rows {
        pairs.entry(r["pair_id"].clone()).or_default().push(r);
    }
    assert_eq!(pairs.len(), 3);
    for pair in pairs.values() {
        assert_eq!(pair.len(), 2);
        let (a, b) = (pair[0], pair[1]);
        assert_eq!(a["pair_id"], b["pair_id"]);
        assert_eq!(a["seed"], b["seed"]);
        assert_eq!(a["opening"], b["opening"]);
        assert_eq!(a["opening"].split(' ').count(), 4);
        assert_eq!(a["bot0"], b["bot1"]);
    }
    assert!(
        stdout.contains("Rank") && stdout.contains("95% interval"),
        "{stdout}"
    );
    assert!(stdout.contains("Ptnml(0-2): ["), "{stdout}");
    assert!(
        stdout.contains("nElo:") && stdout.contains("LOS:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("Results: {}", out.display())),
        "{stdout}"
    );
    let ratings = read_csv(&out.join("ratings.csv"));
    assert_eq!(ratings.len(), 2);
    let games: u32 = ratings
        .iter()
        .map(|r| r["games"].parse::<u32>().unwrap())
        .sum();
    assert_eq!(games, 12);
}

/// The CPUs the `cpus` bot could use in each game of a 2-game tournament run with `extra`.
fn bot_cpus(extra: &[&str]) -> Vec<Vec<usize>> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    arbiter()
        .args([
            "tournament",
            "--games",
            "2",
            "--opening-plies",
            "0",
            "--max-turns",
            "4",
            "--replays",
            "--out",
        ])
        .arg(&out)
        .args(extra)
        .args([hostile("cpus"), first_bot()])
        .assert()
        .success();
    (0..2)
        .map(|g| {
            let replay = out.join("replays").join(format!("game-{g}.jsonl"));
            // A replay file keeps the input of every turn (records do not).
            let turns: Vec<Value> = crate::common::replay(&replay)
                .into_iter()
                .filter(|l| l["type"] == "turn")
                .collect();
            assert!(!turns.is_empty());
            for t in &turns {
                let input = t["input"].as_str().unwrap_or_default();
                assert!(input.lines().count() > 8, "turn input kept: {t}");
            }
            let seat = replay_seat_of(&replay, "hostile");
            let tail = stderr_tail(&replay, seat);
            let line = tail.lines().find_map(|l| l.strip_prefix("CPUS ")).unwrap();
            line.split(',').map(|c| c.parse().unwrap()).collect()
        })
        .collect()
}

/// The seat `name` plays in a replay.
fn replay_seat_of(replay: &Path, name: &str) -> usize {
    let start = &crate::common::replay(replay)[0];
    let bots = start["bots"].as_array().unwrap();
    bots.iter().position(|b| b.as_str() == Some(name)).unwrap()
}

/// The CPUs this test process may run on.
fn our_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap();
    (0..4096).filter(|&c| cpu_in_list(list, c)).collect()
}

#[test]
fn games_run_on_one_cpu_each_unless_told_otherwise() {
    let ours = our_cpus();
    // Pinned (the default on an idle machine, where the games fit the CPUs and idle bots are
    // frozen; asked for here, since the tests keep the machine busy): each game on one CPU.
    for cpus in bot_cpus(&["--concurrency", "1", "--pin-cpus"]) {
        assert_eq!(cpus.len(), 1, "{cpus:?}");
        assert!(ours.contains(&cpus[0]), "{cpus:?} not in {ours:?}");
    }
    // Not pinned: told so, or with pondering allowed (two thinking bots would share one CPU).
    for extra in [&["--pin-cpus=never"][..], &["--allow-pondering"]] {
        for cpus in bot_cpus(extra) {
            assert_eq!(cpus, ours, "{extra:?}");
        }
    }
}

/// Each thread of process `pid`: its name and the CPUs it may run on.
fn threads_cpus(pid: u32, ours: &[usize]) -> Vec<(u32, String, Vec<usize>)> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let tid: u32 = e.file_name().to_str()?.parse().ok()?;
            let name = std::fs::read_to_string(e.path().join("comm")).ok()?;
            let status = std::fs::read_to_string(e.path().join("status")).ok()?;
            let list = status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?
                .to_string();
            let cpus = ours.iter().copied().filter(|&c| cpu_in_list(&list, c));
            Some((tid, name.trim().to_string(), cpus.collect()))
        })
        .collect()
}

#[test]
fn arbiters_own_threads_leave_the_cpu_of_a_pinned_game() {
    let ours = our_cpus();
    if ours.len() < 2 {
        crate::common::skip(format!(
            "this test needs 2 CPUs (a game's and a spare one); this machine lets it use {ours:?}"
        ));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Two games of bots that take 0.3 s a turn: time to look at the threads while they play.
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "tournament",
            "--games",
            "2",
            "--concurrency",
            "1",
            "--pin-cpus",
        ])
        .args([
            "--opening-plies",
            "0",
            "--max-turns",
            "8",
            "--turn-ms",
            "3000",
            "--out",
        ])
        .arg(dir.path().join("t"))
        .args([
            format!("a={}", hostile("late 300")),
            format!("b={}", hostile("late 300")),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = run.id();
    // (main thread seen away from the game's CPU, live report writer seen away from it)
    let (mut main_away, mut writer_away) = (0, 0);
    while run.try_wait().unwrap().is_none() {
        let threads = threads_cpus(pid, &ours);
        // The game's CPU, once its worker has pinned itself.
        let game = threads
            .iter()
            .find(|(_, name, cpus)| name.starts_with("game-worker") && cpus.len() == 1)
            .map(|(_, _, cpus)| cpus[0]);
        if let Some(game) = game {
            for (tid, name, cpus) in &threads {
                let own = *tid == pid || name == "report-writer";
                if !own {
                    continue;
                }
                assert!(
                    !cpus.contains(&game),
                    "{name} (thread {tid}) may run on CPU {game}, the game's: {cpus:?}"
                );
                if *tid == pid {
                    main_away += 1;
                } else {
                    writer_away += 1;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(run.wait().unwrap().success());
    assert!(
        main_away > 0 && writer_away > 0,
        "not seen while a game ran: the main thread {main_away} times, the report writer {writer_away} times"
    );
}

/// Whether `cpu` is in a list such as "0-3,6".
fn cpu_in_list(list: &str, cpu: usize) -> bool {
    list.trim()
        .split(',')
        .any(|part| match part.split_once('-') {
            Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).contains(&cpu),
            None => part.parse() == Ok(cpu),
        })
}

#[test]
fn a_gauntlet_plays_only_the_first_bot_against_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    arbiter()
        .args([
            "tournament",
            "--format",
            "gauntlet",
            "--games",
            "2",
            "--turn-ms",
            "1000",
            "--out",
        ])
        .arg(&out)
        .args([greedy_bot(), random_bot(), first_bot()])
        .assert()
        .success();
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 4);
    assert!(rows
        .iter()
        .all(|r| r["bot0"] == "arbiter-bot-greedy" || r["bot1"] == "arbiter-bot-greedy"));
}

#[test]
fn a_bot_whose_build_fails_is_left_out_and_the_rest_play() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(
        bad.join("bot.toml"),
        "name = \"bad\"\nrun = \"./bot\"\nbuild = \"sh -c 'exit 7'\"\n",
    )
    .unwrap();
    let out = dir.path().join("t");
    let stopped = arbiter()
        .args(["tournament", "--games", "2", "--turn-ms", "1000", "--out"])
        .arg(&out)
        .arg(&bad)
        .args([random_bot(), first_bot()])
        .output()
        .unwrap();
    assert_eq!(
        stopped.status.code(),
        Some(3),
        "a broken bot stops the run by default"
    );
    let run = arbiter()
        .args([
            "tournament",
            "--games",
            "2",
            "--turn-ms",
            "1000",
            "--skip-broken-bots",
            "--out",
        ])
        .arg(&out)
        .arg(&bad)
        .args([random_bot(), first_bot()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("bot 'bad' cannot play") && err.contains("failed"),
        "{err}"
    );
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r["bot0"] != "bad" && r["bot1"] != "bad"));
}

#[test]
fn duplicate_names_and_odd_game_counts_are_clear_errors() {
    let run = arbiter()
        .args([
            "tournament",
            "--games",
            "2",
            "--out",
            "/tmp/arbiter-never-written",
        ])
        .args([random_bot(), random_bot()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&run.stderr).contains("must be unique"));
    let run = arbiter()
        .args(["tournament", "--games", "3"])
        .args([random_bot(), first_bot()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("--games must be a positive multiple of 2")
    );
}

#[test]
fn a_tournament_killed_with_sigkill_resumes_and_plays_every_game_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k");
    let args = |c: &mut std::process::Command| {
        c.current_dir(root())
            .args([
                "tournament",
                "--games",
                "120",
                "--seed",
                "5",
                "--concurrency",
                "2",
                "--out",
            ])
            .arg(&out)
            .args([random_bot(), first_bot(), greedy_bot()]);
    };
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    args(&mut cmd);
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some games are recorded.
    let csv = out.join("games.csv");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 20 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = read_csv(&csv).len();
    assert!(
        before < 360,
        "finished before the kill ({before} games); the test needs a longer run"
    );
    // A write cut by a kill leaves a torn last line; the resume must drop it.
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&csv)
        .unwrap()
        .write_all(b"99999,1,2,a1")
        .unwrap();

    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    args(&mut cmd);
    let done = cmd.output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(String::from_utf8_lossy(&done.stderr).contains("resuming"));
    let rows = read_csv(&csv);
    let mut ids: Vec<u64> = rows.iter().map(|r| r["game_id"].parse().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..360).collect::<Vec<u64>>());
}

#[test]
fn ratings_are_recomputed_from_a_hand_made_csv() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    // Two shards: alpha scores 3 of 4 against beta (2 wins, 2 draws).
    std::fs::write(&a, "bot0,bot1,winner\nalpha,beta,0\nbeta,alpha,\n").unwrap();
    std::fs::write(&b, "winner,bot1,bot0,reason\n1,alpha,beta,win\n,alpha,beta,turn-limit\n0,alpha,beta,referee-error\n").unwrap();
    let out = arbiter()
        .arg("ratings")
        .arg("--json")
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let v: Value = json_of(&out);
    let r = v["ratings"].as_array().unwrap();
    assert_eq!(r[0]["bot"], "alpha");
    assert_eq!(r[0]["games"], 4);
    assert_eq!(r[0]["points"], 3.0);
    assert_eq!(
        (
            r[0]["wins"].clone(),
            r[0]["draws"].clone(),
            r[0]["losses"].clone()
        ),
        (2.into(), 2.into(), 0.into())
    );
    // Two bots, score 0.75: the gap is 400 log10(3) = 190.85, centred on 0.
    let elo = r[0]["elo"].as_f64().unwrap();
    assert!((elo - 95.42).abs() < 0.01, "{elo}");
    assert!((r[1]["elo"].as_f64().unwrap() + 95.42).abs() < 0.01);
    assert!(r[0]["low"].as_f64().unwrap() < elo && r[0]["high"].as_f64().unwrap() > elo);
    let los = v["los"]["alpha"]["beta"].as_f64().unwrap();
    assert!(los > 0.5 && los < 1.0, "{los}");

    let anchored = arbiter()
        .args(["ratings", "--json", "--anchor", "beta=1000"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let v = json_of(&anchored);
    assert!(
        (v["ratings"][0]["elo"].as_f64().unwrap() - 1190.85).abs() < 0.01,
        "{v}"
    );
    assert_eq!(v["ratings"][1]["elo"], 1000.0);

    let table = arbiter().arg("ratings").arg(&a).output().unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("Cross-table") && text.contains("alpha"),
        "{text}"
    );
}

#[test]
fn a_bot_that_won_every_game_gets_a_finite_rating_above_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    std::fs::write(&a, "bot0,bot1,winner\na,b,0\nb,a,1\nb,c,0\nc,b,\nc,a,1\n").unwrap();
    let out = arbiter()
        .arg("ratings")
        .arg("--json")
        .arg(&a)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("NaN") && !text.contains("nan"), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["ratings"][0]["bot"], "a");
    assert_eq!(v["ratings"][0]["bound"], Value::Null, "{v}");
    assert!(v["ratings"][0]["high"].is_f64(), "{v}");
    assert!(
        v["ratings"][0]["elo"].as_f64() > v["ratings"][1]["elo"].as_f64(),
        "{v}"
    );
    let note = v["perfect_scores"].as_str().unwrap();
    assert!(note.starts_with("'a' won every game"), "{note}");
}

#[test]
fn a_second_run_on_a_busy_results_folder_stops_at_once_naming_the_owner() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("busy");
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args(["tournament", "--games", "400", "--seed", "2", "--out"])
        .arg(&out)
        .args([random_bot(), first_bot()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let csv = out.join("games.csv");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 2 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Held where it is (stopped, it keeps the folder's lock): on a busy machine its 400 short
    // games could all end before the second run starts.
    unsafe { libc::kill(first.id() as i32, libc::SIGSTOP) };
    // The same run, and a different bot list, on the same folder: both refused.
    for bots in [[random_bot(), first_bot()], [greedy_bot(), first_bot()]] {
        let second = arbiter()
            .args(["tournament", "--games", "400", "--seed", "2", "--out"])
            .arg(&out)
            .args(bots)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(3), "{err}");
        assert!(
            err.contains(&format!(
                "in use by another arbiter run (pid {})",
                first.id()
            )) || err.contains("already holds a different run"),
            "{err}"
        );
    }
    first.kill().unwrap(); // SIGKILL: the kernel releases the lock
    first.wait().unwrap();
    let resumed = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .args(["--concurrency", "2"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let rows = read_csv(&csv);
    let ids: std::collections::HashSet<&String> = rows.iter().map(|r| &r["game_id"]).collect();
    assert_eq!((rows.len(), ids.len()), (400, 400));
}

#[test]
fn by_default_games_start_from_the_arena_position_and_replayed_games_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("same");
    let run = arbiter()
        .args(["tournament", "--games", "6", "--seed", "1", "--out"])
        .arg(&out)
        // greedy with a fixed seed (its first argument) plays the same game every time.
        .args([format!("{} 7", greedy_bot()), first_bot()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = read_csv(&out.join("games.csv"));
    assert!(
        rows.iter().all(|r| r["opening"].is_empty()),
        "no opening plies by default"
    );
    // Two deterministic bots play the same two games three times each.
    assert!(
        stdout.contains("4 games repeat an earlier game move for move"),
        "{stdout}"
    );
    assert!(stdout.contains("--opening-plies"), "{stdout}");
}

#[test]
fn a_run_grows_on_purpose_without_replaying_a_finished_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    arbiter()
        .args(["tournament", "--games", "4", "--seed", "3", "--out"])
        .arg(&out)
        .args([random_bot(), first_bot()])
        .assert()
        .success();
    let before = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let refused = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .args(["--grow", "--games", "2"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("give a larger multiple of 2"));
    arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .args(["--grow", "--games", "6", "--add-bot", &greedy_bot()])
        .assert()
        .success();
    let after = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(
        after.starts_with(&before),
        "finished rows are kept as they were"
    );
    let rows = read_csv(&out.join("games.csv"));
    let ids: std::collections::HashSet<&String> = rows.iter().map(|r| &r["game_id"]).collect();
    // Three pairs of 6 games: the old pair's 4 games, plus 2 more, plus two new pairs.
    assert_eq!((rows.len(), ids.len()), (18, 18));
    let ratings = read_csv(&out.join("ratings.csv"));
    assert_eq!(ratings.len(), 3);
}

#[test]
fn a_results_folder_written_before_the_settings_moved_into_the_library_resumes_and_grows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("old");
    std::fs::create_dir(&out).unwrap();
    let fixture = root().join("tests/runs/before-settings-move");
    // Written by arbiter before this change, in its own checkout: only where its bots are differs.
    let toml = std::fs::read_to_string(fixture.join("tournament.toml"))
        .unwrap()
        .replace("\"/work/wt-split\"", &format!("{:?}", root()))
        .replace(
            "\"target/debug/arbiter-bot-random\"",
            &format!("{:?}", random_bot()),
        )
        .replace(
            "\"target/debug/arbiter-bot-first\"",
            &format!("{:?}", first_bot()),
        );
    std::fs::write(out.join("tournament.toml"), toml).unwrap();
    std::fs::copy(fixture.join("games.csv"), out.join("games.csv")).unwrap();
    let before = std::fs::read_to_string(out.join("games.csv")).unwrap();

    let resumed = arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.join("games.csv")).unwrap(),
        before,
        "every game was played already: {stderr}"
    );
    assert_eq!(read_csv(&out.join("ratings.csv")).len(), 2);

    arbiter()
        .args(["tournament", "--resume"])
        .arg(&out)
        .args(["--grow", "--games", "4"])
        .assert()
        .success();
    let rows = read_csv(&out.join("games.csv"));
    assert_eq!(rows.len(), 4);
    assert!(std::fs::read_to_string(out.join("games.csv"))
        .unwrap()
        .starts_with(&before));
}

#[test]
fn the_same_seed_gives_the_same_games_with_bots_that_seed_from_arbiter_seed() {
    // greedy (without its seed argument) and the Python starter draw between equal moves at
    // random, seeded from ARBITER_SEED: two runs with one --seed play the same games.
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        let run = arbiter()
            .args(["tournament", "--games", "4", "--seed", "11", "--out"])
            .arg(&out)
            .args([greedy_bot().as_str(), "bots/python-starter"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(!stdout.contains("repeat an earlier game"), "{stdout}");
        let mut games: Vec<(String, String)> = read_csv(&out.join("games.csv"))
            .into_iter()
            .map(|r| (r["game_id"].clone(), r["moves_hash"].clone()))
            .collect();
        games.sort();
        games
    };
    let first = run("a");
    assert_eq!(first.len(), 4);
    assert_eq!(first, run("b"), "the same --seed, other games");
}

#[test]
fn random_bots_seeded_from_arbiter_seed_replay_a_run_and_differ_between_seats() {
    // Two random bots of one program: each mixes ARBITER_SEED with its seat, so two runs with one
    // --seed play the same games, and another --seed other games.
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, seed: &str| {
        let out = dir.path().join(name);
        let run = arbiter()
            .args([
                "tournament",
                "--game",
                "attraktion",
                "--games",
                "4",
                "--seed",
                seed,
            ])
            .arg("--out")
            .arg(&out)
            .arg(format!("a={}", random_bot()))
            .arg(format!("b={}", random_bot()))
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let mut games: Vec<(String, String)> = read_csv(&out.join("games.csv"))
            .into_iter()
            .map(|r| (r["game_id"].clone(), r["moves_hash"].clone()))
            .collect();
        games.sort();
        games
    };
    let first = run("a", "11");
    assert_eq!(first.len(), 4);
    assert_eq!(first, run("b", "11"), "the same --seed, other games");
    assert_ne!(first, run("c", "12"), "another --seed, the same games");
}

/// Ctrl-C during a tournament ends it in order: the games finished before the signal are
/// recorded, the game under way (its bots killed by the stop) is not, the progress display
/// ends with its totals, then the stop is said with how to continue, and the exit status is
/// 128 + SIGINT.
#[test]
fn a_tournament_stopped_by_a_signal_keeps_its_finished_games_and_exits_128_plus_n() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stopped");
    // Each bot sleeps 1.5 s at its third turn: a game lasts over 3 s, so the second game is
    // under way when the first one's row appears.
    let (a, b) = (
        format!("a={}", hostile("sleep 3 1500")),
        format!("b={}", hostile("sleep 3 1500")),
    );
    let referee = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args([
            "tournament",
            "--games",
            "4",
            "--seed",
            "3",
            "--concurrency",
            "1",
        ])
        .args(["--turn-ms", "60000", "--first-turn-ms", "60000", "--out"])
        .arg(&out)
        .args([&a, &b])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let csv = out.join("games.csv");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 2 {
        assert!(std::time::Instant::now() < deadline, "no game was recorded");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(referee.id() as i32, libc::SIGINT) };
    let end = referee.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&end.stderr);
    assert_eq!(end.status.code(), Some(128 + libc::SIGINT), "{err}");
    let rows = read_csv(&csv);
    assert_eq!(
        rows.len(),
        1,
        "only the game finished before the signal: {rows:?}\n{err}"
    );
    let reason = &rows[0]["reason"];
    assert!(
        !["crash", "timeout", "invalid-move"].contains(&reason.as_str()),
        "the game recorded is one the bots played out: {rows:?}"
    );
    let stop = err
        .find("arbiter: stopped by signal 2; every bot was killed; finished games are saved")
        .unwrap_or_else(|| panic!("{err}"));
    let hint = format!(
        "arbiter: continue with: arbiter tournament --resume {}",
        out.display()
    );
    assert!(err[stop..].contains(&hint), "{err}");
    // The run ended in order, not by an exit from the signal's thread: its display finished.
    let totals = err.find(" games in ").unwrap_or_else(|| panic!("{err}"));
    assert!(totals < stop, "{err}");
}
