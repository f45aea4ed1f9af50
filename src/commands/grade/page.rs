//! report.html of `arbiter grade`: one self-contained page with the marks table and a section per
//! student (mark and how it was reached, build log, results against each opponent, and each
//! forfeit with its verdict and the bot's last stderr lines), for the teacher and the students.

use super::marks::{forfeit_kinds, Row, Student};
use arbiter::report::failures;
use arbiter::report::games_csv::for_each_result;
use arbiter::report::standings::Standings;
use std::fmt::Write as _;
use std::path::Path;

/// Forfeits shown in full per student; the rest are counted.
const FORFEITS_SHOWN: usize = 10;

/// At most this much of a build log is shown.
const LOG_BYTES: usize = 16 * 1024;

fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An HTML id for a student's section.
fn anchor(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("student-{safe}")
}

fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes]", &text[..end], text.len() - end)
}

/// What the page says about the run.
pub struct Context<'a> {
    pub title: &'a str,
    pub summary: &'a str,
    pub out: &'a Path,
    pub baselines: &'a [String],
    pub maximum: f64,
}

/// Writes `report.html` into the results folder.
pub fn write(
    cx: &Context,
    students: &[Student],
    rows: &[Row],
    standings: &Standings,
) -> anyhow::Result<()> {
    // The forfeits of each student: (game id, reason).
    let mut forfeits: Vec<Vec<(u64, String)>> = vec![Vec::new(); students.len()];
    for_each_result(&[cx.out.join("games.csv")], |row| {
        for (seat, reason) in &row.forfeits {
            if let Some(i) = students.iter().position(|s| s.name == row.bots[*seat]) {
                forfeits[i].push((row.game_id.unwrap_or(0), reason.clone()));
            }
        }
        Ok(())
    })?;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>\
         body{{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em}}\
         table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2em .5em;text-align:right}}\
         td:first-child,th:first-child{{text-align:left}}pre{{background:#f4f4f4;padding:.5em;overflow:auto;max-height:30em}}\
         .no{{color:#a00}}</style></head><body>\n<h1>{}</h1>\n<p>{}</p>\n",
        esc(cx.title),
        esc(cx.title),
        esc(cx.summary)
    );
    h.push_str("<table><tr><th>Student</th><th>Built</th><th>Games</th>");
    for b in cx.baselines {
        let _ = write!(h, "<th>vs {}</th>", esc(b));
    }
    h.push_str("<th>Elo</th><th>Rank</th><th>Forfeits</th><th>Mark</th></tr>\n");
    for r in rows {
        let _ = write!(
            h,
            "<tr><td><a href=\"#{}\">{}</a></td><td{}>{}</td><td>{}</td>",
            anchor(&r.student),
            esc(&r.student),
            if r.built { "" } else { " class=\"no\"" },
            if r.built { "yes" } else { "no" },
            r.games
        );
        for &(points, games) in &r.against {
            let text = if games == 0 {
                "-".to_string()
            } else {
                format!("{:.1}%", 100.0 * points / games as f64)
            };
            let _ = write!(h, "<td>{text}</td>");
        }
        let _ = writeln!(
            h,
            "<td>{}</td><td>{}</td><td>{}</td><td>{} / {}</td></tr>",
            esc(&r.rating.map_or("-".into(), |v| v.to_string())),
            r.rank.map_or("-".into(), |k| k.to_string()),
            r.forfeits.iter().sum::<u64>(),
            r.mark.total,
            cx.maximum
        );
    }
    h.push_str("</table>\n");
    let kinds = forfeit_kinds();
    for ((s, r), lost) in students.iter().zip(rows).zip(&forfeits) {
        let _ = writeln!(
            h,
            "<h2 id=\"{}\">{}</h2>\n<p>Mark <b>{} / {}</b>: {}</p>",
            anchor(&s.name),
            esc(&s.name),
            r.mark.total,
            cx.maximum,
            esc(&r.mark.detail)
        );
        let log = std::fs::read_to_string(cx.out.join("builds").join(format!("{}.log", s.name)))
            .unwrap_or_default();
        let _ = writeln!(
            h,
            "<h3>Build</h3>\n<p>Source SHA-256 <code>{}</code></p>\n<pre>{}</pre>",
            esc(&s.hash),
            esc(&clip(&log, LOG_BYTES))
        );
        let Some(me) = standings.names.iter().position(|n| *n == s.name) else {
            continue;
        };
        h.push_str(
            "<h3>Results</h3>\n<table><tr><th>Opponent</th><th>Games</th><th>Wins</th>\
             <th>Draws</th><th>Losses</th><th>Score</th></tr>\n",
        );
        for (j, name) in standings.names.iter().enumerate() {
            let wdl = standings.table.pair(me, j);
            if j == me || wdl.games() == 0 {
                continue;
            }
            let _ = writeln!(
                h,
                "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td></tr>",
                esc(name),
                if cx.baselines.contains(name) {
                    " (baseline)"
                } else {
                    ""
                },
                wdl.games(),
                wdl.wins,
                wdl.draws,
                wdl.losses,
                100.0 * wdl.points() / wdl.games() as f64
            );
        }
        h.push_str("</table>\n");
        if lost.is_empty() {
            h.push_str("<p>No forfeits.</p>\n");
            continue;
        }
        let counts: Vec<String> = kinds
            .iter()
            .zip(&r.forfeits)
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let _ = writeln!(h, "<h3>Forfeits: {}</h3>", esc(&counts.join(", ")));
        for (id, reason) in lost.iter().take(FORFEITS_SHOWN) {
            let text = std::fs::read_to_string(failures::path(cx.out, *id, &s.name))
                .unwrap_or_else(|_| format!("game {id}: lost by {reason}"));
            let page = format!("replays/game-{id}.html");
            if cx.out.join(&page).is_file() {
                let _ = writeln!(h, "<p><a href=\"{page}\">watch game {id}</a></p>");
            }
            let _ = writeln!(h, "<pre>{}</pre>", esc(&text));
        }
        if lost.len() > FORFEITS_SHOWN {
            let _ = writeln!(
                h,
                "<p>... and {} more (see failures/ in the results folder).</p>",
                lost.len() - FORFEITS_SHOWN
            );
        }
    }
    h.push_str("</body></html>\n");
    std::fs::write(cx.out.join("report.html"), h)?;
    Ok(())
}
