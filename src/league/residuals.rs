//! Per-worker residuals (fishtest's check of its workers, issue 38, widened in issue 45): a
//! worker that reports results the league's fit does not expect (a faulty machine, a tampered
//! arbiter that makes seat 0 win, or one bot win in whichever seat) is found by comparing its
//! games with the fit and with the other workers' games. Pure: no I/O, no clock.
//!
//! A residual is a score less what the fit's ratings expect (the Elo curve,
//! `1 / (1 + 10^((r_j - r_i) / 400))`; 1 a win, 1/2 a tie, 0 a loss), with a variance of at
//! most `e (1 - e)` (draws only lower it). It is taken in three kinds of cell: seat 0's score
//! against each opponent (a machine that favours a seat), each bot's score against its
//! opponents in whichever seat (one that favours a bot), and each pair's (one that favours a
//! bot against another). The fit may be off for a cell on its own (a seat advantage the fit
//! does not model; a bot's rating still moving), so a worker's residuals in a cell are measured
//! from the median worker's mean in that cell (a majority of honest workers sets the baseline;
//! a cell with fewer than [`MIN_WORKERS`] workers of enough games in it is not tested). A
//! worker's `z` in a cell is the sum of its residuals less the baseline, over the square root
//! of the sum of their variances and of the baseline's: about standard normal for an honest
//! worker. It is flagged when `|z|` passes the two-sided quantile of `alpha`, Bonferroni-
//! corrected for the number of (worker, cell) tests, after at least `min_games` games of the
//! worker and `min_cell_games` in the cell.
//!
//! Voids are counted too ([`void_outliers`]): a worker that voids far more of its games than
//! the others (a "starved" timeout for every loss: a re-roll) is flagged by a binomial test of
//! its voids against the other workers' rate (at least [`VOID_FLOOR`]).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// Workers needed before any is flagged (the median is a majority's).
pub const MIN_WORKERS: usize = 3;

/// The least void rate a worker's voids are held to: machines the league does not own are
/// sometimes busy, and a league of workers that never void would flag a worker's first few.
pub const VOID_FLOOR: f64 = 0.02;

/// The test's settings.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// Games a worker plays before it can be flagged.
    pub min_games: usize,
    /// Games of a worker in a cell (a bot's, a pair's) before that cell can flag it.
    pub min_cell_games: usize,
    /// The false alarm rate per check of all workers (two-sided).
    pub alpha: f64,
}

impl Default for Check {
    fn default() -> Check {
        Check {
            min_games: 30,
            min_cell_games: 10,
            alpha: 0.001,
        }
    }
}

/// What a residual is taken of.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ResidualCell {
    /// Seat 0's score against its opponents.
    Seat0,
    /// A bot's score against its opponents, in whichever seat.
    Bot(String),
    /// The first bot's score against the second (names in order).
    Pair(String, String),
}

impl std::fmt::Display for ResidualCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResidualCell::Seat0 => f.write_str("its seat 0"),
            ResidualCell::Bot(b) => write!(f, "bot {b}"),
            ResidualCell::Pair(a, b) => write!(f, "bot {a} against {b}"),
        }
    }
}

/// A game as the check sees it: who played it, its bots by seat and their ranks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayedBy {
    pub worker: String,
    pub game_id: u64,
    pub bots: Vec<String>,
    pub ranks: Vec<u8>,
}

/// One worker's residual in one cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Residual {
    pub worker: String,
    pub cell: ResidualCell,
    /// Its games with rated bots in that cell.
    pub games: usize,
    /// Its mean score in the cell less the fit's expectation.
    pub mean: f64,
    /// How many standard errors that is from the median worker's.
    pub z: f64,
    /// `|z|` passed the threshold, after enough games.
    pub flagged: bool,
    /// The threshold `|z|` was held to.
    pub threshold: f64,
}

/// A cell as the check counts it: borrowed from the games (no name copied per game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum CellKey<'a> {
    Seat0,
    Bot(&'a str),
    Pair(&'a str, &'a str),
}

impl CellKey<'_> {
    fn cell(self) -> ResidualCell {
        match self {
            CellKey::Seat0 => ResidualCell::Seat0,
            CellKey::Bot(b) => ResidualCell::Bot(b.to_string()),
            CellKey::Pair(a, b) => ResidualCell::Pair(a.to_string(), b.to_string()),
        }
    }
}

/// Hands `add` each of `g`'s residuals by cell, with its variance bound, when every bot of `g`
/// is rated; whether it did.
fn residuals<'a>(
    g: &'a PlayedBy,
    rating: &impl Fn(&str) -> Option<f64>,
    add: &mut impl FnMut(CellKey<'a>, f64, f64),
) -> bool {
    let k = g.bots.len();
    if k < 2 || g.ranks.len() != k {
        return false;
    }
    let mut r = [0f64; 8];
    let mut many = Vec::new();
    let r: &mut [f64] = if k <= r.len() {
        &mut r[..k]
    } else {
        many.resize(k, 0.0);
        &mut many
    };
    for (i, b) in g.bots.iter().enumerate() {
        let Some(x) = rating(b) else {
            return false;
        };
        r[i] = x;
    }
    // Seat i's score against seat j, and what the fit expects of it.
    let score = |i: usize, j: usize| match g.ranks[i].cmp(&g.ranks[j]) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    };
    let expected = |i: usize, j: usize| 1.0 / (1.0 + 10f64.powf((r[j] - r[i]) / 400.0));
    let n = (k - 1) as f64;
    let seat = |i: usize| {
        let (mut d, mut var) = (0.0, 0.0);
        for j in (0..k).filter(|&j| j != i) {
            let e = expected(i, j);
            d += score(i, j) - e;
            var += e * (1.0 - e);
        }
        (d / n, var / (n * n))
    };
    for i in 0..k {
        let (d, var) = seat(i);
        if i == 0 {
            add(CellKey::Seat0, d, var);
        }
        add(CellKey::Bot(&g.bots[i]), d, var);
        for j in i + 1..k {
            let (a, b) = if g.bots[i] <= g.bots[j] {
                (i, j)
            } else {
                (j, i)
            };
            if g.bots[a] == g.bots[b] {
                continue;
            }
            let e = expected(a, b);
            add(
                CellKey::Pair(&g.bots[a], &g.bots[b]),
                score(a, b) - e,
                e * (1.0 - e),
            );
        }
    }
    true
}

/// A worker's sums in one cell: residuals, variances, games.
#[derive(Clone, Copy, Default)]
struct Sums {
    d: f64,
    var: f64,
    n: usize,
}

/// The residual of every worker in every cell it has enough games in, over `games`, given the
/// fit's `rating` of each bot (Elo; `None` while unrated: such games are left out).
pub fn check(
    games: &[PlayedBy],
    rating: impl Fn(&str) -> Option<f64>,
    settings: Check,
) -> Vec<Residual> {
    use std::collections::HashMap;
    let mut cells: HashMap<CellKey<'_>, HashMap<&str, Sums>> = HashMap::new();
    let mut per_worker: HashMap<&str, usize> = HashMap::new();
    for g in games {
        let worker = g.worker.as_str();
        let rated = residuals(g, &rating, &mut |key, d, var| {
            let s = cells.entry(key).or_default().entry(worker).or_default();
            s.d += d;
            s.var += var;
            s.n += 1;
        });
        if rated {
            *per_worker.entry(worker).or_default() += 1;
        }
    }
    let mut cells: Vec<(CellKey<'_>, HashMap<&str, Sums>)> = cells.into_iter().collect();
    cells.sort_by(|a, b| a.0.cmp(&b.0));
    let enough = |key: &CellKey<'_>| match key {
        CellKey::Seat0 => settings.min_games,
        _ => settings.min_cell_games,
    };
    // Per cell, the workers with enough games in it: the baseline is their median mean, its
    // variance that of a median of their means (pi/2 times a mean's, over their count).
    struct Tested<'a> {
        cell: CellKey<'a>,
        baseline: f64,
        baseline_var: f64,
        workers: Vec<(&'a str, Sums)>,
    }
    let mut tested = Vec::new();
    for (cell, by_worker) in &cells {
        let mut workers: Vec<(&str, Sums)> = by_worker
            .iter()
            .filter(|(_, s)| s.n >= enough(cell))
            .map(|(w, s)| (*w, *s))
            .collect();
        workers.sort_by(|a, b| a.0.cmp(b.0));
        if workers.len() < MIN_WORKERS {
            continue;
        }
        let mut means: Vec<f64> = workers.iter().map(|(_, s)| s.d / s.n as f64).collect();
        means.sort_by(f64::total_cmp);
        let m = means.len();
        let baseline = if m % 2 == 1 {
            means[m / 2]
        } else {
            (means[m / 2 - 1] + means[m / 2]) / 2.0
        };
        let mean_var = workers
            .iter()
            .map(|(_, s)| s.var / (s.n * s.n) as f64)
            .sum::<f64>()
            / m as f64;
        tested.push(Tested {
            cell: *cell,
            baseline,
            baseline_var: std::f64::consts::FRAC_PI_2 * mean_var / m as f64,
            workers,
        });
    }
    let judged = |w: &str| per_worker.get(w).copied().unwrap_or(0) >= settings.min_games;
    let tests = tested
        .iter()
        .map(|t| t.workers.iter().filter(|(w, _)| judged(w)).count())
        .sum::<usize>()
        .max(1) as f64;
    let threshold = Normal::new(0.0, 1.0)
        .expect("the standard normal")
        .inverse_cdf(1.0 - settings.alpha / (2.0 * tests));
    let mut out = Vec::new();
    for t in &tested {
        let cell = t.cell.cell();
        for (worker, s) in &t.workers {
            let n = s.n as f64;
            let var = (s.var + n * n * t.baseline_var).max(1e-9);
            let z = (s.d - n * t.baseline) / var.sqrt();
            out.push(Residual {
                worker: worker.to_string(),
                cell: cell.clone(),
                games: s.n,
                mean: s.d / n,
                z,
                flagged: judged(worker) && z.abs() > threshold,
                threshold,
            });
        }
    }
    out
}

/// A worker's voids against the other workers'.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VoidRate {
    pub worker: String,
    /// Its results (recorded and voided) and its voids.
    pub results: u64,
    pub voids: u64,
    /// The other workers' void rate (at least [`VOID_FLOOR`]) its voids are held to.
    pub others: f64,
    /// The chance of that many voids or more at that rate.
    pub p: f64,
    pub flagged: bool,
    /// The chance `p` was held to.
    pub threshold: f64,
}

/// Each worker's voids (`(worker, results recorded, results voided)`) against the others': a
/// worker of at least `min_games` results whose voids are far more than the other workers'
/// rate makes likely (a binomial tail below `alpha`, Bonferroni-corrected for the workers
/// tested) is flagged, with at least [`MIN_WORKERS`] such workers to compare.
pub fn void_outliers(counts: &[(String, u64, u64)], settings: Check) -> Vec<VoidRate> {
    use statrs::distribution::{Binomial, DiscreteCDF};
    let total = |c: &(String, u64, u64)| c.1 + c.2;
    let judged: Vec<&(String, u64, u64)> = counts
        .iter()
        .filter(|c| total(c) >= settings.min_games as u64)
        .collect();
    if judged.len() < MIN_WORKERS {
        return Vec::new();
    }
    let (all_n, all_v) = counts
        .iter()
        .fold((0, 0), |(n, v), c| (n + total(c), v + c.2));
    let threshold = settings.alpha / judged.len() as f64;
    judged
        .into_iter()
        .map(|c| {
            let (n, v) = (total(c), c.2);
            let (on, ov) = (all_n - n, all_v - v);
            let others = if on == 0 {
                VOID_FLOOR
            } else {
                (ov as f64 / on as f64).max(VOID_FLOOR)
            };
            // P(X >= v) for X ~ Binomial(n, others).
            let p = if v == 0 {
                1.0
            } else {
                Binomial::new(others.min(1.0), n).map_or(1.0, |b| b.sf(v - 1))
            };
            VoidRate {
                worker: c.0.clone(),
                results: n,
                voids: v,
                others,
                p,
                flagged: p < threshold,
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
    fn games(worker: &str, n: usize, cheat: bool, rng: &mut Rng) -> Vec<PlayedBy> {
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
                PlayedBy {
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
            let mut flagged: Vec<&str> = r
                .iter()
                .filter(|x| x.flagged)
                .map(|x| x.worker.as_str())
                .collect();
            flagged.dedup();
            assert_eq!(flagged, ["cheat"], "round {round}: {r:?}");
            assert!(
                r.iter().any(|x| x.flagged && x.cell == ResidualCell::Seat0),
                "round {round}: {r:?}"
            );
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

    /// `n` games of `worker` in which bot `favoured`, whenever it plays, wins (in either seat);
    /// the others honest.
    fn favouring(worker: &str, n: usize, favoured: &str, rng: &mut Rng) -> Vec<PlayedBy> {
        let mut g = games(worker, n, false, rng);
        for p in &mut g {
            if let Some(seat) = p.bots.iter().position(|b| b == favoured) {
                p.ranks = vec![1, 1];
                p.ranks[seat] = 0;
            }
        }
        g
    }

    #[test]
    fn a_worker_favouring_one_bot_in_any_seat_is_flagged_within_a_few_dozen_games() {
        let mut rng = Rng::new(45);
        for round in 0..20 {
            let mut all = Vec::new();
            for w in ["w1", "w2", "w3", "w4"] {
                all.extend(games(w, 200, false, &mut rng));
            }
            // The weakest bot made a winner: 40 games, about 20 of them with it.
            all.extend(favouring("cheat", 40, "d", &mut rng));
            let r = check(&all, rating, Check::default());
            let flagged: Vec<(&str, &ResidualCell)> = r
                .iter()
                .filter(|x| x.flagged)
                .map(|x| (x.worker.as_str(), &x.cell))
                .collect();
            assert!(
                flagged.contains(&("cheat", &ResidualCell::Bot("d".into()))),
                "round {round}: {flagged:?}"
            );
            assert!(
                flagged
                    .iter()
                    .all(|(w, c)| *w == "cheat" && **c != ResidualCell::Seat0),
                "round {round}: only its bot's cells: {flagged:?}"
            );
        }
    }

    #[test]
    fn a_worker_that_voids_far_more_than_the_others_is_flagged() {
        let c = |w: &str, results: u64, voids: u64| (w.to_string(), results, voids);
        // Honest workers void now and then; one voids every other game.
        let counts = [
            c("w1", 200, 3),
            c("w2", 180, 1),
            c("w3", 220, 6),
            c("reroll", 15, 15),
        ];
        let r = void_outliers(&counts, Check::default());
        let flagged: Vec<&str> = r
            .iter()
            .filter(|x| x.flagged)
            .map(|x| x.worker.as_str())
            .collect();
        assert_eq!(flagged, ["reroll"], "{r:?}");
        // A busy worker voiding a few more than the others is not.
        let counts = [
            c("w1", 200, 3),
            c("w2", 180, 1),
            c("w3", 220, 6),
            c("busy", 60, 3),
        ];
        assert!(void_outliers(&counts, Check::default())
            .iter()
            .all(|x| !x.flagged));
        // Too few games, or too few workers to compare with: nobody.
        let counts = [
            c("w1", 200, 3),
            c("w2", 180, 1),
            c("w3", 220, 6),
            c("new", 5, 5),
        ];
        assert!(void_outliers(&counts, Check::default())
            .iter()
            .all(|x| !x.flagged));
        let counts = [c("w1", 200, 3), c("reroll", 30, 30)];
        assert!(void_outliers(&counts, Check::default()).is_empty());
    }
}
