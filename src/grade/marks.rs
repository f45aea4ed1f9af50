//! The marks of a grading run: one row per student, from the standings of the recorded games
//! and the rubric, with ranks shared by students whose results are equal. Pure: the rows are
//! rendered by `report::grade`.

use super::rubric::{Mark, Results, Rubric};
use crate::rating::RatingValue;
use crate::referee::Reason;
use crate::results::standings::Standings;

/// A student as the grade run knows them before the games.
pub struct Student {
    pub name: String,
    /// SHA-256 of the submission (see `submission_hash`).
    pub hash: String,
    /// Why the bot cannot play (does not build, cannot start), if so.
    pub problem: Option<String>,
}

/// One row of marks.csv.
pub struct Row {
    pub student: String,
    pub built: bool,
    pub hash: String,
    pub games: u64,
    /// Per baseline: points and games against it.
    pub against: Vec<(f64, u64)>,
    pub rating: Option<RatingValue>,
    pub low: f64,
    pub high: f64,
    pub rank: Option<usize>,
    /// Forfeits per kind of [`forfeit_kinds`].
    pub forfeits: Vec<u64>,
    pub mark: Mark,
    /// The telling line of the build or start-up problem (see [`headline`]).
    pub problem: String,
}

/// The verdicts that lose a game by a bot's fault, as named in games.csv.
pub fn forfeit_kinds() -> Vec<&'static str> {
    Reason::ALL
        .into_iter()
        .filter(|r| r.is_forfeit())
        .map(Reason::as_str)
        .collect()
}

/// The rows of every student, in the order given.
pub fn rows(
    students: &[Student],
    baselines: &[String],
    standings: &Standings,
    rubric: &Rubric,
) -> Vec<Row> {
    let index = |name: &str| standings.names.iter().position(|n| n == name);
    let students_in: Vec<usize> = standings
        .fit
        .ranking()
        .into_iter()
        .filter(|&i| {
            students
                .iter()
                .any(|s| s.problem.is_none() && s.name == standings.names[i])
        })
        .collect();
    let ranks = shared_ranks(&students_in, &standings.fit.ratings);
    let kinds = forfeit_kinds();
    students
        .iter()
        .map(|s| {
            let me = index(&s.name).filter(|_| s.problem.is_none());
            let against: Vec<(f64, u64)> = baselines
                .iter()
                .map(|b| match (me, index(b)) {
                    (Some(i), Some(j)) => {
                        (standings.table.points(i, j), standings.table.games(i, j))
                    }
                    _ => (0.0, 0),
                })
                .collect();
            let scores: Vec<(String, Option<f64>)> = baselines
                .iter()
                .zip(&against)
                .map(|(b, &(p, g))| (b.clone(), (g > 0).then(|| p / g as f64)))
                .collect();
            let rank = me.and_then(|i| ranks.get(&i).copied());
            let mark = rubric.mark(&Results {
                built: s.problem.is_none(),
                scores: &scores,
                rank,
            });
            let rating = me.map(|i| &standings.fit.ratings[i]);
            Row {
                student: s.name.clone(),
                built: s.problem.is_none(),
                hash: s.hash.clone(),
                games: rating.map_or(0, |r| r.games),
                against,
                rating: rating.map(|r| r.rating),
                low: rating.map_or(f64::NAN, |r| r.low),
                high: rating.map_or(f64::NAN, |r| r.high),
                rank,
                forfeits: kinds
                    .iter()
                    .map(|k| {
                        standings
                            .forfeits
                            .iter()
                            .filter(|(bot, reason, _)| Some(*bot) == me && reason == k)
                            .map(|(_, _, n)| n)
                            .sum()
                    })
                    .collect(),
                mark,
                problem: s.problem.as_deref().map(headline).unwrap_or_default(),
            }
        })
        .collect()
}

/// Two ratings closer than this (in Elo) are the same rating for ranking: far above the fit's
/// rounding (its gradient tolerance is 1e-10 points), far below a difference that any result
/// makes (one game's half point among a hundred moves a rating by about a whole Elo point).
pub const RATING_TIE_ELO: f64 = 0.01;

/// Competition ranking of `order` (bot indices, best first, as the ratings table lists them):
/// a bot shares the rank of the first bot of its group when they have exactly the same points
/// and games and their ratings differ by less than [`RATING_TIE_ELO`] (or neither is rated).
/// Ties are decided by what is equal, so a student's rank never moves because another
/// student's file changed the fit's rounding, only because results changed.
pub fn shared_ranks(
    order: &[usize],
    ratings: &[crate::rating::BotRating],
) -> std::collections::HashMap<usize, usize> {
    let same = |a: &crate::rating::BotRating, b: &crate::rating::BotRating| {
        // Points are sums of halves (or of a k-seat game's fractions): equal up to the last bit
        // of their sum order.
        let points = (a.points - b.points).abs() <= 1e-9 * a.points.abs().max(1.0);
        let rating = match (a.rating, b.rating) {
            (RatingValue::Finite(x), RatingValue::Finite(y)) => (x - y).abs() < RATING_TIE_ELO,
            (RatingValue::Unrated, RatingValue::Unrated) => true,
            _ => false,
        };
        points && a.games == b.games && rating
    };
    let mut ranks = std::collections::HashMap::new();
    let mut leader: Option<(usize, usize)> = None; // (bot, rank) of the current group
    for (seen, &i) in order.iter().enumerate() {
        let rank = match leader {
            Some((first, rank)) if same(&ratings[first], &ratings[i]) => rank,
            _ => {
                leader = Some((i, seen + 1));
                seen + 1
            }
        };
        ranks.insert(i, rank);
    }
    ranks
}

/// The line of a build or start-up failure that says most: the compiler's first error line,
/// else the first line.
pub fn headline(problem: &str) -> String {
    problem
        .lines()
        .skip(1)
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or_else(|| problem.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::BotRating;
    use crate::results::games_csv::ResultRow;

    fn rating(bot: usize, elo: f64, points: f64, games: u64) -> BotRating {
        BotRating {
            bot,
            rating: RatingValue::Finite(elo),
            low: elo - 50.0,
            high: elo + 50.0,
            std_error: Some(25.0),
            games,
            points,
            wins: 0,
            draws: 0,
            losses: 0,
            score: Some(points / games as f64),
        }
    }

    #[test]
    fn equal_points_and_games_share_a_rank_whatever_the_rounding_of_the_ratings() {
        let r = vec![
            rating(0, 12.345_678_901, 5.0, 10),
            rating(1, 12.345_678_902, 5.0, 10),
            rating(2, -20.0, 3.0, 10),
            // Same points and games as 0 and 1, against other opponents: another rating.
            rating(3, 52.0, 5.0, 10),
        ];
        for order in [[3, 0, 1, 2], [3, 1, 0, 2]] {
            let ranks = shared_ranks(&order, &r);
            assert_eq!(
                (ranks[&3], ranks[&0], ranks[&1], ranks[&2]),
                (1, 2, 2, 4),
                "{order:?}"
            );
        }
        // Equal ratings (both bound) but different points: told apart.
        let mut bound = vec![rating(0, 0.0, 4.0, 10), rating(1, 0.0, 3.0, 10)];
        bound[0].rating = RatingValue::Unrated;
        bound[1].rating = RatingValue::Unrated;
        let ranks = shared_ranks(&[0, 1], &bound);
        assert_eq!((ranks[&0], ranks[&1]), (1, 2));
    }

    /// The scenario: two students with the same points against the same opponents
    /// (47 of 56) share a rank, and keep it when only a third student resubmits and that
    /// student's games change; their fitted ratings differ in the last bits in one of the runs.
    #[test]
    fn a_third_students_resubmission_does_not_split_a_tie() {
        let names: Vec<String> = ["alice", "carol", "dave", "bob", "base"]
            .map(String::from)
            .into();
        let mut id = 0;
        let mut game = |a: &str, b: &str, first_wins: bool| {
            id += 1;
            ResultRow {
                bots: vec![a.into(), b.into()],
                ranks: if first_wins { vec![0, 1] } else { vec![1, 0] },
                reason: None,
                pair_id: None,
                game_id: Some(id),
                moves_hash: None,
                forfeits: Vec::new(),
            }
        };
        let mut split = false;
        for carol in 0..12 {
            let mut rows = Vec::new();
            for student in ["alice", "bob"] {
                for g in 0..56 {
                    rows.push(game(student, "base", g < 47));
                }
                for g in 0..8 {
                    rows.push(game(student, "carol", g < 5));
                    rows.push(game(student, "dave", g < 3));
                }
            }
            rows.push(game("alice", "bob", true));
            rows.push(game("bob", "alice", true));
            for g in 0..12 {
                rows.push(game("carol", "base", g < carol));
                rows.push(game("dave", "base", g < 7));
                rows.push(game("carol", "dave", g < 4));
            }
            let mut b = crate::results::standings::Builder::new(&names);
            for r in &rows {
                b.add(r).unwrap();
            }
            let table = b.finish(None).unwrap();
            let (a, b) = (&table.fit.ratings[0], &table.fit.ratings[3]);
            split |= a.rating != b.rating;
            let students: Vec<usize> = table.fit.ranking().into_iter().filter(|&i| i < 4).collect();
            let ranks = shared_ranks(&students, &table.fit.ratings);
            assert_eq!(
                ranks[&0], ranks[&3],
                "carol won {carol}: {:?} {:?}",
                a.rating, b.rating
            );
        }
        assert!(split, "the scenario shows no rounding: it tests nothing");
    }

    #[test]
    fn the_problem_column_shows_the_compilers_first_error() {
        let gcc = "bot 'x' does not build: `gcc x.c` failed (exit status: 1):\n\
                   x.c: In function 'main':\n\
                   x.c:1:10: error: expected ';'\n\
                   x.c:2:1: error: other";
        assert_eq!(super::headline(gcc), "x.c:1:10: error: expected ';'");
        let missing = "bot 'x' is written in Go, which needs the program `go`";
        assert_eq!(super::headline(missing), missing);
    }
}
