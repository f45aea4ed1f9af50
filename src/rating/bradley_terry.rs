//! Joint Bradley-Terry ratings for a field of bots, fitted by maximum likelihood as Ordo does.
//!
//! Per-pair "one bot against the field" Elo is wrong for three or more bots; this module rates the
//! whole field at once.
//!
//! **Model.** Bot i has strength `beta_i` (natural log scale); it scores against j with probability
//! `1 / (1 + exp(beta_j - beta_i))`, and a draw counts as half a win and half a loss. Ratings are
//! `elo_i = 400 / ln 10 * beta_i`, so a 400-Elo gap is 10:1 odds. The maximum-likelihood equations
//! say each bot's expected points against its actual opponents equal its actual points. Ratings
//! are centred on mean 0 over the fitted bots, or shifted so that an anchor bot has a given Elo.
//!
//! **Solver.** Newton-Raphson on the concave log-likelihood with one bot held at 0 (the reduced
//! Fisher matrix is then positive definite), a backtracking line search, stopping when no bot's
//! expected points differ from its actual points by more than the tolerance (default 1e-10 points,
//! never below 1e-13 times the largest bot's game count) or after the iteration cap (default 100).
//! Should Newton fail, Hunter's MM (Zermelo) iteration takes over from where it stopped.
//!
//! **Intervals.** 95% Wald intervals `elo ± z * se` from the inverse of the observed Fisher
//! information `F` (minus the Hessian of the log-likelihood) at the optimum. `F` is singular along
//! the all-ones direction (only differences are identified), so the constraint chooses the inverse:
//! centred on the mean, the covariance is the Moore-Penrose pseudo-inverse
//! `(F + J/m)^-1 - J/m` (J the all-ones matrix, m fitted bots), i.e. errors relative to the field
//! average; with an anchor, it is the inverse of `F` without the anchor's row and column, i.e.
//! errors relative to the anchor, whose own error is 0 (Ordo's convention). The LOS matrix is
//! `los[i][j] = Phi((elo_i - elo_j) / sd(elo_i - elo_j))`, which does not depend on the constraint.
//! No bootstrap is used, so the fit is deterministic.
//!
//! **No finite MLE.** A finite optimum exists only among bots whose "scored a point against" graph
//! is strongly connected. The fit therefore takes the largest strongly connected group (ties: the
//! anchor's, then the lowest index). A bot outside it that never lost a point to it is rated
//! `RatingValue::AtLeast(floor)` and one that never took a point from it `AtMost(ceiling)`, with
//! Ordo's rule: the bound is the rating that would give the bot's score against the rated bots
//! with one win (or loss) turned into a draw, holding their ratings fixed (bounded bots that were
//! swept by, or swept, such a bot get bounds in turn from its bound). Its interval is
//! `[floor, +inf]` or `[-inf, ceiling]`. A bot without games, or not connected to the fitted group
//! in that way (a disconnected group), is `Unrated` with interval `[-inf, +inf]`. LOS entries are
//! `None` on the diagonal and for any pair involving a bot without a finite rating. Nothing here
//! panics or produces NaN.

use crate::rating::bt_solver::{covariance, fit_group};
use crate::rating::cross_table::CrossTable;
use crate::rating::elo::{elo_to_score, fmt_elo, normal_cdf, Z95};
use crate::rating::roots::bisect_monotone;
use serde::Serialize;
use std::f64::consts::LN_10;
use std::fmt;

/// Elo per natural-log unit of strength.
const ELO_PER_NAT: f64 = 400.0 / LN_10;

/// A bot's rating, or the bound that is all the data allow.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum RatingValue {
    /// A finite maximum-likelihood rating.
    Finite(f64),
    /// No finite MLE, the bot was never beaten by the rated field: at least this.
    AtLeast(f64),
    /// No finite MLE, the bot never scored against the rated field: at most this.
    AtMost(f64),
    /// No games, or no games linking the bot to the rated field.
    Unrated,
}

impl RatingValue {
    /// The rating if it is finite.
    pub fn finite(&self) -> Option<f64> {
        match *self {
            RatingValue::Finite(x) => Some(x),
            _ => None,
        }
    }
}

impl fmt::Display for RatingValue {
    /// `"+12.34"`, `">+400.00"`, `"<-400.00"` or `"n/a"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RatingValue::Finite(x) => f.write_str(&fmt_elo(x)),
            RatingValue::AtLeast(x) => write!(f, ">{}", fmt_elo(x)),
            RatingValue::AtMost(x) => write!(f, "<{}", fmt_elo(x)),
            RatingValue::Unrated => f.write_str("n/a"),
        }
    }
}

/// One bot's line in the rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotRating {
    /// Index of the bot in the cross table.
    pub bot: usize,
    pub rating: RatingValue,
    /// Lower end of the 95% interval (-inf when unbounded).
    pub low: f64,
    /// Upper end of the 95% interval (+inf when unbounded).
    pub high: f64,
    /// Standard error in Elo, for a finite rating.
    pub std_error: Option<f64>,
    pub games: u64,
    pub points: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points per game, `None` without games.
    pub score: Option<f64>,
}

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FitOptions {
    /// `(bot, elo)`: fix this bot's rating; `None` centres the fitted bots on mean 0.
    pub anchor: Option<(usize, f64)>,
    /// Largest accepted |expected - actual| points of any bot.
    pub tolerance: f64,
    /// Newton iteration cap.
    pub max_iterations: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            anchor: None,
            tolerance: 1e-10,
            max_iterations: 100,
        }
    }
}

/// The rated field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldFit {
    /// One entry per bot, in cross-table order.
    pub ratings: Vec<BotRating>,
    /// `los[i][j]` = P(elo_i > elo_j); `None` on the diagonal and where a rating is not finite.
    pub los: Vec<Vec<Option<f64>>>,
    /// How the ratings and intervals were computed.
    pub method: &'static str,
    /// The bots with finite ratings (the fitted group), ascending.
    pub fitted: Vec<usize>,
    /// Newton (or MM) iterations used.
    pub iterations: usize,
    /// Whether the optimum was reached within the tolerance.
    pub converged: bool,
    /// Largest |expected - actual| points among fitted bots at the end.
    pub max_residual: f64,
    /// Whether the anchor was applied (it must be a fitted bot).
    pub anchored: bool,
    /// Plain-language notes on bounds, unrated bots, the anchor, convergence.
    pub warnings: Vec<String>,
}

impl FieldFit {
    /// Bot indices best first: `AtLeast` bots by floor, then finite ratings, then `AtMost` bots,
    /// then unrated bots by index; equal values by score.
    pub fn ranking(&self) -> Vec<usize> {
        let key = |r: &BotRating| match r.rating {
            RatingValue::AtLeast(x) => (0, -x),
            RatingValue::Finite(x) => (1, -x),
            RatingValue::AtMost(x) => (2, -x),
            RatingValue::Unrated => (3, r.bot as f64),
        };
        let mut order: Vec<&BotRating> = self.ratings.iter().collect();
        // Equal bounds (bots outside the rated group) are told apart by their score.
        order.sort_by(|a, b| {
            let (ka, kb) = (key(a), key(b));
            let score = |r: &BotRating| -r.score.unwrap_or(0.0);
            ka.0.cmp(&kb.0)
                .then(ka.1.total_cmp(&kb.1))
                .then(score(a).total_cmp(&score(b)))
        });
        order.into_iter().map(|r| r.bot).collect()
    }
}

const METHOD_NEWTON: &str = "Bradley-Terry maximum likelihood (Newton-Raphson); 95% Wald intervals from the inverse observed Fisher information";
const METHOD_MM: &str = "Bradley-Terry maximum likelihood (MM iteration after Newton failed); 95% Wald intervals from the inverse observed Fisher information";

/// Fits the field with default options and an optional anchor `(bot, elo)`.
pub fn fit(table: &CrossTable, anchor: Option<(usize, f64)>) -> FieldFit {
    fit_field(
        table,
        &FitOptions {
            anchor,
            ..FitOptions::default()
        },
    )
}

/// Fits the field; see the module documentation for the method.
pub fn fit_field(table: &CrossTable, options: &FitOptions) -> FieldFit {
    let n = table.len();
    let games: Vec<Vec<f64>> = table
        .games_matrix()
        .into_iter()
        .map(|row| row.into_iter().map(|g| g as f64).collect())
        .collect();
    let points = table.points_matrix();
    let scored = |i: usize, j: usize| games[i][j] > 0.0 && points[i][j] > 0.0;
    let reach = reachability(n, scored);
    let active: Vec<bool> = (0..n).map(|i| table.totals(i).games() > 0).collect();
    let mut warnings = Vec::new();

    // Strongly connected groups of active bots, and the one to fit.
    let anchor_bot = options.anchor.map(|(b, _)| b);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut grouped = vec![false; n];
    for i in (0..n).filter(|&i| active[i]) {
        if !grouped[i] {
            let members: Vec<usize> = (0..n)
                .filter(|&j| active[j] && reach[i][j] && reach[j][i])
                .collect();
            members.iter().for_each(|&j| grouped[j] = true);
            groups.push(members);
        }
    }
    let main: Vec<usize> = groups
        .iter()
        .max_by_key(|g| {
            let has_anchor = anchor_bot.is_some_and(|a| g.contains(&a));
            (g.len(), has_anchor, std::cmp::Reverse(g[0]))
        })
        .cloned()
        .unwrap_or_default();

    // Fit the main group.
    let sub = |m: &Vec<Vec<f64>>| -> Vec<Vec<f64>> {
        main.iter()
            .map(|&i| main.iter().map(|&j| m[i][j]).collect())
            .collect()
    };
    let group = fit_group(
        &sub(&games),
        &sub(&points),
        options.tolerance,
        options.max_iterations,
    );
    let anchor_local = options
        .anchor
        .and_then(|(b, elo)| main.iter().position(|&x| x == b).map(|k| (k, elo)));
    let anchored = anchor_local.is_some();
    if let (Some((b, _)), false) = (options.anchor, anchored) {
        warnings.push(format!(
            "anchor bot {b} has no finite rating (or does not exist): ratings are centred on their mean instead"
        ));
    }
    if !main.is_empty() && !group.converged {
        warnings.push(format!(
            "the fit stopped after {} iterations with a residual of {:.3e} points",
            group.iterations, group.residual
        ));
    }
    let reference = match anchor_local {
        Some((k, _)) => group.beta[k],
        None if main.is_empty() => 0.0,
        None => group.beta.iter().sum::<f64>() / main.len() as f64,
    };
    let offset = anchor_local.map_or(0.0, |(_, elo)| elo);
    let covariance = covariance(&group.fisher, anchor_local.map(|(k, _)| k));

    // Ratings: finite for the group, bounds for the rest.
    let mut value = vec![RatingValue::Unrated; n];
    let mut std_error = vec![None; n];
    for (k, &i) in main.iter().enumerate() {
        value[i] = RatingValue::Finite(ELO_PER_NAT * (group.beta[k] - reference) + offset);
        std_error[i] = covariance
            .as_ref()
            .map(|c| ELO_PER_NAT * c[k][k].max(0.0).sqrt());
    }
    if let Some(&rep) = main.first() {
        resolve_bounds(&games, &points, &reach, &active, rep, &mut value);
    }

    let ratings: Vec<BotRating> = (0..n)
        .map(|i| {
            let t = table.totals(i);
            let (low, high) = match (value[i], std_error[i]) {
                (RatingValue::Finite(x), Some(se)) => (x - Z95 * se, x + Z95 * se),
                (RatingValue::AtLeast(x), _) => (x, f64::INFINITY),
                (RatingValue::AtMost(x), _) => (f64::NEG_INFINITY, x),
                _ => (f64::NEG_INFINITY, f64::INFINITY),
            };
            match value[i] {
                RatingValue::AtLeast(x) => warnings.push(format!(
                    "bot {i} never lost a point to the rated field: no finite rating, at least {}",
                    fmt_elo(x)
                )),
                RatingValue::AtMost(x) => warnings.push(format!(
                    "bot {i} never took a point from the rated field: no finite rating, at most {}",
                    fmt_elo(x)
                )),
                RatingValue::Unrated if t.games() == 0 => {
                    warnings.push(format!("bot {i} played no games: unrated"))
                }
                RatingValue::Unrated => warnings.push(format!(
                    "bot {i} is not linked to the rated field by its games: unrated"
                )),
                RatingValue::Finite(_) => {}
            }
            BotRating {
                bot: i,
                rating: value[i],
                low,
                high,
                std_error: std_error[i],
                games: t.games(),
                points: t.points(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                score: t.score(),
            }
        })
        .collect();

    let mut los = vec![vec![None; n]; n];
    if let Some(c) = &covariance {
        for (a, &i) in main.iter().enumerate() {
            for (b, &j) in main.iter().enumerate() {
                if a != b {
                    let diff = ELO_PER_NAT * (group.beta[a] - group.beta[b]);
                    let var = ELO_PER_NAT * ELO_PER_NAT * (c[a][a] + c[b][b] - 2.0 * c[a][b]);
                    los[i][j] = Some(if var > 0.0 {
                        normal_cdf(diff / var.sqrt())
                    } else if diff > 0.0 {
                        1.0
                    } else if diff < 0.0 {
                        0.0
                    } else {
                        0.5
                    });
                }
            }
        }
    }

    let mut fitted = main;
    fitted.sort_unstable();
    FieldFit {
        ratings,
        los,
        method: if group.used_mm {
            METHOD_MM
        } else {
            METHOD_NEWTON
        },
        fitted,
        iterations: group.iterations,
        converged: group.converged,
        max_residual: group.residual,
        anchored,
        warnings,
    }
}

/// `reach[i][j]`: j can be reached from i along edges `edge(a, b)` (every bot reaches itself).
fn reachability(n: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<Vec<bool>> {
    let mut reach = vec![vec![false; n]; n];
    for (start, row) in reach.iter_mut().enumerate() {
        let mut stack = vec![start];
        row[start] = true;
        while let Some(a) = stack.pop() {
            for (b, seen) in row.iter_mut().enumerate() {
                if !*seen && edge(a, b) {
                    *seen = true;
                    stack.push(b);
                }
            }
        }
    }
    reach
}

/// Ordo-style floors and ceilings for active bots outside the fitted group (whose member `rep`
/// represents it), in rounds: a bound computed in one round may serve as an opponent's rating in
/// the next.
fn resolve_bounds(
    games: &[Vec<f64>],
    points: &[Vec<f64>],
    reach: &[Vec<bool>],
    active: &[bool],
    rep: usize,
    value: &mut [RatingValue],
) {
    let n = value.len();
    loop {
        let snapshot = value.to_vec();
        let mut progress = false;
        for x in 0..n {
            if snapshot[x] != RatingValue::Unrated || !active[x] {
                continue;
            }
            let above = reach[x][rep] && !reach[rep][x];
            let below = reach[rep][x] && !reach[x][rep];
            if !above && !below {
                continue;
            }
            // Opponents with a usable rating that x swept (above) or that swept x (below).
            let opponents: Vec<(f64, f64)> = (0..n)
                .filter(|&y| games[x][y] > 0.0)
                .filter_map(|y| match snapshot[y] {
                    RatingValue::Finite(r) => Some((y, r)),
                    RatingValue::AtLeast(r) if above => Some((y, r)),
                    RatingValue::AtMost(r) if below => Some((y, r)),
                    _ => None,
                })
                .filter(|&(y, _)| {
                    if above {
                        points[y][x] == 0.0
                    } else {
                        points[x][y] == 0.0
                    }
                })
                .map(|(y, r)| (games[x][y], r))
                .collect();
            if opponents.is_empty() {
                continue;
            }
            let total: f64 = opponents.iter().map(|o| o.0).sum();
            let target = if above { total - 0.5 } else { 0.5 };
            let r = rating_for_points(&opponents, target);
            value[x] = if above {
                RatingValue::AtLeast(r)
            } else {
                RatingValue::AtMost(r)
            };
            progress = true;
        }
        if !progress {
            break;
        }
    }
}

/// The rating whose expected points against `(games, elo)` opponents equal `target`, for
/// `0 < target < total games`.
fn rating_for_points(opponents: &[(f64, f64)], target: f64) -> f64 {
    let total: f64 = opponents.iter().map(|o| o.0).sum();
    let lo_r = opponents.iter().map(|o| o.1).fold(f64::INFINITY, f64::min);
    let hi_r = opponents
        .iter()
        .map(|o| o.1)
        .fold(f64::NEG_INFINITY, f64::max);
    // Beyond this distance the expected shortfall is below 1e-3 points, so the root is inside.
    let reach = 400.0 * (total.max(1.0).log10() + 3.0);
    let expected = |r: f64| {
        opponents
            .iter()
            .map(|&(g, o)| g * elo_to_score(r - o))
            .sum::<f64>()
            - target
    };
    bisect_monotone(lo_r - reach, hi_r + reach, true, expected)
}

#[cfg(test)]
#[path = "bradley_terry_tests.rs"]
mod tests;
