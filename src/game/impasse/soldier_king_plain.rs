//! A second reading of the soldiers and kings rules, written as plainly as possible (the board as
//! characters, each turn as its text and the position text after it), and the check that every
//! position of many random games gets the same moves with the same results from both readings.
//! Slow, and shares nothing with the move generator but the position text.

use super::*;
use crate::game::{Game, TextGame};
use crate::rng::Rng;

/// Perft through [`plain_rules`]: a side down to one piece or none ends the line.
pub fn plain_perft(text: &str, depth: u32) -> u64 {
    let board = text.split(' ').next().unwrap();
    let over = ["wW", "bB"]
        .iter()
        .any(|own| board.chars().filter(|c| own.contains(*c)).count() <= 1);
    if depth == 0 || over {
        return u64::from(depth == 0);
    }
    plain_rules(text)
        .iter()
        .map(|(_, next)| plain_perft(next, depth - 1))
        .sum()
}

/// Every turn the seat to move of `text` can play: its text and the position text after it.
fn plain_rules(text: &str) -> Vec<(String, String)> {
    let (board, side) = text.split_once(' ').unwrap();
    // grid[r][c], r = 0 for row 1.
    let mut grid: Vec<Vec<u8>> = board.split('/').map(|l| l.bytes().collect()).collect();
    grid.reverse();
    let white = side == "w";
    let (soldier, king) = if white { (b'w', b'W') } else { (b'b', b'B') };
    let fwd: i32 = if white { 1 } else { -1 };
    let (first, last) = if white { (0, 7) } else { (7, 0) };
    let name = |r: i32, c: i32| format!("{}{}", (b'a' + c as u8) as char, r + 1);
    let inside = |r: i32, c: i32| (0..8).contains(&r) && (0..8).contains(&c);
    let finish = |g: &Vec<Vec<u8>>| {
        let pieces = g
            .iter()
            .flatten()
            .filter(|&&x| x == soldier || x == king)
            .count();
        let mut rows: Vec<String> = g
            .iter()
            .map(|r| String::from_utf8(r.clone()).unwrap())
            .collect();
        rows.reverse();
        let next = match (pieces <= 1, white) {
            (true, true) | (false, false) => "w",
            _ => "b",
        };
        format!("{} {next}", rows.join("/"))
    };
    let mut out = Vec::new();
    // A soldier has just arrived on (r, c) after `g`: end the turn every way the rules allow.
    let arrive = |g: Vec<Vec<u8>>, r: i32, c: i32, t: String, out: &mut Vec<(String, String)>| {
        if r != last {
            out.push((t, finish(&g)));
            return;
        }
        let mut others = Vec::new();
        for rr in 0..8 {
            for cc in 0..8 {
                if g[rr as usize][cc as usize] == soldier && (rr, cc) != (r, c) {
                    others.push((rr, cc));
                }
            }
        }
        let on_last: Vec<_> = others.iter().copied().filter(|o| o.0 == last).collect();
        let promote = |p: (i32, i32), x: (i32, i32), suffix: (i32, i32)| {
            let mut h = g.clone();
            h[p.0 as usize][p.1 as usize] = king;
            h[x.0 as usize][x.1 as usize] = b'.';
            (format!("{t}{}", name(suffix.0, suffix.1)), finish(&h))
        };
        if let [a] = on_last[..] {
            out.push(promote((r, c), a, a));
            out.push(promote(a, (r, c), (r, c)));
        } else if others.is_empty() {
            out.push((t.clone(), finish(&g)));
        } else {
            for &o in &others {
                out.push(promote((r, c), o, o));
            }
        }
    };
    for r in 0..8i32 {
        for c in 0..8i32 {
            let here = grid[r as usize][c as usize];
            if here != soldier && here != king {
                continue;
            }
            let dir = if here == soldier { fwd } else { -fwd };
            for dc in [-1, 1] {
                let mut k = 1;
                while inside(r + k * dir, c + k * dc)
                    && grid[(r + k * dir) as usize][(c + k * dc) as usize] == b'.'
                {
                    let (tr, tc) = (r + k * dir, c + k * dc);
                    let mut g = grid.clone();
                    g[r as usize][c as usize] = b'.';
                    let t = format!("{}{}", name(r, c), name(tr, tc));
                    if here == king {
                        g[tr as usize][tc as usize] = if tr == first { soldier } else { king };
                        out.push((t, finish(&g)));
                    } else {
                        g[tr as usize][tc as usize] = soldier;
                        arrive(g, tr, tc, t, &mut out);
                    }
                    k += 1;
                }
                let (sr, sc) = (r - fwd, c + dc);
                if here == king && inside(sr, sc) && grid[sr as usize][sc as usize] == soldier {
                    let mut g = grid.clone();
                    g[r as usize][c as usize] = soldier;
                    g[sr as usize][sc as usize] = if sr == first { soldier } else { king };
                    arrive(g, r, c, format!("{}{}", name(r, c), name(sr, sc)), &mut out);
                }
            }
        }
    }
    if out.is_empty() {
        for r in 0..8i32 {
            for c in 0..8i32 {
                let here = grid[r as usize][c as usize];
                let mut g = grid.clone();
                if here == soldier {
                    g[r as usize][c as usize] = b'.';
                    out.push((name(r, c), finish(&g)));
                } else if here == king {
                    g[r as usize][c as usize] = soldier;
                    let pair =
                        (0..8).find(|&cc| cc != c && grid[last as usize][cc as usize] == soldier);
                    match pair {
                        Some(a) if r == last => {
                            let mut keep = g.clone();
                            keep[r as usize][c as usize] = king;
                            keep[r as usize][a as usize] = b'.';
                            out.push((format!("{}{}", name(r, c), name(r, a)), finish(&keep)));
                            g[r as usize][a as usize] = king;
                            g[r as usize][c as usize] = b'.';
                            out.push((format!("{}{}", name(r, c), name(r, c)), finish(&g)));
                        }
                        _ => out.push((name(r, c), finish(&g))),
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// Every move of `g` with the position text after it.
fn played(g: &TextGame<SoldierKing>) -> Vec<(String, String)> {
    (0..g.legal_moves().len())
        .map(|i| {
            let mut next = g.clone();
            next.play(i);
            (g.legal_moves()[i].clone(), next.position_text())
        })
        .collect()
}

#[test]
fn every_position_of_random_games_agrees_with_the_plain_reading() {
    let busy = ".W.w.b../w.b...../.....W../....w.../.b...B../..B.w.../.w.b..../B.b..... w";
    let mut checked = 0;
    let mut events = [0usize; 4];
    for seed in 0..150u64 {
        let mut rng = Rng::new(seed);
        let mut g = TextGame::new(if seed % 3 == 0 {
            from_position_text(busy).unwrap()
        } else {
            SoldierKing::new()
        });
        while g.outcome().is_none() {
            let text = g.position_text();
            let mine = played(&g);
            assert!(
                mine.windows(2).all(|w| w[0].0 < w[1].0),
                "unsorted or duplicate"
            );
            let mut sorted = mine.clone();
            sorted.sort();
            assert_eq!(sorted, plain_rules(&text), "at {text}");
            let back = TextGame::new(from_position_text(&text).unwrap());
            assert_eq!(back.legal_moves(), g.legal_moves());
            let i = rng.below(mine.len());
            let t = &mine[i].0;
            // Count what the games went through, so the check is known to reach every rule.
            let kings = |x: &TextGame<SoldierKing>| {
                let text = x.position_text();
                text.bytes().filter(u8::is_ascii_uppercase).count()
            };
            let kings_before = kings(&g);
            g.play(i);
            checked += 1;
            if t.len() == 2 {
                events[0] += 1; // impasse
            } else if t.len() == 6 {
                events[1] += 1; // promotion
            }
            if kings(&g) < kings_before && t.len() == 4 {
                events[2] += 1; // demotion by a slide or swap
            }
            if g.outcome().is_some() {
                events[3] += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
    assert!(
        events.iter().all(|&n| n > 0),
        "rules never reached: {events:?}"
    );
}
