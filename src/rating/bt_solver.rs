//! The numerical core of the Bradley-Terry fit: log-likelihood, gradient and Fisher information,
//! the Newton-Raphson solver with its MM fallback, and the constrained covariance.
//!
//! It lives apart from `bradley_terry.rs` (which decides who is fitted, how bounds and the LOS
//! matrix are formed) so that each file stays short. Strengths here are on the natural-log scale
//! and indexed within the fitted group; the caller converts to Elo and to cross-table indices.

use crate::rating::linalg::{cholesky, cholesky_solve, spd_inverse};

pub(crate) struct GroupFit {
    pub(crate) beta: Vec<f64>,
    pub(crate) fisher: Vec<Vec<f64>>,
    pub(crate) iterations: usize,
    pub(crate) converged: bool,
    pub(crate) residual: f64,
    pub(crate) used_mm: bool,
}

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

fn log_likelihood(g: &[Vec<f64>], p: &[Vec<f64>], beta: &[f64]) -> f64 {
    let m = beta.len();
    let mut ll = 0.0;
    for i in 0..m {
        for j in i + 1..m {
            if g[i][j] > 0.0 {
                let d = beta[i] - beta[j];
                ll += p[i][j] * log_sigmoid(d) + p[j][i] * log_sigmoid(-d);
            }
        }
    }
    ll
}

/// Gradient (actual minus expected points) and observed Fisher information.
fn gradient_fisher(g: &[Vec<f64>], p: &[Vec<f64>], beta: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let m = beta.len();
    let mut grad = vec![0.0; m];
    let mut fisher = vec![vec![0.0; m]; m];
    for i in 0..m {
        for j in i + 1..m {
            if g[i][j] > 0.0 {
                let pi = sigmoid(beta[i] - beta[j]);
                grad[i] += p[i][j] - g[i][j] * pi;
                grad[j] += p[j][i] - g[i][j] * (1.0 - pi);
                let w = g[i][j] * pi * (1.0 - pi);
                fisher[i][i] += w;
                fisher[j][j] += w;
                fisher[i][j] -= w;
                fisher[j][i] -= w;
            }
        }
    }
    (grad, fisher)
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |a, &x| a.max(x.abs()))
}

/// Maximum-likelihood strengths of a strongly connected group (`beta[0]` is held at 0).
pub(crate) fn fit_group(
    g: &[Vec<f64>],
    p: &[Vec<f64>],
    tolerance: f64,
    max_iterations: usize,
) -> GroupFit {
    let m = g.len();
    let mut beta = vec![0.0; m];
    let most_games = g
        .iter()
        .map(|row| row.iter().sum::<f64>())
        .fold(1.0, f64::max);
    let tol = tolerance.max(1e-13 * most_games);
    let mut iterations = 0;
    let (mut grad, mut fisher) = gradient_fisher(g, p, &beta);
    while max_abs(&grad) > tol && iterations < max_iterations {
        iterations += 1;
        let reduced: Vec<Vec<f64>> = fisher[1..].iter().map(|row| row[1..].to_vec()).collect();
        let Some(l) = cholesky(&reduced) else { break };
        let step = cholesky_solve(&l, &grad[1..]);
        let slope: f64 = step.iter().zip(&grad[1..]).map(|(s, g)| s * g).sum();
        let ll0 = log_likelihood(g, p, &beta);
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            let mut candidate = beta.clone();
            for (b, s) in candidate[1..].iter_mut().zip(&step) {
                *b += t * s;
            }
            let ll = log_likelihood(g, p, &candidate);
            if ll >= ll0 + 1e-4 * t * slope - 1e-12 * (1.0 + ll0.abs()) {
                accepted = Some(candidate);
                break;
            }
            t *= 0.5;
        }
        let Some(next) = accepted else { break };
        beta = next;
        (grad, fisher) = gradient_fisher(g, p, &beta);
    }
    let mut used_mm = false;
    if max_abs(&grad) > tol && m > 1 {
        used_mm = true;
        // Hunter's MM update: gamma_i <- points_i / sum_j games_ij / (gamma_i + gamma_j).
        let won: Vec<f64> = p.iter().map(|row| row.iter().sum()).collect();
        for _ in 0..20_000 {
            iterations += 1;
            let next: Vec<f64> = (0..m)
                .map(|i| {
                    let denom: f64 = (0..m)
                        .filter(|&j| g[i][j] > 0.0)
                        .map(|j| g[i][j] / (1.0 + (beta[j] - beta[i]).exp()))
                        .sum();
                    beta[i] + won[i].ln() - denom.ln()
                })
                .collect();
            if next.iter().any(|x| !x.is_finite()) {
                break;
            }
            beta = next.iter().map(|x| x - next[0]).collect();
            (grad, fisher) = gradient_fisher(g, p, &beta);
            if max_abs(&grad) <= tol {
                break;
            }
        }
    }
    let residual = max_abs(&grad);
    GroupFit {
        beta,
        fisher,
        iterations,
        converged: residual <= tol,
        residual,
        used_mm,
    }
}

/// Covariance of the strengths (natural units) under the centring constraint or with the anchor
/// (local index) held fixed; `None` if the information matrix cannot be inverted.
pub(crate) fn covariance(fisher: &[Vec<f64>], anchor: Option<usize>) -> Option<Vec<Vec<f64>>> {
    let m = fisher.len();
    if m == 0 {
        return None;
    }
    match anchor {
        Some(a) => {
            let keep: Vec<usize> = (0..m).filter(|&k| k != a).collect();
            let reduced: Vec<Vec<f64>> = keep
                .iter()
                .map(|&i| keep.iter().map(|&j| fisher[i][j]).collect())
                .collect();
            let inv = if keep.is_empty() {
                Vec::new()
            } else {
                spd_inverse(&reduced)?
            };
            let mut cov = vec![vec![0.0; m]; m];
            for (x, &i) in keep.iter().enumerate() {
                for (y, &j) in keep.iter().enumerate() {
                    cov[i][j] = inv[x][y];
                }
            }
            Some(cov)
        }
        None => {
            let j = 1.0 / m as f64;
            let shifted: Vec<Vec<f64>> = fisher
                .iter()
                .map(|row| row.iter().map(|v| v + j).collect())
                .collect();
            let inv = spd_inverse(&shifted)?;
            Some(
                inv.iter()
                    .map(|row| row.iter().map(|v| v - j).collect())
                    .collect(),
            )
        }
    }
}
