//! An Impasse bot that answers a uniformly random offered move: the baseline every other bot
//! should beat. Seeded from its first argument for reproducible games, else from the clock.

use arbiter::rng::Rng;
use std::io::{self, BufRead, BufReader, Write};
use std::time::{SystemTime, UNIX_EPOCH};

/// Reads the next line into `line` (cleared first); false at end of input or on a read error.
fn next_line(input: &mut impl BufRead, line: &mut String) -> bool {
    line.clear();
    matches!(input.read_line(line), Ok(n) if n > 0)
}

/// Reads one turn's input and returns its offered moves, or `None` at end of input.
fn read_moves(input: &mut impl BufRead, line: &mut String, moves: &mut Vec<String>) -> Option<()> {
    // The colour line (first turn only) or the board's top row.
    next_line(input, line).then_some(())?;
    let rows_left = if line.trim_end().len() == 1 { 8 } else { 7 };
    for _ in 0..rows_left + 1 {
        next_line(input, line).then_some(())?;
    }
    next_line(input, line).then_some(())?;
    let n: usize = line.trim().parse().ok()?;
    moves.clear();
    for _ in 0..n {
        next_line(input, line).then_some(())?;
        moves.push(line.trim_end().to_string());
    }
    Some(())
}

fn main() {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            now.as_nanos() as u64 ^ u64::from(std::process::id())
        });
    let mut rng = Rng::new(seed);
    let mut input = BufReader::new(io::stdin().lock());
    let mut out = io::stdout().lock();
    let mut line = String::new();
    let mut moves = Vec::new();
    while read_moves(&mut input, &mut line, &mut moves).is_some() {
        let answer = if moves.is_empty() {
            "random"
        } else {
            &moves[rng.below(moves.len())]
        };
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}
