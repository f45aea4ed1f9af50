//! Plackett-Luce ratings for games of more than two seats, fitted by maximum likelihood over the
//! finishing orders, with a pairwise cross table derived from them.
//!
//! A Bradley-Terry fit of pairwise results would count a four-player game as six independent
//! games; the Plackett-Luce model reads the finishing order as one observation instead.
//!
//! **Model.** Bot i has strength `beta_i` (`gamma_i = exp(beta_i)`). A finishing order is drawn
//! place by place: the first is bot i with probability `gamma_i / sum of gamma over all seats`,
//! the second likewise among the rest, and so on. Ratings are `400 / ln 10 * beta` (Elo scale),
//! centred or anchored as for Bradley-Terry, so a two-seat game is exactly a Bradley-Terry game.
//!
//! **Ties** (equal ranks; partners in a team share their team's place, which makes them tied
//! with each other). A tied group counts as every order of its members with equal weight: its
//! log-likelihood is the average over those orders (each order is a fractional observation of
//! weight 1/t! for t tied bots). For two bots this is exactly "a draw is half a win and half a
//! loss", the Bradley-Terry rule, so k = 2 gives today's ratings. The average needs no t!
//! enumeration: a group G (t bots) above the set B of lower-placed bots contributes
//! `sum_{i in G} beta_i - sum_{r=1..t} C(t, r)^-1 sum_{R in G, |R| = r} ln(gamma(R) + gamma(B))`,
//! since after s of the group are placed the rest is a uniformly random r = t - s subset. Tie
//! groups are limited to [`MAX_TIED`] bots. (Davidson-Luce would add a tie parameter and would
//! not reduce to the Bradley-Terry draw rule, which is why it is not used.)
//!
//! **Perfect records, intervals, LOS.** As for Bradley-Terry (see [`crate::rating::field`]),
//! with the cross table derived from the orders: every pair of seats in a game is a pairwise
//! game, won by the better-placed bot, a draw when tied. Where that table shows a bot or group
//! that was never placed at or below the rest (or never at or above it), the plain fit has no
//! finite solution, and the same virtual draws are added as pairwise Bradley-Terry terms.
//! The W/D/L and points in the ratings are those pairwise counts.

use crate::rating::bradley_terry::PairLikelihood;
use crate::rating::cross_table::CrossTable;
use crate::rating::elo::GameOutcome;
use crate::rating::field::{finish, FieldFit};
use crate::rating::options::FitOptions;
use crate::rating::prior::{pair_terms, plan};
use crate::rating::solver::{maximise, Laplacian, Likelihood};

/// Largest group of bots tied on one place.
pub const MAX_TIED: usize = 12;

const MODEL: &str = "Plackett-Luce maximum likelihood of the finishing orders (a tie counts as every order of the tied bots with equal weight; partners share their team's place); Newton's method with sparse conjugate-gradient steps";

/// One game's result: the bots by seat and their places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankedGame {
    /// Field index of the bot in each seat.
    pub bots: Vec<usize>,
    /// Place of each seat, 0 = first; equal places are ties.
    pub ranks: Vec<u8>,
}

/// Why games could not be rated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlackettLuceError {
    #[error("game {game}: {bots} bots but {ranks} ranks")]
    LengthMismatch {
        game: usize,
        bots: usize,
        ranks: usize,
    },
    #[error("game {game} has {seats} seat(s); a ranking needs at least 2")]
    TooFewSeats { game: usize, seats: usize },
    #[error("game {game}: bot index {bot} is out of range for a field of {len} bots")]
    BotOutOfRange { game: usize, bot: usize, len: usize },
    #[error("game {game}: bot {bot} holds two seats")]
    RepeatedBot { game: usize, bot: usize },
    #[error("game {game}: {tied} bots tied on one place; at most {MAX_TIED} are supported")]
    TooManyTied { game: usize, tied: usize },
}

fn check(n_bots: usize, games: &[RankedGame]) -> Result<(), PlackettLuceError> {
    for (k, g) in games.iter().enumerate() {
        if g.bots.len() != g.ranks.len() {
            return Err(PlackettLuceError::LengthMismatch {
                game: k,
                bots: g.bots.len(),
                ranks: g.ranks.len(),
            });
        }
        if g.bots.len() < 2 {
            return Err(PlackettLuceError::TooFewSeats {
                game: k,
                seats: g.bots.len(),
            });
        }
        for (s, &b) in g.bots.iter().enumerate() {
            if b >= n_bots {
                return Err(PlackettLuceError::BotOutOfRange {
                    game: k,
                    bot: b,
                    len: n_bots,
                });
            }
            if g.bots[..s].contains(&b) {
                return Err(PlackettLuceError::RepeatedBot { game: k, bot: b });
            }
        }
        for &r in &g.ranks {
            let tied = g.ranks.iter().filter(|&&x| x == r).count();
            if tied > MAX_TIED {
                return Err(PlackettLuceError::TooManyTied { game: k, tied });
            }
        }
    }
    Ok(())
}

/// The pairwise cross table of the games: each pair of seats is one game, won by the
/// better-placed bot, drawn when they share a place.
pub fn cross_table(n_bots: usize, games: &[RankedGame]) -> Result<CrossTable, PlackettLuceError> {
    check(n_bots, games)?;
    let mut table = CrossTable::new(n_bots);
    for g in games {
        for s in 0..g.bots.len() {
            for t in s + 1..g.bots.len() {
                let outcome = match g.ranks[s].cmp(&g.ranks[t]) {
                    std::cmp::Ordering::Less => GameOutcome::Win,
                    std::cmp::Ordering::Equal => GameOutcome::Draw,
                    std::cmp::Ordering::Greater => GameOutcome::Loss,
                };
                table
                    .add_outcome(g.bots[s], g.bots[t], outcome)
                    .expect("checked above");
            }
        }
    }
    Ok(table)
}

/// The Plackett-Luce log-likelihood, as `sum_i linear_i beta_i - sum_k w_k ln sum_{j in T_k}
/// gamma_j` (plus the virtual-draw pair terms).
struct RankLikelihood {
    linear: Vec<f64>,
    weights: Vec<f64>,
    /// Term k's bots are `members[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    members: Vec<u32>,
    prior: PairLikelihood,
}

fn binomial(t: usize, r: usize) -> f64 {
    (0..r).fold(1.0, |acc, k| acc * (t - k) as f64 / (k + 1) as f64)
}

impl RankLikelihood {
    fn new(games: &[RankedGame], local: &[usize], prior: PairLikelihood) -> RankLikelihood {
        let mut lik = RankLikelihood {
            linear: vec![0.0; prior.m],
            weights: Vec::new(),
            starts: vec![0],
            members: Vec::new(),
            prior,
        };
        for g in games {
            // A game's bots are all linked to each other, so all or none are fitted.
            if g.bots.iter().any(|&b| local[b] == usize::MAX) {
                continue;
            }
            let mut places: Vec<u8> = g.ranks.clone();
            places.sort_unstable();
            places.dedup();
            for (p, &place) in places.iter().enumerate() {
                let group: Vec<u32> = (0..g.bots.len())
                    .filter(|&s| g.ranks[s] == place)
                    .map(|s| local[g.bots[s]] as u32)
                    .collect();
                let below: Vec<u32> = (0..g.bots.len())
                    .filter(|&s| places[p + 1..].contains(&g.ranks[s]))
                    .map(|s| local[g.bots[s]] as u32)
                    .collect();
                for &b in &group {
                    lik.linear[b as usize] += 1.0;
                }
                let t = group.len();
                for mask in 1u32..(1 << t) {
                    let r = mask.count_ones() as usize;
                    lik.weights.push(1.0 / binomial(t, r));
                    lik.members
                        .extend((0..t).filter(|&b| mask & (1 << b) != 0).map(|b| group[b]));
                    lik.members.extend(&below);
                    lik.starts.push(lik.members.len());
                }
            }
        }
        lik
    }

    fn terms(&self) -> impl Iterator<Item = (f64, &[u32])> + '_ {
        self.weights
            .iter()
            .enumerate()
            .map(|(k, &w)| (w, &self.members[self.starts[k]..self.starts[k + 1]]))
    }
}

/// `ln sum exp(beta_j)` over `set`, and the largest beta (for the softmax).
fn log_sum_exp(beta: &[f64], set: &[u32]) -> (f64, f64) {
    let top = set
        .iter()
        .map(|&j| beta[j as usize])
        .fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = set.iter().map(|&j| (beta[j as usize] - top).exp()).sum();
    (top + sum.ln(), top)
}

impl Likelihood for RankLikelihood {
    fn len(&self) -> usize {
        self.linear.len()
    }

    fn value(&self, beta: &[f64]) -> f64 {
        let linear: f64 = self.linear.iter().zip(beta).map(|(c, b)| c * b).sum();
        let norm: f64 = self
            .terms()
            .map(|(w, set)| w * log_sum_exp(beta, set).0)
            .sum();
        linear - norm + self.prior.add_value(beta)
    }

    fn gradient(&self, beta: &[f64]) -> Vec<f64> {
        let mut grad = self.linear.clone();
        for (w, set) in self.terms() {
            let (lse, _) = log_sum_exp(beta, set);
            for &j in set {
                grad[j as usize] -= w * (beta[j as usize] - lse).exp();
            }
        }
        self.prior.add_gradient(beta, &mut grad);
        grad
    }

    fn fisher(&self, beta: &[f64]) -> Laplacian {
        let mut edges = Vec::new();
        let mut p = Vec::new();
        for (w, set) in self.terms() {
            let (lse, _) = log_sum_exp(beta, set);
            p.clear();
            p.extend(set.iter().map(|&j| (beta[j as usize] - lse).exp()));
            for a in 0..set.len() {
                for b in a + 1..set.len() {
                    edges.push((set[a], set[b], w * p[a] * p[b]));
                }
            }
        }
        self.prior.add_edges(beta, &mut edges);
        Laplacian::from_edges(self.linear.len(), edges)
    }
}

/// Fits the games with default options.
pub fn fit(n_bots: usize, games: &[RankedGame]) -> Result<FieldFit, PlackettLuceError> {
    fit_with(n_bots, games, &FitOptions::default())
}

/// Fits the games; see the module documentation for the model. The ratings' W/D/L are those of
/// [`cross_table`].
pub fn fit_with(
    n_bots: usize,
    games: &[RankedGame],
    options: &FitOptions,
) -> Result<FieldFit, PlackettLuceError> {
    let table = cross_table(n_bots, games)?;
    let plan = plan(&table, options);
    let prior = PairLikelihood {
        m: plan.main.len(),
        terms: pair_terms(&table, &plan, false),
    };
    let lik = RankLikelihood::new(games, &plan.local, prior);
    let tolerance = options.tolerance.max(1e-13 * plan.most_games);
    let solution = maximise(&lik, tolerance, options.max_iterations);
    let fisher = lik.fisher(&solution.beta);
    Ok(finish(&table, options, plan, solution, &fisher, MODEL))
}

#[cfg(test)]
#[path = "plackett_luce_tests.rs"]
mod tests;
