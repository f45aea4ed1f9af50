//! A league server that anyone on the network can reach cannot be exhausted (issue 45, item 4):
//! the real server on a loopback port, attacked with raw sockets as a stranger would (half-sent
//! requests held open, event streams past the cap, 60 MiB bodies without a token, replays of
//! games that do not exist, a tar whose long name asks for 1 GiB). Its memory is read from
//! /proc (peak resident set, bytes read); waits are bounded, nothing is timed.

use crate::common::league::{
    events, get, next_event_named, raw, recorded, serve, standings, token, wait_for,
    wait_for_within, Proc, Server,
};
use crate::common::{self, greedy_bot, random_bot, read_csv};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A field of /proc/PID/status, in KiB (VmRSS, VmHWM).
fn status_kib(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{field} in {text}"))
}

/// Bytes process `pid` read so far (its `rchar`: files and sockets).
fn bytes_read(pid: u32) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("rchar in {text}"))
}

/// Raises this test process's own soft limit of open files to its hard one (the attacks below
/// hold over a thousand sockets).
fn raise_own_files() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let now = getrlimit(Resource::Nofile);
    let _ = setrlimit(
        Resource::Nofile,
        Rlimit {
            current: now.maximum,
            maximum: now.maximum,
        },
    );
}

/// The answer's status to `request` sent on a new connection to `addr`, waiting at most
/// `within` (0: no answer by then).
fn status_within(addr: &str, request: &[u8], within: Duration) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(within)).unwrap();
    s.write_all(request).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = s.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// `league serve DIR BOTS --local-workers 2` under a hard limit of `files` open files (as a
/// server started from a shell of the usual 1,024) and a soft one of 256, its stderr to `log`.
fn serve_under(files: u64, dir: &Path, log: &Path) -> Server {
    let mut child = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "ulimit -Sn 256 && ulimit -Hn {files} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_arbiter"))
        .args(["league", "serve"])
        .arg(dir)
        .args([random_bot(), greedy_bot()])
        .args([
            "--listen",
            "127.0.0.1:0",
            "--game",
            "impasse",
            "--seed",
            "6",
        ])
        .args(["--local-workers", "2", "--turn-ms", "5000"])
        .args(["--first-turn-ms", "10000"])
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let url = common::listening(&mut child);
    Server {
        proc: Proc(child),
        url,
    }
}

/// No game of the league's games.csv is a `referee-error`.
fn no_referee_error(dir: &Path) {
    if !dir.join("games.csv").exists() {
        return;
    }
    for r in read_csv(&dir.join("games.csv")) {
        assert_ne!(
            r["reason"], "referee-error",
            "game {}: {}",
            r["game_id"], r["detail"]
        );
    }
}

#[test]
fn half_sent_requests_are_closed_within_seconds_and_the_standings_answer_through_1100() {
    raise_own_files();
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let log = tmp.path().join("server.err");
    let server = serve_under(1024, &dir, &log);
    let addr = server.addr();
    let pid = server.proc.0.id();
    wait_for("the first games", || {
        let n = recorded(&dir).len();
        ((n >= 2).then_some(()), format!("{n} games"))
    });
    // 1,100 requests of which only a part of the header is sent, held open.
    let mut held = Vec::new();
    for _ in 0..1100 {
        match TcpStream::connect(&addr) {
            Ok(mut s) => {
                let _ = s.write_all(b"GET /api/standings HTTP/1.1\r\nHost: x\r\n");
                held.push(s);
            }
            Err(e) => panic!("connection {}: {e}", held.len()),
        }
    }
    // The standings still answer, each at once (a server out of descriptors answers none).
    for k in 0..20 {
        let (status, text) = status_within(
            &addr,
            b"GET /api/standings HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            Duration::from_secs(20),
        );
        assert_eq!(
            status, 200,
            "standings {k} under 1,100 half-sent requests: {text}"
        );
    }
    // Every half-sent request is closed by the server within seconds (its header timeout is
    // 10 s; this waits at most 60).
    let began = Instant::now();
    for (k, s) in held.iter_mut().enumerate() {
        let left = Duration::from_secs(60).saturating_sub(began.elapsed());
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        let mut buf = [0u8; 1024];
        match s.read(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!(
                "half-sent request {k} still open after {:?}: {e}",
                began.elapsed()
            ),
        }
    }
    // The local workers had descriptors for their games all along.
    let before = recorded(&dir).len();
    wait_for("more games", || {
        let n = recorded(&dir).len();
        ((n >= before + 2).then_some(()), format!("{n} games"))
    });
    no_referee_error(&dir);
    standings(&server.url);
    // The server raised its soft limit (256) to the hard one (1,024) at start.
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let files = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    assert_eq!(
        files.split_whitespace().collect::<Vec<_>>()[3..5],
        ["1024", "1024"],
        "{files}"
    );
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        said.contains("takes at most") && said.contains("connections at once"),
        "{said}"
    );
}

#[test]
fn event_streams_past_the_cap_are_refused_and_a_place_comes_back() {
    raise_own_files();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[random_bot(), greedy_bot()]);
    let mut streams = Vec::new();
    for _ in 0..256 {
        let mut s = events(&url);
        next_event_named(&mut s, "hello");
        streams.push(s);
    }
    let (status, text) = status_within(
        url.trim_start_matches("http://"),
        b"GET /api/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        Duration::from_secs(20),
    );
    assert_eq!(status, 503, "the 257th event stream: {text}");
    assert!(text.contains("max_event_streams"), "{text}");
    // The other pages still answer.
    standings(&url);
    // A stream that ends gives its place back (noticed when the server next writes to it).
    drop(streams.pop());
    wait_for_within(Duration::from_secs(60), "a place for a stream", || {
        let mut s = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut head = [0u8; 12];
        let n = s.read(&mut head).unwrap_or(0);
        let line = String::from_utf8_lossy(&head[..n]).into_owned();
        (line.contains(" 200").then_some(()), line)
    });
}

#[test]
fn a_strangers_60_mib_body_is_refused_before_it_is_sent_and_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let (server, url) = serve(&dir, &[random_bot(), greedy_bot()]);
    let addr = url.trim_start_matches("http://").to_string();
    let pid = server.0.id();
    let worker = token(&dir, "w");
    let big = 60u64 << 20;
    let head = |path: &str, auth: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}\
             Content-Type: application/json\r\nContent-Length: {big}\r\n\r\n"
        )
    };
    // The refusal comes before any of the body is sent.
    for (path, auth, want) in [
        ("/api/work/register", String::new(), 401),
        ("/api/work/result", String::new(), 401),
        (
            "/api/work/register",
            "Authorization: Bearer nope\r\n".into(),
            401,
        ),
        (
            "/api/work/lease",
            format!("Authorization: Bearer {worker}\r\n"),
            413,
        ),
        (
            "/api/work/register",
            format!("Authorization: Bearer {worker}\r\n"),
            413,
        ),
        ("/api/bots", String::new(), 401),
    ] {
        let request = head(path, &auth);
        let (status, text) = status_within(&addr, request.as_bytes(), Duration::from_secs(20));
        assert_eq!(status, want, "{path} with {auth:?}: {text}");
    }
    // Ten strangers that send their 60 MiB whole: none of it is read into memory.
    let peak = status_kib(pid, "VmHWM");
    let threads: Vec<_> = (0..10)
        .map(|_| {
            let (addr, request) = (
                addr.clone(),
                head("/api/work/register", "Authorization: Bearer nope\r\n"),
            );
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                s.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
                let _ = s.write_all(request.as_bytes());
                let chunk = vec![b' '; 1 << 20];
                for _ in 0..60 {
                    if s.write_all(&chunk).is_err() {
                        break;
                    }
                }
                let mut answer = String::new();
                s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                let _ = s.read_to_string(&mut answer);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let grew = status_kib(pid, "VmHWM").saturating_sub(peak);
    assert!(
        grew < 100 << 10,
        "the server's peak memory grew by {} MiB for bodies it refused",
        grew >> 10
    );
    standings(&url);
}

#[test]
fn a_replay_of_an_unknown_game_reads_one_record_at_most() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    // Seed 5: the restart below (`serve`) starts it with its own settings.
    let server = Server::start(&dir, 2, &[random_bot(), greedy_bot()], 5);
    wait_for("games with records", || {
        let n = recorded(&dir).len();
        ((n >= 2).then_some(()), format!("{n} games"))
    });
    server.kill9();
    // A league with many records: copies of one, under ids of their own.
    let records = dir.join("records.jsonl");
    let text = std::fs::read_to_string(&records).unwrap();
    let one = text.lines().next().unwrap();
    let id: serde_json::Value = serde_json::from_str(one).unwrap();
    let id = id["game_id"].as_u64().unwrap();
    let mut more = std::fs::OpenOptions::new()
        .append(true)
        .open(&records)
        .unwrap();
    for k in 0..4000u64 {
        let copy = one.replacen(
            &format!("\"game_id\":{id},"),
            &format!("\"game_id\":{},", 1_000_000 + k),
            1,
        );
        assert_ne!(copy, one, "the copy has an id of its own");
        writeln!(more, "{copy}").unwrap();
    }
    drop(more);
    let size = std::fs::metadata(&records).unwrap().len();
    assert!(size > 4 << 20, "records.jsonl of {size} bytes");
    let (server, url) = serve(&dir, &[]);
    let pid = server.0.id();
    // A page of a recorded game reads its record.
    let (status, page) = get(&url, "/replay/1001234");
    assert_eq!(status, 200, "{page}");
    // What a start does in the background (each bot checked again, its files hashed) is over
    // before the count starts: the server reads nothing for half a second.
    let mut last = bytes_read(pid);
    wait_for("the server's start to read nothing more", || {
        std::thread::sleep(Duration::from_millis(500));
        let now = bytes_read(pid);
        let quiet = now == last;
        last = now;
        (quiet.then_some(()), format!("{now} bytes read"))
    });
    let before = bytes_read(pid);
    for k in 0..50 {
        let (status, text) = get(&url, &format!("/replay/{}", 5_000_000 + k));
        assert_eq!(status, 404, "{text}");
    }
    let (status, _) = get(&url, "/replay/1000007");
    assert_eq!(status, 200);
    let read = bytes_read(pid) - before;
    assert!(
        read < size / 4,
        "51 replay pages read {read} bytes of a {size}-byte records.jsonl"
    );
}

/// A gzip'd tar whose first header is a GNU long name of `size` bytes (zeros, which deflate
/// compresses about a thousandfold at its best).
fn long_name_bomb(size: u64) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut h = tar::Header::new_gnu();
    h.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"././@LongLink");
    h.set_entry_type(tar::EntryType::GNULongName);
    h.set_mode(0o644);
    h.set_size(size);
    h.set_cksum();
    gz.write_all(h.as_bytes()).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..size >> 20 {
        gz.write_all(&zeros).unwrap();
    }
    gz.finish().unwrap()
}

#[test]
fn a_tar_whose_long_name_asks_for_1_gib_is_refused_and_memory_stays_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    let (server, url) = serve(&dir, &[random_bot(), greedy_bot()]);
    let pid = server.0.id();
    let admin = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let bomb = long_name_bomb(1 << 30);
    assert!(bomb.len() < 2 << 20, "{} bytes", bomb.len());
    let peak = status_kib(pid, "VmHWM");
    let mut request = format!(
        "POST /api/bots/bomb HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Authorization: Bearer {}\r\nContent-Length: {}\r\n\r\n",
        admin.trim(),
        bomb.len()
    )
    .into_bytes();
    request.extend_from_slice(&bomb);
    let (status, text) = raw(url.trim_start_matches("http://"), &request);
    let grew = status_kib(pid, "VmHWM").saturating_sub(peak);
    assert!(
        grew < 100 << 10,
        "the server's peak memory grew by {} MiB for a 1 GiB long name ({status}: {text})",
        grew >> 10
    );
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains("GNU long name") && text.contains("1073741824"),
        "{text}"
    );
    assert!(!dir.join("uploads/bomb/1").exists(), "nothing of it kept");
    standings(&url);
}
