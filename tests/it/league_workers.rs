//! League workers on other machines (issue 38): the real binary as a league server on a loopback
//! port with no local workers, and real `arbiter league work` processes that lease its games over
//! HTTP, fetch the bots by hash, build and play them, and send the results; one of them killed
//! with SIGKILL in the middle of a game. Waits are bounded (a deadline ends a hung test with what
//! it saw), nothing is timed; the lease is made short in the league's own settings file
//! (`[matchmaking] lease_s`), as an owner would.

use crate::common::league::{
    arbiter, games_of, json, new_session, played_by, recorded, serve, token, wait_for,
    wait_for_within, Proc, DEADLINE,
};
use crate::common::{self, first_bot, greedy_bot, random_bot};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Starts `arbiter league work` for `url` with its cache in `cache`; what it says goes to
/// `CACHE.log` (appended), which [`said`] reads back for a failure's message.
fn work(url: &str, token: &str, cache: &Path) -> Proc {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(cache.with_extension("log"))
        .unwrap();
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
            .stderr(log)
            .spawn()
            .unwrap(),
    )
}

/// The last lines each worker started with [`work`] in `dir` said, for a failure's message.
fn said(dir: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "log") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(20)..].join("\n  ");
            out += &format!("\n{} said:\n  {tail}", path.display());
        }
    }
    out
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
    let default = format!("lease_s = {}", arbiter::league::scheduler::DEFAULT_LEASE_S);
    assert!(settings.contains(&default), "{settings}");
    std::fs::write(
        dir.join("league.toml"),
        settings.replace(&default, "lease_s = 4"),
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
                format!("{games}{}", said(tmp.path())),
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
            (ok.then(|| s.clone()), format!("{s}{}", said(tmp.path())))
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
fn a_workers_game_moves_on_within_a_minute_of_its_kill_with_the_default_lease() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    // Slow bots (40 ms a turn after the first): a game lasts seconds, so worker one is killed
    // in the middle of one. The league keeps its default lease.
    let bots = [
        format!("slow={}", common::hostile("late 40")),
        format!("slower={}", common::hostile("late 40")),
    ];
    let (_server, url) = serve(&dir, &bots);
    let (t1, t2) = (token(&dir, "one"), token(&dir, "two"));
    let mut one = work(&url, &t1, &tmp.path().join("cache-one"));
    let running: u64 = wait_for("worker one in the middle of a game", || {
        let games = json(&url, "/api/games");
        let mine = games["running"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["worker"].as_str().is_some_and(|w| w.starts_with("one#")))
            .map(|g| g["game_id"].as_u64().unwrap());
        (mine, games.to_string())
    });
    // Worker two joins (and is busy with games of its own); worker one dies with its game.
    let _two = work(&url, &t2, &tmp.path().join("cache-two"));
    one.0.kill().unwrap();
    one.0.wait().unwrap();
    let killed = Instant::now();
    assert!(
        !recorded(&dir).contains(&running),
        "game {running} ended before worker one was killed (a game lasts seconds)"
    );
    wait_for_within(
        Duration::from_secs(60),
        "the killed worker's game played by worker two within a minute",
        || {
            let done = recorded(&dir).contains(&running);
            (done.then_some(()), json(&url, "/api/games").to_string())
        },
    );
    let after = killed.elapsed();
    assert!(
        played_by(&url, "two") >= 1,
        "{}",
        json(&url, "/api/workers")
    );
    let ids = recorded(&dir);
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "no game recorded twice: {ids:?}");
    eprintln!("game {running} of the killed worker was recorded {after:?} after the kill");
}

/// A worker that cannot ready a game's bots (here its cache cannot take them: its `bots`
/// folder leads into /proc, where nothing can be made, even by root) gives the game back at
/// once and says why, and another worker plays it. Kept, the game would be renewed with the
/// worker's other leases and held for ever, and the worker's slot with it.
#[test]
fn a_game_a_worker_cannot_ready_goes_back_to_the_league_and_another_plays_it() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[random_bot(), greedy_bot()]);
    let (t1, t2) = (token(&dir, "one"), token(&dir, "two"));
    let cache1 = tmp.path().join("cache-one");
    std::fs::create_dir_all(&cache1).unwrap();
    std::os::unix::fs::symlink("/proc/1", cache1.join("bots")).unwrap();
    let _one = work(&url, &t1, &cache1);
    let log1 = cache1.with_extension("log");
    let first = wait_for("worker one to say it cannot play a game", || {
        let text = std::fs::read_to_string(&log1).unwrap_or_default();
        let id = text.lines().find_map(|l| {
            let rest = l.strip_prefix("arbiter: cannot play game ")?;
            let digits = rest.find(|c: char| !c.is_ascii_digit())?;
            rest[..digits].parse::<u64>().ok()
        });
        (
            id,
            format!("{}{}", json(&url, "/api/games"), said(tmp.path())),
        )
    });
    let _two = work(&url, &t2, &tmp.path().join("cache-two"));
    wait_for_within(
        Duration::from_secs(60),
        "the game worker one gave back played by worker two, and the games before it",
        || {
            let done = recorded(&dir);
            let ok = (0..=first.max(3)).all(|id| done.contains(&id));
            (
                ok.then_some(()),
                format!("recorded {done:?}{}", said(tmp.path())),
            )
        },
    );
    assert_eq!(played_by(&url, "one"), 0, "{}", json(&url, "/api/workers"));
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

/// A GET with a worker token: the status and the body's bytes.
fn get_bytes(url: &str, path: &str, token: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, answer[end + 4..].to_vec())
}

#[test]
fn a_bot_archive_holds_only_the_bots_own_files_and_goes_only_to_a_lease_holder() {
    use crate::common::league::lease_one;
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[random_bot(), first_bot()]);
    // A bot's folder, a file in it that only its owner reads, and a root-only file outside.
    let w = tmp.path().join("w");
    std::fs::create_dir(&w).unwrap();
    std::fs::copy(
        common::root().join("bots/python-starter/bot.py"),
        w.join("okbot.py"),
    )
    .unwrap();
    let private = |path: &Path| {
        std::fs::write(path, "the secret\n").unwrap();
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
    };
    private(&w.join("private.txt"));
    private(&tmp.path().join("secret"));
    let folder = w.join("linked");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(w.join("okbot.py"), folder.join("bot.py")).unwrap();
    std::fs::write(folder.join("bot.toml"), "run = \"python3 bot.py\"\n").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret"), folder.join("key")).unwrap();
    let add = |bot: &str| {
        arbiter()
            .args(["league", "add"])
            .arg(&dir)
            .arg(bot)
            .current_dir(&w)
            .output()
            .unwrap()
    };
    let secret = tmp.path().join("secret");
    let refused: [(String, &str); 4] = [
        ("sec=python3 okbot.py ../secret".into(), "../secret"),
        (
            format!("sec2=python3 okbot.py {}", secret.display()),
            "secret",
        ),
        ("sec3=python3 okbot.py private.txt".into(), "private.txt"),
        ("linked".into(), "key"),
    ];
    for (bot, file) in &refused {
        let out = add(bot);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{bot} refused: {said}");
        assert!(
            said.contains(file) && (said.contains("outside") || said.contains("read")),
            "{bot}: says which file and why: {said}"
        );
    }
    let out = add("ok=python3 okbot.py");
    assert!(out.status.success(), "{out:?}");

    // An archive goes only to a session holding a lease of a game of its bot.
    let (a, b) = (token(&dir, "lab-a"), token(&dir, "lab-b"));
    let sa = new_session(&url, &a);
    let sb = new_session(&url, &b);
    // A session id (NAME#N) in a query.
    let (qa, qb) = (sa.replace('#', "%23"), sb.replace('#', "%23"));
    let leased = lease_one(&url, &a, &sa);
    let hash = leased["bots"][0]["hash"].as_str().unwrap().to_string();
    for (t, path) in [
        (&b, format!("/api/work/bot/{hash}?session={qb}")),
        (&b, format!("/api/work/bot/{hash}")),
        (&a, format!("/api/work/bot/{hash}")),
    ] {
        let (status, body) = get_bytes(&url, &path, t);
        assert_eq!(status, 403, "{path}: {}", String::from_utf8_lossy(&body));
    }
    let (status, bytes) = get_bytes(&url, &format!("/api/work/bot/{hash}?session={qa}"), &a);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    // A gzip'd tar of the bot's own file.
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    let names: Vec<String> = archive
        .entries()
        .unwrap()
        .map(|e| e.unwrap().path().unwrap().to_string_lossy().into_owned())
        .collect();
    let bot = leased["game"]["bots"][0].as_str().unwrap();
    assert!(
        names.iter().any(|n| n.ends_with(bot)) && names.iter().all(|n| n.starts_with("bot")),
        "{names:?}"
    );
}
