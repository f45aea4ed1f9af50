//! A bracketed one-dimensional root finder shared by the SPRT and Bradley-Terry code.
//!
//! Every equation solved in this module family is monotone on a known open interval with a sign
//! change inside it (the secular equation of a constrained multinomial MLE, or "expected points
//! equal target points" for one rating). Plain bisection is therefore enough, and it is the
//! safest choice near the poles of the secular equation: it only ever evaluates strictly inside
//! the bracket, and it runs until the bracket cannot be split any further in `f64`, so the answer
//! is as precise as the arithmetic allows without any tolerance to tune.

/// Root of a monotone `f` inside the open interval `(lo, hi)`.
///
/// `increasing` tells the direction of `f`. The ends themselves are never evaluated (they may be
/// poles). If `f` returns NaN the search stops at the current bracket. Never panics; with
/// `lo >= hi` or a non-finite end it returns the midpoint it can form, or `lo`.
pub(crate) fn bisect_monotone(
    mut lo: f64,
    mut hi: f64,
    increasing: bool,
    f: impl Fn(f64) -> f64,
) -> f64 {
    if !lo.is_finite() || !hi.is_finite() || lo >= hi {
        return if lo.is_finite() { lo } else { hi };
    }
    // 2200 halvings exhaust any f64 interval, including one that closes in on zero.
    for _ in 0..2200 {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi {
            break;
        }
        let v = f(mid);
        if v.is_nan() {
            break;
        }
        if v == 0.0 {
            return mid;
        }
        if (v < 0.0) == increasing {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + 0.5 * (hi - lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_roots_to_full_precision() {
        let r = bisect_monotone(0.0, 2.0, true, |x| x * x - 2.0);
        assert!((r - std::f64::consts::SQRT_2).abs() < 1e-15);
        let r = bisect_monotone(-1.0, 1.0, false, |x| -x);
        assert!(r.abs() < 1e-300);
        // A pole at the upper end is never touched.
        let r = bisect_monotone(0.0, 1.0, false, |x| 1.0 - 1.0 / (1.0 - x) + 1e6);
        assert!((1.0 - r - 1.0 / (1e6 + 1.0)).abs() < 1e-15);
        assert_eq!(bisect_monotone(1.0, 0.0, true, |x| x), 1.0);
        assert_eq!(bisect_monotone(0.0, 1.0, true, |_| f64::NAN), 0.5);
    }
}
