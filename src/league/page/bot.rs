//! A bot's page, the one a student reads of their own bot (issue 47): its standings line (a long
//! problem folded, whole when opened), its score against each opponent, its recent games with
//! their replays, its versions (when each was sent, its hash, a link to its build log), its
//! forfeits and its stderr; and the same as JSON (`/api/bots/NAME`). Its stderr and build logs
//! are its author's and the admin's unless the league's `[page] show_stderr` shows them to all.

use super::super::lines::{BotNotes, LiveGame};
use super::super::locks::RwLocked;
use super::super::ratings::{BotLine, Versus};
use super::super::server::Shared;
use super::super::versions::{Version, SHORT_HASH};
use super::head;
use maud::{html, Markup, DOCTYPE};

/// The link to version `v`'s build log.
/// What the page and its JSON show of a bot, read at once: its standings line (none until
/// the standings list it), score against each opponent, page notes and versions.
struct BotView {
    line: BotLine,
    versus: Vec<Versus>,
    notes: BotNotes,
    versions: Vec<Version>,
}

impl BotView {
    fn of(s: &Shared, name: &str) -> Option<BotView> {
        let line = s
            .standings
            .reading()
            .bots
            .iter()
            .find(|b| b.name == name)?
            .clone();
        let state = s.state();
        Some(BotView {
            line,
            versus: state.counted.versus(name),
            notes: state.live.notes.get(name).cloned().unwrap_or_default(),
            versions: state.versions.of(name).to_vec(),
        })
    }
}

fn build_link(v: &Version) -> String {
    format!("/api/bots/{}/build?version={}", v.bot, v.version)
}

/// What a bot's page shows, as JSON: its standings line, score against each opponent, recent
/// games, versions (newest first) and forfeits, and its stderr in its latest game (`null`
/// unless `[page] show_stderr`: its author and the admin read it from `/api/bots/NAME/stderr`).
pub fn bot_data(s: &Shared, name: &str) -> Option<serde_json::Value> {
    let show = s.settings.page.show_stderr;
    let BotView {
        line,
        versus,
        notes,
        versions,
    } = BotView::of(s, name)?;
    let versions: Vec<serde_json::Value> = versions
        .iter()
        .rev()
        .map(|v| {
            serde_json::json!({
                "version": v.version, "at": v.at, "hash": v.hash, "build": build_link(v),
            })
        })
        .collect();
    Some(serde_json::json!({
        "bot": line,
        "versus": versus,
        "games": notes.games,
        "versions": versions,
        "forfeits": notes.forfeits,
        "stderr": show.then_some(notes.stderr),
        "stderr_game": notes.stderr_game,
    }))
}

/// A bot's problem (why it is broken or suspended): as it is when short, else folded to its
/// first words, the whole text when opened.
pub fn problem(text: &str) -> Markup {
    const SHORT: usize = 120;
    let first = text.lines().next().unwrap_or_default();
    if text.len() <= SHORT && first.len() == text.len() {
        return html! { span class="problem" { (text) } };
    }
    let mut end = first.len().min(SHORT);
    while !first.is_char_boundary(end) {
        end -= 1;
    }
    html! {
        details class="problem" {
            summary { (&first[..end]) "…" }
            pre { (text) }
        }
    }
}

/// A bot's page.
pub fn bot(s: &Shared, name: &str) -> Option<String> {
    let show = s.settings.page.show_stderr;
    let BotView {
        line,
        versus,
        notes,
        versions,
    } = BotView::of(s, name)?;
    let rating = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:+.0}"));
    Some(
        html! {
            (DOCTYPE)
            html {
                (head(&format!("League bot {name}")))
                body {
                    p { a href="/" { "← standings" } " · "
                        a href={"/?bot=" (name)} { "its games on the league's page" } }
                    h1 { (name) }
                    p class=(line.status) {
                        "Rating " (rating(line.rating)) " (95%: " (rating(line.low)) " … "
                        (rating(line.high)) "), " (line.games) " games, status " (line.status)
                    }
                    @if let Some(p) = &line.problem { div class=(line.status) { (problem(p)) } }
                    h2 { "Against each opponent" }
                    @if versus.is_empty() { p id="no-versus" { "None: no game recorded yet." } }
                    table id="versus" {
                        thead { tr { th { "Opponent" } th { "Games" } th { "Score" } th { "W/D/L" } } }
                        tbody {
                            @for v in &versus {
                                tr {
                                    td { a href={"/bot/" (v.opponent)} { (v.opponent) } }
                                    td { (v.games) }
                                    td { (format!("{:.1}", v.points)) }
                                    td { (v.wins) "/" (v.draws) "/" (v.losses) }
                                }
                            }
                        }
                    }
                    h2 { "Recent games" }
                    @if notes.games.is_empty() { p id="no-games" { "None recorded yet." } }
                    @else {
                        table id="games" {
                            thead { tr { th { "Game" } th { "Opponents" } th { "Result" }
                                th { "Reason" } } }
                            tbody {
                                @for g in &notes.games {
                                    tr class="game" data-game=(g.game_id) {
                                        td { a href={"/replay/" (g.game_id)} { "game " (g.game_id) } }
                                        td { (opponents(g, name)) }
                                        td { (outcome(g, name)) }
                                        td { (g.reason.map_or("", |r| r.as_str())) }
                                    }
                                }
                            }
                        }
                    }
                    h2 { "Versions" }
                    @if versions.is_empty() { p id="no-versions" { "None recorded yet." } }
                    @else {
                        @if !show {
                            p id="build-private" {
                                "Build logs are shown to its author and the league's admin \
                                 only: open a link with the author's or the admin token ("
                                code { "curl -H 'Authorization: Bearer TOKEN' URL" } ")."
                            }
                        }
                        table id="versions" {
                            thead { tr { th { "Version" } th { "Sent (UTC)" } th { "Hash" }
                                th { "Build" } } }
                            tbody {
                                @for v in versions.iter().rev() {
                                    tr class="version" data-version=(v.version) {
                                        td { (v.version) }
                                        td { (v.at) }
                                        td { @match &v.hash {
                                            Some(h) => code title=(h) { (h.get(..SHORT_HASH).unwrap_or(h)) },
                                            None => "–",
                                        } }
                                        td { a href=(build_link(v)) { "build log" } }
                                    }
                                }
                            }
                        }
                    }
                    h2 { "Forfeits" }
                    @if notes.forfeits.is_empty() { p { "None recorded lately." } }
                    ul id="forfeits" {
                        @for f in &notes.forfeits {
                            li {
                                a href={"/replay/" (f.game_id)} { "game " (f.game_id) } ": "
                                (f.reason) " at turn " (f.turn) ": " (f.detail)
                            }
                        }
                    }
                    h2 { "Stderr" @if let Some(g) = notes.stderr_game { " (game " (g) ")" } }
                    @if !show {
                        p id="stderr-private" {
                            "Shown to its author and the league's admin only: "
                            code { "GET /api/bots/" (name) "/stderr" }
                            " with the author's or the admin token (this league's league.toml \
                             does not set " code { "[page] show_stderr = true" } ")."
                        }
                    } @else if notes.stderr.is_empty() {
                        p id="no-stderr" { "None." }
                    } @else {
                        pre id="stderr" { (notes.stderr) }
                    }
                }
            }
        }
        .into_string(),
    )
}

/// The other bots of game `g`, as bot `name`'s page lists them.
fn opponents(g: &LiveGame, name: &str) -> String {
    let others: Vec<&str> = g
        .bots
        .iter()
        .map(String::as_str)
        .filter(|b| *b != name)
        .collect();
    if others.is_empty() {
        "itself".to_string()
    } else {
        others.join(", ")
    }
}

/// How bot `name` ended game `g`: won, draw, lost, or its place among more than two seats.
fn outcome(g: &LiveGame, name: &str) -> String {
    let Some(ranks) = &g.ranks else {
        return "playing".to_string();
    };
    let Some(rank) = g
        .bots
        .iter()
        .position(|b| b == name)
        .and_then(|seat| ranks.get(seat))
    else {
        return String::new();
    };
    let tied = ranks.iter().filter(|r| *r == rank).count() > 1;
    match (*rank, tied, ranks.len()) {
        (0, false, _) => "won".to_string(),
        (0, true, _) => "draw".to_string(),
        (_, _, 2) => "lost".to_string(),
        (r, _, n) => format!("place {} of {n}", r + 1),
    }
}
