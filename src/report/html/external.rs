//! The replay page of an external referee's game: no board (the rules live in the referee
//! process), but every turn's input and answer per player, the clocks, the verdict, and the
//! referee's stderr beside the bots'. Self-contained like every replay page.

use super::page::ms;
use super::viewer::{swatch, verdict};
use crate::referee::Reason;
use crate::results::records::{ExternalRecord, GameRecord};
use maud::{html, PreEscaped, DOCTYPE};

const CSS: &str = include_str!("assets/style.css");

/// The page of `rec` (a record with its external part); `back` links to its report.
pub fn page(rec: &GameRecord, ext: &ExternalRecord, back: Option<&str>) -> String {
    let title = format!(
        "{} game {}: {}",
        rec.game,
        rec.game_id,
        rec.bots.join(" vs ")
    );
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
                        (swatch(&rec.game, seat)) "player " (seat) ": " b { (bot) } " \u{a0} "
                    }
                    br;
                    span.muted {
                        "external referee `" (ext.referee) "`, " (rec.seats) " players, seed " (rec.seed)
                        ", " (rec.moves.len()) " answers. " (verdict(rec)) "."
                    }
                }
                @if !rec.detail.is_empty() { p #detail { (rec.detail) } }
                table {
                    thead { tr { th { "turn" } th { "player" } th { "input sent" } th { "answer" } th { "time" } } }
                    tbody {
                        @for (i, answer) in rec.moves.iter().enumerate() {
                            @let seat = rec.seat.get(i).map(|&s| s as usize);
                            tr {
                                td { (i + 1) }
                                td { @if let Some(s) = seat { (swatch(&rec.game, s)) " " (rec.bots.get(s).map_or("?", |b| b.as_str())) } }
                                td style="text-align:left" { pre { (ext.inputs.get(i).map_or("", |s| s.as_str())) } }
                                td style="text-align:left" { pre { (answer) } }
                                td {
                                    @if let Some(us) = rec.wall_us.get(i) { (ms(*us)) }
                                    @if rec.late.contains(&(i as u32)) { " (late)" }
                                }
                            }
                        }
                    }
                }
                p.muted { "ranks " (format!("{:?}", rec.ranks)) }
                details open[rec.reason == Reason::RefereeError] {
                    summary { "stderr of the referee" }
                    pre.stderr { (ext.stderr) }
                }
                @for (seat, tail) in rec.stderr.iter().enumerate() {
                    @let bytes = rec.stderr_bytes.get(seat).copied().unwrap_or(0);
                    details open[rec.offender == Some(seat)] {
                        summary { (swatch(&rec.game, seat)) "stderr of " (rec.bots.get(seat).map_or("?", |b| b.as_str())) " (" (bytes) " bytes in all)" }
                        pre.stderr { (tail) }
                    }
                }
            }
        }
    };
    markup.into_string()
}
