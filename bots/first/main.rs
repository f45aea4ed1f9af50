//! An instant Impasse bot that answers the first offered move: the cheapest possible opponent,
//! for measuring the referee's own overhead. It reuses two line buffers and allocates nothing
//! per turn once they have grown.
//!
//! Two options serve `arbiter bench`:
//! - `--echo`: no game at all; every stdin line is written back at once (the pipe round-trip
//!   floor).
//! - `--delay-ms N`: sleep N milliseconds after reading each turn's input, before answering (a bot
//!   whose thinking time is known exactly, to check the referee's clock). The answer carries the
//!   time the bot really took from the end of its input to its answer as a comment,
//!   `slept_us=N`, so that the sleep's own overshoot can be told from the referee's.

use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Write};
use std::time::{Duration, Instant};

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

fn main() {
    match parse_args() {
        Ok(Mode::Echo) => echo(),
        Ok(Mode::Play { delay }) => play(delay),
        Err(message) => {
            eprintln!("arbiter-bot-first: {message}");
            std::process::exit(2);
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

/// Plays Impasse: answers each turn with the first offered move, `delay` after reading the input.
fn play(delay: Option<Duration>) {
    let mut input = BufReader::new(io::stdin().lock());
    let mut out = io::stdout().lock();
    let mut line = String::with_capacity(64);
    let mut answer = String::with_capacity(16);
    loop {
        // A turn opens with the colour line (first turn only) or the board's top row.
        if !next_line(&mut input, &mut line) {
            return;
        }
        let rows_left = if line.trim_end().len() == 1 { 8 } else { 7 };
        // The remaining board rows, then the opponent's last move.
        for _ in 0..rows_left + 1 {
            if !next_line(&mut input, &mut line) {
                return;
            }
        }
        if !next_line(&mut input, &mut line) {
            return;
        }
        let n: usize = line.trim().parse().unwrap_or(0);
        answer.clear();
        for i in 0..n {
            if !next_line(&mut input, &mut line) {
                return;
            }
            if i == 0 {
                answer.push_str(line.trim_end());
            }
        }
        if let Some(delay) = delay {
            let read = Instant::now();
            std::thread::sleep(delay);
            let _ = write!(answer, " slept_us={}", read.elapsed().as_micros());
        }
        answer.push('\n');
        if out
            .write_all(answer.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}
