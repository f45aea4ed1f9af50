//! The human seat: `arbiter play human BOT` runs this as the seat's "bot" (a hidden subcommand,
//! `arbiter human-seat`). It speaks the line protocol with the referee on stdin and stdout like
//! any bot, and talks to the person on the terminal (/dev/tty): each turn it draws the position
//! from the game's neutral view, lists the legal moves, and reads a move, asking again after an
//! entry that is not one of them. The terminal's own line editing applies (backspace, Ctrl-U,
//! Ctrl-W). `random` plays a random legal move, `help` says what may be typed, and Ctrl-C while
//! it waits for a move resigns: the seat answers `resign` (a forfeit recorded as `resigned`) and
//! the game ends.

use anyhow::{bail, Context, Result};
use arbiter::game::{registry, standard};
use arbiter::report::terminal;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

/// The terminal's descriptor and the process group that had its foreground before this seat
/// took it, for the Ctrl-C handler (-1: none).
static TTY_FD: AtomicI32 = AtomicI32::new(-1);
static FOREGROUND_BEFORE: AtomicI32 = AtomicI32::new(-1);

/// Ctrl-C: give the terminal back, answer `resign`, and end. Only async-signal-safe calls.
extern "C" fn resign(_: libc::c_int) {
    const ANSWER: &[u8] = b"resign\n";
    let (fd, before) = (
        TTY_FD.load(Ordering::Relaxed),
        FOREGROUND_BEFORE.load(Ordering::Relaxed),
    );
    // SAFETY: tcsetpgrp, write and _exit are async-signal-safe; the buffer is static.
    unsafe {
        if fd >= 0 && before > 0 {
            libc::tcsetpgrp(fd, before);
        }
        libc::write(1, ANSWER.as_ptr().cast(), ANSWER.len());
        libc::_exit(0);
    }
}

/// What a person may type, for `help`.
const HELP: &str = "Type one of the legal moves listed (a space and a comment may follow), \
`random` for a random legal move, `help` for this, or Ctrl-C to resign.";

/// Lists more moves than this by the cell (or piece) they start from.
const GROUP_ABOVE: usize = 30;

/// The cell or piece a move text starts with: its leading letters and then its digits (`c5` of
/// `c5,f5-e6`, `31` of `31-27`, `c1` of `c1a3`), or the whole word (`pass`).
fn start_of(m: &str) -> &str {
    let letters = m.len()
        - m.trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .len();
    let rest = &m[letters..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match digits {
        0 => m,
        _ => &m[..letters + digits],
    }
}

/// The legal moves for the terminal: one line, or one line per starting cell when there are many.
fn list_moves(moves: &[String]) -> String {
    if moves.len() <= GROUP_ABOVE {
        return format!("Legal moves ({}): {}\n", moves.len(), moves.join(" "));
    }
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for m in moves {
        let start = start_of(m);
        match groups.iter_mut().find(|(s, _)| *s == start) {
            Some((_, list)) => list.push(m),
            None => groups.push((start, vec![m])),
        }
    }
    let mut text = format!("Legal moves ({}), by where they start:\n", moves.len());
    for (start, list) in groups {
        text.push_str(&format!("  {start}: {}\n", list.join(" ")));
    }
    text
}

/// The terminal, held in the foreground for this process while it reads a move.
struct Tty {
    file: File,
    reader: BufReader<File>,
}

impl Tty {
    fn open() -> Result<Tty> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .context("the human seat needs a terminal (/dev/tty)")?;
        let reader = BufReader::new(file.try_clone()?);
        Ok(Tty { file, reader })
    }

    /// Reads one line with this process group in the terminal's foreground (the referee puts
    /// each bot in a group of its own, which the terminal would stop on reading), then gives the
    /// foreground back.
    fn read_line(&mut self) -> Result<Option<String>> {
        let before = rustix::termios::tcgetpgrp(self.file.as_fd()).ok();
        FOREGROUND_BEFORE.store(
            before.map_or(-1, |p| p.as_raw_nonzero().get()),
            Ordering::Relaxed,
        );
        let _ = rustix::termios::tcsetpgrp(self.file.as_fd(), rustix::process::getpgrp());
        let mut line = String::new();
        let n = self.reader.read_line(&mut line);
        if let Some(pgrp) = before {
            let _ = rustix::termios::tcsetpgrp(self.file.as_fd(), pgrp);
        }
        Ok((n? > 0).then(|| line.trim().to_string()))
    }
}

/// Reads one protocol line from the referee; `None` at the end of the game.
fn protocol_line(input: &mut impl BufRead) -> Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
}

/// `n` more lines, as a count line announced.
fn counted(input: &mut impl BufRead) -> Result<Vec<String>> {
    let Some(count) = protocol_line(input)? else {
        bail!("the input ended early")
    };
    let n: usize = count
        .trim()
        .parse()
        .with_context(|| format!("expected a count, got {count:?}"))?;
    (0..n)
        .map(|_| protocol_line(input)?.context("the input ended early"))
        .collect()
}

pub fn run() -> Result<ExitCode> {
    // A process group that is not the terminal's foreground may take the foreground only while
    // it ignores SIGTTOU.
    // SAFETY: setting a signal's disposition to SIG_IGN has no handler to race with.
    unsafe {
        libc::signal(libc::SIGTTOU, libc::SIG_IGN);
    }
    let mut tty = Tty::open()?;
    {
        use std::os::fd::AsRawFd;
        TTY_FD.store(tty.file.as_raw_fd(), Ordering::Relaxed);
    }
    // SAFETY: the handler makes only async-signal-safe calls.
    unsafe {
        libc::signal(
            libc::SIGINT,
            resign as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut setup = None;
    loop {
        let Some(first) = protocol_line(&mut input)? else {
            writeln!(tty.file, "The game is over.")?;
            return Ok(ExitCode::SUCCESS);
        };
        let mut picture = String::new();
        let moves;
        if setup.is_none() && first.len() == 1 {
            // Impasse's arena input: colour, eight rows, the last move, the moves.
            writeln!(
                tty.file,
                "You play {}.",
                if first == "w" { "White" } else { "Black" }
            )?;
            setup = Some(None);
            moves = arena_turn(&mut input, &mut picture, None)?;
        } else if matches!(setup, Some(None)) {
            moves = arena_turn(&mut input, &mut picture, Some(first))?;
        } else {
            let position = if setup.is_none() {
                let intro = standard::parse_intro(&first)?;
                writeln!(
                    tty.file,
                    "You are seat {} of {} in {} ({}).",
                    intro.seat, intro.seats, intro.info.name, intro.setup.variant
                )?;
                setup = Some(Some((intro.info, intro.setup)));
                protocol_line(&mut input)?.context("the input ended early")?
            } else {
                first
            };
            let Some(Some((info, s))) = &setup else {
                unreachable!()
            };
            let _board = counted(&mut input)?;
            let since = counted(&mut input)?;
            moves = counted(&mut input)?;
            let game = registry::GameInfo::position(info, s, &position)?;
            for m in &since {
                picture.push_str(&format!("played: seat {m}\n"));
            }
            picture.push_str(&terminal::draw(&game.view()));
        }
        write!(tty.file, "\n{picture}{}", list_moves(&moves))?;
        let answer = loop {
            write!(tty.file, "Your move: ")?;
            tty.file.flush()?;
            let Some(entry) = tty.read_line()? else {
                bail!("the terminal closed");
            };
            let word = entry.split_whitespace().next().unwrap_or("");
            if word == "random" || moves.iter().any(|m| m == word) {
                break entry;
            }
            if word == "help" {
                writeln!(tty.file, "{HELP}")?;
                continue;
            }
            writeln!(
                tty.file,
                "\"{word}\" is not a legal move here; type one of the moves listed above \
                 (`help` says what else you may type)."
            )?;
        };
        let mut out = io::stdout().lock();
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
}

/// Reads the rest of an arena (Impasse) turn: eight board rows (the first given when it was
/// already read), the last move, and the moves; draws the rows as they are.
fn arena_turn(
    input: &mut impl BufRead,
    picture: &mut String,
    first_row: Option<String>,
) -> Result<Vec<String>> {
    let mut rows: Vec<String> = first_row.into_iter().collect();
    while rows.len() < 8 {
        rows.push(protocol_line(input)?.context("the input ended early")?);
    }
    let last = protocol_line(input)?.context("the input ended early")?;
    picture.push_str("  abcdefgh\n");
    for (i, r) in rows.iter().enumerate() {
        picture.push_str(&format!("{} {r}\n", 8 - i));
    }
    picture.push_str(&format!("last move: {last}\n"));
    counted(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_moves_are_listed_by_where_they_start() {
        assert_eq!(start_of("c5,f5-e6"), "c5");
        assert_eq!(start_of("31-27"), "31");
        assert_eq!(start_of("c1a3"), "c1");
        assert_eq!(start_of("pass"), "pass");
        let few: Vec<String> = ["a1", "b2"].map(String::from).to_vec();
        assert_eq!(list_moves(&few), "Legal moves (2): a1 b2\n");
        let many: Vec<String> = (0..40).map(|i| format!("{}-{}", i % 4, i)).collect();
        let text = list_moves(&many);
        assert!(
            text.starts_with("Legal moves (40), by where they start:\n"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(text.contains("\n  0: 0-0 0-4 0-8"), "{text}");
    }
}
