//! Tests of the Bradley-Terry field fit, kept apart so that `bradley_terry.rs` stays readable.
//!
//! Expected values were derived by hand (closed forms stated next to each test) and checked with
//! an independent exact-fraction computation of the Fisher information and its pseudo-inverse.

use super::*;
use crate::rating::bt_solver::{log_sigmoid, sigmoid};
use crate::rating::elo::{score_to_elo, EloEstimate, Wdl};
use proptest::prelude::*;

fn table(n: usize, pairs: &[(usize, usize, Wdl)]) -> CrossTable {
    let mut t = CrossTable::new(n);
    for (a, b, w) in pairs {
        t.add_wdl(*a, *b, w).expect("valid pair");
    }
    t
}

fn elo(fit: &FieldFit, bot: usize) -> f64 {
    fit.ratings[bot].rating.finite().expect("finite rating")
}

/// max over fitted bots of |expected - actual| points against fitted opponents.
fn residual(fit: &FieldFit, t: &CrossTable) -> f64 {
    let mut worst: f64 = 0.0;
    for &i in &fit.fitted {
        let mut diff = 0.0;
        for &j in &fit.fitted {
            if i != j && t.games(i, j) > 0 {
                let e = elo_to_score(elo(fit, i) - elo(fit, j));
                diff += t.games(i, j) as f64 * e - t.points(i, j);
            }
        }
        worst = worst.max(diff.abs());
    }
    worst
}

fn assert_no_nan(fit: &FieldFit) {
    for r in &fit.ratings {
        let v = match r.rating {
            RatingValue::Finite(x) | RatingValue::AtLeast(x) | RatingValue::AtMost(x) => x,
            RatingValue::Unrated => 0.0,
        };
        assert!(v.is_finite(), "{r:?}");
        assert!(
            !r.low.is_nan() && !r.high.is_nan() && r.low <= r.high,
            "{r:?}"
        );
        assert!(r.std_error.is_none_or(|s| s.is_finite() && s >= 0.0));
    }
    for row in &fit.los {
        assert!(row.iter().flatten().all(|p| (0.0..=1.0).contains(p)));
    }
    assert!(!fit.max_residual.is_nan());
}

/// Two bots: the BT difference must equal Elo(score) = 400 log10(8/4) = 120.41 for 6W 4D 2L, and
/// its variance is 1 / (n s (1 - s)) = 0.375 nat^2, so sd(diff) = 106.38 Elo, each centred rating
/// has se 53.19, and LOS = Phi(120.41 / 106.38) = 0.8712.
#[test]
fn two_bots_equal_elo_of_score() {
    let w = Wdl::new(6, 4, 2);
    let fit = fit(&table(2, &[(0, 1, w)]), None);
    let expected = EloEstimate::from_wdl(&w).unwrap().elo;
    assert!((expected - 400.0 * 2f64.log10()).abs() < 1e-12);
    assert!((elo(&fit, 0) - elo(&fit, 1) - expected).abs() < 1e-9);
    assert!((elo(&fit, 0) + elo(&fit, 1)).abs() < 1e-9);
    assert!((fit.ratings[0].std_error.unwrap() - 53.19).abs() < 0.005);
    assert!((fit.ratings[0].low - (-44.04)).abs() < 0.005);
    assert!((fit.los[0][1].unwrap() - 0.87116).abs() < 1e-5);
    assert!(fit.converged && !fit.anchored && fit.warnings.is_empty());
    assert_eq!(fit.ranking(), vec![0, 1]);
    assert_eq!((fit.ratings[1].wins, fit.ratings[1].draws), (2, 4));
}

/// Three bots whose results match strengths 4:2:1 exactly: A-B 3W 2D 1L (4/6 = 4/(4+2)),
/// A-C 7W 2D 1L (8/10 = 4/(4+1)), B-C 3W 2D 1L (4/6 = 2/(2+1)). The score equations hold at
/// those strengths, so the MLE is elo = 400 log10(4, 2, 1) centred: +120.41, 0, -120.41.
/// Fisher weights g p (1-p): AB 4/3, AC 8/5, BC 4/3; the pseudo-inverse gives variances
/// 31/204, 1/6, 31/204 nat^2 (se 67.72, 70.92, 67.72 Elo) and var(A - B) = 33/68, so
/// LOS(A > B) = Phi(120.41 / 121.02) = 0.84013, LOS(A > C) = Phi(240.82 / 115.39) = 0.98156.
#[test]
fn three_bots_closed_form() {
    let t = table(
        3,
        &[
            (0, 1, Wdl::new(3, 2, 1)),
            (0, 2, Wdl::new(7, 2, 1)),
            (1, 2, Wdl::new(3, 2, 1)),
        ],
    );
    let fit = fit_field(&t, &FitOptions::default());
    let step = 400.0 * 2f64.log10();
    for (bot, want) in [(0, step), (1, 0.0), (2, -step)] {
        assert!((elo(&fit, bot) - want).abs() < 1e-9, "bot {bot}");
    }
    for (bot, se) in [(0, 67.7189), (1, 70.9200), (2, 67.7189)] {
        assert!((fit.ratings[bot].std_error.unwrap() - se).abs() < 1e-3);
    }
    assert!((fit.los[0][1].unwrap() - 0.840132).abs() < 1e-6);
    assert!((fit.los[0][2].unwrap() - 0.981562).abs() < 1e-6);
    assert!((fit.los[1][0].unwrap() + fit.los[0][1].unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(fit.los[1][1], None);
    assert_eq!(fit.ranking(), vec![0, 1, 2]);

    // Anchoring C at 1500 shifts every rating by the same amount; the intervals become relative
    // to C (inverse of F without C: var A = 15/34, var B = 33/68 nat^2), LOS is unchanged.
    let anchored = super::fit(&t, Some((2, 1500.0)));
    assert!(anchored.anchored);
    for bot in 0..3 {
        let shifted = elo(&fit, bot) + 1500.0 - elo(&fit, 2);
        assert!((elo(&anchored, bot) - shifted).abs() < 1e-9);
        for other in 0..3 {
            assert_eq!(
                anchored.los[bot][other].map(|p| (p * 1e9).round()),
                fit.los[bot][other].map(|p| (p * 1e9).round())
            );
        }
    }
    assert_eq!(anchored.ratings[2].std_error, Some(0.0));
    assert!((anchored.ratings[0].std_error.unwrap() - 115.3853).abs() < 1e-3);
    assert!((anchored.ratings[1].std_error.unwrap() - 121.0171).abs() < 1e-3);
}

/// An irregular round robin: the MLE equations hold to 1e-9 and the mean is 0.
#[test]
fn three_bots_mle_equations() {
    let t = table(
        3,
        &[
            (0, 1, Wdl::new(17, 9, 4)),
            (0, 2, Wdl::new(5, 3, 11)),
            (1, 2, Wdl::new(2, 30, 1)),
        ],
    );
    let fit = fit_field(&t, &FitOptions::default());
    assert!(residual(&fit, &t) < 1e-9);
    assert!((0..3).map(|b| elo(&fit, b)).sum::<f64>().abs() < 1e-9);
    assert!(fit.converged && fit.max_residual < 1e-9);
    assert_no_nan(&fit);
}

#[test]
fn empty_fields() {
    for n in [0, 1, 3] {
        let fit = fit(&CrossTable::new(n), Some((0, 100.0)));
        assert_no_nan(&fit);
        assert!(fit.ratings.iter().all(|r| r.rating == RatingValue::Unrated));
        assert!(fit.fitted.is_empty() && !fit.anchored);
        assert_eq!(
            fit.ratings.iter().map(|r| r.score).collect::<Vec<_>>(),
            vec![None; n]
        );
    }
}

/// Bot 3 lost every game, bot 4 won every game: the other three are fitted on their own games,
/// and the bounds follow Ordo's one-draw rule against them.
#[test]
fn perfect_winner_and_loser_get_bounds() {
    let mut pairs = vec![
        (0, 1, Wdl::new(5, 3, 2)),
        (0, 2, Wdl::new(4, 4, 2)),
        (1, 2, Wdl::new(3, 5, 2)),
    ];
    for bot in 0..3 {
        pairs.push((bot, 3, Wdl::new(4, 0, 0)));
        pairs.push((4, bot, Wdl::new(2, 0, 0)));
    }
    pairs.push((4, 3, Wdl::new(1, 0, 0)));
    let t = table(5, &pairs);
    let fit = fit_field(&t, &FitOptions::default());
    assert_no_nan(&fit);
    assert_eq!(fit.fitted, vec![0, 1, 2]);
    assert!(residual(&fit, &t) < 1e-9);

    let RatingValue::AtMost(ceiling) = fit.ratings[3].rating else {
        panic!("{:?}", fit.ratings[3])
    };
    let expected: f64 = (0..3)
        .map(|j| 4.0 * elo_to_score(ceiling - elo(&fit, j)))
        .sum();
    assert!((expected - 0.5).abs() < 1e-9);
    assert_eq!(
        (fit.ratings[3].low, fit.ratings[3].high),
        (f64::NEG_INFINITY, ceiling)
    );

    let RatingValue::AtLeast(floor) = fit.ratings[4].rating else {
        panic!("{:?}", fit.ratings[4])
    };
    let expected: f64 = (0..3)
        .map(|j| 2.0 * elo_to_score(floor - elo(&fit, j)))
        .sum();
    assert!((expected - 5.5).abs() < 1e-9);
    assert!(floor > elo(&fit, 0) && ceiling < elo(&fit, 2));
    assert_eq!(
        fit.ratings[4].rating.to_string(),
        format!(">{}", fmt_elo(floor))
    );
    assert_eq!(fit.ranking(), vec![4, 0, 1, 2, 3]);
    assert_eq!(fit.los[4][0], None);
    assert_eq!(fit.warnings.len(), 2);

    // Anchoring on a bot without a finite rating is refused, with a warning.
    let refused = super::fit(&t, Some((4, 2000.0)));
    assert!(!refused.anchored);
    assert!((0..3).map(|b| elo(&refused, b)).sum::<f64>().abs() < 1e-9);
}

/// Two bots, one decisive game: one is the reference, the other gets a bound, no NaN.
#[test]
fn single_game() {
    let fit = fit(&table(2, &[(1, 0, Wdl::new(1, 0, 0))]), None);
    assert_no_nan(&fit);
    assert_eq!(fit.ratings[0].rating, RatingValue::Finite(0.0));
    // 1 * E(r - 0) = 1/2 gives r = 0.
    assert_eq!(fit.ratings[1].rating, RatingValue::AtLeast(0.0));
}

/// Two separate leagues: the one with the lowest index (or the anchor's) is rated, the other is
/// unrated; a group that swept another group gets bounds.
#[test]
fn disconnected_and_swept_groups() {
    let leagues = table(4, &[(0, 1, Wdl::new(3, 2, 1)), (2, 3, Wdl::new(1, 2, 3))]);
    let fit = fit_field(&leagues, &FitOptions::default());
    assert_no_nan(&fit);
    assert_eq!(fit.fitted, vec![0, 1]);
    assert_eq!(fit.ratings[2].rating, RatingValue::Unrated);
    assert!((elo(&fit, 0) - score_to_elo(4.0 / 6.0) / 2.0).abs() < 1e-9);
    let by_anchor = super::fit(&leagues, Some((3, 10.0)));
    assert_eq!(by_anchor.fitted, vec![2, 3]);
    assert!((elo(&by_anchor, 3) - 10.0).abs() < 1e-12);
    assert_eq!(by_anchor.ratings[0].rating, RatingValue::Unrated);

    // {0, 1} drew each other and swept {2, 3}, who drew each other: no bot has a perfect score,
    // yet the two groups are infinitely apart.
    let swept = table(
        4,
        &[
            (0, 1, Wdl::new(0, 4, 0)),
            (2, 3, Wdl::new(0, 4, 0)),
            (0, 2, Wdl::new(2, 0, 0)),
            (0, 3, Wdl::new(2, 0, 0)),
            (1, 2, Wdl::new(2, 0, 0)),
            (1, 3, Wdl::new(2, 0, 0)),
        ],
    );
    let fit = fit_field(&swept, &FitOptions::default());
    assert_no_nan(&fit);
    assert_eq!(fit.fitted, vec![0, 1]);
    assert!(matches!(fit.ratings[2].rating, RatingValue::AtMost(_)));
    assert!(matches!(fit.ratings[3].rating, RatingValue::AtMost(_)));
}

/// A chain A > B > C > D where every game is won by the stronger bot: one bot is the reference
/// and the others get bounds through each other.
#[test]
fn chain_of_sweeps() {
    let t = table(
        4,
        &[
            (0, 1, Wdl::new(3, 0, 0)),
            (1, 2, Wdl::new(3, 0, 0)),
            (2, 3, Wdl::new(3, 0, 0)),
        ],
    );
    let fit = fit_field(&t, &FitOptions::default());
    assert_no_nan(&fit);
    assert_eq!(fit.fitted, vec![0]);
    let RatingValue::AtMost(b) = fit.ratings[1].rating else {
        panic!()
    };
    let RatingValue::AtMost(c) = fit.ratings[2].rating else {
        panic!()
    };
    let RatingValue::AtMost(d) = fit.ratings[3].rating else {
        panic!()
    };
    assert!(0.0 > b && b > c && c > d);
}

#[test]
fn solver_internals() {
    // The inner MM fallback reaches the same optimum as Newton.
    let g = vec![
        vec![0.0, 10.0, 4.0],
        vec![10.0, 0.0, 6.0],
        vec![4.0, 6.0, 0.0],
    ];
    let p = vec![
        vec![0.0, 7.0, 1.5],
        vec![3.0, 0.0, 4.0],
        vec![2.5, 2.0, 0.0],
    ];
    let newton = fit_group(&g, &p, 1e-12, 100);
    let mm = fit_group(&g, &p, 1e-12, 0);
    assert!(newton.converged && !newton.used_mm && mm.converged && mm.used_mm);
    for k in 0..3 {
        assert!((newton.beta[k] - mm.beta[k]).abs() < 1e-9);
    }
    assert!(log_sigmoid(-800.0).is_finite() && sigmoid(-800.0) >= 0.0);
    assert!(covariance(&[], None).is_none());
}

fn arb_table(min_draws: u64) -> impl Strategy<Value = CrossTable> {
    (2usize..=6).prop_flat_map(move |n| {
        proptest::collection::vec((0u64..8, min_draws..8, 0u64..8), n * (n - 1) / 2).prop_map(
            move |cells| {
                let mut t = CrossTable::new(n);
                let mut k = 0;
                for a in 0..n {
                    for b in a + 1..n {
                        let (w, d, l) = cells[k];
                        k += 1;
                        t.add_wdl(a, b, &Wdl::new(w, d, l)).expect("valid");
                    }
                }
                t
            },
        )
    })
}

proptest! {
    /// With a draw in every pair every bot has a finite MLE: expected = actual points for every
    /// bot, mean 0, complementary LOS.
    #[test]
    fn mle_equations_hold(t in arb_table(1)) {
        let fit = fit_field(&t, &FitOptions::default());
        prop_assert_eq!(fit.fitted.len(), t.len());
        prop_assert!(residual(&fit, &t) < 1e-9, "residual {}", residual(&fit, &t));
        let mean = (0..t.len()).map(|b| elo(&fit, b)).sum::<f64>() / t.len() as f64;
        prop_assert!(mean.abs() < 1e-9);
        for i in 0..t.len() {
            for j in 0..t.len() {
                if i != j {
                    let sum = fit.los[i][j].unwrap() + fit.los[j][i].unwrap();
                    prop_assert!((sum - 1.0).abs() < 1e-12);
                }
            }
        }
    }

    /// Any table, empty pairs and sweeps included: no NaN, no panic, and the fitted bots still
    /// satisfy their equations.
    #[test]
    fn any_table_is_safe(t in arb_table(0)) {
        let fit = fit_field(&t, &FitOptions::default());
        assert_no_nan(&fit);
        prop_assert!(residual(&fit, &t) < 1e-9);
    }
}
