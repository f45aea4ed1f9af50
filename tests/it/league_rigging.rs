//! Workers that rig the ratings (issue 45), against a real league server on a loopback port:
//! clients speaking today's worker protocol with valid tokens, three honest and one hostile. A
//! worker that makes one bot win in whichever seat it sits is quarantined and all its games
//! leave the ratings; one that voids its games (a "starved" timeout for each: a re-roll) is
//! quarantined, and the games it voided go to the other workers; one token's sessions are
//! capped, each session's games by its cores, and the bench gate's median counts a token once.
//! Waits are bounded; nothing is timed.

use crate::common::league::{
    call, json, recorded, register, start_simulated, strict_league, token, wait_for, Simulated,
};
use crate::common::{self, random_bot};
use std::path::Path;

/// Waits until every one of `hostile` was refused and each of the `honest` workers (token
/// names) had `games` results checked; fails if an honest one is refused.
fn wait_refused(
    url: &str,
    hostile: &[std::thread::JoinHandle<Simulated>],
    honest: &[std::thread::JoinHandle<Simulated>],
    names: &[&str],
    games: u64,
) {
    wait_for(
        "the hostile worker refused, the honest ones checked",
        || {
            let w = json(url, "/api/workers");
            let played = |name: &str| -> u64 {
                w["workers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|l| l["name"] == name)
                    .map(|l| l["games"].as_u64().unwrap())
                    .sum()
            };
            assert!(
                !honest.iter().any(|h| h.is_finished()),
                "an honest worker was refused: {w}"
            );
            let done =
                hostile.iter().all(|h| h.is_finished()) && names.iter().all(|n| played(n) >= games);
            (done.then_some(()), w.to_string())
        },
    );
}

/// The quarantine log's entries.
fn quarantine_log(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("quarantined.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_worker_favouring_one_bot_in_any_seat_is_quarantined_and_its_games_leave_the_ratings() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let bots = [random_bot(), common::first_bot(), common::greedy_bot()];
    let (_server, url) = strict_league(&dir, &bots);
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    crate::common::league::wait_playing(&url, 3);
    let stop = Arc::new(AtomicBool::new(false));
    let names = ["honest-1", "honest-2", "honest-3"];
    let honest: Vec<_> = names
        .iter()
        .map(|n| start_simulated(&url, &token(&dir, n), own, &stop, |_, _| {}))
        .collect();
    // It says that bot won every game it played, in whichever seat: seat 0 wins no more than
    // it should.
    let hostile = start_simulated(&url, &token(&dir, "hostile"), own, &stop, |r, game| {
        let bots = game["bots"].as_array().unwrap();
        if let Some(seat) = bots.iter().position(|b| b == "arbiter-bot-first") {
            r["result"]["winner"] = seat.into();
            r["result"]["ranks"] = (0..bots.len()).map(|s| u8::from(s != seat)).collect();
            r["result"]["reason"] = "win".into();
        }
    });
    let hostile = [hostile];
    wait_refused(&url, &hostile, &honest, &names, 40);
    stop.store(true, Ordering::Relaxed);
    let [hostile] = hostile;
    let hostile = hostile.join().unwrap();
    for h in honest {
        let h = h.join().unwrap();
        assert!(h.refused.is_none(), "{:?}", h.refused);
    }
    let (status, why) = hostile.refused.clone().unwrap();
    assert_eq!(status, 403, "{why}");
    assert!(
        why.contains("worker \"hostile\" is quarantined") && why.contains("arbiter-bot-first"),
        "names the bot it favoured: {why}"
    );
    let log = quarantine_log(&dir);
    assert_eq!(log.len(), 1, "only the hostile worker: {log:?}");
    let out: std::collections::HashSet<u64> = log[0]["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_u64().unwrap())
        .collect();
    let sent: std::collections::HashSet<u64> = hostile.accepted.iter().copied().collect();
    assert_eq!(out, sent, "all its games leave the ratings: {log:?}");
}

#[test]
fn a_worker_that_voids_its_losses_is_quarantined_and_a_voided_game_goes_to_another_worker() {
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = strict_league(&dir, &[random_bot(), common::first_bot()]);
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    crate::common::league::wait_playing(&url, 2);
    let stop = Arc::new(AtomicBool::new(false));
    let names = ["honest-1", "honest-2", "honest-3"];
    let honest: Vec<_> = names
        .iter()
        .map(|n| start_simulated(&url, &token(&dir, n), own, &stop, |_, _| {}))
        .collect();
    // Every game it plays, seat 0 "timed out after waiting for a CPU": voided, played again,
    // a re-roll. Several sessions of one token, each paused after a void.
    let reroll = |r: &mut serde_json::Value, _: &serde_json::Value| {
        let res = &mut r["result"];
        res["reason"] = "timeout".into();
        res["winner"] = 1.into();
        res["ranks"] = serde_json::json!([1, 0]);
        res["offender"] = 0.into();
        res["detail"] = "no answer".into();
        res["forfeits"] = serde_json::json!([
            {"seat": 0, "reason": "timeout", "detail": "no answer", "turn": 3}
        ]);
        res["stats"][0]["starved_turns"] = 1.into();
        res["stats"][0]["waited_total_us"] = 500_000.into();
        res["stats"][0]["waited_max_us"] = 200_000.into();
    };
    let t = token(&dir, "reroller");
    let rerollers: Vec<_> = (0..6)
        .map(|_| start_simulated(&url, &t, own, &stop, reroll))
        .collect();
    wait_refused(&url, &rerollers, &honest, &names, 30);
    stop.store(true, Ordering::Relaxed);
    let rerollers: Vec<Simulated> = rerollers.into_iter().map(|h| h.join().unwrap()).collect();
    for h in honest {
        let h = h.join().unwrap();
        assert!(h.refused.is_none(), "{:?}", h.refused);
    }
    for r in &rerollers {
        let (status, why) = r.refused.clone().unwrap();
        assert_eq!(status, 403, "{why}");
        assert!(
            why.contains("worker \"reroller\" is quarantined") && why.contains("voided"),
            "{why}"
        );
    }
    // No game went back to it once it voided it.
    let mut seen = HashSet::new();
    for id in rerollers.iter().flat_map(|r| &r.leased) {
        assert!(seen.insert(*id), "game {id} leased to the reroller twice");
    }
    let voided: Vec<u64> = rerollers.iter().flat_map(|r| r.voided.clone()).collect();
    assert!(voided.len() >= 5, "{voided:?}");
    // Its voided games go to the other workers.
    wait_for("a game the reroller voided recorded", || {
        let ids = recorded(&dir);
        (
            voided.iter().find(|id| ids.contains(id)).copied(),
            format!("{ids:?}"),
        )
    });
    let played = std::fs::read_to_string(dir.join("played-by.jsonl")).unwrap();
    for p in played
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
    {
        if voided.contains(&p["game_id"].as_u64().unwrap()) {
            assert!(p["worker"].as_str().unwrap().starts_with("honest-"), "{p}");
        }
    }
    let log = quarantine_log(&dir);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["worker"], "reroller", "{log:?}");
}

#[test]
fn registrations_cannot_buy_capacity_or_move_the_bench_gate() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = strict_league(&dir, &[random_bot(), common::first_bot()]);
    let own = json(&url, "/api/workers")["bench_ms"].as_f64().unwrap();
    // One token registers as many sessions as it may, each with a made-up quick bench and a
    // million games at once on 4 cores.
    let swarm = token(&dir, "swarm");
    let body = crate::common::league::registration(0.1, 4, 1_000_000);
    for k in 0..64 {
        let (status, answer) = call(&url, &swarm, "/api/work/register", &body);
        assert_eq!(status, 200, "session {k}: {answer}");
    }
    let (status, why) = call(&url, &swarm, "/api/work/register", &body);
    assert_eq!(status, 429, "{why}");
    assert!(
        why.contains("64") && why.contains("sessions_per_token") && why.contains("league.toml"),
        "names the cap and where it is set: {why}"
    );
    let workers = json(&url, "/api/workers");
    let capacity = workers["capacity"].as_u64().unwrap();
    assert!(
        capacity <= 64 * 4,
        "each session counts its cores at most: {capacity}"
    );
    // The bench gate's median counts that token once: an honest worker as fast as the server
    // is not too slow.
    let honest = register(&url, &token(&dir, "honest"), own, 1);
    assert!(honest.get("note").is_none(), "{honest}");
}
