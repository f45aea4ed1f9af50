//! League workers on other machines (issue 38): the real binary as a league server on a loopback
//! port with no local workers, and real `arbiter league work` processes that lease its games over
//! HTTP, fetch the bots by hash, build and play them, and send the results; one of them killed
//! with SIGKILL in the middle of a game. Waits are bounded (a deadline ends a hung test with what
//! it saw), nothing is timed; the lease is made short in the league's own settings file
//! (`[matchmaking] lease_s`), as an owner would.

use crate::common::league::{
    arbiter, games_of, json, played_by, recorded, serve, token, wait_for, Proc, DEADLINE,
};
use crate::common::{self, first_bot, greedy_bot, random_bot};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn work(url: &str, token: &str, cache: &Path) -> Proc {
    Proc(
        arbiter()
            .args([
                "league",
                "work",
                url,
                "--token",
                token,
                "--concurrency",
                "1",
                "--cache",
            ])
            .arg(cache)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

#[test]
fn two_remote_workers_fill_a_league_and_a_killed_one_loses_and_duplicates_nothing() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let bots = [random_bot(), greedy_bot(), first_bot()];
    // A first start makes the league's folder; its lease is then made short (4 s) in its
    // settings, and the league started again, as an owner would.
    let (server, _) = serve(&dir, &bots);
    drop(server);
    let settings = std::fs::read_to_string(dir.join("league.toml")).unwrap();
    assert!(settings.contains("lease_s = 600"), "{settings}");
    std::fs::write(
        dir.join("league.toml"),
        settings.replace("lease_s = 600", "lease_s = 4"),
    )
    .unwrap();
    let (_server, url) = serve(&dir, &[]);
    let (t1, t2) = (token(&dir, "one"), token(&dir, "two"));
    let cache1 = tmp.path().join("cache-one");
    let _two = work(&url, &t2, &tmp.path().join("cache-two"));

    // Worker one has played a game and is in the middle of another: its bots (run from its
    // cache) are running. Then it is killed with SIGKILL. The bundled bots' games are short: a
    // game seen running can end before the kill lands; then worker one starts again (its
    // token and cache kept) and is killed in a later game, a few tries at most.
    let marker = format!("{}/bots/", cache1.display());
    let mut victim = None;
    for _ in 0..5 {
        let mut one = work(&url, &t1, &cache1);
        let seen = played_by(&url, "one");
        let running: u64 = wait_for("worker one in the middle of its next game", || {
            let games = json(&url, "/api/games");
            let mine = games["running"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["worker"].as_str().is_some_and(|w| w.starts_with("one#")))
                .map(|g| g["game_id"].as_u64().unwrap());
            let ready =
                played_by(&url, "one") > seen && !common::processes_with(&marker).is_empty();
            let done = recorded(&dir);
            (
                mine.filter(|id| ready && !done.contains(id)),
                games.to_string(),
            )
        });
        one.0.kill().unwrap();
        one.0.wait().unwrap();
        if !recorded(&dir).contains(&running) {
            victim = Some(running);
            break;
        }
    }
    let victim = victim.expect("worker one was killed in the middle of a game in 5 tries");

    // Its lease runs out, worker two plays that game, and the league fills: every pair plays
    // its floor of games (two each), so each bot plays at least four.
    let standings = wait_for(
        "the killed worker's game played again and the league filled",
        || {
            let s = json(&url, "/api/standings");
            let full = [
                "arbiter-bot-random",
                "arbiter-bot-greedy",
                "arbiter-bot-first",
            ]
            .iter()
            .all(|b| games_of(&s, b) >= 4);
            let ok = full && recorded(&dir).contains(&victim);
            (ok.then(|| s.clone()), s.to_string())
        },
    );
    assert!(
        played_by(&url, "two") >= 1,
        "{}",
        json(&url, "/api/workers")
    );
    let ids = recorded(&dir);
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "no game recorded twice: {ids:?}");
    assert!(
        ids.len() as u64 >= standings["games"].as_u64().unwrap(),
        "{ids:?} {standings}"
    );
}

#[test]
fn a_wrong_or_revoked_token_or_another_version_is_told_why() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[]);
    let cache = tmp.path().join("cache");
    let refused = |token: &str| {
        let mut child = arbiter()
            .args(["league", "work", &url, "--token", token, "--cache"])
            .arg(&cache)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A worker let in would work for ever: it is ended after a bounded wait.
        let began = Instant::now();
        while child.try_wait().unwrap().is_none() && began.elapsed() < DEADLINE {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(3), "refused at once: {out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused("not-a-token");
    assert!(
        err.contains("refused this worker") && err.contains("knows no such worker token"),
        "{err}"
    );
    assert!(
        err.contains("arbiter league token DIR NAME"),
        "says what to do: {err}"
    );

    let t = token(&dir, "lab-1");
    let out = arbiter()
        .args(["league", "token", "--revoke"])
        .arg(&dir)
        .arg("lab-1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = refused(&t);
    assert!(err.contains("worker \"lab-1\" was revoked"), "{err}");

    // Another version is refused with both versions named (spoken to as a worker would).
    let t = token(&dir, "lab-2");
    let addr = url.trim_start_matches("http://");
    let body = r#"{"version":"0.0.0-old","host":"h","cores":1,"memory_mb":1,"sandbox":true,"bench_ms":1.0,"concurrency":1}"#;
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /api/work/register HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: \
         Bearer {t}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(
        answer.contains("the worker arbiter 0.0.0-old") && answer.contains("install arbiter"),
        "{answer}"
    );
}
