//! An instant Impasse bot that answers the first offered move: the cheapest possible opponent,
//! for measuring the referee's own overhead. It reuses two line buffers and allocates nothing
//! per turn once they have grown.

use std::io::{self, BufRead, BufReader, Write};

/// Reads the next line into `line` (cleared first); false at end of input or on a read error.
fn next_line(input: &mut impl BufRead, line: &mut String) -> bool {
    line.clear();
    matches!(input.read_line(line), Ok(n) if n > 0)
}

fn main() {
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
