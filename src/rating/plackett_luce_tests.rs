//! Tests of the Plackett-Luce fit. The four-player check values come from an independent
//! computation, `benches/plackett_luce_check.py` (every order of each tied group enumerated,
//! numerical derivatives, plain Newton); run it to reproduce them.

use super::*;
use crate::rating::bradley_terry::fit_field;
use crate::rating::elo::Wdl;
use crate::rating::field::RatingValue;
use proptest::prelude::*;

fn game(bots: &[usize], ranks: &[u8]) -> RankedGame {
    RankedGame {
        bots: bots.to_vec(),
        ranks: ranks.to_vec(),
    }
}

fn elo(fit: &FieldFit, bot: usize) -> f64 {
    fit.ratings[bot].rating.finite().expect("finite rating")
}

fn example() -> Vec<RankedGame> {
    vec![
        game(&[0, 1, 2, 3], &[0, 1, 2, 3]),
        game(&[1, 2, 3, 0], &[0, 1, 2, 3]),
        game(&[2, 0, 3, 1], &[0, 1, 1, 2]),
        game(&[3, 1, 0, 2], &[0, 1, 2, 3]),
        game(&[0, 2, 1, 3], &[0, 0, 1, 2]),
        game(&[0, 1, 2, 3], &[1, 0, 3, 2]),
        game(&[3, 2, 1, 0], &[0, 1, 2, 2]),
        game(&[0, 2, 3], &[2, 0, 1]),
    ]
}

/// Eight games of four (and one of three) players with ties; values from
/// `benches/plackett_luce_check.py`.
#[test]
fn four_player_check_values() {
    let fit = fit(4, &example()).unwrap();
    assert_eq!(fit.prior_draws, None, "{}", fit.perfect_scores);
    assert!(fit.converged);
    let want = [
        (-23.735163, 68.190260),
        (21.781573, 71.555465),
        (18.843493, 68.356295),
        (-16.889903, 66.388504),
    ];
    for (bot, (r, se)) in want.iter().enumerate() {
        assert!(
            (elo(&fit, bot) - r).abs() < 1e-4,
            "bot {bot}: {}",
            elo(&fit, bot)
        );
        let got = fit.ratings[bot].std_error.unwrap();
        assert!((got - se).abs() < 1e-3, "bot {bot}: se {got}");
    }
    assert!((fit.los[0][1].unwrap() - 0.344821).abs() < 1e-5);
    assert!((fit.los[1][2].unwrap() - 0.510083).abs() < 1e-5);
    assert_eq!(fit.ranking(), vec![1, 2, 3, 0]);
    assert!(fit.method.starts_with("Plackett-Luce"));

    let anchored = fit_with(
        4,
        &example(),
        &FitOptions {
            anchor: Some((3, 0.0)),
            ..FitOptions::default()
        },
    )
    .unwrap();
    let want = [
        (-6.845261, 109.721839),
        (38.671475, 113.268370),
        (35.733396, 107.755467),
    ];
    for (bot, (r, se)) in want.iter().enumerate() {
        assert!((elo(&anchored, bot) - r).abs() < 1e-4);
        assert!((anchored.ratings[bot].std_error.unwrap() - se).abs() < 1e-3);
    }
    assert_eq!(anchored.ratings[3].std_error, Some(0.0));

    // The pairwise table: bot 0 met bot 2 in all eight games (ahead in 1, 4, 6; tied in 5).
    let t = cross_table(4, &example()).unwrap();
    assert_eq!(t.pair(0, 2), Wdl::new(3, 1, 4));
    assert_eq!(t.totals(0).games(), 3 * 7 + 2);
    assert_eq!(fit.ratings[0].games, 23);
}

/// Two seats: exactly the Bradley-Terry fit of the same games (a tie is a draw), ratings,
/// intervals and LOS alike, with or without perfect scores.
#[test]
fn two_seats_are_bradley_terry() {
    let results = [
        (0, 1, 0u8, 1u8),
        (1, 0, 0, 0),
        (2, 0, 1, 0),
        (1, 2, 0, 1),
        (2, 1, 0, 0),
        (0, 2, 0, 1),
        (3, 0, 1, 0),
        (3, 2, 1, 0),
    ];
    for with_sweep in [false, true] {
        let mut games: Vec<RankedGame> = results
            .iter()
            .map(|&(a, b, ra, rb)| game(&[a, b], &[ra, rb]))
            .collect();
        if !with_sweep {
            games.push(game(&[3, 1], &[0, 1]));
        }
        let mut table = CrossTable::new(4);
        for g in &games {
            let score = match g.ranks[0].cmp(&g.ranks[1]) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
            table.add_game(g.bots[0], g.bots[1], score).unwrap();
        }
        let bt = fit_field(&table, &FitOptions::default());
        let pl = fit(4, &games).unwrap();
        assert_eq!(bt.prior_draws, pl.prior_draws);
        assert_eq!(pl.prior_draws.is_some(), with_sweep);
        for bot in 0..4 {
            assert!((elo(&bt, bot) - elo(&pl, bot)).abs() < 1e-9);
            let (a, b) = (&bt.ratings[bot], &pl.ratings[bot]);
            assert!((a.std_error.unwrap() - b.std_error.unwrap()).abs() < 1e-9);
            assert_eq!((a.wins, a.draws, a.losses), (b.wins, b.draws, b.losses));
            for other in 0..4 {
                let (x, y) = (bt.los[bot][other], pl.los[bot][other]);
                assert_eq!(x.is_some(), y.is_some());
                assert!((x.unwrap_or(0.0) - y.unwrap_or(0.0)).abs() < 1e-9);
            }
        }
        assert_eq!(bt.perfect_scores, pl.perfect_scores);
    }
}

/// A bot that finishes first in every game: finite, ranked first, the prior note says why (its
/// pairwise record is all wins); a bot never in a game is unrated.
#[test]
fn perfect_record_is_finite_and_first() {
    let games = vec![
        game(&[0, 1, 2], &[0, 1, 2]),
        game(&[1, 2, 0], &[1, 2, 0]),
        game(&[2, 0, 1], &[1, 0, 1]),
        game(&[1, 2, 0], &[1, 2, 0]),
    ];
    let fit = fit(4, &games).unwrap();
    assert_eq!(fit.prior_draws, Some(2.0));
    assert_eq!(fit.ranking(), vec![0, 1, 2, 3]);
    assert!(fit.ratings[..3].iter().all(|r| r.high.is_finite()));
    assert_eq!(fit.ratings[3].rating, RatingValue::Unrated);
    assert!(
        fit.perfect_scores.starts_with("bot 0 won every game"),
        "{}",
        fit.perfect_scores
    );
}

/// A field past the dense limit (sparse intervals, next-bot LOS): 450 bots in 4000 four-seat
/// games drawn from known strengths. The fit converges, and ranks the bots close to their true
/// order (rank correlation above 0.9).
#[test]
fn large_field_recovers_the_strengths() {
    let n = crate::rating::field::DENSE_LIMIT + 50;
    let mut state = 11u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let strength: Vec<f64> = (0..n).map(|_| (next() - 0.5) * 6.0).collect();
    let mut games = Vec::new();
    for _ in 0..4000 {
        let mut bots: Vec<usize> = Vec::new();
        while bots.len() < 4 {
            let b = (next() * n as f64) as usize % n;
            if !bots.contains(&b) {
                bots.push(b);
            }
        }
        // Draw the finishing order place by place (Gumbel keys give the Plackett-Luce law).
        let keys: Vec<f64> = bots
            .iter()
            .map(|&b| strength[b] - (-(next().max(1e-300)).ln()).ln())
            .collect();
        let ranks: Vec<u8> = (0..4)
            .map(|s| keys.iter().filter(|&&k| k > keys[s]).count() as u8)
            .collect();
        games.push(game(&bots, &ranks));
    }
    let fit = fit(n, &games).unwrap();
    assert!(fit.converged);
    assert!(fit.los.is_empty() && fit.method.contains("sparse approximation"));
    let rated: Vec<usize> = fit.fitted.clone();
    assert!(rated.len() > n - 5);
    let rank_of = |v: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut order = rated.clone();
        order.sort_by(|&a, &b| v(a).total_cmp(&v(b)));
        let mut r = vec![0.0; n];
        for (k, &b) in order.iter().enumerate() {
            r[b] = k as f64;
        }
        r
    };
    let (r1, r2) = (rank_of(&|b| strength[b]), rank_of(&|b| elo(&fit, b)));
    let m = rated.len() as f64;
    let d2: f64 = rated.iter().map(|&b| (r1[b] - r2[b]).powi(2)).sum();
    let spearman = 1.0 - 6.0 * d2 / (m * (m * m - 1.0));
    assert!(spearman > 0.9, "rank correlation {spearman}");
}

#[test]
fn bad_games_are_refused() {
    let bad = [
        (game(&[0, 1], &[0]), "2 bots but 1 ranks"),
        (game(&[0], &[0]), "a ranking needs at least 2"),
        (game(&[0, 5], &[0, 1]), "bot index 5 is out of range"),
        (game(&[1, 1], &[0, 1]), "bot 1 holds two seats"),
    ];
    for (g, text) in bad {
        let err = fit(3, &[game(&[0, 1], &[0, 1]), g]).unwrap_err();
        assert!(err.to_string().starts_with("game 1"), "{err}");
        assert!(err.to_string().contains(text), "{err}");
    }
    let crowd: Vec<usize> = (0..13).collect();
    assert!(matches!(
        fit(13, &[game(&crowd, &[0; 13])]),
        Err(PlackettLuceError::TooManyTied { tied: 13, .. })
    ));
}

/// Log-likelihood of one game by brute force: the mean over every order of each tied group.
fn brute_force(bots: &[usize], ranks: &[u8], beta: &[f64]) -> f64 {
    fn orders(groups: &[Vec<usize>]) -> Vec<Vec<usize>> {
        let Some((first, rest)) = groups.split_first() else {
            return vec![Vec::new()];
        };
        let mut perms = vec![Vec::new()];
        for &x in first {
            let mut next = Vec::new();
            for p in &perms {
                for k in 0..=p.len() {
                    let mut q: Vec<usize> = p.clone();
                    q.insert(k, x);
                    next.push(q);
                }
            }
            perms = next;
        }
        let tails = orders(rest);
        let mut all = Vec::new();
        for p in &perms {
            for t in &tails {
                all.push(p.iter().chain(t).copied().collect());
            }
        }
        all
    }
    let mut places: Vec<u8> = ranks.to_vec();
    places.sort_unstable();
    places.dedup();
    let groups: Vec<Vec<usize>> = places
        .iter()
        .map(|&p| {
            (0..bots.len())
                .filter(|&s| ranks[s] == p)
                .map(|s| bots[s])
                .collect()
        })
        .collect();
    let all = orders(&groups);
    let logp = |o: &Vec<usize>| -> f64 {
        (0..o.len())
            .map(|k| beta[o[k]] - o[k..].iter().map(|&j| beta[j].exp()).sum::<f64>().ln())
            .sum()
    };
    all.iter().map(logp).sum::<f64>() / all.len() as f64
}

proptest! {
    /// The subset form of the tie average equals the explicit average over orders.
    #[test]
    fn tie_average_matches_brute_force(
        ranks in proptest::collection::vec(0u8..4, 2..7),
        beta in proptest::collection::vec(-3.0f64..3.0, 7),
    ) {
        let bots: Vec<usize> = (0..ranks.len()).collect();
        let g = game(&bots, &ranks);
        let local: Vec<usize> = (0..7).collect();
        let lik = RankLikelihood::new(&[g], &local, PairLikelihood { m: 7, terms: Vec::new() });
        let want = brute_force(&bots, &ranks, &beta);
        prop_assert!((lik.value(&beta) - want).abs() < 1e-10, "{} vs {want}", lik.value(&beta));
    }
}

proptest! {
    /// Bots 0 and 1 have the same games against the rest (every base game is played once with
    /// bot 0 and once with bot 1 in the same seat and place) and bot 0 beat bot 1 in every game
    /// between them: bot 0 is rated above bot 1, perfect records or not.
    #[test]
    fn a_sweep_is_never_rated_below(
        base in proptest::collection::vec(
            (proptest::collection::vec(2usize..6, 2..4), proptest::collection::vec(0u8..3, 4)),
            1..6,
        ),
        sweeps in 1usize..4,
    ) {
        let mut games = Vec::new();
        for (others, ranks) in &base {
            let mut others = others.clone();
            others.sort_unstable();
            others.dedup();
            for me in [0, 1] {
                let mut bots = vec![me];
                bots.extend(&others);
                games.push(game(&bots, &ranks[..bots.len()]));
            }
        }
        for _ in 0..sweeps {
            games.push(game(&[1, 0], &[1, 0]));
        }
        let fit = fit(6, &games).unwrap();
        let (a, b) = (elo(&fit, 0), elo(&fit, 1));
        prop_assert!(a > b, "{a} vs {b}: {}", fit.perfect_scores);
        let order = fit.ranking();
        let pos = |x: usize| order.iter().position(|&y| y == x).unwrap();
        prop_assert!(pos(0) < pos(1));
    }
}
