//! The statistics of a field's games as they stream in: the pairwise cross-table derived from
//! each game's ranking, the games each bot played, the rankings of games of more than two seats
//! (for Plackett-Luce), the match of the first two bots counted in pairs, and the fit that
//! suits the field. One owner for what the standings, `ratings` and the report show; the reading
//! of files and the names of bots stay with the caller.

use super::{bradley_terry, plackett_luce, CrossTable, CrossTableError, FieldFit, FitOptions};
use super::{PairCounter, PlackettLuceError};

/// Games of a field, counted as they come.
#[derive(Clone, Debug, Default)]
pub struct FieldRecord {
    pub table: CrossTable,
    /// Games each bot played (a game of k seats counts once, though it gives k - 1 pairwise
    /// results).
    pub played: Vec<u64>,
    /// The most seats of any game.
    pub seats: usize,
    /// The match of bots 0 and 1, seen from bot 0 (games between them only).
    pub duel: PairCounter,
    /// Rankings of the games of three or more seats.
    ranked: Vec<plackett_luce::RankedGame>,
}

/// Why a game cannot be counted.
#[derive(Debug, thiserror::Error)]
pub enum CountError {
    #[error("bot {0} sits twice in one game")]
    SeatsTwice(usize),
    #[error("a game's ranks ({ranks}) do not match its {seats} seats")]
    Ranks { ranks: usize, seats: usize },
    #[error(transparent)]
    Table(#[from] CrossTableError),
    #[error(transparent)]
    Fit(#[from] PlackettLuceError),
}

/// Half a point for a tie, one for the better rank.
fn score(a: u8, b: u8) -> f64 {
    match a.cmp(&b) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

impl FieldRecord {
    /// A record of `bots` bots (more are added as games name them).
    pub fn new(bots: usize) -> FieldRecord {
        FieldRecord {
            table: CrossTable::new(bots),
            played: vec![0; bots],
            ..FieldRecord::default()
        }
    }

    /// Counts one game: `bots` by seat, their `ranks` (0 = first, equal = tie), and the pair
    /// (table round) it belongs to, if known.
    pub fn add(
        &mut self,
        bots: &[usize],
        ranks: &[u8],
        pair: Option<u64>,
    ) -> Result<(), CountError> {
        if ranks.len() != bots.len() {
            return Err(CountError::Ranks {
                ranks: ranks.len(),
                seats: bots.len(),
            });
        }
        for (i, &a) in bots.iter().enumerate() {
            if bots[..i].contains(&a) {
                return Err(CountError::SeatsTwice(a));
            }
        }
        let most = bots.iter().copied().max().map_or(0, |m| m + 1);
        while self.table.len() < most {
            self.table.add_bot();
        }
        if self.played.len() < most {
            self.played.resize(most, 0);
        }
        self.seats = self.seats.max(bots.len());
        for &b in bots {
            self.played[b] += 1;
        }
        if bots.len() > 2 {
            self.ranked.push(plackett_luce::RankedGame {
                bots: bots.to_vec(),
                ranks: ranks.to_vec(),
            });
        }
        for i in 0..bots.len() {
            for j in i + 1..bots.len() {
                self.table
                    .add_game(bots[i], bots[j], score(ranks[i], ranks[j]))?;
            }
        }
        if let [a, b] = bots[..] {
            if a + b == 1 {
                let first = if a == 0 {
                    score(ranks[0], ranks[1])
                } else {
                    score(ranks[1], ranks[0])
                };
                // Games without a pair id are pairs of one.
                let pair = pair.unwrap_or(u64::MAX - self.duel.wdl.games());
                self.duel.add(pair, Some(first));
            }
        }
        Ok(())
    }

    /// Fits the field: Bradley-Terry on the cross-table for two seats, Plackett-Luce on the
    /// rankings for more (the same model for two seats).
    pub fn fit(&self, options: &FitOptions) -> Result<FieldFit, CountError> {
        Ok(if self.seats > 2 {
            plackett_luce::fit_with(self.table.len(), &self.ranked, options)?
        } else {
            bradley_terry::fit_field(&self.table, options)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_four_seat_game_counts_once_per_bot_and_pairwise_in_the_table() {
        let mut r = FieldRecord::new(0);
        r.add(&[3, 1, 0, 2], &[0, 1, 1, 3], Some(0)).unwrap();
        assert_eq!(r.played, vec![1, 1, 1, 1]);
        assert_eq!(r.seats, 4);
        assert_eq!(r.table.points(3, 1), 1.0);
        assert_eq!(r.table.points(1, 0), 0.5, "a tie");
        assert_eq!(r.table.points(2, 0), 0.0);
        assert_eq!(r.duel.wdl.games(), 0, "no two-bot match here");
        assert!(matches!(
            r.add(&[1, 1], &[0, 1], None),
            Err(CountError::SeatsTwice(1))
        ));
        assert!(r.add(&[0, 1], &[0], None).is_err());
    }

    #[test]
    fn the_first_two_bots_match_is_counted_in_pairs() {
        let mut r = FieldRecord::new(2);
        r.add(&[0, 1], &[0, 1], Some(5)).unwrap();
        r.add(&[1, 0], &[0, 0], Some(5)).unwrap();
        assert_eq!(r.duel.penta.pairs(), 1);
        assert_eq!((r.duel.wdl.wins, r.duel.wdl.draws), (1, 1));
        let fit = r.fit(&FitOptions::default()).unwrap();
        assert!(fit.ratings[0].rating.finite().unwrap() > fit.ratings[1].rating.finite().unwrap());
    }
}
