//! The human seat through a real terminal: `script` gives `arbiter play human BOT` a
//! pseudo-terminal, and the person's typing is fed to it.

use crate::common::*;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Whether `script` (util-linux), which gives arbiter a terminal here, is installed; fails
/// where `CI` is set without it.
fn have_script() -> bool {
    if Command::new("script").arg("--version").output().is_ok() {
        return true;
    }
    crate::common::skip("this test needs `script` (util-linux: apt-get install util-linux)");
    false
}

#[test]
fn a_person_sees_the_board_is_told_of_an_illegal_entry_and_plays() {
    if !have_script() {
        return;
    }
    let arbiter = env!("CARGO_BIN_EXE_arbiter");
    let bot = format!(
        "{} {}/tests/bots/standard.py first",
        python(),
        root().display()
    );
    let command = format!("{arbiter} play --game draughts --seed 1 human '{bot}'");
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Typed ahead: the terminal keeps the lines until the seat reads them. Closing the terminal
    // after them ends the game (the person left).
    stdin.write_all(b"zz\n32-28\n").unwrap();
    std::thread::sleep(Duration::from_secs(6));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(text.contains("You are seat 0 of 2 in draughts"), "{text}");
    // The board from the neutral view: cell names beside the pieces.
    assert!(
        text.contains("46      47      48      49      50"),
        "{text}"
    );
    assert!(
        text.contains("Legal moves (9): 31-26 31-27 32-27 32-28"),
        "{text}"
    );
    assert!(text.contains("\"zz\" is not a legal move here"), "{text}");
    // The legal entry was played; the bot answered and the seat was asked again.
    assert!(text.contains("played: seat 1 "), "{text}");
    assert!(text.contains("human: 1 answers"), "{text}");
    assert!(text.contains("the terminal closed"), "{text}");
}

#[test]
fn a_person_asks_for_help_plays_random_and_resigns_with_ctrl_c() {
    if !have_script() {
        return;
    }
    let arbiter = env!("CARGO_BIN_EXE_arbiter");
    let bot = format!(
        "{} {}/tests/bots/standard.py first",
        python(),
        root().display()
    );
    // Accasta offers hundreds of moves: they are listed by where they start.
    let command = format!("{arbiter} play --game accasta --seed 1 --json human '{bot}'");
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"help\nrandom\n").unwrap();
    std::thread::sleep(Duration::from_secs(5));
    // Ctrl-C at the terminal while the seat waits for its second move.
    stdin.write_all(b"\x03").unwrap();
    std::thread::sleep(Duration::from_secs(3));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(text.contains("`random` for a random legal move"), "{text}");
    assert!(text.contains("by where they start:"), "{text}");
    assert!(text.contains("\"reason\":\"resigned\""), "{text}");
    assert!(text.contains("\"offender\":0"), "{text}");
    assert!(!text.contains("status 130"), "{text}");
}
