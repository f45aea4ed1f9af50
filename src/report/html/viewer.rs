//! The replay viewer: one page per folder of games (`replays/replay.html`) that draws any of
//! them from its data file (`replays/game-N.js`, opened as `replay.html#game=N`), or one
//! page with a game's data inside (`arbiter replay`). A game's data is computed once, in Rust,
//! by replaying its record through the rules ([`super::frames`]): the board's cells, each step
//! with its answer, stderr, clocks and verdict, the verdict's texts. The viewer's script only
//! unpacks and draws it, so a game added to a report is one small file written as it ends,
//! never a page, and nothing waits for the run's end (issue 39).
//!
//! A data file is a script (`arbiterGame(N, "zlib+base64")`): a page opened from the disk
//! (file://) may not fetch() a file beside it, but may load it with a `<script>` element. Every
//! text from a bot is in the compressed data and reaches the page as text (`textContent`),
//! never as markup.

use super::frames::{pack, page_json, Inputs};
use super::seats;
use crate::game::SeatColour;
use crate::results::rebuild::RebuildError;
use crate::results::records::GameRecord;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use std::path::Path;

const CSS: &str = include_str!("assets/style.css");
/// The viewer's script: the steps, and an SDK game's own viewer beside them.
const JS: &str = concat!(
    include_str!("assets/viewer.js"),
    include_str!("assets/sdk_player.js")
);

/// The viewer's script and style files, written once into a folder of replay data.
pub const JS_FILE: &str = "viewer.js";
pub const CSS_FILE: &str = "viewer.css";
/// The viewer's page in a folder of replay data.
pub const PAGE_FILE: &str = "replay.html";

/// The name of game `id`'s data file in a folder of replay data.
pub fn data_file(id: u64) -> String {
    format!("game-{id}.js")
}

/// The address of game `id`'s replay, from the folder of its data.
pub fn link(id: u64) -> String {
    format!("{PAGE_FILE}#game={id}")
}

/// Writes the viewer (its page, linking back to the report at `back`, its script and style)
/// into `dir`, unless they are there already as this arbiter writes them.
pub fn write_assets(dir: &Path, back: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let page = shell(Some(back), None, Viewer::None);
    for (name, text) in [(JS_FILE, JS), (CSS_FILE, CSS), (PAGE_FILE, page.as_str())] {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &path)?;
        }
    }
    Ok(())
}

/// "impasse game 3: alice vs bob".
fn title(rec: &GameRecord) -> String {
    format!(
        "{} game {}: {}",
        rec.game,
        rec.game_id,
        rec.bots.join(" vs ")
    )
}

/// The text of `rec`'s data file: the viewer's `arbiterGame` called with the game's id and its
/// data (JSON, compressed, in base64: no character a script or HTML would read otherwise).
/// `inputs` says which turns' inputs it keeps.
pub fn data_script(rec: &GameRecord, inputs: Inputs) -> Result<String, RebuildError> {
    let json = match &rec.external {
        Some(ext) => match &ext.sdk {
            Some(log) => super::sdk::json(rec, ext, log, &title(rec)),
            None => super::external::json(rec, ext, &title(rec)),
        },
        None => page_json(rec, &title(rec), inputs)?,
    };
    Ok(format!(
        "arbiterGame({},\"{}\");\n",
        rec.game_id,
        pack(&json)
    ))
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

/// A page of `rec` alone, with its data, script and style inside and every turn's input:
/// one file that works anywhere (`arbiter replay`); `back` links to a report.
pub fn page(rec: &GameRecord, back: Option<&str>) -> Result<String, RebuildError> {
    page_with_viewer(rec, back, Viewer::None)
}

/// Where a page of one CodinGame SDK game finds the game's own viewer
/// ([`super::sdk_view`]).
#[derive(Clone, Copy, Debug)]
pub enum Viewer<'a> {
    /// Nowhere: the page shows the game as text steps, saying so.
    None,
    /// Inside the page: a `sdk-view.js`'s text.
    Inline(&'a str),
    /// At this address (a server's).
    Src(&'a str),
}

/// [`page`] with the game's own viewer `viewer` (for an SDK game's page).
pub fn page_with_viewer(
    rec: &GameRecord,
    back: Option<&str>,
    viewer: Viewer<'_>,
) -> Result<String, RebuildError> {
    Ok(shell(back, Some(&data_script(rec, Inputs::All)?), viewer))
}

/// The viewer's page: with `data` (a data file's text) inside, and its script and style, or
/// else (a folder's `replay.html`) loading the script and style beside it and the game its
/// address names. The script fills every part from the game's data; an SDK game's viewer
/// comes before the data (a folder's page loads `sdk-view.js` beside it when a game needs it).
fn shell(back: Option<&str>, data: Option<&str>, viewer: Viewer<'_>) -> String {
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
                title { "replay" }
                @if data.is_some() { style { (PreEscaped(CSS)) } } @else { link rel="stylesheet" href=(CSS_FILE); }
            }
            body data-inline[data.is_some()] {
                @if let Some(back) = back { p { a href=(back) { "\u{2190} report" } } }
                h1 #title { "replay" }
                p #legend {}
                noscript { p.note { "The replay needs JavaScript: it draws the game from its data." } }
                p.note #message hidden {}
                div.viewer #viewer hidden {
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
                        div #"summary-box" hidden { div.muted { "the game's summary:" } pre #summary {} }
                        div #"tooltips-box" hidden { div.muted { "the game's tooltips:" } ul #tooltips {} }
                        div #"err-box" { div.muted #"err-label" { "stderr this turn:" } pre.stderr #err {} }
                        div #"input-box" { div.muted { "input sent:" } pre #input {} }
                        div #end {
                            b {}
                            p.muted #placings {}
                        }
                        details #"moves-box" open {
                            summary {}
                            ol #moves {}
                        }
                    }
                }
                div #external hidden {}
                @match data {
                    Some(data) => {
                        script { (PreEscaped(JS)) }
                        @match viewer {
                            Viewer::Inline(text) => script { (PreEscaped(text)) },
                            Viewer::Src(url) => script src=(url) {},
                            Viewer::None => {},
                        }
                        script { (PreEscaped(data)) }
                    }
                    None => script src=(JS_FILE) {},
                }
            }
        }
    };
    markup.into_string()
}
