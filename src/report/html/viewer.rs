//! One game's replay page: the board drawn from the game's neutral view, steps with their
//! input, answer, clocks and verdict. Self-contained (style, script and data inline).

use super::frames::{game_data, script_json};
use crate::report::rebuild::RebuildError;
use crate::report::records::GameRecord;
use maud::{html, Markup, PreEscaped, DOCTYPE};

const CSS: &str = include_str!("assets/style.css");
const JS: &str = include_str!("assets/viewer.js");

/// Seat colours, the same as the viewer script's.
pub const SEAT_COLOURS: [&str; 8] = [
    "#f3efe2", "#2b2b2b", "#c0392b", "#2a6fdb", "#27ae60", "#8e44ad", "#e67e22", "#16a085",
];

/// A coloured disc for a seat.
pub fn swatch(seat: usize) -> Markup {
    html! { span.swatch style={ "background:" (SEAT_COLOURS[seat % SEAT_COLOURS.len()]) } {} }
}

/// The verdict in words: "bot won", "draw", "a forfeited (timeout)".
pub fn verdict(rec: &GameRecord) -> String {
    let winner = crate::game::Outcome {
        ranks: rec.ranks.clone(),
    }
    .sole_winner();
    let who = match winner {
        Some(s) => format!("{} won", rec.bots[s]),
        None if rec.ranks.iter().all(|&r| r == 0) => "draw".into(),
        None => format!("ranks {:?}", rec.ranks),
    };
    match rec.offender {
        Some(s) => format!("{who}: {} forfeited ({})", rec.bots[s], rec.reason),
        None => format!("{who} ({})", rec.reason),
    }
}

/// The page of `rec`; `back` links to the report it belongs to, when there is one.
pub fn page(rec: &GameRecord, back: Option<&str>) -> Result<String, RebuildError> {
    if let Some(ext) = &rec.external {
        return Ok(super::external::page(rec, ext, back));
    }
    let title = format!(
        "{} game {}: {}",
        rec.game,
        rec.game_id,
        rec.bots.join(" vs ")
    );
    let data = game_data(rec, &title)?;
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
                style { (PreEscaped(CSS)) }
            }
            body {
                @if let Some(back) = back { p { a href=(back) { "\u{2190} report" } } }
                h1 { (title) }
                p {
                    @for (seat, bot) in rec.bots.iter().enumerate() {
                        (swatch(seat)) "seat " (seat) ": " b { (bot) } " \u{a0} "
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
                        pre #answer {}
                        div #time {}
                        div.meter { div #timebar {} }
                        div #"input-box" { div.muted { "input sent:" } pre #input {} }
                        div #end {
                            b { "Verdict: " (verdict(rec)) }
                            @if !rec.detail.is_empty() { p #detail { (rec.detail) } }
                            p.muted {
                                "ranks " (format!("{:?}", rec.ranks)) ", scores " (format!("{:?}", rec.scores))
                            }
                            @for (seat, tail) in rec.stderr.iter().enumerate() {
                                @let bytes = rec.stderr_bytes.get(seat).copied().unwrap_or(0);
                                details open[rec.offender == Some(seat)] {
                                    summary { (swatch(seat)) "stderr of " (rec.bots[seat]) " (" (bytes) " bytes in all"
                                        @if (bytes as usize) > tail.len() { ", last " (tail.len()) " shown" } ")" }
                                    pre.stderr { (tail) }
                                }
                            }
                        }
                    }
                }
                script type="application/json" #"game-data" { (PreEscaped(script_json(&data))) }
                script { (PreEscaped(JS)) }
            }
        }
    };
    Ok(markup.into_string())
}
