//! Standings rendered: the rating table, the cross-table and the match block as text, and
//! ratings.csv, crosstable.csv, los.csv, forfeits.csv and ratings.json. They are computed in
//! [`crate::results::standings`].

use crate::rating::{self, RatingValue};
use crate::results::standings::{Duel, Standings};
use serde_json::{json, Value};
use std::io::{self, Write};
use std::path::Path;

fn interval(r: &rating::BotRating) -> String {
    let end = |x: f64| rating::fmt_elo(x);
    format!("[{}, {}]", end(r.low), end(r.high))
}

/// The rating table, the cross-table, and for two bots the match block.
pub fn print(out: &mut impl Write, s: &Standings) -> io::Result<()> {
    let width = s.names.iter().map(String::len).max().unwrap_or(3).max(3);
    writeln!(
        out,
        "{:>4}  {:<width$}  {:>9}  {:>20}  {:>6}  {:>7}  {:>11}",
        "Rank", "Bot", "Elo", "95% interval", "Games", "Points", "W/D/L"
    )?;
    for (rank, &i) in s.fit.ranking().iter().enumerate() {
        let r = &s.fit.ratings[i];
        writeln!(
            out,
            "{:>4}  {:<width$}  {:>9}  {:>20}  {:>6}  {:>7.1}  {:>11}",
            rank + 1,
            s.names[i],
            r.rating.to_string(),
            interval(r),
            s.played[i],
            r.points,
            format!("{}/{}/{}", r.wins, r.draws, r.losses)
        )?;
    }
    for w in &s.fit.warnings {
        writeln!(out, "note: {w}")?;
    }
    writeln!(out, "Ratings: {}.", s.model)?;
    writeln!(out, "Perfect scores: {}.", s.fit.perfect_scores)?;
    writeln!(
        out,
        "\nCross-table (points of the row bot against the column bot, out of games):"
    )?;
    let cell = width.max(7);
    write!(out, "{:<width$}", "")?;
    for n in &s.names {
        write!(out, "  {:>cell$}", truncate(n, cell))?;
    }
    writeln!(out)?;
    for (i, n) in s.names.iter().enumerate() {
        write!(out, "{n:<width$}")?;
        for j in 0..s.names.len() {
            let text = if i == j {
                "-".to_string()
            } else {
                let g = s.table.games(i, j);
                if g == 0 {
                    ".".to_string()
                } else {
                    format!("{}/{}", s.table.points(i, j), g)
                }
            };
            write!(out, "  {text:>cell$}")?;
        }
        writeln!(out)?;
    }
    if let Some(d) = &s.duel {
        writeln!(out)?;
        print_duel(out, d)?;
    }
    print_forfeits(out, s)
}

/// The forfeits by bot and reason, or a line saying there were none; then the games the
/// referee could not play, if any.
pub fn print_forfeits(out: &mut impl Write, s: &Standings) -> io::Result<()> {
    print_bot_forfeits(out, s)?;
    if s.referee_errors > 0 {
        writeln!(
            out,
            "\nReferee errors: {} games could not be played (reason referee-error in games.csv, \
             whose detail column says what the referee did); no bot lost them and they are \
             in no rating.",
            s.referee_errors
        )?;
    }
    Ok(())
}

fn print_bot_forfeits(out: &mut impl Write, s: &Standings) -> io::Result<()> {
    if s.forfeits.is_empty() {
        return writeln!(out, "\nNo forfeits.");
    }
    writeln!(out, "\nForfeits (games lost by a bot's fault):")?;
    let width = s
        .forfeits
        .iter()
        .map(|f| s.names[f.0].len())
        .max()
        .unwrap_or(3)
        .max(3);
    writeln!(out, "  {:<width$}  {:<16}  {:>6}", "Bot", "Reason", "Games")?;
    for (bot, reason, n) in &s.forfeits {
        writeln!(out, "  {:<width$}  {reason:<16}  {n:>6}", s.names[*bot])?;
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The fastchess-style block of a two-bot match.
pub fn print_duel(out: &mut impl Write, d: &Duel) -> io::Result<()> {
    let games = d.wdl.games();
    writeln!(
        out,
        "Results of {} vs {} ({games} games):",
        d.first, d.second
    )?;
    match &d.estimate {
        Some(e) => {
            writeln!(out, "Elo: {}, nElo: {}", e.elo_text(), e.nelo_text())?;
            let pairs_ratio = crate::report::sprt_block::pairs_ratio(&d.penta);
            writeln!(
                out,
                "LOS: {}, {}, PairsRatio: {pairs_ratio}",
                rating::fmt_percent(e.los),
                crate::report::sprt_block::draw_ratio(e)
            )?;
        }
        None => writeln!(out, "Elo: n/a (no games)")?,
    }
    let points = d.wdl.points();
    writeln!(
        out,
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({})",
        d.wdl.wins,
        d.wdl.losses,
        d.wdl.draws,
        rating::fmt_percent(if games == 0 {
            f64::NAN
        } else {
            points / games as f64
        })
    )?;
    let p = d.penta.0;
    writeln!(
        out,
        "Ptnml(0-2): [{}, {}, {}, {}, {}]",
        p[0], p[1], p[2], p[3], p[4]
    )
}

fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 100.0).round() / 100.0)
    } else {
        Value::Null
    }
}

/// The JSON form: `{"ratings": [...], "los": {bot: {bot: p}}, "method": ..., "warnings": [...]}`.
pub fn json(s: &Standings) -> Value {
    let ratings: Vec<Value> = s
        .fit
        .ranking()
        .iter()
        .map(|&i| {
            let r = &s.fit.ratings[i];
            let (elo, bound) = match r.rating {
                RatingValue::Finite(x) => (finite(x), Value::Null),
                RatingValue::Unrated => (Value::Null, json!("unrated")),
            };
            json!({
                "bot": s.names[i],
                "elo": elo,
                "bound": bound,
                "low": finite(r.low),
                "high": finite(r.high),
                "games": s.played[i],
                "points": r.points,
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
            })
        })
        .collect();
    let mut los = serde_json::Map::new();
    for (i, row_los) in s.fit.los.iter().enumerate() {
        let mut row = serde_json::Map::new();
        for (j, b) in s.names.iter().enumerate() {
            if let Some(p) = row_los[j] {
                row.insert(b.clone(), json!((p * 10000.0).round() / 10000.0));
            }
        }
        los.insert(s.names[i].clone(), Value::Object(row));
    }
    // Large fields have no LOS matrix: each bot's LOS over the next one in the ranking instead.
    let los_next: Vec<Value> = s
        .fit
        .ranking()
        .windows(2)
        .filter_map(|w| {
            s.fit.los_next[w[0]].map(|p| {
                json!({"bot": s.names[w[0]], "next": s.names[w[1]], "los": (p * 10000.0).round() / 10000.0})
            })
        })
        .collect();
    json!({
        "ratings": ratings,
        "los": los,
        "los_next": los_next,
        "method": s.model,
        "perfect_scores": s.fit.perfect_scores,
        "warnings": s.fit.warnings,
    })
}

/// Writes ratings.csv, crosstable.csv, los.csv, forfeits.csv and ratings.json into `dir`.
pub fn write_files(dir: &Path, s: &Standings) -> io::Result<()> {
    // Names as text cells: a name a spreadsheet would run as a formula is not one.
    let name = |i: usize| crate::results::games_csv::text_cell(&s.names[i]).into_owned();
    let mut w = csv::Writer::from_path(dir.join("ratings.csv"))?;
    w.write_record([
        "rank", "bot", "elo", "bound", "low", "high", "games", "points", "wins", "draws", "losses",
    ])?;
    for (rank, &i) in s.fit.ranking().iter().enumerate() {
        let r = &s.fit.ratings[i];
        let (elo, bound) = match r.rating {
            RatingValue::Finite(x) => (format!("{x:.2}"), ""),
            RatingValue::Unrated => (String::new(), "unrated"),
        };
        let end = |x: f64| {
            if x.is_finite() {
                format!("{x:.2}")
            } else {
                format!("{x}")
            }
        };
        w.write_record([
            (rank + 1).to_string(),
            name(i),
            elo,
            bound.to_string(),
            end(r.low),
            end(r.high),
            s.played[i].to_string(),
            r.points.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
        ])?;
    }
    w.flush()?;
    let matrix = |file: &str, cell: &dyn Fn(usize, usize) -> String| -> io::Result<()> {
        let mut w = csv::Writer::from_path(dir.join(file))?;
        let mut header = vec!["bot".to_string()];
        header.extend((0..s.names.len()).map(name));
        w.write_record(&header)?;
        for i in 0..s.names.len() {
            let mut row = vec![name(i)];
            row.extend((0..s.names.len()).map(|j| cell(i, j)));
            w.write_record(&row)?;
        }
        w.flush()
    };
    matrix("crosstable.csv", &|i, j| {
        if i == j {
            String::new()
        } else {
            s.table.points(i, j).to_string()
        }
    })?;
    if s.fit.los.is_empty() && !s.names.is_empty() {
        // Too many bots for a matrix: each bot's LOS over the next one in the ranking.
        let mut w = csv::Writer::from_path(dir.join("los.csv"))?;
        w.write_record(["bot", "next", "los"])?;
        for pair in s.fit.ranking().windows(2) {
            if let Some(p) = s.fit.los_next[pair[0]] {
                w.write_record([name(pair[0]), name(pair[1]), format!("{p:.4}")])?;
            }
        }
        w.flush()?;
    } else {
        matrix("los.csv", &|i, j| {
            s.fit.los[i][j]
                .map(|p| format!("{p:.4}"))
                .unwrap_or_default()
        })?;
    }
    let mut w = csv::Writer::from_path(dir.join("forfeits.csv"))?;
    w.write_record(["bot", "reason", "games"])?;
    for (bot, reason, n) in &s.forfeits {
        w.write_record([name(*bot).as_str(), reason, &n.to_string()])?;
    }
    w.flush()?;
    let text = serde_json::to_string_pretty(&json(s)).map_err(io::Error::other)?;
    std::fs::write(dir.join("ratings.json"), text + "\n")
}
