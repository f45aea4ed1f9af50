//! An instant bot for any game that answers the first offered move: the cheapest possible
//! opponent, for measuring the referee's own overhead.
//!
//! Two options serve `arbiter bench`:
//! - `--echo`: no game at all; every stdin line is written back at once (the pipe round-trip
//!   floor).
//! - `--delay-ms N`: sleep N milliseconds after reading each turn's input, before answering (a bot
//!   whose thinking time is known exactly, to check the referee's clock). The answer carries the
//!   time the bot really took from the end of its input to its answer as a comment,
//!   `slept_us=N`, so that the sleep's own overshoot can be told from the referee's.

use arbiter::botkit;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Write};
use std::process::ExitCode;
use std::time::Duration;

/// Reads the next line into `line` (cleared first); false at end of input or on a read error.
fn next_line(input: &mut impl BufRead, line: &mut String) -> bool {
    line.clear();
    matches!(input.read_line(line), Ok(n) if n > 0)
}

/// What the command line asks for.
enum Mode {
    Play { delay: Option<Duration> },
    Echo,
}

fn parse_args() -> Result<Mode, String> {
    let mut delay = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--echo" => return Ok(Mode::Echo),
            "--delay-ms" => {
                let value = args
                    .next()
                    .ok_or("--delay-ms needs a number of milliseconds")?;
                let ms: u64 = value.parse().map_err(|_| {
                    format!("--delay-ms: '{value}' is not a number of milliseconds")
                })?;
                delay = (ms > 0).then(|| Duration::from_millis(ms));
            }
            other => {
                return Err(format!(
                    "unknown option '{other}' (known: --echo, --delay-ms N)"
                ))
            }
        }
    }
    Ok(Mode::Play { delay })
}

fn main() -> ExitCode {
    match parse_args() {
        Ok(Mode::Echo) => {
            echo();
            ExitCode::SUCCESS
        }
        Ok(Mode::Play { delay }) => play(delay),
        Err(message) => {
            eprintln!("arbiter-bot-first: {message}");
            ExitCode::from(2)
        }
    }
}

/// Writes every line read back at once, flushed, until end of input.
fn echo() {
    let mut input = BufReader::new(io::stdin().lock());
    let mut out = io::stdout().lock();
    let mut line = String::with_capacity(64);
    while next_line(&mut input, &mut line) {
        if out
            .write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Plays any game: answers each turn with the first offered move, `delay` after reading the
/// input.
fn play(delay: Option<Duration>) -> ExitCode {
    botkit::play("arbiter-bot-first", |turn| {
        let mut answer = turn.moves[0].clone();
        if let Some(delay) = delay {
            std::thread::sleep(delay);
            let _ = write!(answer, " slept_us={}", turn.read_at.elapsed().as_micros());
        }
        answer
    })
}
