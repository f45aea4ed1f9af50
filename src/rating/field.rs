//! The rated field: the result types every field fit returns ([`FieldFit`]) and the steps the
//! Bradley-Terry and Plackett-Luce fits share around their likelihoods.
//!
//! **Who is rated.** Bots linked by games form groups; the largest group (ties: the anchor's,
//! then the one with the lowest bot index) is fitted. Bots without games, or in another group,
//! have no rating relative to it and are `Unrated`, with a note.
//!
//! **Perfect scores.** The maximum-likelihood ratings are finite only when every split of the
//! group into two parts finds each part scoring at least half a point against the other (the
//! "scored against" graph is strongly connected). When that holds, the fit is the plain maximum
//! likelihood. When it fails (a bot or a group won or lost every game against the rest), every
//! bot is given `prior_draws` virtual draws (default 2), spread over its opponents in proportion
//! to the games it played against each, as BayesElo's prior does: pair (i, j) gets
//! `prior_draws / 2 * g_ij * (1 / G_i + 1 / G_j)` draws, `G` a bot's games. All ratings are then
//! finite, and since the prior treats bots with equal records alike, a bot that beat another in
//! every game between them, with the rest of their records equal, is rated above it. Ordo
//! instead drops such bots from the fit and reports a floor or ceiling; that leaves bots without
//! a rating and lets bounds be ordered against the games, which is why it is not used here.
//!
//! **Intervals.** 95% Wald intervals `elo ± z se` from the observed information `F` at the
//! optimum. For fields of up to [`DENSE_LIMIT`] fitted bots the covariance is exact (the
//! pseudo-inverse of `F` when centred on the mean: errors relative to the field average; the
//! inverse without the anchor's row and column when anchored: errors relative to the anchor,
//! whose own error is 0, Ordo's convention), and the LOS matrix
//! `los[i][j] = Phi((elo_i - elo_j) / sd(elo_i - elo_j))` is filled. Larger fields use the
//! sparse approximation of `solver::approx_variances` (linear time and memory) and, instead of
//! the LOS matrix, the LOS of each bot over the next one in the ranking (`los_next`).

use crate::rating::cross_table::CrossTable;
use crate::rating::elo::{fmt_elo, normal_cdf, Z95};
use crate::rating::note::FitNote;
use crate::rating::options::FitOptions;
use crate::rating::prior::FitPlan;
use crate::rating::solver::{
    approx_covariance, approx_variances, dense_covariance, mixing, Laplacian, Solution,
};
use serde::Serialize;
use std::f64::consts::LN_10;
use std::fmt;

/// Elo per natural-log unit of strength.
pub const ELO_PER_NAT: f64 = 400.0 / LN_10;

/// Largest fitted group with an exact covariance and a LOS matrix.
pub const DENSE_LIMIT: usize = 400;

/// A bot's rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum RatingValue {
    /// A finite rating.
    Finite(f64),
    /// No games, or no games linking the bot to the rated field.
    Unrated,
}

impl RatingValue {
    /// The rating if it is finite.
    pub fn finite(&self) -> Option<f64> {
        match *self {
            RatingValue::Finite(x) => Some(x),
            RatingValue::Unrated => None,
        }
    }
}

impl fmt::Display for RatingValue {
    /// `"+12.34"` or `"n/a"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RatingValue::Finite(x) => f.write_str(&fmt_elo(x)),
            RatingValue::Unrated => f.write_str("n/a"),
        }
    }
}

/// One bot's line in the rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotRating {
    /// Index of the bot in the field.
    pub bot: usize,
    pub rating: RatingValue,
    /// Lower end of the 95% interval (-inf when unrated).
    pub low: f64,
    /// Upper end of the 95% interval (+inf when unrated).
    pub high: f64,
    /// Standard error in Elo, for a finite rating.
    pub std_error: Option<f64>,
    /// Games (pairwise games for rankings of more than two seats; likewise below).
    pub games: u64,
    pub points: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points per game, `None` without games.
    pub score: Option<f64>,
}

/// The rated field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldFit {
    /// One entry per bot, in field order.
    pub ratings: Vec<BotRating>,
    /// `los[i][j]` = P(elo_i > elo_j); `None` on the diagonal and where a bot is unrated.
    /// Empty for fields of more than [`DENSE_LIMIT`] bots (see `los_next`).
    pub los: Vec<Vec<Option<f64>>>,
    /// Per bot: P(elo > elo of the next bot in [`FieldFit::ranking`]); `None` for the last
    /// rated bot and unrated bots.
    pub los_next: Vec<Option<f64>>,
    /// How the ratings and intervals were computed.
    pub method: String,
    /// One line saying how perfect scores were handled in this field.
    pub perfect_scores: FitNote,
    /// Virtual draws per bot when a prior was applied.
    pub prior_draws: Option<f64>,
    /// The bots with finite ratings (the fitted group), ascending.
    pub fitted: Vec<usize>,
    /// Newton iterations used.
    pub iterations: usize,
    /// Whether the optimum was reached within the tolerance.
    pub converged: bool,
    /// Largest |expected - actual| points among fitted bots at the end (virtual draws included).
    pub max_residual: f64,
    /// Whether the anchor was applied (it must be a fitted bot).
    pub anchored: bool,
    /// Plain-language notes on unrated bots, the anchor, convergence.
    pub warnings: Vec<FitNote>,
}

impl FieldFit {
    /// Bot indices best first: rated bots by rating (equal ratings by score), then unrated
    /// bots by index.
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<&BotRating> = self.ratings.iter().collect();
        order.sort_by(|a, b| match (a.rating, b.rating) {
            (RatingValue::Finite(x), RatingValue::Finite(y)) => y
                .total_cmp(&x)
                .then(b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0))),
            (RatingValue::Finite(_), RatingValue::Unrated) => std::cmp::Ordering::Less,
            (RatingValue::Unrated, RatingValue::Finite(_)) => std::cmp::Ordering::Greater,
            (RatingValue::Unrated, RatingValue::Unrated) => a.bot.cmp(&b.bot),
        });
        order.into_iter().map(|r| r.bot).collect()
    }
}

/// Turns the solution over the fitted group into the field's ratings, intervals and LOS.
pub(crate) fn finish(
    table: &CrossTable,
    options: &FitOptions,
    plan: FitPlan,
    solution: Solution,
    fisher: &Laplacian,
    model: &str,
) -> FieldFit {
    let n = table.len();
    let main = &plan.main;
    let m = main.len();
    let mut warnings = Vec::new();
    let anchor_local = options
        .anchor
        .and_then(|(b, elo)| (b < n && plan.local[b] != usize::MAX).then(|| (plan.local[b], elo)));
    let anchored = anchor_local.is_some();
    if let (Some((b, _)), false) = (options.anchor, anchored) {
        warnings.push(
            FitNote::text("anchor ").then_bot(b).then(
                " has no rating (or does not exist): ratings are centred on their mean instead",
            ),
        );
    }
    if m > 0 && !solution.converged {
        warnings.push(FitNote::text(format!(
            "the fit stopped after {} iterations with a residual of {:.3e} points",
            solution.iterations, solution.residual
        )));
    }
    let beta = &solution.beta;
    let reference = match anchor_local {
        Some((k, _)) => beta[k],
        None if m == 0 => 0.0,
        None => beta.iter().sum::<f64>() / m as f64,
    };
    let offset = anchor_local.map_or(0.0, |(_, elo)| elo);
    let dense = m <= DENSE_LIMIT;

    // Variances: the displayed ones (relative to the mean or the anchor) and the centred ones
    // used for LOS (differences do not depend on the reference).
    let (covariance, shown_var, centred_var) = if dense {
        let centred = dense_covariance(fisher, None);
        let shown = match anchor_local {
            Some((k, _)) => dense_covariance(fisher, Some(k)),
            None => centred.clone(),
        };
        let diag =
            |c: &Option<Vec<Vec<f64>>>| c.as_ref().map(|c| (0..m).map(|k| c[k][k]).collect());
        (centred.clone(), diag(&shown), diag(&centred))
    } else {
        let lambda = mixing(fisher, 60);
        let reach = lambda.powi(3) / (1.0 - lambda).max(1e-9);
        if reach > 0.1 {
            warnings.push(FitNote::text(format!(
                "the approximate intervals may be too narrow: the field is made of groups that rarely meet (second eigenvalue {lambda:.2}; neglected terms up to about {:.0}% of a variance)",
                100.0 * reach.min(10.0)
            )));
        }
        let var = approx_variances(fisher);
        let shown = match anchor_local {
            Some((a, _)) => (0..m)
                .map(|k| {
                    if k == a {
                        0.0
                    } else {
                        var[k] + var[a] - 2.0 * approx_covariance(fisher, k, a)
                    }
                })
                .collect(),
            None => var.clone(),
        };
        (None, Some(shown), Some(var))
    };
    let pair_var = |a: usize, b: usize| -> Option<f64> {
        match &covariance {
            Some(c) => Some(c[a][a] + c[b][b] - 2.0 * c[a][b]),
            None if !dense => centred_var
                .as_ref()
                .map(|v| v[a] + v[b] - 2.0 * approx_covariance(fisher, a, b)),
            None => None,
        }
    };
    let los_of = |a: usize, b: usize| -> Option<f64> {
        let diff = ELO_PER_NAT * (beta[a] - beta[b]);
        let var = ELO_PER_NAT * ELO_PER_NAT * pair_var(a, b)?;
        Some(if var > 0.0 && var.is_finite() {
            normal_cdf(diff / var.sqrt())
        } else if diff > 0.0 {
            1.0
        } else if diff < 0.0 {
            0.0
        } else {
            0.5
        })
    };

    let ratings: Vec<BotRating> = (0..n)
        .map(|i| {
            let t = table.totals(i);
            let k = plan.local[i];
            let (rating, std_error) = if k == usize::MAX {
                if t.games() == 0 {
                    warnings.push(FitNote::bot(i).then(" played no games: unrated"));
                } else {
                    warnings.push(
                        FitNote::bot(i)
                            .then(" is not linked to the rated field by its games: unrated"),
                    );
                }
                (RatingValue::Unrated, None)
            } else {
                let elo = ELO_PER_NAT * (beta[k] - reference) + offset;
                let se = shown_var
                    .as_ref()
                    .map(|v| ELO_PER_NAT * v[k].max(0.0).sqrt());
                (RatingValue::Finite(elo), se)
            };
            let (low, high) = match (rating, std_error) {
                (RatingValue::Finite(x), Some(se)) => (x - Z95 * se, x + Z95 * se),
                _ => (f64::NEG_INFINITY, f64::INFINITY),
            };
            BotRating {
                bot: i,
                rating,
                low,
                high,
                std_error,
                games: t.games(),
                points: t.points(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                score: t.score(),
            }
        })
        .collect();

    let mut los = Vec::new();
    if dense && n <= DENSE_LIMIT {
        los = vec![vec![None; n]; n];
        for (a, &i) in main.iter().enumerate() {
            for (b, &j) in main.iter().enumerate() {
                if a != b {
                    los[i][j] = los_of(a, b);
                }
            }
        }
    }
    let intervals = if dense {
        "95% Wald intervals from the inverse observed information"
    } else {
        "95% Wald intervals from a sparse approximation of the inverse observed information (own and opponents' information; the exact inverse is too costly above 400 bots)"
    };
    let los_text = if los.is_empty() && m > 1 {
        "; LOS of each bot over the next in the ranking instead of a matrix (over 400 bots)"
    } else {
        ""
    };
    let mut fit = FieldFit {
        ratings,
        los,
        los_next: vec![None; n],
        method: format!("{model}; {intervals}{los_text}"),
        perfect_scores: plan.perfect_scores,
        prior_draws: plan.prior,
        fitted: main.clone(),
        iterations: solution.iterations,
        converged: solution.converged,
        max_residual: solution.residual,
        anchored,
        warnings,
    };
    let ranked: Vec<usize> = fit
        .ranking()
        .into_iter()
        .filter(|&i| plan.local[i] != usize::MAX)
        .collect();
    for w in ranked.windows(2) {
        fit.los_next[w[0]] = los_of(plan.local[w[0]], plan.local[w[1]]);
    }
    fit
}
