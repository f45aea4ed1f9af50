//! Author tokens (issue 45): `arbiter league author DIR NAME` makes a token that may upload,
//! replace and read the build log of bot NAME only. With the real server on a loopback port,
//! the real command line (`league add URL NAME=PATH --token-file F`) and raw requests: every
//! other admin call and every other bot is refused with 403 saying why; the admin token keeps
//! every right; a revoked author token is refused. Waits are bounded; nothing is timed.

use crate::common::league::{arbiter, raw, wait_for, wait_playing, Proc};
use crate::common::{self, random_bot};
use std::path::Path;

/// One request with an optional token and a body; the status and body of the answer.
fn request(url: &str, method: &str, path: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    raw(url.trim_start_matches("http://"), &bytes)
}

/// `arbiter league author DIR ARGS...`.
fn author(dir: &Path, args: &[&str]) -> std::process::Output {
    arbiter()
        .args(["league", "author"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn an_author_token_uploads_replaces_and_reads_the_build_of_its_own_bot_only() {
    let tmp = common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (child, url) = common::league_serve(&dir, &[format!("random={}", random_bot())], 1, 3);
    let _server = Proc(child);
    let admin = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let admin = admin.trim();
    wait_playing(&url, 1);

    // The token: printed once (the last line), kept hashed.
    let out = author(&dir, &["alice"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let t = stdout.lines().last().unwrap().trim().to_string();
    assert!(t.len() >= 32, "{stdout}");
    let kept = std::fs::read_to_string(dir.join("author-tokens.toml")).unwrap();
    assert!(kept.contains("alice") && !kept.contains(&t), "{kept}");
    let file = tmp.path().join("alice-token");
    std::fs::write(&file, format!("{t}\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();

    // With it, the command line uploads bot alice, and replaces it.
    let add = |bot: &str| {
        arbiter()
            .args(["league", "add", &url, bot, "--token-file"])
            .arg(&file)
            .output()
            .unwrap()
    };
    for version in 1..=2 {
        let out = add("alice=bots/python-starter/bot.py");
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("added alice"),
            "{out:?}"
        );
        assert!(dir
            .join(format!("uploads/alice/{version}/bot.py"))
            .is_file());
    }
    wait_playing(&url, 2);
    // ... and reads its build log.
    let (status, log) = request(&url, "GET", "/api/bots/alice/build", Some(&t), b"");
    assert_eq!(status, 200, "{log}");
    assert!(log.contains("$ "), "the build's commands and output: {log}");

    // Anything else is refused, saying why.
    let source = std::fs::read(common::root().join("bots/python-starter/bot.py")).unwrap();
    let (status, why) = request(&url, "POST", "/api/bots/bob?file=bot.py", Some(&t), &source);
    assert_eq!(status, 403, "{why}");
    assert!(why.contains("alice") && why.contains("only"), "{why}");
    assert!(!dir.join("uploads/bob").exists());
    let out = add("bob=bots/python-starter/bot.py");
    assert!(!out.status.success(), "{out:?}");
    let body = br#"{"bots":["x=/bin/true"],"workdir":"/"}"#;
    let (status, why) = request(&url, "POST", "/api/bots", Some(&t), body);
    assert_eq!(status, 403, "{why}");
    assert!(why.contains("admin token"), "{why}");
    let (status, why) = request(&url, "DELETE", "/api/bots/alice", Some(&t), b"");
    assert_eq!(status, 403, "{why}");
    let (status, why) = request(&url, "DELETE", "/api/bots/random", Some(&t), b"");
    assert_eq!(status, 403, "{why}");
    let (status, why) = request(&url, "GET", "/api/bots/random/build", Some(&t), b"");
    assert_eq!(status, 403, "{why}");
    let (status, why) = request(&url, "GET", "/api/bots/alice/build", None, b"");
    assert_eq!(status, 401, "{why}");

    // The admin token keeps every right.
    let (status, body) = request(
        &url,
        "POST",
        "/api/bots/bob?file=bot.py",
        Some(admin),
        &source,
    );
    assert_eq!(status, 200, "{body}");
    let (status, log) = request(&url, "GET", "/api/bots/bob/build", Some(admin), b"");
    assert_eq!(status, 200, "{log}");
    // A bot the league never had: 404, saying so.
    let (status, why) = request(&url, "DELETE", "/api/bots/nobody", Some(admin), b"");
    assert_eq!(status, 404, "{why}");
    assert!(why.contains("no bot named 'nobody'"), "{why}");

    // Revoked, it is refused from its next call.
    let out = author(&dir, &["alice", "--revoke"]);
    assert!(out.status.success(), "{out:?}");
    let (status, why) = request(
        &url,
        "POST",
        "/api/bots/alice?file=bot.py",
        Some(&t),
        &source,
    );
    assert_eq!(status, 403, "{why}");
    assert!(why.contains("revoked"), "{why}");
    wait_for("alice still listed", || {
        let (status, body) = request(&url, "GET", "/api/bots/alice", None, b"");
        ((status == 200).then_some(()), body)
    });

    // A name that is not a plain one is no author's (nor a bot's).
    let out = author(&dir, &["--", "-rf"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("-rf"), "{err}");
}
