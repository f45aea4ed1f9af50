//! Forged results against a real league server (issue 45): a client speaking today's worker
//! protocol over a real socket, with a valid worker token, sends results no honest worker sends
//! (a forfeit of a seat the game does not have, ranks of the wrong length, a year of turns,
//! megabytes of stderr, ...) and results for games leased to another worker. Each is refused
//! naming the field or the lease, nothing of it is written, and the league records on. A
//! recording that fails (a file size limit on the server, as a full disk would) stops results
//! with 503 and says so; a bad row in games.csv is set aside at the next start, which goes on.
//! Waits are bounded; nothing is timed.

use crate::common::league::{
    call, fabricated, get, json, lease, lease_one, new_session, recorded, simulated, token,
    wait_for, Proc,
};
use crate::common::{self, first_bot, random_bot};
use serde_json::{json, Value};
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `league serve DIR BOT... --local-workers 0`.
fn serve(dir: &Path, bots: &[String]) -> (Proc, String) {
    let (child, url) =
        common::league_serve_with(dir, bots, &["--local-workers", "0", "--seed", "5"]);
    (Proc(child), url)
}

/// The result for `game`, leased to `session`, with `change` made to it; its status and body.
fn send(
    url: &str,
    t: &str,
    session: &str,
    game: &Value,
    change: impl Fn(&mut Value),
) -> (u16, String) {
    let mut r = fabricated(session, game, 1);
    change(&mut r);
    call(url, t, "/api/work/result", &r.to_string())
}

#[test]
fn a_forged_result_is_refused_naming_its_field_and_the_league_records_on() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (server, url) = serve(&dir, &[random_bot(), first_bot()]);
    let t = token(&dir, "forger");
    let session = new_session(&url, &t);
    let leased = lease_one(&url, &t, &session);
    let game = &leased["game"];
    let id = game["game_id"].as_u64().unwrap();

    // Every field checked against the game it leased: a 2-seat Impasse game of at most its
    // turn limit. Each forged result is refused with 400 naming the field.
    let big = "x".repeat(1 << 20);
    #[allow(clippy::type_complexity)]
    let forged: Vec<(&str, Box<dyn Fn(&mut Value)>)> = vec![
        (
            "forfeits",
            Box::new(|r| {
                r["result"]["forfeits"] =
                    json!([{"seat": 7, "reason": "crash", "detail": "x", "turn": 1}])
            }),
        ),
        ("ranks", Box::new(|r| r["result"]["ranks"] = json!([0]))),
        ("ranks", Box::new(|r| r["result"]["ranks"] = json!([0, 7]))),
        ("winner", Box::new(|r| r["result"]["winner"] = json!(5))),
        ("offender", Box::new(|r| r["result"]["offender"] = json!(3))),
        (
            "reason",
            Box::new(|r| r["result"]["reason"] = json!("draw")),
        ),
        ("turns", Box::new(|r| r["result"]["turns"] = json!(100_000))),
        (
            "stats",
            Box::new(|r| r["result"]["stats"] = json!([r["result"]["stats"][0].clone()])),
        ),
        (
            "stats",
            Box::new(|r| r["result"]["stats"][0]["waited_total_us"] = json!(u64::MAX)),
        ),
        ("scores", Box::new(|r| r["result"]["scores"] = json!([0]))),
        (
            "moves",
            Box::new(|r| r["result"]["moves"] = json!(vec!["a1b2"; 1000])),
        ),
        ("detail", Box::new(|r| r["result"]["detail"] = json!(big))),
        (
            "stderr_tails",
            Box::new(|r| r["stderr_tails"] = json!([big, ""])),
        ),
        (
            "log",
            Box::new(|r| {
                r["log"] = json!([{"turn": 1, "seat": 9, "input": "", "answer": "a1b2",
                    "comment": "", "played": "a1b2", "time_us": 1, "cpu_us": 1,
                    "waited_us": 0, "late": false, "extra_lines": 0, "stderr": ""}])
            }),
        ),
        ("duration", Box::new(|r| r["duration_us"] = json!(u64::MAX))),
    ];
    for (field, change) in &forged {
        let (status, body) = send(&url, &t, &session, game, change);
        assert_eq!(status, 400, "{field}: {body}");
        assert!(
            body.contains(&format!("game {id}")) && body.contains(field),
            "the refusal names the game and the field {field}: {body}"
        );
    }
    assert!(!recorded(&dir).contains(&id), "nothing forged recorded");

    // The game is still the forger's to send: an honest result for it is recorded.
    let (status, body) = send(&url, &t, &session, game, |_| {});
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["accepted"],
        true
    );
    wait_for("the honest result recorded", || {
        let ids = recorded(&dir);
        (ids.contains(&id).then_some(()), format!("{ids:?}"))
    });

    // The league records on (the recorder did not stop), and a restart reads every row back.
    let honest = token(&dir, "honest");
    let h = new_session(&url, &honest);
    for n in 2..5 {
        let g = lease_one(&url, &honest, &h);
        let (status, body) = call(
            &url,
            &honest,
            "/api/work/result",
            &fabricated(&h, &g["game"], n).to_string(),
        );
        assert_eq!(status, 200, "{body}");
    }
    wait_for("four games recorded", || {
        let ids = recorded(&dir);
        ((ids.len() >= 4).then_some(()), format!("{ids:?}"))
    });
    server.kill9();
    let (_server, url) = serve(&dir, &[]);
    let s = json(&url, "/api/standings");
    assert!(s["games"].as_u64() <= Some(4), "{s}");
}

#[test]
fn a_result_for_a_game_leased_to_another_worker_is_refused() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[random_bot(), first_bot()]);
    let (a, b) = (token(&dir, "lab-a"), token(&dir, "lab-b"));
    let sa = new_session(&url, &a);
    let sb = new_session(&url, &b);
    let leased = lease_one(&url, &a, &sa);
    let game = &leased["game"];
    let id = game["game_id"].as_u64().unwrap();
    // Game ids are public (`/api/games`): another worker's session sends a result for it.
    let (_, games) = get(&url, "/api/games");
    assert!(games.contains(&format!("\"game_id\":{id}")), "{games}");
    let (status, body) = send(&url, &b, &sb, game, |_| {});
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains(&format!("game {id}")) && body.contains("leased to another worker"),
        "{body}"
    );
    // So does a second session of the holder's own token: only the session holding the lease
    // is heard.
    let sa2 = new_session(&url, &a);
    let (status, body) = send(&url, &a, &sa2, game, |_| {});
    let reply: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    assert!(
        status == 403 || (status == 200 && reply["accepted"] == false),
        "{status} {body}"
    );
    assert!(!recorded(&dir).contains(&id));
    // The holder's own result is the one recorded.
    let (status, body) = send(&url, &a, &sa, game, |_| {});
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["accepted"],
        true
    );
    wait_for("the holder's result recorded", || {
        let ids = recorded(&dir);
        (ids.contains(&id).then_some(()), format!("{ids:?}"))
    });
    assert_eq!(
        lease(&url, &b, &sb, 0).0,
        200,
        "the other worker is not refused for it"
    );
}

/// `league serve DIR BOT... --local-workers 0` with every file it writes capped at `bytes` (as
/// a full disk would stop it), its stderr in `log`.
fn serve_capped(dir: &Path, bots: &[String], bytes: u64, log: &Path) -> (Proc, String) {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command
        .current_dir(common::root())
        .args(["league", "serve"])
        .arg(dir)
        .args(bots)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--game",
            "impasse",
            "--local-workers",
            "0",
        ])
        .args(["--first-turn-ms", "5000", "--seed", "5"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap());
    // SAFETY: setrlimit and signal are async-signal-safe; nothing is allocated.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // A write past the limit fails with EFBIG instead of killing the server.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let url = common::listening(&mut child);
    (Proc(child), url)
}

#[test]
fn a_recording_failure_stops_results_with_503_and_says_so() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let log = tmp.path().join("server.log");
    let (mut server, url) = serve_capped(&dir, &[random_bot(), first_bot()], 64 << 10, &log);
    let t = token(&dir, "lab");
    let session = new_session(&url, &t);
    // Results until the records cannot grow: then every result is refused with 503, saying
    // why, and the server stays up to say so.
    let mut n = 0;
    let (status, why) = wait_for("a result refused with 503", || {
        n += 1;
        let (status, body) = lease(&url, &t, &session, 2000);
        if status != 200 {
            return (Some((status, body.clone())), body);
        }
        let leased: Value = serde_json::from_str(&body).unwrap();
        let Some(g) = leased["games"].as_array().unwrap().first().cloned() else {
            return (None, body);
        };
        let (status, body) = call(
            &url,
            &t,
            "/api/work/result",
            &fabricated(&session, &g["game"], n).to_string(),
        );
        ((status != 200).then(|| (status, body.clone())), body)
    });
    assert_eq!(status, 503, "{why}");
    assert!(
        why.contains("recording") && why.contains("records.jsonl"),
        "says why: {why}"
    );
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "the server stays up"
    );
    let (status, again) = lease(&url, &t, &session, 0);
    assert_eq!(
        status, 503,
        "no game is leased that cannot be recorded: {again}"
    );
    let (status, page) = get(&url, "/");
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"recording\"") && page.contains("records.jsonl"),
        "the page says so: {page}"
    );
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        said.contains("records.jsonl") && said.contains("no result is accepted"),
        "stderr says so: {said}"
    );
    // Started again without the limit, the league goes on.
    drop(server);
    let (_server, url) = serve(&dir, &[]);
    let before = recorded(&dir).len();
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (url, t, stop) = (url.clone(), t.clone(), stop.clone());
        std::thread::spawn(move || simulated(&url, &t, 1.0, &stop, fabricated))
    };
    wait_for("games recorded after the restart", || {
        let now = recorded(&dir).len();
        (
            (now >= before + 3).then_some(()),
            format!("{before} -> {now}"),
        )
    });
    stop.store(true, Ordering::Relaxed);
    assert!(worker.join().unwrap().refused.is_none());
}

#[test]
fn a_bad_row_of_games_csv_is_set_aside_and_the_league_starts() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (server, url) = serve(&dir, &[random_bot(), first_bot()]);
    let t = token(&dir, "lab");
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (url, t, stop) = (url.clone(), t.clone(), stop.clone());
        std::thread::spawn(move || simulated(&url, &t, 1.0, &stop, fabricated))
    };
    wait_for("three games recorded", || {
        let ids = recorded(&dir);
        ((ids.len() >= 3).then_some(()), format!("{ids:?}"))
    });
    stop.store(true, Ordering::Relaxed);
    worker.join().unwrap();
    server.kill9();

    // Two rows no reader takes: a forfeit of seat 7 in a 2-seat game (what a forged result
    // left before) and a line that is no row at all.
    let path = dir.join("games.csv");
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let header = reader.headers().unwrap().clone();
    let last = reader.records().last().unwrap().unwrap();
    let mut forged: Vec<String> = last.iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    forged[col("game_id")] = "999999".into();
    forged[col("forfeits")] = "7:crash".into();
    let mut text = std::fs::read_to_string(&path).unwrap();
    let good = recorded(&dir);
    text += &(forged.join(",") + "\n");
    text += "not,a,games,row\n";
    std::fs::write(&path, text).unwrap();

    let log = tmp.path().join("server.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(common::root())
        .args(["league", "serve"])
        .arg(&dir)
        .args(["--listen", "127.0.0.1:0", "--local-workers", "0"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _server = Proc(child);
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        line.contains("listening on"),
        "the league starts: {line}{said}"
    );
    let aside = dir.join("games-set-aside.jsonl");
    assert!(
        said.contains("set aside") && said.contains(aside.to_str().unwrap()),
        "says what it set aside, and where: {said}"
    );
    let kept = std::fs::read_to_string(&aside).unwrap();
    let rows: Vec<Value> = kept
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{kept}");
    assert!(
        rows[0]["why"].as_str().unwrap().contains("forfeits")
            && rows[0]["text"].as_str().unwrap().contains("7:crash")
            && rows[1]["text"]
                .as_str()
                .unwrap()
                .contains("not,a,games,row")
            && rows.iter().all(|r| r["row"].as_u64().is_some()),
        "each with its row, text and why: {kept}"
    );
    assert_eq!(recorded(&dir), good, "games.csv keeps its good rows only");
}
