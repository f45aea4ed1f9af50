//! The numerical core shared by the Bradley-Terry and Plackett-Luce fits: a concave
//! log-likelihood over strengths, maximised by Newton's method whose steps are solved with
//! preconditioned conjugate gradients on a sparse information matrix, and the covariance of the
//! strengths (exact and dense for readable fields, approximate and sparse for large ones).
//!
//! Why sparse: a league of thousands of bots where each meets a few hundred opponents has an
//! information matrix with a few hundred thousand non-zero entries; the dense Newton step and
//! full covariance (cubic time, quadratic memory) were what made such fields slow. Here every
//! step costs a few passes over the pairs that met.
//!
//! Both models' observed information matrices are weighted graph Laplacians: off the diagonal
//! `-a_ij` (with `a_ij >= 0`), on the diagonal `d_i = sum_j a_ij`, so only differences of
//! strengths are identified. Strengths are on the natural-log scale and indexed within the
//! fitted group; callers convert to Elo and to field indices.

use crate::rating::linalg::spd_inverse;

/// A weighted graph Laplacian: the observed information of a fit.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Laplacian {
    /// `d_i`, the sum of the weights at i.
    pub(crate) diag: Vec<f64>,
    /// `(i, j, a_ij)` with `i < j`, ascending, one entry per pair.
    pub(crate) edges: Vec<(u32, u32, f64)>,
}

impl Laplacian {
    /// Sums the weights given per pair (in any order, repeats allowed) over `m` strengths.
    pub(crate) fn from_edges(m: usize, mut edges: Vec<(u32, u32, f64)>) -> Laplacian {
        for e in &mut edges {
            if e.0 > e.1 {
                (e.0, e.1) = (e.1, e.0);
            }
        }
        edges.sort_unstable_by_key(|e| (e.0, e.1));
        // Merge repeats in place (no second copy of a large list).
        let mut kept = 0;
        for k in 0..edges.len() {
            let e = edges[k];
            if kept > 0 && (edges[kept - 1].0, edges[kept - 1].1) == (e.0, e.1) {
                edges[kept - 1].2 += e.2;
            } else {
                edges[kept] = e;
                kept += 1;
            }
        }
        edges.truncate(kept);
        edges.shrink_to_fit();
        let mut diag = vec![0.0; m];
        for &(i, j, a) in &edges {
            diag[i as usize] += a;
            diag[j as usize] += a;
        }
        Laplacian { diag, edges }
    }

    /// `out = L v`.
    fn apply(&self, v: &[f64], out: &mut [f64]) {
        for (o, (d, x)) in out.iter_mut().zip(self.diag.iter().zip(v)) {
            *o = d * x;
        }
        for &(i, j, a) in &self.edges {
            let (i, j) = (i as usize, j as usize);
            out[i] -= a * v[j];
            out[j] -= a * v[i];
        }
    }

    /// `a_ij` (0 for pairs that never met, and for `i == j`).
    pub(crate) fn weight(&self, i: usize, j: usize) -> f64 {
        let key = (i.min(j) as u32, i.max(j) as u32);
        self.edges
            .binary_search_by_key(&key, |e| (e.0, e.1))
            .map_or(0.0, |k| self.edges[k].2)
    }

    /// The matrix itself, for small fields.
    fn dense(&self) -> Vec<Vec<f64>> {
        let m = self.diag.len();
        let mut f = vec![vec![0.0; m]; m];
        for (i, &d) in self.diag.iter().enumerate() {
            f[i][i] = d;
        }
        for &(i, j, a) in &self.edges {
            f[i as usize][j as usize] -= a;
            f[j as usize][i as usize] -= a;
        }
        f
    }
}

/// A concave log-likelihood over strengths whose information matrix is a [`Laplacian`].
pub(crate) trait Likelihood {
    /// Number of strengths.
    fn len(&self) -> usize;
    /// The log-likelihood.
    fn value(&self, beta: &[f64]) -> f64;
    /// Its gradient: actual minus expected points, per strength.
    fn gradient(&self, beta: &[f64]) -> Vec<f64>;
    /// Minus its Hessian.
    fn fisher(&self, beta: &[f64]) -> Laplacian;
}

/// The maximiser found by [`maximise`].
pub(crate) struct Solution {
    /// Strengths, mean 0.
    pub(crate) beta: Vec<f64>,
    pub(crate) iterations: usize,
    pub(crate) converged: bool,
    /// Largest |gradient| at the end.
    pub(crate) residual: f64,
}

pub(crate) fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |a, &x| a.max(x.abs()))
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Newton's method from all strengths 0, with a backtracking line search, until no gradient
/// entry exceeds `tolerance` (or the iteration cap). Each step solves `F s = g` by conjugate
/// gradients preconditioned with the diagonal of `F`, to a relative accuracy that tightens as
/// the gradient shrinks (an inexact Newton method, still superlinear near the optimum).
pub(crate) fn maximise(lik: &impl Likelihood, tolerance: f64, max_iterations: usize) -> Solution {
    let m = lik.len();
    let mut beta = vec![0.0; m];
    let mut grad = lik.gradient(&beta);
    let mut ll = lik.value(&beta);
    let mut iterations = 0;
    while max_abs(&grad) > tolerance && iterations < max_iterations {
        iterations += 1;
        let fisher = lik.fisher(&beta);
        // Relative accuracy of the step: tighter as the gradient shrinks (superlinear), but not
        // below what floating point can reach (a tighter goal only makes CG wander).
        let forcing = max_abs(&grad).clamp(1e-8, 1e-2);
        let mut step = conjugate_gradient(&fisher, &grad, forcing, m + 50);
        let mean = step.iter().sum::<f64>() / m as f64;
        step.iter_mut().for_each(|s| *s -= mean);
        let slope = dot(&step, &grad);
        if slope.is_nan() || slope <= 0.0 {
            break;
        }
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            let candidate: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b + t * s).collect();
            let next = lik.value(&candidate);
            if next >= ll + 1e-4 * t * slope - 1e-12 * (1.0 + ll.abs()) {
                accepted = Some((candidate, next));
                break;
            }
            t *= 0.5;
        }
        let Some((next, value)) = accepted else { break };
        beta = next;
        ll = value;
        grad = lik.gradient(&beta);
    }
    let residual = max_abs(&grad);
    Solution {
        beta,
        iterations,
        converged: residual <= tolerance,
        residual,
    }
}

/// Solves `L x = b` (b summing to 0) until `|r| <= rel * |b|` or `max_iter` steps; `x` is
/// determined up to a constant.
fn conjugate_gradient(l: &Laplacian, b: &[f64], rel: f64, max_iter: usize) -> Vec<f64> {
    let m = b.len();
    let inv_diag: Vec<f64> = l
        .diag
        .iter()
        .map(|&d| if d > 0.0 { 1.0 / d } else { 1.0 })
        .collect();
    let mut x = vec![0.0; m];
    // A Laplacian maps onto vectors summing to 0: rounding leaves a trace of the null space in
    // a gradient of 1e-9 (its sum some 1e-16), which CG cannot remove and would wander after.
    let mean = b.iter().sum::<f64>() / m as f64;
    let mut r: Vec<f64> = b.iter().map(|v| v - mean).collect();
    let b = &r.clone();
    let mut z: Vec<f64> = r.iter().zip(&inv_diag).map(|(r, w)| r * w).collect();
    let mut p = z.clone();
    let mut q = vec![0.0; m];
    let mut rz = dot(&r, &z);
    let target = rel * dot(b, b).sqrt();
    for _ in 0..max_iter {
        if dot(&r, &r).sqrt() <= target {
            break;
        }
        l.apply(&p, &mut q);
        let pq = dot(&p, &q);
        if pq.is_nan() || pq <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        for k in 0..m {
            x[k] += alpha * p[k];
            r[k] -= alpha * q[k];
            z[k] = r[k] * inv_diag[k];
        }
        let rz_next = dot(&r, &z);
        let ratio = rz_next / rz;
        for k in 0..m {
            p[k] = z[k] + ratio * p[k];
        }
        rz = rz_next;
    }
    x
}

/// Covariance of the strengths (natural units), exact: centred on the mean, the Moore-Penrose
/// pseudo-inverse `(F + J/m)^-1 - J/m` (J all ones); with an anchor (local index), the inverse of
/// `F` without the anchor's row and column (the anchor's own row is 0). `None` if `F` cannot be
/// inverted. Cubic in the number of strengths: for readable fields only.
pub(crate) fn dense_covariance(f: &Laplacian, anchor: Option<usize>) -> Option<Vec<Vec<f64>>> {
    let fisher = f.dense();
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

/// Variances of the strengths relative to the field (natural units), approximately, in time
/// linear in the pairs: with `F = D^1/2 (I - S) D^1/2`, the inverse on the non-constant vectors
/// expands as `D^-1/2 (I + S + S^2 + ...) D^-1/2`; this keeps the terms up to `S^2` on the
/// diagonal, `var_i ~ 1/d_i + sum_j a_ij^2 / (d_i^2 d_j)` (a bot's own information, then the
/// uncertainty of its opponents passed on through the games with them), and drops the centring
/// terms, which are of relative order 1/m. The neglected terms are small when each bot has many
/// opponents, as in the large fields this serves (a test bounds the error against the exact
/// covariance); use [`dense_covariance`] for small fields.
pub(crate) fn approx_variances(f: &Laplacian) -> Vec<f64> {
    let d = &f.diag;
    let mut spread = vec![0.0; d.len()];
    for &(i, j, a) in &f.edges {
        let (i, j) = (i as usize, j as usize);
        spread[i] += a * a / d[j];
        spread[j] += a * a / d[i];
    }
    d.iter()
        .zip(&spread)
        .map(|(&di, &s)| {
            if di > 0.0 {
                1.0 / di + s / (di * di)
            } else {
                f64::INFINITY
            }
        })
        .collect()
}

/// How far the neglected terms of [`approx_variances`] can reach: an estimate of the second
/// eigenvalue `lambda_2` of `S = D^-1/2 A D^-1/2` (1 is the first, for the constant direction),
/// by power iteration on `(I + S) / 2` with the constant direction projected out. The dropped
/// terms of the expansion are then at most about `lambda_2^3 / (1 - lambda_2)` of each variance:
/// small for fields where bots meet many varied opponents, large for fields made of groups that
/// rarely meet (a ladder, divisions), where the approximate intervals are too narrow. The
/// iteration approaches `lambda_2` from below, so treat the figure as an estimate.
pub(crate) fn mixing(f: &Laplacian, iterations: usize) -> f64 {
    let m = f.diag.len();
    if m < 3 {
        return 0.0;
    }
    let sqrt_d: Vec<f64> = f.diag.iter().map(|d| d.max(0.0).sqrt()).collect();
    let norm = dot(&sqrt_d, &sqrt_d).sqrt();
    let top: Vec<f64> = sqrt_d.iter().map(|x| x / norm).collect();
    let project = |x: &mut Vec<f64>| {
        let c = dot(x, &top);
        x.iter_mut().zip(&top).for_each(|(v, t)| *v -= c * t);
        let n = dot(x, x).sqrt();
        if n > 0.0 {
            x.iter_mut().for_each(|v| *v /= n);
        }
    };
    // (I + S) x / 2 = (x + D^-1/2 A D^-1/2 x) / 2, with A x = D x - L x.
    let apply = |x: &[f64], out: &mut Vec<f64>| {
        let y: Vec<f64> = x
            .iter()
            .zip(&sqrt_d)
            .map(|(v, s)| if *s > 0.0 { v / s } else { 0.0 })
            .collect();
        let mut ly = vec![0.0; m];
        f.apply(&y, &mut ly);
        for k in 0..m {
            let ay = f.diag[k] * y[k] - ly[k];
            let sx = if sqrt_d[k] > 0.0 { ay / sqrt_d[k] } else { 0.0 };
            out[k] = 0.5 * (x[k] + sx);
        }
    };
    let mut x: Vec<f64> = (0..m)
        .map(|k| ((k as f64 * 0.618_034).fract() - 0.5) + 1e-3 * (k % 7) as f64)
        .collect();
    project(&mut x);
    let mut next = vec![0.0; m];
    let mut mu = 0.0;
    for _ in 0..iterations {
        apply(&x, &mut next);
        mu = dot(&x, &next);
        std::mem::swap(&mut x, &mut next);
        project(&mut x);
    }
    (2.0 * mu - 1.0).clamp(0.0, 1.0)
}

/// The first-order covariance of strengths i and j that goes with [`approx_variances`]:
/// `a_ij / (d_i d_j)`.
pub(crate) fn approx_covariance(f: &Laplacian, i: usize, j: usize) -> f64 {
    let a = f.weight(i, j);
    if a > 0.0 {
        a / (f.diag[i] * f.diag[j])
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    // Index loops read better than iterator chains for these small matrix checks.
    #![allow(clippy::needless_range_loop)]

    use super::*;

    /// A tiny quadratic "likelihood" -1/2 (b - t)^T L (b - t): Newton lands on t (centred).
    struct Quadratic {
        l: Laplacian,
        target: Vec<f64>,
    }

    impl Likelihood for Quadratic {
        fn len(&self) -> usize {
            self.target.len()
        }
        fn value(&self, beta: &[f64]) -> f64 {
            let d: Vec<f64> = beta.iter().zip(&self.target).map(|(b, t)| b - t).collect();
            let mut ld = vec![0.0; d.len()];
            self.l.apply(&d, &mut ld);
            -0.5 * dot(&d, &ld)
        }
        fn gradient(&self, beta: &[f64]) -> Vec<f64> {
            let d: Vec<f64> = beta.iter().zip(&self.target).map(|(t, b)| b - t).collect();
            let mut ld = vec![0.0; d.len()];
            self.l.apply(&d, &mut ld);
            ld
        }
        fn fisher(&self, _: &[f64]) -> Laplacian {
            self.l.clone()
        }
    }

    #[test]
    fn laplacian_merges_and_solves() {
        let l = Laplacian::from_edges(
            4,
            vec![
                (1, 0, 1.0),
                (0, 1, 2.0),
                (1, 2, 0.5),
                (3, 2, 4.0),
                (0, 3, 1.0),
            ],
        );
        assert_eq!(
            l.edges,
            vec![(0, 1, 3.0), (0, 3, 1.0), (1, 2, 0.5), (2, 3, 4.0)]
        );
        assert_eq!(l.diag, vec![4.0, 3.5, 4.5, 5.0]);
        assert_eq!(l.weight(3, 2), 4.0);
        assert_eq!(l.weight(0, 2), 0.0);
        let target = vec![0.3, -1.0, 0.5, 0.2];
        let q = Quadratic {
            l: l.clone(),
            target: target.clone(),
        };
        let s = maximise(&q, 1e-12, 50);
        assert!(s.converged);
        for k in 0..4 {
            assert!((s.beta[k] - target[k]).abs() < 1e-10);
        }
        // The pseudo-inverse times L is the centring projection.
        let cov = dense_covariance(&l, None).unwrap();
        let f = l.dense();
        for i in 0..4 {
            for j in 0..4 {
                let p: f64 = (0..4).map(|k| cov[i][k] * f[k][j]).sum();
                let want = if i == j { 0.75 } else { -0.25 };
                assert!((p - want).abs() < 1e-12);
            }
        }
        assert!(dense_covariance(&Laplacian::from_edges(0, vec![]), None).is_none());
    }

    /// The second eigenvalue of a complete field is -1/(m-1) (reported as 0), of a ring close
    /// to 1; of two complete halves joined by one light pair, close to 1 as well.
    #[test]
    fn mixing_estimates() {
        let m = 12u32;
        let complete: Vec<(u32, u32, f64)> = (0..m)
            .flat_map(|i| (i + 1..m).map(move |j| (i, j, 1.0)))
            .collect();
        assert!(mixing(&Laplacian::from_edges(12, complete), 60) < 1e-9);
        let ring: Vec<(u32, u32, f64)> = (0..200).map(|i| (i, (i + 1) % 200, 1.0)).collect();
        let lambda = mixing(&Laplacian::from_edges(200, ring), 60);
        assert!(lambda > 0.9, "{lambda}");
        let mut halves: Vec<(u32, u32, f64)> = (0..6)
            .flat_map(|i| (i + 1..6).flat_map(move |j| [(i, j, 1.0), (i + 6, j + 6, 1.0)]))
            .collect();
        halves.push((0, 6, 0.01));
        let lambda = mixing(&Laplacian::from_edges(12, halves), 200);
        assert!(lambda > 0.99, "{lambda}");
    }
}
