//! Results a league can trust from machines it does not own (issue 38), with the real binary: a
//! league server on a loopback port and a real `arbiter league work` process pinned to one CPU
//! that busy loops also hold (an overloaded machine, as the fair clock's tests make one). Its
//! bot's time losses there are voided with their evidence and the same games played again by
//! another worker, each recorded once. A worker that reports made-up results (seat 0 wins
//! every game; a client speaking the worker protocol, beside three honest ones) is quarantined:
//! logged, refused with the reason, its games out of the standings, the page says so. Waits are
//! bounded; nothing is timed.

use crate::clock::{a_cpu, Busy};
use crate::common::league::{
    call, counts, fabricated, http, json, recorded, register, simulated, start_simulated,
    strict_league, token, wait_for, Proc, Simulated, DEADLINE,
};
use crate::common::{self, hostile, random_bot};
use std::path::Path;
use std::process::{Command, Stdio};

/// A worker (one game at a time) with every process it starts pinned to `cpu`; its token is
/// in a file (not on its command line, where `ps` shows it).
fn work_on(cpu: usize, url: &str, token: &str, cache: &Path) -> Proc {
    std::fs::create_dir_all(cache).unwrap();
    let file = cache.join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    Proc(
        Command::new("taskset")
            .args(["-c", &cpu.to_string()])
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(["league", "work", url, "--token-file"])
            .arg(&file)
            .args(["--concurrency", "1", "--cache"])
            .arg(cache)
            .current_dir(common::root())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("taskset (util-linux) is needed to pin a worker: {e}")),
    )
}

#[test]
fn a_time_loss_on_a_starved_worker_is_voided_with_its_evidence_and_played_again_once() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    // 160 ms of computing from its second turn on: a timeout on a 100 ms turn anywhere, but on
    // a CPU shared with four busy loops most of its wall time is waiting for that CPU.
    let burner = format!("burner={}", hostile("cpu-burn 2 160"));
    let (server, url) = strict_league(&dir, &[burner, random_bot()]);
    let t = token(&dir, "busy");
    let cpu = a_cpu();
    let _worker = work_on(cpu, &url, &t, &tmp.path().join("cache"));
    // The load comes once it has registered (a machine busy at registration shows it in its
    // bench figure and gets no timed games: the other test).
    wait_for("the worker registered", || {
        let w = json(&url, "/api/workers");
        let n = w["workers"].as_array().unwrap().len();
        ((n > 0).then_some(()), w.to_string())
    });
    let busy = Busy::on(cpu, 4);

    let voided = wait_for("a game voided on the starved worker", || {
        let w = json(&url, "/api/workers");
        (
            w["voided"].as_array().unwrap().first().cloned(),
            w.to_string(),
        )
    });
    let id = voided["game_id"].as_u64().unwrap();
    assert!(
        !recorded(&dir).contains(&id),
        "a voided game is not recorded: {voided}"
    );
    assert!(
        voided["worker"].as_str().unwrap().starts_with("busy#")
            && voided["reason"] == "timeout"
            && voided["starved_turns"].as_u64() > Some(0)
            && voided["waited_max_us"].as_u64() > Some(100_000)
            && voided["bots"]
                .as_array()
                .unwrap()
                .contains(&"burner".into()),
        "the evidence: {voided}"
    );
    let log = std::fs::read_to_string(dir.join("voided.jsonl")).unwrap();
    assert!(
        log.contains(&format!("\"game_id\":{id},")),
        "kept in the folder: {log}"
    );
    let workers = json(&url, "/api/workers");
    assert!(
        workers["workers"][0]["voided"].as_u64() > Some(0),
        "{workers}"
    );

    // The load goes. The same game goes first to another worker, not back to the one that
    // voided it (a void is no re-roll): a second worker, started now, plays it (a client of
    // the worker protocol that never voids, whatever the machine's load); recorded once,
    // whatever it came to.
    drop(busy);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    let calm = start_simulated(&url, &token(&dir, "calm"), own, &stop, |_, _| {});
    wait_for("the voided game played again and recorded", || {
        let ids = recorded(&dir);
        (ids.contains(&id).then_some(()), format!("{ids:?}"))
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(calm.join().unwrap().refused.is_none());
    let ids = recorded(&dir);
    assert_eq!(
        ids.iter().filter(|&&g| g == id).count(),
        1,
        "recorded once: {ids:?}"
    );
    let played = std::fs::read_to_string(dir.join("played-by.jsonl")).unwrap();
    let by = played
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|p| p["game_id"] == id)
        .unwrap_or_else(|| panic!("game {id} in played-by.jsonl: {played}"));
    assert_eq!(by["worker"], "calm", "played by the other worker: {played}");

    // The page shows the worker and the voided game (in Chromium, as the league page test).
    let Some(browser) = common::chromium() else {
        return;
    };
    // The browser keeps the page (and its event stream) open until the server goes away: games
    // that end (or are voided) while it is open, then the server stops.
    let page = std::thread::spawn({
        let url = url.clone();
        move || common::load(&browser, &format!("{url}/"))
    });
    let done = |url: &str| {
        let v = json(url, "/api/workers")["voided"]
            .as_array()
            .unwrap()
            .len();
        recorded(&dir).len() + v
    };
    // (As the league page test does: several games, each a few seconds with the worker's
    // pauses after a void, give the browser time to load the page and fetch what it shows.)
    // On a machine too loaded for six, whatever ended by the deadline (at least two).
    let before = done(&url);
    let began = std::time::Instant::now();
    while done(&url) < before + 6 && began.elapsed() < DEADLINE {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    wait_for("two more games ended while the page is open", || {
        let n = done(&url);
        ((n >= before + 2).then_some(()), format!("{before} -> {n}"))
    });
    drop(server);
    let (dom, console) = page.join().unwrap();
    let workers = dom.split("id=\"workers\"").nth(1).unwrap_or_default();
    assert!(
        workers.contains("data-session=\"busy#1\"") && workers.contains("s ago"),
        "the worker's row: {dom}\n{console:?}"
    );
    assert!(
        dom.contains(&format!("class=\"voided\" data-game=\"{id}\"")),
        "the voided game: {dom}"
    );
}

#[test]
fn a_far_slower_worker_gets_no_games_and_remote_slots_count_in_the_capacity() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = strict_league(&dir, &[random_bot(), common::first_bot()]);
    let t = token(&dir, "lab");
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    assert!(own > 0.0, "the server's own bench figure: {own}");
    // A worker as fast as the server: no note. Its three slots count in the capacity (the
    // server has no local worker).
    let fast = register(&url, &t, own, 3);
    assert!(fast.get("note").is_none(), "{fast}");
    // One a hundred times slower than the league's median is told so and gets no game.
    let slow = register(&url, &t, own * 100.0, 2);
    let note = slow["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("gets no timed games") && note.contains("median"),
        "{slow}"
    );
    let lease = format!(
        r#"{{"session":"{}","slots":1,"wait_ms":0}}"#,
        slow["session"].as_str().unwrap()
    );
    // The bots are checked first: the fast worker gets a game once they are.
    wait_for("a game for the fast worker", || {
        let lease = format!(
            r#"{{"session":"{}","slots":1,"wait_ms":2000}}"#,
            fast["session"].as_str().unwrap()
        );
        let (status, answer) = call(&url, &t, "/api/work/lease", &lease);
        let games = serde_json::from_str::<serde_json::Value>(&answer).ok();
        let got =
            games.filter(|g| status == 200 && g["games"].as_array().is_some_and(|a| !a.is_empty()));
        (got.map(|_| ()), answer)
    });
    let (status, answer) = call(&url, &t, "/api/work/lease", &lease);
    assert_eq!(status, 200, "{answer}");
    let leased: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(leased["games"], serde_json::json!([]), "{leased}");
    let workers = json(&url, "/api/workers");
    let line = workers["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["session"] == slow["session"])
        .cloned()
        .unwrap();
    assert!(
        line["idle"]
            .as_str()
            .is_some_and(|i| i.contains("no timed games")),
        "{workers}"
    );
    // The fast worker's 3 slots; the slow one's give no capacity.
    assert_eq!(workers["capacity"], 3, "{workers}");

    // A token file that holds no token, or that others can read, is refused before any call,
    // saying what to do.
    let refused = |text: &str, mode: u32| {
        let file = tmp.path().join("bad-token");
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["league", "work", &url, "--token-file"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused("\n", 0o600);
    assert!(
        err.contains("holds no token") && err.contains("arbiter league token"),
        "{err}"
    );
    let err = refused(&format!("{t}\n"), 0o644);
    assert!(
        err.contains("can be read by others") && err.contains("chmod 600"),
        "{err}"
    );
}

#[test]
fn a_worker_whose_seat_0_always_wins_is_quarantined_refused_and_its_games_leave_the_standings() {
    use std::collections::{BTreeMap, HashSet};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (server, url) = strict_league(&dir, &[random_bot(), common::first_bot()]);
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    // The bots are checked before any game is leased.
    wait_for("both bots playing", || {
        let s = json(&url, "/api/standings");
        let playing = s["bots"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["status"] == "playing")
            .count();
        ((playing == 2).then_some(()), s.to_string())
    });

    // Three honest workers and a hostile one, each with its own valid token.
    let stop = Arc::new(AtomicBool::new(false));
    let start = |name: &str, hostile: bool| {
        let (t, url, stop) = (token(&dir, name), url.clone(), stop.clone());
        std::thread::spawn(move || {
            simulated(&url, &t, own, &stop, |session, game, n| {
                let mut result = fabricated(session, game, n);
                if hostile {
                    let seats = game["bots"].as_array().unwrap().len();
                    result["result"]["winner"] = 0.into();
                    result["result"]["ranks"] = (0..seats).map(|s| u8::from(s != 0)).collect();
                    result["result"]["reason"] = "win".into();
                }
                result
            })
        })
    };
    let honest: Vec<_> = ["honest-1", "honest-2", "honest-3"]
        .iter()
        .map(|n| start(n, false))
        .collect();
    let hostile = start("hostile", true);
    // The check needs 30 games of a worker and three such workers: the hostile one is refused
    // once found out, and the honest ones play on until each has been checked on 40 games.
    let played = |url: &str| -> BTreeMap<String, u64> {
        json(url, "/api/workers")["workers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                (
                    w["name"].as_str().unwrap().to_string(),
                    w["games"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    wait_for(
        "the hostile worker refused, 40 games on each honest one",
        || {
            let n = played(&url);
            let honest_done = (1..=3).all(|k| n.get(&format!("honest-{k}")) >= Some(&40));
            let failed = honest.iter().any(|h| h.is_finished());
            assert!(!failed, "an honest worker was refused: {n:?}");
            (
                (hostile.is_finished() && honest_done).then_some(()),
                format!("{n:?} {}", json(&url, "/api/workers")["quarantined"]),
            )
        },
    );
    stop.store(true, Ordering::Relaxed);
    let hostile = hostile.join().unwrap();
    let honest: Vec<Simulated> = honest.into_iter().map(|h| h.join().unwrap()).collect();
    for h in &honest {
        assert!(h.refused.is_none(), "{:?}", h.refused);
    }

    // Its next request after the check was refused, saying why; so is a new registration.
    let (status, why) = hostile.refused.clone().unwrap();
    assert_eq!(status, 403, "{why}");
    assert!(
        why.contains("worker \"hostile\" is quarantined")
            && why.contains("its results are off the league's fit")
            && why.contains("give it a new token"),
        "{why}"
    );
    let t = token(&dir, "hostile");
    let (status, again) = call(
        &url,
        &t,
        "/api/work/register",
        &format!(
            r#"{{"version":"{}","host":"h","cores":4,"memory_mb":1024,"sandbox":true,"bench_ms":{own},"concurrency":1}}"#,
            env!("CARGO_PKG_VERSION")
        ),
    );
    assert!(
        status == 403 && again.contains("is quarantined"),
        "{status} {again}"
    );

    // The log names it, why, and its games: every game it sent, none of another's.
    let log = std::fs::read_to_string(dir.join("quarantined.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "only the hostile worker: {log}");
    let q = &lines[0];
    assert_eq!(q["worker"], "hostile", "{log}");
    assert!(
        q["why"].as_str().unwrap().contains("seat 0 scored"),
        "{log}"
    );
    let out: HashSet<u64> = q["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_u64().unwrap())
        .collect();
    let sent: HashSet<u64> = hostile.accepted.iter().copied().collect();
    assert!(sent.len() >= 30, "{sent:?}");
    assert_eq!(out, sent, "its games: {log}");

    // The honest workers are not quarantined, and were checked on 40 games or more each.
    let workers = json(&url, "/api/workers");
    assert_eq!(
        workers["quarantined"].as_array().unwrap().len(),
        1,
        "{workers}"
    );
    for line in workers["workers"].as_array().unwrap() {
        let idle = line["idle"].as_str().unwrap_or_default();
        if line["session"] == hostile.session.as_str() {
            assert!(idle.contains("is quarantined"), "{workers}");
        } else {
            assert!(line["idle"].is_null(), "{workers}");
            assert!(line["games"].as_u64() >= Some(40), "{workers}");
        }
    }
    assert!(honest.iter().all(|h| h.accepted.len() >= 40));

    // A token revoked while its worker plays is refused at its next request (the server keeps
    // the tokens file read, and reads it again when it changes).
    let lease = |h: &Simulated| {
        let ask = format!(r#"{{"session":"{}","slots":1,"wait_ms":0}}"#, h.session);
        call(&url, &h.token, "/api/work/lease", &ask)
    };
    let (status, answer) = lease(&honest[0]);
    assert_eq!(status, 200, "{answer}");
    let revoked = crate::common::league::arbiter()
        .args(["league", "token", "--revoke"])
        .arg(&dir)
        .arg("honest-1")
        .output()
        .unwrap();
    assert!(revoked.status.success(), "{revoked:?}");
    let (status, answer) = lease(&honest[0]);
    assert!(
        status == 403 && answer.contains("worker \"honest-1\" was revoked"),
        "{status} {answer}"
    );
    assert_eq!(lease(&honest[1]).0, 200);

    // Its games stay in the records and leave the standings: once the last results are
    // counted, the standings hold every recorded game but its, per bot and in all.
    let ids = recorded(&dir);
    assert!(
        sent.iter().all(|id| ids.contains(id)),
        "its games are kept in the records"
    );
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    let mut want_all = 0;
    for row in common::read_csv(&dir.join("games.csv")) {
        if !out.contains(&row["game_id"].parse().unwrap()) {
            want_all += 1;
            for seat in ["bot0", "bot1"] {
                *want.entry(row[seat].clone()).or_default() += 1;
            }
        }
    }
    assert!(want_all < ids.len() as u64);
    wait_for("the standings without the hostile worker's games", || {
        let (all, per_bot) = counts(&url);
        (
            (all == want_all && per_bot == want).then_some(()),
            format!(
                "{all} {per_bot:?}; want {want_all} {want:?} ({} recorded)",
                ids.len()
            ),
        )
    });

    // The page says so (in its markup: its script draws the same list again from
    // /api/workers).
    let (status, page) = http(&url, "GET", "/", "");
    assert_eq!(status, 200, "{page}");
    let note = page.split("id=\"quarantined\"").nth(1).unwrap_or_default();
    assert!(
        note.contains("<li class=\"quarantined\">hostile since")
            && note.contains(&format!("({} games): its results are off", out.len())),
        "the page's note: {page}"
    );
    drop(server);
}
