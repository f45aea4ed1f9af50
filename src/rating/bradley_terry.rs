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
//! **Solver.** Newton's method on the concave log-likelihood, each step solved by conjugate
//! gradients on the sparse information matrix (`solver`), stopping when no bot's expected points
//! differ from its actual points by more than the tolerance (default 1e-10 points, never below
//! 1e-13 times the largest bot's game count) or after the iteration cap (default 100). Time and
//! memory grow with the number of pairs that met, not with the square of the field.
//!
//! Who is rated, how perfect scores are handled (virtual draws only where the plain fit has no
//! finite solution), the intervals and the LOS figures are described in [`crate::rating::field`].
//! Nothing here panics or produces NaN.

use crate::rating::cross_table::CrossTable;
use crate::rating::field::{finish, FieldFit};
use crate::rating::options::FitOptions;
use crate::rating::prior::{pair_terms, plan, PairTerm};
use crate::rating::solver::{maximise, Laplacian, Likelihood};

const MODEL: &str =
    "Bradley-Terry maximum likelihood (Newton's method, sparse conjugate-gradient steps)";

pub(crate) fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln sigmoid(x)` without overflow.
pub(crate) fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// The Bradley-Terry log-likelihood of pairwise results (and virtual draws).
pub(crate) struct PairLikelihood {
    pub(crate) m: usize,
    pub(crate) terms: Vec<PairTerm>,
}

impl PairLikelihood {
    pub(crate) fn add_value(&self, beta: &[f64]) -> f64 {
        self.terms
            .iter()
            .map(|t| {
                let d = beta[t.i as usize] - beta[t.j as usize];
                t.points * log_sigmoid(d) + (t.games - t.points) * log_sigmoid(-d)
            })
            .sum()
    }

    pub(crate) fn add_gradient(&self, beta: &[f64], grad: &mut [f64]) {
        for t in &self.terms {
            let (i, j) = (t.i as usize, t.j as usize);
            let e = t.games * sigmoid(beta[i] - beta[j]);
            grad[i] += t.points - e;
            grad[j] -= t.points - e;
        }
    }

    pub(crate) fn add_edges(&self, beta: &[f64], edges: &mut Vec<(u32, u32, f64)>) {
        for t in &self.terms {
            let p = sigmoid(beta[t.i as usize] - beta[t.j as usize]);
            edges.push((t.i, t.j, t.games * p * (1.0 - p)));
        }
    }
}

impl Likelihood for PairLikelihood {
    fn len(&self) -> usize {
        self.m
    }
    fn value(&self, beta: &[f64]) -> f64 {
        self.add_value(beta)
    }
    fn gradient(&self, beta: &[f64]) -> Vec<f64> {
        let mut grad = vec![0.0; self.m];
        self.add_gradient(beta, &mut grad);
        grad
    }
    fn fisher(&self, beta: &[f64]) -> Laplacian {
        let mut edges = Vec::with_capacity(self.terms.len());
        self.add_edges(beta, &mut edges);
        Laplacian::from_edges(self.m, edges)
    }
}

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
    let plan = plan(table, options);
    let lik = PairLikelihood {
        m: plan.main.len(),
        terms: pair_terms(table, &plan, true),
    };
    let tolerance = options.tolerance.max(1e-13 * plan.most_games);
    let solution = maximise(&lik, tolerance, options.max_iterations);
    let fisher = lik.fisher(&solution.beta);
    finish(table, options, plan, solution, &fisher, MODEL)
}

#[cfg(test)]
#[path = "bradley_terry_tests.rs"]
mod tests;
