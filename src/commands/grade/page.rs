//! report.html of `arbiter grade`: one self-contained page with the marks table and a section per
//! student (mark and how it was reached, build log, results against each opponent, and each
//! forfeit with its verdict and the bot's last stderr lines), for the teacher and the students.

use super::marks::{forfeit_kinds, Row, Student};
use arbiter::report::failures;
use arbiter::report::games_csv::for_each_result;
use arbiter::report::standings::Standings;
use maud::{html, DOCTYPE};
use std::path::Path;

/// Forfeits shown in full per student; the rest are counted.
const FORFEITS_SHOWN: usize = 10;

/// At most this much of a build log is shown.
const LOG_BYTES: usize = 16 * 1024;

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
    let kinds = forfeit_kinds();
    let log_of = |name: &str| {
        std::fs::read_to_string(cx.out.join("builds").join(format!("{name}.log")))
            .unwrap_or_default()
    };
    let percent = |points: f64, games: u64| {
        if games == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * points / games as f64)
        }
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (cx.title) }
                style { (STYLE) }
            }
            body {
                h1 { (cx.title) }
                p { (cx.summary) }
                table {
                    tr {
                        th { "Student" } th { "Built" } th { "Games" }
                        @for b in cx.baselines { th { "vs " (b) } }
                        th { "Elo" } th { "Rank" } th { "Forfeits" } th { "Mark" }
                    }
                    @for r in rows {
                        tr {
                            td { a href=(format!("#{}", anchor(&r.student))) { (r.student) } }
                            @if r.built { td { "yes" } } @else { td.no { "no" } }
                            td { (r.games) }
                            @for &(points, games) in &r.against { td { (percent(points, games)) } }
                            td { (r.rating.map_or("-".into(), |v| v.to_string())) }
                            td { (r.rank.map_or("-".into(), |k| k.to_string())) }
                            td { (r.forfeits.iter().sum::<u64>()) }
                            td { (r.mark.total) " / " (cx.maximum) }
                        }
                    }
                }
                @for ((s, r), lost) in students.iter().zip(rows).zip(&forfeits) {
                    h2 id=(anchor(&s.name)) { (s.name) }
                    p { "Mark " b { (r.mark.total) " / " (cx.maximum) } ": " (r.mark.detail) }
                    h3 { "Build" }
                    p { "Source SHA-256 " code { (s.hash) } }
                    pre { (clip(&log_of(&s.name), LOG_BYTES)) }
                    @if let Some(me) = standings.names.iter().position(|n| *n == s.name) {
                        h3 { "Results" }
                        table {
                            tr {
                                th { "Opponent" } th { "Games" } th { "Wins" } th { "Draws" }
                                th { "Losses" } th { "Score" }
                            }
                            @for (j, name) in standings.names.iter().enumerate() {
                                @let wdl = standings.table.pair(me, j);
                                @if j != me && wdl.games() > 0 {
                                    tr {
                                        td {
                                            (name)
                                            @if cx.baselines.contains(name) { " (baseline)" }
                                        }
                                        td { (wdl.games()) } td { (wdl.wins) } td { (wdl.draws) }
                                        td { (wdl.losses) } td { (percent(wdl.points(), wdl.games())) }
                                    }
                                }
                            }
                        }
                        @if lost.is_empty() {
                            p { "No forfeits." }
                        } @else {
                            @let counts: Vec<String> = kinds
                                .iter()
                                .zip(&r.forfeits)
                                .filter(|(_, n)| **n > 0)
                                .map(|(k, n)| format!("{n} {k}"))
                                .collect();
                            h3 { "Forfeits: " (counts.join(", ")) }
                            @for (id, reason) in lost.iter().take(FORFEITS_SHOWN) {
                                @let replay = format!("replays/game-{id}.html");
                                @if cx.out.join(&replay).is_file() {
                                    p { a href=(replay) { "watch game " (id) } }
                                }
                                pre {
                                    (std::fs::read_to_string(failures::path(cx.out, *id, &s.name))
                                        .unwrap_or_else(|_| format!("game {id}: lost by {reason}")))
                                }
                            }
                            @if lost.len() > FORFEITS_SHOWN {
                                p {
                                    "... and " (lost.len() - FORFEITS_SHOWN)
                                    " more (see failures/ in the results folder)."
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    std::fs::write(cx.out.join("report.html"), page.into_string())?;
    Ok(())
}

/// The page's look: readable on a laptop and a phone, no script.
const STYLE: &str = "body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em}\
    table{border-collapse:collapse;display:block;overflow-x:auto}\
    td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}\
    td:first-child,th:first-child{text-align:left}\
    pre{background:#f4f4f4;padding:.5em;overflow:auto;max-height:30em}.no{color:#a00}";
