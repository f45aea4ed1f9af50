//! Two-bot strength estimates: Elo, error margin, LOS and normalized Elo from a match.
//!
//! This module exists so that a head-to-head match (per-game W/D/L counts, or pentanomial counts
//! of colour-swapped game pairs) is summarised with the same numbers that cutechess-cli and
//! fastchess print, computed with the exact 95% normal quantile. The formulas (our wording, see
//! `shared/specs/statistics.md`):
//!
//! * score `s = (W + D/2) / n`, `Elo(s) = -400 log10(1/s - 1)`;
//! * per-game (or per-pair) standard deviation `sigma`, standard error `se = sigma / sqrt(n)`;
//! * 95% interval `[Elo(s - z se), Elo(s + z se)]`, margin = half its width, `z = Z95`;
//! * LOS `= Phi((s - 1/2) / se)`;
//! * normalized Elo `(s - 1/2) / sigma * 800 / ln 10` (pairs: `sqrt(2) sigma`), margin
//!   `z * (800 / ln 10) / sqrt(games)`.
//!
//! Edge cases are reported honestly and never as NaN: zero games give `None` (print it as
//! `n/a`), an all-win match gives `elo = +inf`, an all-loss match `-inf`. A confidence bound
//! that reaches a score of 0 or 1 is infinite, and so is the margin then. When the spread is
//! zero (all draws, all wins, all losses) LOS is 1, 0 or 1/2 and normalized Elo is `+inf`,
//! `-inf` or 0, following the sign of `s - 1/2`.

pub use crate::rating::format::{fmt_elo, fmt_elo_opt, fmt_margin, fmt_percent};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};
use std::f64::consts::{LN_10, SQRT_2};

/// The exact two-sided 95% quantile of the standard normal distribution (statrs'
/// `Normal::inverse_cdf(0.975)`, checked by a test; a constant for the hot paths).
pub const Z95: f64 = 1.959963984540054;

/// Normalized Elo per unit of t-value: `800 / ln 10`.
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// The result of one game from one bot's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum GameOutcome {
    Win,
    Draw,
    Loss,
}

impl GameOutcome {
    /// The outcome for a score of exactly 1, 1/2 or 0 (within 1e-9); anything else is `None`.
    pub fn from_score(score: f64) -> Option<Self> {
        const TOL: f64 = 1e-9;
        if (score - 1.0).abs() <= TOL {
            Some(Self::Win)
        } else if (score - 0.5).abs() <= TOL {
            Some(Self::Draw)
        } else if score.abs() <= TOL {
            Some(Self::Loss)
        } else {
            None
        }
    }

    /// Points scored: 1, 1/2 or 0.
    pub fn score(self) -> f64 {
        match self {
            Self::Win => 1.0,
            Self::Draw => 0.5,
            Self::Loss => 0.0,
        }
    }

    /// The same game seen from the opponent.
    pub fn flipped(self) -> Self {
        match self {
            Self::Win => Self::Loss,
            Self::Draw => Self::Draw,
            Self::Loss => Self::Win,
        }
    }
}

/// Win/draw/loss counts of one bot against another (or against a field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Self {
            wins,
            draws,
            losses,
        }
    }

    /// Number of games (saturating).
    pub fn games(&self) -> u64 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// Points: a win is 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean score per game, `None` without games.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Counts one more game.
    pub fn record(&mut self, outcome: GameOutcome) {
        match outcome {
            GameOutcome::Win => self.wins = self.wins.saturating_add(1),
            GameOutcome::Draw => self.draws = self.draws.saturating_add(1),
            GameOutcome::Loss => self.losses = self.losses.saturating_add(1),
        }
    }

    /// Adds another set of counts (saturating).
    pub fn add(&mut self, other: &Wdl) {
        self.wins = self.wins.saturating_add(other.wins);
        self.draws = self.draws.saturating_add(other.draws);
        self.losses = self.losses.saturating_add(other.losses);
    }

    /// The same games seen from the opponent (wins and losses swapped).
    pub fn flipped(&self) -> Wdl {
        Wdl::new(self.losses, self.draws, self.wins)
    }
}

/// Counts of game-pair scores 0, 1/2, 1, 3/2 and 2 (index = twice the pair score) for the first
/// bot, each pair being one opening played twice with colours swapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Number of pairs (saturating).
    pub fn pairs(&self) -> u64 {
        self.0.iter().fold(0u64, |acc, &c| acc.saturating_add(c))
    }

    /// Number of games, twice the number of pairs.
    pub fn games(&self) -> u64 {
        self.pairs().saturating_mul(2)
    }

    /// Counts one more pair from the first bot's two results.
    pub fn record_pair(&mut self, first: GameOutcome, second: GameOutcome) {
        let index = ((first.score() + second.score()) * 2.0).round() as usize;
        self.0[index.min(4)] = self.0[index.min(4)].saturating_add(1);
    }

    /// Adds another set of counts (saturating).
    pub fn add(&mut self, other: &Pentanomial) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.saturating_add(b);
        }
    }

    /// The same pairs seen from the opponent (counts reversed).
    pub fn flipped(&self) -> Pentanomial {
        let mut c = self.0;
        c.reverse();
        Pentanomial(c)
    }

    /// The per-game W/D/L totals cannot be recovered from pair scores (a pair scoring 1 may be
    /// two draws or a win and a loss), so only the mean score is offered: `None` without pairs.
    pub fn score(&self) -> Option<f64> {
        let n = self.pairs();
        (n > 0).then(|| {
            let pts: f64 = self
                .0
                .iter()
                .enumerate()
                .map(|(k, &c)| c as f64 * k as f64 / 4.0)
                .sum();
            pts / n as f64
        })
    }
}

/// Elo difference for an expected score: `-400 log10(1/s - 1)`; `+inf` at `s >= 1`, `-inf` at
/// `s <= 0`, NaN only for a NaN input.
pub fn score_to_elo(s: f64) -> f64 {
    if s >= 1.0 {
        f64::INFINITY
    } else if s <= 0.0 {
        f64::NEG_INFINITY
    } else {
        400.0 * (s.ln() - (-s).ln_1p()) / LN_10
    }
}

/// Expected score for an Elo difference: `1 / (1 + 10^(-elo/400))`.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Standard normal cumulative distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    Normal::standard().cdf(x)
}

/// Summary of a two-bot match from the first bot's point of view. Never holds NaN.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Games played (twice the pairs for a pentanomial estimate).
    pub games: u64,
    /// Game pairs, for a pentanomial estimate.
    pub pairs: Option<u64>,
    /// Mean score per game, in [0, 1].
    pub score: f64,
    /// Standard error of `score`.
    pub score_se: f64,
    /// Fraction of drawn games; for pairs, the fraction of pairs scoring exactly 1.
    pub draw_ratio: f64,
    /// Elo difference (±inf for a clean sweep either way).
    pub elo: f64,
    /// Lower end of the 95% interval (may be -inf).
    pub elo_low: f64,
    /// Upper end of the 95% interval (may be +inf).
    pub elo_high: f64,
    /// Half the width of the 95% interval; +inf when either end is infinite.
    pub elo_margin: f64,
    /// Likelihood of superiority, in [0, 1].
    pub los: f64,
    /// Normalized Elo (±inf when the spread is zero and the score is not 1/2).
    pub nelo: f64,
    /// 95% margin of the normalized Elo.
    pub nelo_margin: f64,
}

impl EloEstimate {
    /// Estimate from per-game counts; `None` for zero games.
    pub fn from_wdl(wdl: &Wdl) -> Option<Self> {
        let counts = [wdl.losses, wdl.draws, wdl.wins];
        let mut est = Self::from_counts(&[0.0, 0.5, 1.0], &counts, 1.0)?;
        est.pairs = None;
        Some(est)
    }

    /// Estimate from pair counts; `None` for zero pairs. Normalized Elo uses `sqrt(2) sigma_p`,
    /// so that it is on the per-game scale.
    pub fn from_pentanomial(penta: &Pentanomial) -> Option<Self> {
        let mut est = Self::from_counts(&[0.0, 0.25, 0.5, 0.75, 1.0], &penta.0, SQRT_2)?;
        est.pairs = Some(penta.pairs());
        est.games = penta.games();
        Some(est)
    }

    /// `values[k]` is the score of outcome class k, the middle class counts as a draw.
    fn from_counts(values: &[f64], counts: &[u64], nelo_factor: f64) -> Option<Self> {
        let n_int = counts.iter().fold(0u64, |acc, &c| acc.saturating_add(c));
        if n_int == 0 {
            return None;
        }
        let n = n_int as f64;
        let score: f64 = values
            .iter()
            .zip(counts)
            .map(|(&a, &c)| a * c as f64)
            .sum::<f64>()
            / n;
        let score = score.clamp(0.0, 1.0);
        let var: f64 = values
            .iter()
            .zip(counts)
            .map(|(&a, &c)| c as f64 * (a - score) * (a - score))
            .sum::<f64>()
            / n;
        let sigma = var.max(0.0).sqrt();
        let se = sigma / n.sqrt();
        let draw_ratio = counts[counts.len() / 2] as f64 / n;

        let elo = score_to_elo(score);
        let elo_low = score_to_elo((score - Z95 * se).clamp(0.0, 1.0));
        let elo_high = score_to_elo((score + Z95 * se).clamp(0.0, 1.0));
        let elo_margin = if elo_low.is_finite() && elo_high.is_finite() {
            (elo_high - elo_low) / 2.0
        } else {
            f64::INFINITY
        };

        let excess = score - 0.5;
        let by_sign = |pos: f64, zero: f64, neg: f64| {
            if excess > 0.0 {
                pos
            } else if excess < 0.0 {
                neg
            } else {
                zero
            }
        };
        let los = if se > 0.0 {
            normal_cdf(excess / se)
        } else {
            by_sign(1.0, 0.5, 0.0)
        };
        let nelo = if sigma > 0.0 {
            excess / (nelo_factor * sigma) * NELO_PER_T
        } else {
            by_sign(f64::INFINITY, 0.0, f64::NEG_INFINITY)
        };
        let nelo_margin = Z95 * NELO_PER_T / (nelo_factor * n.sqrt());

        Some(Self {
            games: n_int,
            pairs: None,
            score,
            score_se: se,
            draw_ratio,
            elo,
            elo_low,
            elo_high,
            elo_margin,
            los,
            nelo,
            nelo_margin,
        })
    }

    /// `"+147.19 +/- 66.01"`.
    pub fn elo_text(&self) -> String {
        format!("{} +/- {}", fmt_elo(self.elo), fmt_margin(self.elo_margin))
    }

    /// `"+173.72 +/- 68.10"`.
    pub fn nelo_text(&self) -> String {
        format!(
            "{} +/- {}",
            fmt_elo(self.nelo),
            fmt_margin(self.nelo_margin)
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn z95_is_the_normal_quantile() {
        let q = Normal::standard().inverse_cdf(0.975);
        assert!((q - Z95).abs() < 1e-9, "{q}");
        assert!(
            (normal_cdf(Z95) - 0.975).abs() < 1e-9,
            "{}",
            normal_cdf(Z95)
        );
    }

    use super::*;

    fn r2(x: f64) -> f64 {
        (x * 100.0).round() / 100.0
    }

    fn wdl(w: u64, d: u64, l: u64) -> EloEstimate {
        EloEstimate::from_wdl(&Wdl::new(w, d, l)).expect("games")
    }

    /// Check values of `shared/specs/statistics.md`, section "Two bots, one match".
    #[test]
    fn spec_check_values() {
        let e = wdl(60, 20, 20);
        assert_eq!(
            (r2(e.elo), r2(e.elo_margin), r2(e.nelo), r2(e.nelo_margin)),
            (147.19, 66.01, 173.72, 68.10)
        );
        assert_eq!(fmt_percent(e.los), "100.00%");
        assert_eq!(e.elo_text(), "+147.19 +/- 66.01");
        assert_eq!(e.nelo_text(), "+173.72 +/- 68.10");

        let e = wdl(30, 40, 30);
        assert_eq!(fmt_elo(e.elo), "0.00");
        assert_eq!(r2(e.elo_margin), 53.16);
        assert_eq!(fmt_percent(e.los), "50.00%");
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (0.0, 68.10));

        let e = wdl(510, 480, 450);
        assert_eq!((r2(e.elo), r2(e.elo_margin)), (14.48, 14.67));
        assert_eq!(fmt_percent(e.los), "97.38%");
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (17.75, 17.94));
    }

    /// fastchess `app/tests/elo_test.cpp` ("EloWDL 1..3"); its `Stats(a, b, c)` is
    /// (wins, losses, draws).
    #[test]
    fn fastchess_wdl_values() {
        let e = wdl(76, 123, 89);
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (-20.76, 40.13));
        assert_eq!(fmt_percent(e.los), "15.53%");

        let e = wdl(136, 111, 96);
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (49.77, 36.77));
        assert_eq!((r2(e.elo), r2(e.elo_margin)), (40.70, 30.43));
        assert_eq!(fmt_percent(e.los), "99.60%");

        let e = wdl(34, 0, 356);
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (-508.44, 34.48));
    }

    /// fastchess `app/tests/elo_test.cpp` ("EloPentanomial 1..3"); its six-argument `Stats` is
    /// (LL, LD, WL, DD, WD, WW), and WL + DD is our middle class.
    #[test]
    fn fastchess_pentanomial_values() {
        let p = |ll: u64, ld, wl: u64, dd, wd, ww| {
            EloEstimate::from_pentanomial(&Pentanomial([ll, ld, wl + dd, wd, ww])).expect("pairs")
        };
        let e = p(34, 54, 31, 32, 64, 75);
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (57.94, 28.28));
        assert_eq!((r2(e.elo), r2(e.elo_margin)), (55.58, 27.65));
        assert_eq!(fmt_percent(e.los), "100.00%");
        assert_eq!(e.pairs, Some(290));
        assert_eq!(e.games, 580);

        let e = p(332, 433, 457, 41, 333, 334);
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (-9.17, 10.96));
        assert_eq!((r2(e.elo), r2(e.elo_margin)), (-8.64, 10.33));
        assert_eq!(fmt_percent(e.los), "5.05%");

        let e = p(7895, 8757, 5485, 200, 568, 9999);
        assert_eq!((r2(e.nelo), r2(e.nelo_margin)), (-19.01, 2.65));
        assert_eq!((r2(e.elo), r2(e.elo_margin)), (-21.04, 2.95));
    }

    #[test]
    fn edge_cases_are_honest() {
        assert!(EloEstimate::from_wdl(&Wdl::default()).is_none());
        assert!(EloEstimate::from_pentanomial(&Pentanomial::default()).is_none());
        assert_eq!(fmt_elo_opt(None), "n/a");

        let e = wdl(10, 0, 0);
        assert_eq!(e.elo, f64::INFINITY);
        assert_eq!(e.elo_margin, f64::INFINITY);
        assert_eq!((e.los, e.nelo), (1.0, f64::INFINITY));
        assert_eq!(e.elo_text(), "+inf +/- inf");

        let e = wdl(0, 0, 7);
        assert_eq!(
            (e.elo, e.los, e.nelo),
            (f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY)
        );
        assert_eq!(fmt_elo(e.elo), "-inf");

        let e = wdl(0, 9, 0);
        assert_eq!((e.elo, e.elo_margin, e.los, e.nelo), (0.0, 0.0, 0.5, 0.0));
        assert_eq!(e.draw_ratio, 1.0);

        // The upper bound of the score interval passes 1: an infinite, not a NaN, margin.
        let e = wdl(99, 0, 1);
        assert!(e.elo.is_finite() && e.elo_low.is_finite());
        assert_eq!((e.elo_high, e.elo_margin), (f64::INFINITY, f64::INFINITY));
    }

    #[test]
    fn helpers() {
        assert_eq!(GameOutcome::from_score(0.5), Some(GameOutcome::Draw));
        assert_eq!(GameOutcome::from_score(0.7), None);
        let mut p = Pentanomial::default();
        p.record_pair(GameOutcome::Win, GameOutcome::Draw);
        p.record_pair(GameOutcome::Loss, GameOutcome::Win);
        assert_eq!(p, Pentanomial([0, 0, 1, 1, 0]));
        assert_eq!(p.flipped(), Pentanomial([0, 1, 1, 0, 0]));
        assert_eq!(p.score(), Some(0.625));
        let mut w = Wdl::new(1, 2, 3);
        w.record(GameOutcome::Win);
        assert_eq!(w.flipped(), Wdl::new(3, 2, 2));
        assert!((score_to_elo(elo_to_score(123.4)) - 123.4).abs() < 1e-9);
    }

    proptest::proptest! {
        #[test]
        fn never_nan(w in 0u64..2000, d in 0u64..2000, l in 0u64..2000,
                     c in proptest::array::uniform5(0u64..500)) {
            for e in [EloEstimate::from_wdl(&Wdl::new(w, d, l)),
                      EloEstimate::from_pentanomial(&Pentanomial(c))].into_iter().flatten() {
                for x in [e.score, e.score_se, e.draw_ratio, e.elo, e.elo_low, e.elo_high,
                          e.elo_margin, e.los, e.nelo, e.nelo_margin] {
                    proptest::prop_assert!(!x.is_nan());
                }
                proptest::prop_assert!(e.elo_low <= e.elo && e.elo <= e.elo_high);
            }
        }
    }
}
