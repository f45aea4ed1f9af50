//! Games played in pairs (same seed and opening, seats swapped) counted from one bot's side:
//! W/D/L per game and the pentanomial count per finished pair. One owner for the counting that
//! SPRT and the two-bot standings both need.

use super::{Pentanomial, Wdl};
use std::collections::HashMap;

/// Counts games and pairs as they finish, in any order.
#[derive(Clone, Debug, Default)]
pub struct PairCounter {
    /// The first finished game's score of each pair still waiting for its partner (`None`: a
    /// game that could not be played, which voids its pair).
    half: HashMap<u64, Option<f64>>,
    pub wdl: Wdl,
    pub penta: Pentanomial,
    /// Pairs completed with a game that could not be played: left out of `penta` (their
    /// played game, if any, is in `wdl`).
    pub voided: u64,
}

impl PairCounter {
    /// Records one game of pair `pair`: the counted bot's `score` (1, 0.5 or 0), or `None` for
    /// a game the referee could not play. Returns true when this completed a pair.
    pub fn add(&mut self, pair: u64, score: Option<f64>) -> bool {
        if let Some(s) = score {
            match s {
                x if x > 0.75 => self.wdl.wins += 1,
                x if x < 0.25 => self.wdl.losses += 1,
                _ => self.wdl.draws += 1,
            }
        }
        match self.half.remove(&pair) {
            None => {
                self.half.insert(pair, score);
                false
            }
            Some(first) => {
                match (first, score) {
                    (Some(a), Some(b)) => self.penta.0[((a + b) * 2.0).round() as usize] += 1,
                    _ => self.voided += 1,
                }
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_complete_in_any_order_and_a_void_game_voids_its_pair() {
        let mut c = PairCounter::default();
        assert!(!c.add(7, Some(1.0)));
        assert!(!c.add(3, Some(0.5)));
        assert!(c.add(7, Some(0.5)));
        assert!(c.add(3, Some(0.0)));
        assert!(!c.add(9, None));
        assert!(c.add(9, Some(1.0)));
        assert_eq!(c.penta.0, [0, 1, 0, 1, 0]);
        assert_eq!(c.voided, 1);
        assert_eq!((c.wdl.wins, c.wdl.draws, c.wdl.losses), (2, 2, 1));
    }
}
