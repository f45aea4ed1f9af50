//! One game's replay page: the board drawn from the game's neutral view, steps with their
//! input, answer, stderr, clocks and verdict, and the list of moves. The page holds the game's
//! data (compressed); the script and style that draw it are either inline (a page on its own,
//! `arbiter replay`) or written once per folder beside the pages ([`write_assets`]).

use super::frames::{pack, page_json};
use super::seats;
use crate::game::SeatColour;
use crate::results::rebuild::RebuildError;
use crate::results::records::GameRecord;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use std::path::Path;

const CSS: &str = include_str!("assets/style.css");
const JS: &str = include_str!("assets/viewer.js");

/// The viewer's script and style files, written once into a folder of replay pages.
pub const JS_FILE: &str = "viewer.js";
pub const CSS_FILE: &str = "viewer.css";

/// Where a page finds its script and style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assets {
    /// In the page itself: one file that works alone.
    Inline,
    /// In [`JS_FILE`] and [`CSS_FILE`] beside the page ([`write_assets`] writes them).
    Beside,
}

/// Writes the viewer's script and style into `dir` unless they are there already as this
/// arbiter writes them.
pub fn write_assets(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in [(JS_FILE, JS), (CSS_FILE, CSS)] {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &path)?;
        }
    }
    Ok(())
}

/// A coloured disc for a seat of a game whose seats have `colours` ([`seats::palette`]).
pub fn swatch(colours: &[SeatColour], seat: usize) -> Markup {
    html! { span.swatch style={ "background:" (seats::colour(colours, seat).fill) } {} }
}

/// "1st" to "8th".
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `a, b and c`.
fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The finishing order in words: "alice 1st, bob and carol 2nd".
pub fn placings(bots: &[String], ranks: &[u8]) -> String {
    let mut distinct: Vec<u8> = ranks.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
        .iter()
        .map(|&r| {
            let who: Vec<&str> = ranks
                .iter()
                .enumerate()
                .filter(|(_, &x)| x == r)
                .map(|(s, _)| bots.get(s).map_or("?", String::as_str))
                .collect();
            format!("{} {}", and_list(&who), ordinal(r as usize + 1))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The scores in words: "alice 3, bob -1".
pub fn scores_text(bots: &[String], scores: &[i32]) -> String {
    scores
        .iter()
        .enumerate()
        .map(|(s, v)| format!("{} {v}", bots.get(s).map_or("?", String::as_str)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The verdict in words: "bot won (win)", "draw (turn-limit)", "a forfeited (timeout)".
pub fn verdict(rec: &GameRecord) -> String {
    let winner = crate::game::Outcome {
        ranks: rec.ranks.clone(),
    }
    .sole_winner();
    let who = match winner {
        Some(s) => format!("{} won", rec.bots[s]),
        None if rec.ranks.iter().all(|&r| r == 0) => "draw".into(),
        None => placings(&rec.bots, &rec.ranks),
    };
    match rec.offender {
        Some(s) => format!("{who}: {} forfeited ({})", rec.bots[s], rec.reason),
        None => format!("{who} ({})", rec.reason),
    }
}

/// The page of `rec`; `back` links to the report it belongs to, when there is one.
pub fn page(rec: &GameRecord, back: Option<&str>, assets: Assets) -> Result<String, RebuildError> {
    if let Some(ext) = &rec.external {
        return Ok(super::external::page(rec, ext, back));
    }
    let title = format!(
        "{} game {}: {}",
        rec.game,
        rec.game_id,
        rec.bots.join(" vs ")
    );
    let data = pack(&page_json(rec, &title)?);
    let colours = seats::palette(rec);
    let speeds = [
        (1000, "1 s"),
        (500, "0.5 s"),
        (250, "0.25 s"),
        (100, "0.1 s"),
    ];
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                @match assets {
                    Assets::Inline => style { (PreEscaped(CSS)) },
                    Assets::Beside => link rel="stylesheet" href=(CSS_FILE);,
                }
            }
            body {
                @if let Some(back) = back { p { a href=(back) { "\u{2190} report" } } }
                h1 { (title) }
                p #legend {
                    @for (seat, bot) in rec.bots.iter().enumerate() {
                        (swatch(&colours, seat)) "seat " (seat) " (" (seats::colour(&colours, seat).name) "): " b { (bot) } " \u{a0} "
                    }
                    br;
                    span.muted {
                        (rec.game) " (" (rec.variant) ", " (rec.seats) " seats), seed " (rec.seed)
                        ", " (rec.moves.len()) " moves"
                        @if !rec.opening.is_empty() { " after " (rec.opening.len()) " opening plies" }
                        ". " (verdict(rec)) "."
                    }
                }
                noscript { p.note { "The replay needs JavaScript; the verdict and stderr are below." } }
                div.viewer {
                    div {
                        svg #board xmlns="http://www.w3.org/2000/svg" role="img" aria-label="board" {}
                        div.controls {
                            button #first title="first (Home)" { "\u{ab}" }
                            button #prev title="previous (\u{2190})" { "\u{2039}" }
                            button #play title="autoplay (space)" { "\u{25b6}" }
                            button #next title="next (\u{2192})" { "\u{203a}" }
                            button #last title="last (End)" { "\u{bb}" }
                            select #speed title="autoplay speed" {
                                @for (ms, label) in speeds {
                                    option value=(ms) selected[ms == 500] { (label) }
                                }
                            }
                        }
                        div.controls { input #slider type="range" min="0" value="0" aria-label="step"; span #where {} }
                        pre #notes {}
                    }
                    div {
                        div #head {}
                        div #"answer-box" { div.muted #"answer-label" { "answer:" } pre #answer {} }
                        div #time {}
                        div.meter { div #timebar {} }
                        div #"err-box" { div.muted #"err-label" { "stderr this turn:" } pre.stderr #err {} }
                        div #"input-box" { div.muted { "input sent:" } pre #input {} }
                        div #end {
                            b { "Verdict: " (verdict(rec)) }
                            @if !rec.detail.is_empty() { p #detail { (rec.detail) } }
                            p.muted {
                                "Placings: " (placings(&rec.bots, &rec.ranks)) ". Scores: " (scores_text(&rec.bots, &rec.scores)) "."
                            }
                            @for (seat, tail) in rec.stderr.iter().enumerate() {
                                @let bytes = rec.stderr_bytes.get(seat).copied().unwrap_or(0);
                                details open[rec.offender == Some(seat)] {
                                    summary { (swatch(&colours, seat)) "stderr of " (rec.bots[seat]) " (" (bytes) " bytes in all"
                                        @if (bytes as usize) > tail.len() { ", last " (tail.len()) " shown" } ")" }
                                    pre.stderr { (tail) }
                                }
                            }
                        }
                        details #"moves-box" open {
                            summary { "Moves (" (rec.moves.len() + rec.opening.len()) ")" }
                            ol #moves {}
                        }
                    }
                }
                script type="application/octet-stream" #"game-data" data-encoding="zlib+base64" {
                    // Base64 has no character HTML would escape.
                    (PreEscaped(data))
                }
                @match assets {
                    Assets::Inline => script { (PreEscaped(JS)) },
                    Assets::Beside => script src=(JS_FILE) {},
                }
            }
        }
    };
    Ok(markup.into_string())
}
