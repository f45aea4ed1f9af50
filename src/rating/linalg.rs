//! The little dense linear algebra the Bradley-Terry fit needs: Cholesky factorisation of a
//! symmetric positive definite matrix, a solve with it, and the inverse.
//!
//! Rating fields are small (tens of bots), so a plain O(n^3) factorisation is fast enough and
//! keeps the crate free of a linear-algebra dependency. Every function returns `None` rather than
//! panicking when the matrix is not positive definite or not square.

// Textbook index loops read better than iterator chains for these triangular sweeps.
#![allow(clippy::needless_range_loop)]

/// Lower-triangular `L` with `a = L L^T`, or `None` if `a` is not (numerically) positive definite.
pub(crate) fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    if a.iter().any(|row| row.len() != n) {
        return None;
    }
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i][j];
            for k in 0..j {
                sum -= l[i][k] * l[j][k];
            }
            if i == j {
                if !sum.is_finite() || sum <= 0.0 {
                    return None;
                }
                l[i][i] = sum.sqrt();
            } else {
                l[i][j] = sum / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves `L L^T x = b` for a factor from [`cholesky`].
pub(crate) fn cholesky_solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut sum = b.get(i).copied().unwrap_or(0.0);
        for k in 0..i {
            sum -= l[i][k] * y[k];
        }
        y[i] = sum / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut sum = y[i];
        for k in i + 1..n {
            sum -= l[k][i] * x[k];
        }
        x[i] = sum / l[i][i];
    }
    x
}

/// Inverse of a symmetric positive definite matrix, or `None`.
pub(crate) fn spd_inverse(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let l = cholesky(a)?;
    let n = a.len();
    let mut inv = vec![vec![0.0; n]; n];
    let mut e = vec![0.0; n];
    for j in 0..n {
        e.iter_mut().for_each(|v| *v = 0.0);
        e[j] = 1.0;
        let col = cholesky_solve(&l, &e);
        for i in 0..n {
            inv[i][j] = col[i];
        }
    }
    // Symmetrise away rounding noise.
    for i in 0..n {
        for j in 0..i {
            let m = 0.5 * (inv[i][j] + inv[j][i]);
            inv[i][j] = m;
            inv[j][i] = m;
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_and_solve() {
        let a = vec![
            vec![4.0, 1.0, 0.5],
            vec![1.0, 3.0, 0.2],
            vec![0.5, 0.2, 2.0],
        ];
        let inv = spd_inverse(&a).expect("spd");
        for i in 0..3 {
            for j in 0..3 {
                let p: f64 = (0..3).map(|k| a[i][k] * inv[k][j]).sum();
                assert!((p - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        let l = cholesky(&a).expect("spd");
        let x = cholesky_solve(&l, &[1.0, 2.0, 3.0]);
        for i in 0..3 {
            let p: f64 = (0..3).map(|k| a[i][k] * x[k]).sum();
            assert!((p - [1.0, 2.0, 3.0][i]).abs() < 1e-12);
        }
        assert!(cholesky(&[vec![1.0, 2.0], vec![2.0, 1.0]]).is_none());
        assert!(cholesky(&[vec![1.0, 2.0]]).is_none());
    }
}
