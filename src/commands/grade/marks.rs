//! marks.csv and the marks table of `arbiter grade`: one row per student, from the standings of
//! the recorded games and the rubric.

use super::rubric::{Mark, Results, Rubric};
use arbiter::rating::{fmt_elo, RatingValue};
use arbiter::referee::Reason;
use arbiter::report::games_csv::text_cell;
use arbiter::report::standings::Standings;
use std::io::{self, Write};
use std::path::Path;

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
    // Competition ranking among the students in the standings, in the order of the ratings
    // table: equal ratings with equal scores share a rank.
    let mut ranks = std::collections::HashMap::new();
    let (mut seen, mut current, mut previous) = (0, 0, None);
    for i in standings.fit.ranking() {
        if !students
            .iter()
            .any(|s| s.problem.is_none() && s.name == standings.names[i])
        {
            continue;
        }
        seen += 1;
        // Bots outside the rated group share a bound; their scores still tell them apart.
        let r = &standings.fit.ratings[i];
        let key = (r.rating, r.score);
        if previous != Some(key) {
            current = seen;
        }
        previous = Some(key);
        ranks.insert(i, current);
    }
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

/// The line of a build or start-up failure that says most: the compiler's first error line,
/// else the first line.
fn headline(problem: &str) -> String {
    problem
        .lines()
        .skip(1)
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or_else(|| problem.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn percent(points: f64, games: u64) -> String {
    if games == 0 {
        String::new()
    } else {
        format!("{:.1}", 100.0 * points / games as f64)
    }
}

fn end(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else {
        fmt_elo(x)
    }
}

fn number(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Writes marks.csv (every cell that carries a name or a message as text, see [`text_cell`]):
/// `student, built, source_hash, games`, then `score_vs_B` (percent of the
/// points) and `games_vs_B` per baseline B, `elo, elo_low, elo_high, rank`, `forfeits_K` per
/// kind K, `mark, mark_detail, problem`.
pub fn write_csv(path: &Path, baselines: &[String], rows: &[Row]) -> io::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    let mut header: Vec<String> = ["student", "built", "source_hash", "games"]
        .map(String::from)
        .into();
    for b in baselines {
        header.push(format!("score_vs_{b}"));
        header.push(format!("games_vs_{b}"));
    }
    header.extend(["elo", "elo_low", "elo_high", "rank"].map(String::from));
    let mut header: Vec<String> = header.iter().map(|h| text_cell(h).into_owned()).collect();
    header.extend(
        forfeit_kinds()
            .iter()
            .map(|k| format!("forfeits_{}", k.replace('-', "_"))),
    );
    header.extend(["mark", "mark_detail", "problem"].map(String::from));
    w.write_record(&header)?;
    for r in rows {
        let mut f = vec![
            text_cell(&r.student).into_owned(),
            if r.built { "yes" } else { "no" }.to_string(),
            r.hash.clone(),
            r.games.to_string(),
        ];
        for &(points, games) in &r.against {
            f.push(percent(points, games));
            f.push(games.to_string());
        }
        f.push(r.rating.map(|v| v.to_string()).unwrap_or_default());
        f.push(end(r.low));
        f.push(end(r.high));
        f.push(r.rank.map(|k| k.to_string()).unwrap_or_default());
        f.extend(r.forfeits.iter().map(u64::to_string));
        f.push(number(r.mark.total));
        f.push(text_cell(&r.mark.detail).into_owned());
        // The problem line quotes a compiler or a file name: text too.
        f.push(text_cell(&r.problem).into_owned());
        w.write_record(&f)?;
    }
    w.flush()
}

/// The marks as a table for the terminal.
pub fn print(
    out: &mut impl Write,
    baselines: &[String],
    rows: &[Row],
    maximum: f64,
) -> io::Result<()> {
    let width = rows
        .iter()
        .map(|r| r.student.len())
        .max()
        .unwrap_or(7)
        .max(7);
    write!(out, "{:<width$}  {:>5}  {:>5}", "Student", "Built", "Games")?;
    for b in baselines {
        write!(out, "  {:>9}", format!("vs {}", truncate(b, 6)))?;
    }
    writeln!(
        out,
        "  {:>9}  {:>20}  {:>4}  {:>8}  {:>6}",
        "Elo", "95% interval", "Rank", "Forfeits", "Mark"
    )?;
    for r in rows {
        write!(
            out,
            "{:<width$}  {:>5}  {:>5}",
            r.student,
            if r.built { "yes" } else { "no" },
            r.games
        )?;
        for &(points, games) in &r.against {
            let text = match percent(points, games) {
                p if p.is_empty() => "-".to_string(),
                p => format!("{p}%"),
            };
            write!(out, "  {text:>9}")?;
        }
        let interval = if r.low.is_nan() {
            "-".to_string()
        } else {
            format!("[{}, {}]", end(r.low), end(r.high))
        };
        writeln!(
            out,
            "  {:>9}  {:>20}  {:>4}  {:>8}  {:>6}",
            r.rating.map_or("-".to_string(), |v| v.to_string()),
            interval,
            r.rank.map_or("-".to_string(), |k| k.to_string()),
            r.forfeits.iter().sum::<u64>(),
            format!("{}/{}", number(r.mark.total), number(maximum)),
        )?;
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
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
