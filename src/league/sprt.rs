//! An SPRT inside the league (`league add DIR NEW --candidate OLD`): the pairs of games of NEW
//! against OLD (a shared seed, seats swapped) are counted as a pentanomial, and the log-likelihood
//! ratio of `arbiter sprt` (same bounds and model as its defaults: nElo 0 against 5, alpha = beta
//! = 0.05) decides; until it does, the scheduler gives their tables priority. An SPRT is a
//! stopping rule: once it decides, its verdict and counts stand, and later games of the two are
//! not counted (they could carry the LLR back inside the bounds). Pure: the ratings thread feeds
//! it the games and shows its state.

use crate::rating::{self, PairCounter, SprtModel, SprtParams};
use serde::Serialize;

/// One candidate's test.
pub struct Test {
    pub new: String,
    pub old: String,
    params: SprtParams,
    pairs: PairCounter,
    /// The verdict, once given.
    decided: Option<rating::Decision>,
}

/// What the page and `/api/standings` show of a test.
#[derive(Clone, Debug, Serialize)]
pub struct Shown {
    pub new: String,
    pub old: String,
    pub elo0: f64,
    pub elo1: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// Complete pairs counted.
    pub pairs: u64,
    /// `H1` (NEW is better by elo1), `H0` (not better than elo0), or `running`.
    pub verdict: String,
}

impl Test {
    pub fn new(new: &str, old: &str) -> Test {
        Test {
            new: new.to_string(),
            old: old.to_string(),
            params: SprtParams {
                elo0: 0.0,
                elo1: 5.0,
                alpha: 0.05,
                beta: 0.05,
                model: SprtModel::Normalized,
            },
            pairs: PairCounter::default(),
            decided: None,
        }
    }

    /// Counts a game if it is NEW against OLD.
    pub fn add(&mut self, bots: &[String], ranks: &[u8], pair_id: u64) {
        let [a, b] = bots else { return };
        let score = |mine: u8, theirs: u8| match mine.cmp(&theirs) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        };
        let of_new = if *a == self.new && *b == self.old {
            score(ranks[0], ranks[1])
        } else if *a == self.old && *b == self.new {
            score(ranks[1], ranks[0])
        } else {
            return;
        };
        if self.decided.is_some() {
            return;
        }
        self.pairs.add(pair_id, Some(of_new));
        let now = rating::decide(self.llr(), &self.params);
        if now != rating::Decision::Continue {
            self.decided = Some(now);
        }
    }

    pub fn decision(&self) -> rating::Decision {
        self.decided.unwrap_or(rating::Decision::Continue)
    }

    fn llr(&self) -> f64 {
        rating::llr_pentanomial(&self.pairs.penta, &self.params)
    }

    pub fn shown(&self) -> Shown {
        let (lower, upper) = self.params.bounds();
        Shown {
            new: self.new.clone(),
            old: self.old.clone(),
            elo0: self.params.elo0,
            elo1: self.params.elo1,
            llr: self.llr(),
            lower,
            upper,
            pairs: self.pairs.penta.pairs(),
            verdict: match self.decision() {
                rating::Decision::AcceptH1 => "H1".into(),
                rating::Decision::AcceptH0 => "H0".into(),
                rating::Decision::Continue => "running".into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_of_the_two_bots_alone_count_and_a_clear_gain_is_accepted() {
        let mut t = Test::new("new", "old");
        let (new, old, other) = ("new".to_string(), "old".to_string(), "x".to_string());
        t.add(&[new.clone(), other.clone()], &[0, 1], 0);
        t.add(&[other, new.clone()], &[1, 0], 0);
        assert_eq!(t.shown().pairs, 0);
        let mut pair = 1;
        while t.decision() == rating::Decision::Continue && pair < 10_000 {
            // NEW wins both games of 3 pairs in 4, and splits the fourth.
            let split = pair % 4 == 0;
            t.add(&[new.clone(), old.clone()], &[0, 1], pair);
            t.add(
                &[old.clone(), new.clone()],
                if split { &[0, 1] } else { &[1, 0] },
                pair,
            );
            pair += 1;
        }
        let shown = t.shown();
        assert_eq!(shown.verdict, "H1", "{shown:?}");
        assert!(shown.llr >= shown.upper);
        // Decided, it stands: later pairs (here all lost) are not counted.
        for p in pair..pair + 200 {
            t.add(&[new.clone(), old.clone()], &[1, 0], p);
            t.add(&[old.clone(), new.clone()], &[0, 1], p);
        }
        let after = t.shown();
        assert_eq!((after.verdict.as_str(), after.pairs), ("H1", shown.pairs));
        assert_eq!(after.llr, shown.llr);
    }
}
