//! An Impasse bot that looks one move ahead: it plays every offered move on its own copy of the
//! position and keeps the one its evaluation likes best. A cheap, clearly-better-than-random
//! opponent for testing the referee and the rating code.
//!
//! Nearly equal moves are chosen between at random, seeded from the first argument, else from
//! the game's seed arbiter gives in `ARBITER_SEED` (mixed with the bot's colour: the two games
//! of a pair share a seed with seats swapped), else from the clock. Games are then reproducible
//! with arbiter's `--seed`, yet two deterministic bots do not replay the same game move for move
//! in every round (a tournament would learn nothing from its repeats).

use arbiter::botkit::Seed;
use arbiter::game::impasse::{rows_from_nearest, Impasse};
use arbiter::game::{Game, Rules, TextGame};
use arbiter::rng::Rng;
use std::io::{self, BufRead, BufReader, Write};

/// Points for one removed checker; progress terms stay far below it.
const REMOVED: i32 = 400;

/// How good `g` is for `me`: removed checkers, doubles close to the bear-off row, singles close to
/// the crown row (a double is worth more than any single, so crowning is progress), and a little
/// mobility.
fn evaluate(g: &Impasse, me: usize) -> i32 {
    if let Some(w) = g.winner() {
        return if w == me { i32::MAX / 2 } else { i32::MIN / 2 };
    }
    let side = |seat: usize| {
        let progress: i32 = g
            .checkers(seat)
            .map(|c| {
                let r = i32::from(rows_from_nearest(seat, c.square));
                if c.double {
                    28 - 2 * r
                } else {
                    r
                }
            })
            .sum();
        REMOVED * g.score(seat) + 4 * progress + g.basic_move_count(seat) as i32
    };
    side(me) - side(1 - me)
}

/// The index in `offered` of the best move for the seat to move in `g`: `rng` adds up to 2 points
/// to each evaluation (a mobility difference of 1 or 2 counts as noise) and picks one of the
/// equally good, so that play varies from game to game without losing strength.
fn choose(g: &TextGame<Impasse>, offered: &[String], rng: &mut Rng) -> usize {
    let me = g.to_move();
    let mut best = (i32::MIN, vec![0]);
    for (i, text) in offered.iter().enumerate() {
        let Some(index) = g.index_of_move(text) else {
            continue;
        };
        let mut next = g.clone();
        next.play(index);
        let v = evaluate(&next, me).saturating_add(rng.below(3) as i32);
        if v > best.0 {
            best = (v, vec![i]);
        } else if v == best.0 {
            best.1.push(i);
        }
    }
    best.1[rng.below(best.1.len())]
}

/// Reads the next line into `line` (cleared first); false at end of input or on a read error.
fn next_line(input: &mut impl BufRead, line: &mut String) -> bool {
    line.clear();
    matches!(input.read_line(line), Ok(n) if n > 0)
}

/// Stops with a message on stderr when the input is another game's: the standard input's first
/// line is `seat seats game variant` (an arena Impasse line, a colour or a board row, has no
/// space).
fn refuse_other_games(line: &str) {
    if !line.contains(' ') {
        return;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let game = words.get(2..).map_or(line.to_string(), |w| w.join(" "));
    eprintln!(
        "greedy: plays only Impasse as the CodinGame arena plays it (--game impasse, variant \
         arena), but was given {game} (first input line {line:?}); choose a bot that plays it, \
         e.g. bots/mcts"
    );
    std::process::exit(2);
}

/// One turn's input: board rows (row 8 first) and offered moves; updates `colour` when the turn
/// carries the colour line. `None` at end of input.
fn read_turn(
    input: &mut impl BufRead,
    colour: &mut usize,
    rows: &mut Vec<String>,
    moves: &mut Vec<String>,
) -> Option<()> {
    let mut line = String::new();
    next_line(input, &mut line).then_some(())?;
    refuse_other_games(line.trim_end());
    if line.trim_end().len() == 1 {
        *colour = usize::from(line.trim_end() == "b");
        next_line(input, &mut line).then_some(())?;
    }
    rows.clear();
    rows.push(line.trim_end().to_string());
    for _ in 0..7 {
        next_line(input, &mut line).then_some(())?;
        rows.push(line.trim_end().to_string());
    }
    next_line(input, &mut line).then_some(())?; // the opponent's last move
    next_line(input, &mut line).then_some(())?;
    let n: usize = line.trim().parse().ok()?;
    moves.clear();
    for _ in 0..n {
        next_line(input, &mut line).then_some(())?;
        moves.push(line.trim_end().to_string());
    }
    Some(())
}

fn main() {
    let seed = Seed::find();
    let mut rng: Option<Rng> = None;
    let mut input = BufReader::new(io::stdin().lock());
    let mut out = io::stdout().lock();
    let (mut colour, mut rows, mut moves) = (0, Vec::new(), Vec::new());
    while read_turn(&mut input, &mut colour, &mut rows, &mut moves).is_some() {
        let row_refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let answer = match Impasse::from_rows(&row_refs, colour).map(TextGame::new) {
            Ok(g) if !moves.is_empty() => {
                let rng = rng.get_or_insert_with(|| seed.rng(0x6772_6565_6479, colour));
                moves[choose(&g, &moves, rng)].as_str()
            }
            Ok(_) => "random",
            Err(e) => {
                eprintln!("greedy: bad board ({e}); playing the first offered move");
                moves.first().map_or("random", String::as_str)
            }
        };
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_beats_random() {
        let mut greedy_wins = 0;
        for game in 0..20u64 {
            let greedy_seat = (game % 2) as usize;
            let mut rng = Rng::new(1000 + game);
            let mut g = TextGame::new(Impasse::new());
            for _ in 0..g.info().default_max_turns {
                if g.outcome().is_some() {
                    break;
                }
                let i = if g.to_move() == greedy_seat {
                    choose(&g, g.legal_moves(), &mut rng)
                } else {
                    rng.below(g.legal_moves().len())
                };
                g.play(i);
            }
            greedy_wins += usize::from(g.winner() == Some(greedy_seat));
        }
        assert!(greedy_wins >= 16, "greedy won only {greedy_wins} of 20");
    }

    #[test]
    fn choose_reads_a_bot_position() {
        let rows = [
            ".W.b.W.b", "b.W.b.W.", "........", "........", "........", "........", ".B.w.B.w",
            "w.B.w.B.",
        ];
        let g = TextGame::new(Impasse::from_rows(&rows, 0).unwrap());
        let offered = g.legal_moves().to_vec();
        assert!(choose(&g, &offered, &mut Rng::new(1)) < offered.len());
    }
}
