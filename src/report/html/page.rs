//! The report page: settings, standings with error bars, cross-table heat map, LOS matrix,
//! forfeits, think times and the games list. Tables are plain HTML (useful without script);
//! a small script only filters the games list.

use super::data::{ReportData, StandingsView};
use super::svg::{self, ms};
use crate::rating::fmt_elo;
use crate::referee::Reason;
use maud::{html, Markup, PreEscaped, DOCTYPE};

const CSS: &str = include_str!("assets/style.css");
const JS: &str = include_str!("assets/report.js");

/// A background from red (0) through white (0.5) to green (1).
fn heat(score: f64) -> String {
    let s = score.clamp(0.0, 1.0);
    let (r, g, b) = if s < 0.5 {
        let t = s / 0.5;
        (230.0 + 25.0 * t, 120.0 + 135.0 * t, 110.0 + 145.0 * t)
    } else {
        let t = (s - 0.5) / 0.5;
        (255.0 - 135.0 * t, 255.0 - 45.0 * t, 255.0 - 125.0 * t)
    };
    format!("background:rgb({:.0},{:.0},{:.0})", r, g, b)
}

fn standings(s: &StandingsView) -> Markup {
    html! {
        h2 #standings { "Standings" }
        div.scroll {
            table #ratings {
                thead { tr { th { "Rank" } th.l { "Bot" } th { "Elo" } th { "95% interval" } th { "Games" } th { "Points" } th { "W/D/L" } } }
                tbody {
                    @for (k, r) in s.rows.iter().enumerate() {
                        tr {
                            td { (k + 1) } td.l { (r.name) } td { (r.elo) }
                            td { "[" (fmt_elo(r.low)) ", " (fmt_elo(r.high)) "]" }
                            td.games { (r.games) } td.points { (r.points) }
                            td.wdl { (r.wins) "/" (r.draws) "/" (r.losses) }
                        }
                    }
                }
            }
        }
        (svg::error_bars(&s.rows))
        p.muted { "Ratings: " (s.model) "." }
        @for w in &s.warnings { p.note { "note: " (w) } }
        h2 #cross { "Cross-table" }
        p.muted { "Points of the row bot against the column bot, out of the games they played; green is better for the row bot." }
        div.scroll {
            table.matrix {
                thead { tr { th {} @for n in &s.names { th { (n) } } } }
                tbody {
                    @for (i, n) in s.names.iter().enumerate() {
                        tr {
                            th.l { (n) }
                            @for (j, &(p, g)) in s.cross[i].iter().enumerate() {
                                @if i == j { td.muted { "\u{2014}" } }
                                @else if g == 0 { td.muted { "." } }
                                @else { td style=(heat(p / g as f64)) { (p) "/" (g) } }
                            }
                        }
                    }
                }
            }
        }
        h2 #los { "Likelihood of superiority" }
        p.muted { "The probability that the row bot is stronger than the column bot, from the fitted ratings." }
        @if s.los.len() != s.names.len() {
            p { "The field is too large for a readable matrix: los.csv gives each bot's LOS over the next one in the ranking." }
        } @else {
        div.scroll {
            table.matrix {
                thead { tr { th {} @for n in &s.names { th { (n) } } } }
                tbody {
                    @for (i, n) in s.names.iter().enumerate() {
                        tr {
                            th.l { (n) }
                            @for (j, p) in s.los[i].iter().enumerate() {
                                @match p {
                                    Some(p) if i != j => td style=(heat(*p)) { (format!("{:.1}%", p * 100.0)) },
                                    _ => td.muted { "\u{2014}" },
                                }
                            }
                        }
                    }
                }
            }
        }
        }
        h2 #forfeits { "Forfeits" }
        @if s.forfeits.is_empty() { p { "No forfeits." } }
        @else {
            table #"forfeit-table" {
                thead { tr { th.l { "Bot" } th.l { "Reason" } th { "Games" } } }
                tbody { @for (bot, reason, n) in &s.forfeits { tr { td.l { (bot) } td.l { (reason) } td { (n) } } } }
            }
        }
    }
}

/// Each bot's forfeits, those with the same verdict and the same end of stderr together.
fn failures(d: &ReportData) -> Markup {
    if d.failures.is_empty() {
        return html! {};
    }
    let mut groups: Vec<&super::data::FailureGroup> = d.failures.iter().collect();
    groups.sort_by(|a, b| a.bot.cmp(&b.bot).then(b.count.cmp(&a.count)));
    html! {
        h2 #failures { "Why bots forfeited" }
        p.muted { "Forfeits with the same verdict and the same last lines of stderr (numbers aside) are one entry, shown as in its first game." }
        @for g in groups {
            details.failure {
                summary { b { (g.bot) } ": " (g.reason) ", " (g.count) @if g.count == 1 { " game" } @else { " games" } }
                p { (g.detail) @if g.count > 1 { span.muted { " (the first game's)" } } }
                @if g.stderr.is_empty() { p.muted { "It wrote nothing to stderr." } }
                @else { pre.stderr { (g.stderr) } }
                p {
                    "Games: "
                    @for (k, (_, id, link)) in g.games.iter().enumerate() {
                        @if k > 0 { ", " }
                        @if let Some(l) = link { a href=(l) { (id) } } @else { (id) }
                    }
                    @if g.count > g.games.len() as u64 { " and " (g.count - g.games.len() as u64) " more" }
                }
            }
        }
    }
}

fn times(d: &ReportData) -> Markup {
    let Some((limit, first, clock)) = &d.limits else {
        return html! {};
    };
    html! {
        h2 #times { "Think time" }
        p.muted {
            "Time per turn on the " (clock) " clock, which the limit measures: " (ms(*limit)) " a turn, "
            (ms(*first)) " for a bot's first turn of a game, which is counted apart. "
            "The plots have a log scale; the red line is the limit."
        }
        div.scroll {
            table #"time-table" {
                thead { tr { th.l { "Bot" } th { "Turns" } th { "Median" } th { "p99" } th { "Max" } th { "First turn max" } th { "Late" } th.l { "Distribution" } } }
                tbody {
                    @for t in &d.times {
                        tr {
                            td.l { (t.name) } td { (t.turns) }
                            td { (t.quantile(0.5).map(ms).unwrap_or_default()) }
                            td { (t.quantile(0.99).map(ms).unwrap_or_default()) }
                            td { (t.quantile(1.0).map(ms).unwrap_or_default()) }
                            td { (ms(t.first_max_us)) } td { (t.late) }
                            td.l { (svg::time_histogram(t, *limit)) }
                        }
                    }
                }
            }
        }
    }
}

fn games(d: &ReportData) -> Markup {
    let mut bots: Vec<&str> = d
        .games
        .iter()
        .flat_map(|g| g.bots.iter().map(String::as_str))
        .collect();
    bots.sort_unstable();
    bots.dedup();
    let drawn = |g: &super::data::GameLine| {
        g.forfeits.is_empty() && g.ranks.len() > 1 && g.ranks.iter().all(|&r| r == g.ranks[0])
    };
    let verdict = |g: &super::data::GameLine| g.reason.map_or("", Reason::as_str);
    let mut verdicts: Vec<&str> = d.games.iter().map(verdict).collect();
    verdicts.push("forfeit");
    if d.games.iter().any(drawn) {
        verdicts.push("draw");
    }
    verdicts.sort_unstable();
    verdicts.dedup();
    let many_folders = d.folders.len() > 1;
    html! {
        h2 #games-list { "Games" }
        div.filters #filters hidden {
            label { "Bot " select #"filter-bot" { option value="" { "any" } @for b in &bots { option value=(b) { (b) } } } }
            label { "Verdict " select #"filter-verdict" { option value="" { "any" } @for v in &verdicts { option value=(v) { (v) } } } }
            span #"filter-count" .muted {}
        }
        div.scroll {
            table #games {
                thead { tr {
                    @if many_folders { th { "Run" } }
                    th { "Game" } th.l { "Bots by seat (winner in bold)" } th { "Ranks" } th.l { "Verdict" } th { "Turns" } th.l { "Forfeits" } th.l { "Replay" }
                } }
                tbody {
                    @for g in &d.games {
                        @let winner = crate::game::Outcome { ranks: g.ranks.clone() }.sole_winner();
                        @let forfeit = !g.forfeits.is_empty();
                        tr class=[forfeit.then_some("forfeit")] data-bots=(g.bots.join("\n"))
                            data-verdict={ (verdict(g)) @if forfeit { " forfeit" } @if drawn(g) && g.reason != Some(Reason::UnnamedDraw) { " draw" } } {
                            @if many_folders { td { (g.folder + 1) } }
                            td { (g.game_id) }
                            td.l {
                                @for (s, b) in g.bots.iter().enumerate() {
                                    @if s > 0 { ", " }
                                    @if winner == Some(s) { b { (b) } } @else { (b) }
                                }
                            }
                            td { (g.ranks.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")) }
                            td.l { (verdict(g)) }
                            td { (g.turns.map(|t| t.to_string()).unwrap_or_default()) }
                            td.l { (g.forfeits.iter().map(|(s, r)| format!("{} {r}", g.bots[*s])).collect::<Vec<_>>().join("; ")) }
                            td.l { @if let Some(link) = &g.link { a href=(link) { "watch" } } }
                        }
                    }
                }
            }
        }
    }
}

/// The whole report page.
pub fn render(d: &ReportData, title: &str) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { (title) }
                p.muted { "Written " (d.generated) " by arbiter " (d.version) ". " (d.total_games) " games." }
                nav { @if d.sprt.is_some() { a href="#sprt" { "SPRT" } " \u{b7} " }
                      a href="#standings" { "standings" } " \u{b7} " a href="#cross" { "cross-table" } " \u{b7} "
                      a href="#los" { "LOS" } " \u{b7} " a href="#forfeits" { "forfeits" } " \u{b7} "
                      a href="#times" { "think time" } " \u{b7} " a href="#games-list" { "games" } }
                details #settings {
                    summary { "Settings" @if d.folders.len() > 1 { " of " (d.folders.len()) " runs" } }
                    @for f in &d.folders {
                        p { b { (f.path.display()) } }
                        dl.settings { @for (k, v) in &f.settings { dt { (k) } dd { (v) } } }
                    }
                }
                @for n in &d.notes { p.note { (n) } }
                @if let Some(s) = &d.sprt { (super::sprt::section(s)) }
                @if let Some(s) = &d.standings { (standings(s)) } @else { p { "No games yet." } }
                (failures(d))
                (times(d))
                (games(d))
                @if d.records.records > 0 {
                    p.muted { "Records: " (d.records.records) " games in " (d.record_bytes / 1024) " KiB ("
                        (d.record_bytes / d.records.records.max(1)) " bytes a game)." }
                }
                script { (PreEscaped(JS)) }
            }
        }
    }
    .into_string()
}
