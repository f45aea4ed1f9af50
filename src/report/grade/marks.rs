//! marks.csv and the marks table on the terminal of `arbiter grade`: the rows of
//! [`crate::grade::marks`] rendered.

use crate::grade::marks::{forfeit_kinds, Row};
use crate::rating::fmt_elo;
use crate::results::games_csv::text_cell;
use std::io::{self, Write};
use std::path::Path;

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
