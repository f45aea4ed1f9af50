//! Bots uploaded to a league over HTTP with its admin token (`arbiter league add URL BOT --token
//! T`, `POST /api/bots/NAME`): the real server on a loopback port, the real command line, real
//! Python bots built and played by the server; hostile archives sent as raw requests. Waits are
//! bounded, nothing is timed.

use crate::common::league::{raw, standings, Proc, DEADLINE};
use crate::common::{self, random_bot};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn post(url: &str, path: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut request = head.into_bytes();
    request.extend_from_slice(body);
    raw(url.trim_start_matches("http://"), &request)
}

fn bot<'a>(s: &'a Value, name: &str) -> Option<&'a Value> {
    s["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
}

fn wait_for_games(url: &str, name: &str, games: u64) {
    let began = Instant::now();
    loop {
        let s = standings(url);
        if bot(&s, name).is_some_and(|b| b["games"].as_u64().unwrap() >= games) {
            return;
        }
        assert!(
            began.elapsed() < DEADLINE,
            "waited for {name} to play {games} games: {s:#}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A gzip'd tar of raw entries (name, kind, link target, data): names and links written into
/// the header as given (the tar crate's own setters refuse `..`).
fn archive(entries: &[(&str, tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for (name, kind, link, data) in entries {
        let mut h = tar::Header::new_old();
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
        h.set_entry_type(*kind);
        h.set_mode(0o644);
        h.set_size(data.len() as u64);
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// Every file and link under `dir` (links not followed).
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let kind = e.file_type().unwrap();
        if kind.is_dir() {
            out.extend(all_files(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

fn add(url: &str, bot: &str, token: &str) -> std::process::Output {
    common::arbiter()
        .args(["league", "add", url, bot, "--token", token])
        .output()
        .unwrap()
}

#[test]
fn uploaded_bots_play_and_hostile_oversize_or_unauthorised_uploads_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("league");
    // A first start makes the league's folder; its upload cap is then made 1 MiB in its
    // settings, as an owner would, and the league started again.
    let (first, _) = common::league_serve(&dir, &[], 0, 3);
    drop(Proc(first));
    let settings = std::fs::read_to_string(dir.join("league.toml")).unwrap();
    assert!(settings.contains("max_mib = 16"), "{settings}");
    std::fs::write(
        dir.join("league.toml"),
        settings.replace("max_mib = 16", "max_mib = 1"),
    )
    .unwrap();
    let bots = [format!("random={}", random_bot())];
    let (child, url) = common::league_serve(&dir, &bots, 1, 3);
    let _server = Proc(child);
    let token = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let token = token.trim();

    // Without the token, or with a wrong one: refused, nothing kept.
    let source = std::fs::read(common::root().join("bots/python-starter/bot.py")).unwrap();
    let (status, body) = post(&url, "/api/bots/py?file=bot.py", None, &source);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("admin token"), "{body}");
    let (status, body) = post(&url, "/api/bots/py?file=bot.py", Some("wrong"), &source);
    assert_eq!(status, 403, "{body}");
    assert!(!dir.join("uploads/py").exists());

    // A single Python file, uploaded by the command line: built by the server, played.
    let out = add(&url, "py=bots/python-starter/bot.py", token);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("added py"),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(dir.join("uploads/py/1/bot.py")).unwrap(),
        source
    );
    // A folder with its bot.toml, sent as an archive.
    let out = add(&url, "starter=bots/python-starter", token);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("uploads/starter/1/bot/bot.toml").is_file());
    wait_for_games(&url, "py", 2);
    wait_for_games(&url, "starter", 2);

    // Archives that would write outside their folder: each refused, naming the entry.
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let link_out = outside.to_str().unwrap().to_string();
    let hostile: [(Vec<u8>, &str, &str); 4] = [
        (
            archive(&[("../evil", tar::EntryType::Regular, "", b"x")]),
            "../evil",
            "'..'",
        ),
        (
            archive(&[("etc", tar::EntryType::Symlink, "/etc", b"")]),
            "\"etc\"",
            "\"/etc\"",
        ),
        (
            archive(&[
                ("out", tar::EntryType::Symlink, &link_out, b""),
                ("out/planted", tar::EntryType::Regular, "", b"x"),
            ]),
            "\"out\"",
            "outside the bot's folder",
        ),
        (
            archive(&[("null", tar::EntryType::Char, "", b"")]),
            "\"null\"",
            "device file",
        ),
    ];
    for (bytes, entry, why) in hostile {
        let (status, body) = post(&url, "/api/bots/evil", Some(token), &bytes);
        assert_eq!(status, 400, "{body}");
        assert!(
            body.contains("refused") && body.contains(entry) && body.contains(why),
            "{body}"
        );
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    let written: Vec<PathBuf> = all_files(tmp.path())
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "evil" || n == "planted"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
    assert!(
        !dir.join("uploads/evil").exists(),
        "a refused upload leaves nothing, not even its bot's folder"
    );

    // Over the league's cap: refused with the cap named, before the body is sent.
    let big = tmp.path().join("big.py");
    std::fs::write(&big, "#".repeat(2 << 20)).unwrap();
    let out = add(&url, &format!("big={}", big.display()), token);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("413") && err.contains("cap of 1 MiB"), "{err}");
    assert!(!dir.join("uploads/big").exists());
    let s = standings(&url);
    assert!(bot(&s, "evil").is_none() && bot(&s, "big").is_none(), "{s}");
}

/// Runs `command` as the unprivileged user `nobody` (root needed); whether it succeeded.
fn as_nobody(command: &[&str]) -> bool {
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .args(command)
        .output()
        .unwrap_or_else(|e| panic!("setpriv (util-linux) is needed: {e}"));
    out.status.success()
}

#[test]
fn uploads_are_kept_from_other_users_and_bad_uploads_leave_nothing() {
    use tar::EntryType::*;
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let bots = [format!("random={}", random_bot())];
    let (child, url) = common::league_serve(&dir, &bots, 1, 3);
    let _server = Proc(child);
    let token = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let token = token.trim();
    let out = add(&url, "py=bots/python-starter/bot.py", token);
    assert!(out.status.success(), "{out:?}");
    // Kept from other users of the machine, and still played by the local worker (whose bots
    // run as users of their own when the server is root).
    wait_for_games(&url, "py", 2);
    use std::os::unix::fs::PermissionsExt;
    for path in [dir.clone(), dir.join("uploads")] {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o007, 0, "{}: mode {mode:o}", path.display());
    }
    if rustix::process::geteuid().is_root() {
        let source = dir.join("uploads/py/1/bot.py");
        assert!(as_nobody(&["cat", "/dev/null"]), "nobody runs cat");
        for path in [source, dir.join("games.csv"), dir.join("records.jsonl")] {
            assert!(
                !as_nobody(&["cat", path.to_str().unwrap()]),
                "another user reads {}",
                path.display()
            );
        }
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "reading the uploads as another user needs root"
        );
    }

    // Refused uploads leave no folder; a folder entry over a link, or a file inside a file, is
    // the upload's fault (400), not the server's.
    let refused: [(&str, Vec<u8>, &str); 4] = [
        ("evil", b"not an archive".to_vec(), "not a .tar.gz"),
        (
            "evil",
            archive(&[("d", Symlink, "x", b""), ("d", Directory, "", b"")]),
            "\"d\"",
        ),
        (
            "evil",
            archive(&[("f", Regular, "", b"x"), ("f/g", Regular, "", b"y")]),
            "\"f/g\"",
        ),
        ("-rf", b"print(1)".to_vec(), "-rf"),
    ];
    for (name, body, why) in refused {
        let path = if name == "-rf" {
            format!("/api/bots/{name}?file=bot.py")
        } else {
            format!("/api/bots/{name}")
        };
        let (status, said) = post(&url, &path, Some(token), &body);
        assert_eq!(status, 400, "{said}");
        assert!(said.contains(why), "{said}");
        assert!(!dir.join("uploads").join(name).exists(), "{said}");
    }
    // A bot named like an option is refused however it comes.
    let body = format!(r#"{{"bots":["-rf={}"],"workdir":"/"}}"#, random_bot());
    let request = format!(
        "POST /api/bots HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \
         {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, said) = raw(url.trim_start_matches("http://"), request.as_bytes());
    assert_eq!(status, 200, "{said}");
    let answer: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(answer["added"][0]["ok"], false, "{said}");
    assert!(
        answer["added"][0]["problem"]
            .as_str()
            .unwrap()
            .contains("-rf"),
        "{said}"
    );
    assert!(bot(&standings(&url), "-rf").is_none());
}
