//! Per-worker residuals (fishtest's check of its workers, issue 38): a worker that reports
//! results the league's fit does not expect (a faulty machine, a tampered arbiter that makes
//! seat 0 win) is found by comparing its games with the fit. Pure: no I/O, no clock.
//!
//! For each game, seat 0's score against each opponent (1 a win, 1/2 a tie, 0 a loss, averaged
//! over the opponents) less what the fit's ratings expect (the Elo curve,
//! `1 / (1 + 10^((r_j - r_0) / 400))`) is its residual; each game's variance is at most
//! `e (1 - e)` (draws only lower it). Seat 0 may have an advantage in the game itself, which
//! the fit does not model, so a worker's residuals are measured from the median worker's mean
//! (a majority of honest workers sets the baseline; with fewer than [`MIN_WORKERS`] workers
//! there is no majority and nobody is flagged). A worker's `z` is the sum of its residuals less
//! the baseline, over the square root of the sum of their variances: about standard normal for
//! an honest worker. It is flagged when `|z|` passes the two-sided quantile of `alpha`
//! (Bonferroni-corrected for the number of workers tested) after at least `min_games` games.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::BTreeMap;

/// Workers needed before any is flagged (the median is a majority's).
pub const MIN_WORKERS: usize = 3;

/// The test's settings.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// Games a worker plays before it can be flagged.
    pub min_games: usize,
    /// The false alarm rate per check of all workers (two-sided).
    pub alpha: f64,
}

impl Default for Check {
    fn default() -> Check {
        Check {
            min_games: 30,
            alpha: 0.001,
        }
    }
}

/// A game as the check sees it: who played it, its bots by seat and their ranks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Played {
    pub worker: String,
    pub game_id: u64,
    pub bots: Vec<String>,
    pub ranks: Vec<u8>,
}

/// One worker's residual.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Residual {
    pub worker: String,
    /// Its games with rated bots.
    pub games: usize,
    /// Its seat 0's mean score less the fit's expectation.
    pub mean: f64,
    /// How many standard errors that is from the median worker's.
    pub z: f64,
    /// `|z|` passed the threshold, after enough games.
    pub flagged: bool,
    /// The threshold `|z|` was held to.
    pub threshold: f64,
}

/// Seat 0's residual in `g` and its variance bound, when every bot of `g` is rated.
fn residual(g: &Played, rating: &impl Fn(&str) -> Option<f64>) -> Option<(f64, f64)> {
    let r0 = rating(g.bots.first()?)?;
    let (mut score, mut expected, mut var) = (0.0, 0.0, 0.0);
    let n = g.bots.len().checked_sub(1).filter(|&n| n > 0)? as f64;
    for (j, bot) in g.bots.iter().enumerate().skip(1) {
        let rj = rating(bot)?;
        let e = 1.0 / (1.0 + 10f64.powf((rj - r0) / 400.0));
        score += match g.ranks.first()?.cmp(g.ranks.get(j)?) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        };
        expected += e;
        var += e * (1.0 - e);
    }
    Some(((score - expected) / n, var / (n * n)))
}

/// Each worker's residual over `games`, given the fit's `rating` of each bot (Elo; `None`
/// while unrated: such games are left out).
pub fn check(
    games: &[Played],
    rating: impl Fn(&str) -> Option<f64>,
    settings: Check,
) -> Vec<Residual> {
    let mut by_worker: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for g in games {
        if let Some(rv) = residual(g, &rating) {
            by_worker.entry(g.worker.as_str()).or_default().push(rv);
        }
    }
    let mut means: Vec<f64> = by_worker
        .values()
        .filter(|v| v.len() >= settings.min_games)
        .map(|v| v.iter().map(|(d, _)| d).sum::<f64>() / v.len() as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let enough = means.len() >= MIN_WORKERS;
    let baseline = if means.is_empty() {
        0.0
    } else if means.len() % 2 == 1 {
        means[means.len() / 2]
    } else {
        (means[means.len() / 2 - 1] + means[means.len() / 2]) / 2.0
    };
    let tested = means.len().max(1) as f64;
    let threshold = Normal::new(0.0, 1.0)
        .expect("the standard normal")
        .inverse_cdf(1.0 - settings.alpha / (2.0 * tested));
    by_worker
        .into_iter()
        .map(|(worker, v)| {
            let n = v.len();
            let sum: f64 = v.iter().map(|(d, _)| d - baseline).sum();
            let var: f64 = v.iter().map(|(_, s)| s).sum::<f64>().max(1e-9);
            let z = sum / var.sqrt();
            Residual {
                worker: worker.to_string(),
                games: n,
                mean: v.iter().map(|(d, _)| d).sum::<f64>() / n as f64,
                z,
                flagged: enough && n >= settings.min_games && z.abs() > threshold,
                threshold,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Bots with these true ratings; the fit is taken to know them.
    const BOTS: [(&str, f64); 4] = [("a", 200.0), ("b", 50.0), ("c", -50.0), ("d", -200.0)];

    fn rating(name: &str) -> Option<f64> {
        BOTS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
    }

    /// `n` honest games of `worker` (seat 0 wins as the Elo curve says, plus a small seat
    /// advantage that the fit does not model), or, if `cheat`, every game a win for seat 0.
    fn games(worker: &str, n: usize, cheat: bool, rng: &mut Rng) -> Vec<Played> {
        (0..n)
            .map(|k| {
                let (i, j) = (rng.below(4), rng.below(3));
                let j = if j >= i { j + 1 } else { j };
                let (a, b) = (BOTS[i], BOTS[j]);
                let e = 1.0 / (1.0 + 10f64.powf((b.1 - a.1) / 400.0)) + 0.03;
                let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let ranks = if cheat || x < e {
                    vec![0, 1]
                } else {
                    vec![1, 0]
                };
                Played {
                    worker: worker.into(),
                    game_id: k as u64,
                    bots: vec![a.0.into(), b.0.into()],
                    ranks,
                }
            })
            .collect()
    }

    #[test]
    fn honest_workers_are_not_flagged_and_one_whose_seat_0_always_wins_is() {
        let mut rng = Rng::new(38);
        for round in 0..20 {
            let mut all = Vec::new();
            for w in ["w1", "w2", "w3", "w4"] {
                all.extend(games(w, 200, false, &mut rng));
            }
            all.extend(games("cheat", 60, true, &mut rng));
            let r = check(&all, rating, Check::default());
            let flagged: Vec<&str> = r
                .iter()
                .filter(|x| x.flagged)
                .map(|x| x.worker.as_str())
                .collect();
            assert_eq!(flagged, ["cheat"], "round {round}: {r:?}");
        }
    }

    #[test]
    fn nobody_is_flagged_before_enough_games_or_without_a_majority() {
        let mut rng = Rng::new(7);
        let mut all = games("w1", 200, false, &mut rng);
        all.extend(games("w2", 200, false, &mut rng));
        all.extend(games("w3", 200, false, &mut rng));
        // Too few games to judge.
        all.extend(games("cheat", 10, true, &mut rng));
        assert!(check(&all, rating, Check::default())
            .iter()
            .all(|x| !x.flagged));
        // Two workers: no majority to say which of them is off.
        let mut two = games("w1", 200, false, &mut rng);
        two.extend(games("cheat", 200, true, &mut rng));
        assert!(check(&two, rating, Check::default())
            .iter()
            .all(|x| !x.flagged));
        // Unrated bots' games are left out.
        let r = check(&all, |_| None, Check::default());
        assert!(r.is_empty(), "{r:?}");
    }
}
