//! The cross table of a field of bots: W/D/L of every bot against every other bot.
//!
//! It exists as the single input of the many-bot statistics: the Bradley-Terry fit reads games and
//! points per pair from it, and reports print it (and each bot's W/D/L totals) as they are. Only
//! whole game results are recorded (score 1, 1/2 or 0 for the first bot); a pair is stored once,
//! so `pair(a, b)` is always `pair(b, a).flipped()`. Only pairs that met take memory.

use crate::rating::elo::{GameOutcome, Wdl};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small fixed hash for pair keys: fast (a league adds a million pairs) and the same in every
/// run, so walks over the pairs, and the sums the fits take over them, repeat exactly.
#[derive(Clone, Copy, Debug, Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(29) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Why a result could not be added.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CrossTableError {
    #[error("bot index {bot} is out of range for a field of {len} bots")]
    BotOutOfRange { bot: usize, len: usize },
    #[error("bot {0} cannot play itself")]
    SameBot(usize),
    #[error("a game score must be 1, 0.5 or 0, got {0}")]
    InvalidScore(f64),
}

fn wdl_of(c: &[u32; 3]) -> Wdl {
    Wdl::new(c[0] as u64, c[1] as u64, c[2] as u64)
}

/// W/D/L of every pair that met, stored sparsely: a league of thousands of bots where each plays
/// a few hundred opponents needs memory for the pairs that met, not for every pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrossTable {
    /// `(a, b)` with `a < b` -> W/D/L of a against b, as 32-bit counts (saturating) to keep a
    /// large league's table small.
    pairs: HashMap<(u32, u32), [u32; 3], BuildHasherDefault<PairHasher>>,
    /// W/D/L of each bot against the whole field.
    totals: Vec<Wdl>,
}

impl CrossTable {
    /// An empty table for `n` bots.
    pub fn new(n: usize) -> Self {
        Self {
            pairs: HashMap::default(),
            totals: vec![Wdl::default(); n],
        }
    }

    /// Number of bots.
    pub fn len(&self) -> usize {
        self.totals.len()
    }

    /// Whether the field has no bots.
    pub fn is_empty(&self) -> bool {
        self.totals.is_empty()
    }

    /// Appends a bot without games and returns its index.
    pub fn add_bot(&mut self) -> usize {
        self.totals.push(Wdl::default());
        self.totals.len() - 1
    }

    fn check_pair(&self, a: usize, b: usize) -> Result<(), CrossTableError> {
        for bot in [a, b] {
            if bot >= self.len() || bot > u32::MAX as usize {
                return Err(CrossTableError::BotOutOfRange {
                    bot,
                    len: self.len(),
                });
            }
        }
        if a == b {
            return Err(CrossTableError::SameBot(a));
        }
        Ok(())
    }

    /// Records one game between `a` and `b`; `score_a` is 1 (a won), 0.5 (draw) or 0 (a lost).
    pub fn add_game(&mut self, a: usize, b: usize, score_a: f64) -> Result<(), CrossTableError> {
        let outcome =
            GameOutcome::from_score(score_a).ok_or(CrossTableError::InvalidScore(score_a))?;
        self.add_outcome(a, b, outcome)
    }

    /// Records one game between `a` and `b` with `a`'s outcome.
    pub fn add_outcome(
        &mut self,
        a: usize,
        b: usize,
        outcome_a: GameOutcome,
    ) -> Result<(), CrossTableError> {
        let mut wdl = Wdl::default();
        wdl.record(outcome_a);
        self.add_wdl(a, b, &wdl)
    }

    /// Records a batch of games: `wdl` is `a`'s W/D/L against `b`.
    pub fn add_wdl(&mut self, a: usize, b: usize, wdl: &Wdl) -> Result<(), CrossTableError> {
        self.check_pair(a, b)?;
        let (key, low_side) = if a < b {
            ((a as u32, b as u32), *wdl)
        } else {
            ((b as u32, a as u32), wdl.flipped())
        };
        let counts = self.pairs.entry(key).or_default();
        for (c, x) in counts
            .iter_mut()
            .zip([low_side.wins, low_side.draws, low_side.losses])
        {
            *c = c.saturating_add(u32::try_from(x).unwrap_or(u32::MAX));
        }
        self.totals[a].add(wdl);
        self.totals[b].add(&wdl.flipped());
        Ok(())
    }

    /// W/D/L of `a` against `b` (all zero when either index is out of range or `a == b`).
    pub fn pair(&self, a: usize, b: usize) -> Wdl {
        if a == b || a > u32::MAX as usize || b > u32::MAX as usize {
            return Wdl::default();
        }
        let key = (a.min(b) as u32, a.max(b) as u32);
        match self.pairs.get(&key) {
            Some(c) if a < b => wdl_of(c),
            Some(c) => wdl_of(c).flipped(),
            None => Wdl::default(),
        }
    }

    /// Games between `a` and `b`.
    pub fn games(&self, a: usize, b: usize) -> u64 {
        self.pair(a, b).games()
    }

    /// Points `a` scored against `b` (a draw is 1/2).
    pub fn points(&self, a: usize, b: usize) -> f64 {
        self.pair(a, b).points()
    }

    /// W/D/L of `bot` against the whole field.
    pub fn totals(&self, bot: usize) -> Wdl {
        self.totals.get(bot).copied().unwrap_or_default()
    }

    /// Every pair that met, as `(a, b, W/D/L of a against b)` with `a < b`, in an order that
    /// depends only on the games added (not ascending).
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize, Wdl)> + '_ {
        self.pairs
            .iter()
            .map(|(&(a, b), c)| (a as usize, b as usize, wdl_of(c)))
    }

    /// Number of pairs that met.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_both_directions() {
        let mut t = CrossTable::new(3);
        t.add_game(0, 1, 1.0).unwrap();
        t.add_game(1, 0, 0.5).unwrap();
        t.add_game(2, 0, 0.0).unwrap();
        t.add_wdl(1, 2, &Wdl::new(2, 1, 0)).unwrap();
        assert_eq!(t.pair(0, 1), Wdl::new(1, 1, 0));
        assert_eq!(t.pair(1, 0), Wdl::new(0, 1, 1));
        assert_eq!(t.pair(0, 2), Wdl::new(1, 0, 0));
        assert_eq!(t.games(1, 2), 3);
        assert_eq!(t.points(2, 1), 0.5);
        assert_eq!(t.totals(0), Wdl::new(2, 1, 0));
        let mut pairs: Vec<_> = t.pairs().collect();
        pairs.sort_by_key(|p| (p.0, p.1));
        assert_eq!(
            pairs,
            vec![
                (0, 1, Wdl::new(1, 1, 0)),
                (0, 2, Wdl::new(1, 0, 0)),
                (1, 2, Wdl::new(2, 1, 0))
            ]
        );
        assert_eq!(t.pair_count(), 3);
        assert_eq!(t.pair(7, 0), Wdl::default());
    }

    #[test]
    fn rejects_bad_input() {
        let mut t = CrossTable::new(2);
        assert_eq!(t.add_game(0, 0, 1.0), Err(CrossTableError::SameBot(0)));
        assert!(matches!(
            t.add_game(0, 2, 1.0),
            Err(CrossTableError::BotOutOfRange { bot: 2, len: 2 })
        ));
        assert!(matches!(
            t.add_game(0, 1, 0.7),
            Err(CrossTableError::InvalidScore(_))
        ));
        assert!(t.add_game(0, 1, f64::NAN).is_err());
        assert_eq!(t.add_bot(), 2);
        t.add_game(2, 1, 1.0).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t.totals(2), Wdl::new(1, 0, 0));
    }
}
