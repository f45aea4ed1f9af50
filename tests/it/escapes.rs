//! Texts from bots and students reach the terminal escaped (issue 35, item 10): a bot.toml
//! `name` and a source file's name holding terminal escape sequences (the window title, the
//! colours, clearing the screen) and a newline, and a bot that writes escape sequences to its
//! stderr before it crashes. Before the fix each of them drove the terminal of the person
//! running arbiter, and the newline broke the standings table.

use crate::common::*;
use std::path::Path;

/// The bytes a terminal obeys instead of showing: ESC, BEL, CSI, carriage return.
fn obeyed(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut found: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|b| [0x1b, 0x07, 0x0d].contains(b))
        .collect();
    if text.contains('\u{9b}') {
        found.push(0x9b);
    }
    found
}

/// A bot that writes escape sequences on stderr, then crashes on its first turn.
const CRASHER: &str = "import sys\n\
sys.stderr.write('\\x1b]0;PWNED-TITLE\\x07\\x1b[2J\\x1b[31mred\\r\\n')\n\
sys.stderr.flush()\n\
sys.exit(3)\n";

/// An Impasse bot that answers the first offered move.
const FIRST: &str = "import sys\n\
turn = 0\n\
while True:\n    \
    turn += 1\n    \
    if turn == 1:\n        \
        input()\n    \
    for _ in range(8):\n        \
        input()\n    \
    input()\n    \
    moves = [input() for _ in range(int(input()))]\n    \
    print(moves[0], flush=True)\n";

fn evil_folder(dir: &Path, script: &str) -> std::path::PathBuf {
    let bot = dir.join("evil");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(bot.join("bot.py"), script).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"ev\\u001b]0;PWNED\\u0007il\\nsecond line\"\nrun = \"/usr/bin/python3 bot.py\"\n",
    )
    .unwrap();
    bot
}

#[test]
fn a_crashing_bots_name_and_stderr_do_not_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let bot = evil_folder(dir.path(), CRASHER);
    let out = arbiter()
        .args(["play", "--seed", "1", "--first-turn-ms", "20000"])
        .arg(&bot)
        .arg(first_bot())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("PWNED-TITLE"),
        "the stderr tail is shown: {stdout}"
    );
    assert_eq!(obeyed(&out.stdout), Vec::<u8>::new(), "{stdout}");
    assert_eq!(obeyed(&out.stderr), Vec::<u8>::new(), "{:?}", out.stderr);
}

#[test]
fn names_with_escapes_and_newlines_keep_the_standings_table_whole() {
    let dir = tempfile::tempdir().unwrap();
    let bot = evil_folder(dir.path(), FIRST);
    let red = dir.path().join("b\x1b[31mred.py");
    std::fs::write(&red, FIRST).unwrap();
    let results = dir.path().join("results");
    let out = arbiter()
        .current_dir(dir.path())
        .env("ARBITER_CACHE", dir.path().join("cache"))
        .args(["tournament", "--games", "2", "--max-turns", "6"])
        .args(["--first-turn-ms", "20000", "--turn-ms", "5000", "--out"])
        .arg(&results)
        .arg(&bot)
        .arg(&red)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(obeyed(&out.stdout), Vec::<u8>::new(), "{stdout}");
    assert_eq!(obeyed(&out.stderr), Vec::<u8>::new(), "{:?}", out.stderr);
    // Each bot's row is one line that names it, escaped.
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("PWNED") || l.contains("red"))
        .collect();
    assert!(
        rows.iter()
            .any(|l| l.contains(r"ev\x1b]0;PWNED\x07il\x0asecond line")),
        "{stdout}"
    );
    assert!(rows.iter().any(|l| l.contains(r"b\x1b[31mred")), "{stdout}");
    assert!(
        !stdout.lines().any(|l| l.starts_with("second line")),
        "{stdout}"
    );
}
