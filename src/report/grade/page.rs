//! report.html of a grading run (`arbiter grade`), in the look of the tournament report: the marks table and a
//! section per student (mark and how it was reached, build log, results against each opponent,
//! every game with its replay, and the forfeits grouped by verdict and the end of stderr). Each
//! student also gets a folder `students/NAME/` that can be sent as it is: their section as
//! `report.html` and a copy of their games' replay pages. Paths are shown relative to the class
//! folder (never the build cache's).

use crate::grade::marks::{Row, Student};
use crate::report::html::{self, viewer};
use crate::results::failures::{last_lines, STDERR_BYTES, STDERR_LINES};
use crate::results::records::{for_each_record, GameRecord};
use crate::results::standings::Standings;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// At most this much of a build log is shown.
const LOG_BYTES: usize = 16 * 1024;

/// Games of a failure group listed by link at most.
const GROUP_LINKS: usize = 30;

/// The folder of the students' own pages inside the results folder.
pub const STUDENTS: &str = "students";

/// An HTML id (and a folder name) for a student.
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

/// `text` with paths made relative to the class folder: the class folder's own prefix is
/// dropped, and a build-cache folder (`CACHE/<hash>/`) becomes the student's submission
/// (`shown`: `bob/` for a folder, empty for a single file, whose name follows).
pub fn relative(text: &str, class: &Path, cache: &Path, shown: &str) -> String {
    let mut out = text.replace(&format!("{}/", class.display()), "");
    let cache = format!("{}/", cache.display());
    let mut from = 0;
    while let Some(at) = out[from..].find(&cache).map(|k| k + from) {
        let rest = at + cache.len();
        let end = out[rest..]
            .find('/')
            .filter(|&k| !out[rest..rest + k].contains(char::is_whitespace))
            .map_or(rest, |k| rest + k + 1);
        out.replace_range(at..end, shown);
        from = at + shown.len();
    }
    out
}

/// A submission `entry` of the class folder as paths in its texts are shown: `bob/` for a
/// folder (its files follow), empty for a single file (whose name follows).
pub fn shown(class: &Path, entry: &str) -> String {
    if class.join(entry).is_dir() {
        format!("{entry}/")
    } else {
        String::new()
    }
}

/// What the page says about the run.
pub struct PageContext<'a> {
    pub title: &'a str,
    pub summary: &'a str,
    pub out: &'a Path,
    pub baselines: &'a [String],
    pub maximum: f64,
    /// The class folder, and each student's submission as shown (`bob/`, `alice.py`), in the
    /// order of the students.
    pub class: &'a Path,
    pub sources: &'a [String],
}

/// One game of a student.
struct StudentGame {
    id: u64,
    /// Everyone at the table, by seat.
    bots: Vec<String>,
    seat: usize,
    placing: String,
    reason: String,
}

/// A student's forfeits with the same verdict and the same end of stderr.
struct Failure {
    reason: String,
    detail: String,
    stderr: String,
    count: usize,
    ids: Vec<u64>,
}

/// What the records tell of each student.
#[derive(Default)]
struct Record {
    games: Vec<StudentGame>,
    failures: Vec<Failure>,
}

/// Reads records.jsonl once, keeping for each student their games and grouped forfeits.
fn gather(cx: &PageContext, students: &[Student]) -> std::io::Result<Vec<Record>> {
    let index: HashMap<&str, usize> = students
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut out: Vec<Record> = students.iter().map(|_| Record::default()).collect();
    let cache = crate::bot::host::cache_root();
    for_each_record(
        &cx.out.join(crate::results::records::FILE),
        |rec: GameRecord| {
            for (seat, bot) in rec.bots.iter().enumerate() {
                let Some(&i) = index.get(bot.as_str()) else {
                    continue;
                };
                let place = rec.ranks.get(seat).copied().unwrap_or(0);
                let tied = rec.ranks.iter().filter(|&&r| r == place).count() > 1;
                let placing = if rec.ranks.iter().all(|&r| r == place) {
                    "draw".to_string()
                } else if place == 0 && !tied {
                    "won".to_string()
                } else {
                    format!(
                        "{}{}",
                        viewer::ordinal(place as usize + 1),
                        if tied { " (tied)" } else { "" }
                    )
                };
                out[i].games.push(StudentGame {
                    id: rec.game_id,
                    bots: rec.bots.clone(),
                    seat,
                    placing,
                    reason: rec.reason.to_string(),
                });
            }
            for f in &rec.forfeits {
                let Some(&i) = rec.bots.get(f.seat).and_then(|b| index.get(b.as_str())) else {
                    continue;
                };
                let clean = |t: &str| relative(t, cx.class, &cache, &cx.sources[i]);
                let tail = rec.stderr.get(f.seat).map_or("", String::as_str);
                let stderr = clean(last_lines(tail, STDERR_LINES, STDERR_BYTES));
                let groups = &mut out[i].failures;
                let key = html::data::numbers_hidden(&stderr);
                match groups.iter_mut().find(|g| {
                    g.reason == f.reason.as_str() && html::data::numbers_hidden(&g.stderr) == key
                }) {
                    Some(g) => {
                        g.count += 1;
                        if g.ids.len() < GROUP_LINKS {
                            g.ids.push(rec.game_id);
                        }
                    }
                    None => groups.push(Failure {
                        reason: f.reason.to_string(),
                        detail: clean(&f.detail),
                        stderr,
                        count: 1,
                        ids: vec![rec.game_id],
                    }),
                }
            }
        },
    )?;
    for r in &mut out {
        r.games.sort_by_key(|g| g.id);
        r.failures.sort_by_key(|f| std::cmp::Reverse(f.count));
    }
    Ok(out)
}

fn percent(points: f64, games: u64) -> String {
    if games == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * points / games as f64)
    }
}

/// A replay link from a page beside `replays/`, when the game's replay data exists.
fn watch(out: &Path, id: u64) -> Option<String> {
    html::replay_path(out, id)
        .is_file()
        .then(|| format!("replays/{}", viewer::link(id)))
}

/// One student's section: the same in the class page and in the student's own page.
fn section(
    cx: &PageContext,
    s: &Student,
    i: usize,
    r: &Row,
    rec: &Record,
    standings: &Standings,
) -> Markup {
    let cache = crate::bot::host::cache_root();
    let log = std::fs::read_to_string(cx.out.join("builds").join(format!("{}.log", s.name)))
        .unwrap_or_default();
    let log = relative(&log, cx.class, &cache, &cx.sources[i]);
    let problem = relative(&r.problem, cx.class, &cache, &cx.sources[i]);
    html! {
        // A student whose code does not build reads why first, open, before anything else.
        @if !r.built {
            p.problem { b { "Not built" } @if !problem.is_empty() { ": " (problem) } }
            details open { summary { "Build log" } pre { (clip(&log, LOG_BYTES)) } }
        }
        p { "Submission SHA-256 " code { (s.hash) } }
        p.mark { "Mark " b { (r.mark.total) " / " (cx.maximum) } ": " (r.mark.detail) }
        @if r.built {
            details { summary { "Build log" } pre { (clip(&log, LOG_BYTES)) } }
        }
        @if let Some(me) = standings.names.iter().position(|n| *n == s.name) {
            h3 { "Results" }
            div.scroll { table {
                thead { tr {
                    th.l { "Opponent" } th { "Games" } th { "Wins" } th { "Draws" }
                    th { "Losses" } th { "Score" }
                } }
                tbody {
                    @for (j, name) in standings.names.iter().enumerate() {
                        @let wdl = standings.table.pair(me, j);
                        @if j != me && wdl.games() > 0 {
                            tr {
                                td.l { (name) @if cx.baselines.contains(name) { " (baseline)" } }
                                td { (wdl.games()) } td { (wdl.wins) } td { (wdl.draws) }
                                td { (wdl.losses) } td { (percent(wdl.points(), wdl.games())) }
                            }
                        }
                    }
                }
            } }
        }
        @if rec.failures.is_empty() {
            p { "No forfeits." }
        } @else {
            h3 { "Forfeits (" (rec.failures.iter().map(|f| f.count).sum::<usize>()) ")" }
            p.muted { "Forfeits with the same verdict and the same last lines of stderr (numbers aside) are one entry, shown as in its first game." }
            @for f in &rec.failures {
                div.failure {
                    p { b { (f.reason) } ", " (f.count) @if f.count == 1 { " game" } @else { " games" } ": " (f.detail) }
                    @if f.stderr.is_empty() { p.muted { "Nothing was written to stderr." } }
                    @else { pre.stderr { (f.stderr) } }
                    p { "Games: "
                        @for (k, id) in f.ids.iter().enumerate() {
                            @if k > 0 { ", " }
                            @if let Some(l) = watch(cx.out, *id) { a href=(l) { (id) } } @else { (id) }
                        }
                        @if f.count > f.ids.len() { " and " (f.count - f.ids.len()) " more" }
                    }
                }
            }
        }
        h3 { "Games (" (rec.games.len()) ")" }
        div.scroll { table.games {
            thead { tr { th { "Game" } th.l { "Seat" } th.l { "Opponents" } th.l { "Result" } th.l { "Verdict" } th.l { "Replay" } } }
            tbody {
                @for g in &rec.games {
                    tr {
                        td { (g.id) } td.l { (g.seat) }
                        td.l { (g.bots.iter().enumerate().filter(|(k, _)| *k != g.seat).map(|(_, b)| b.as_str()).collect::<Vec<_>>().join(", ")) }
                        td.l { (g.placing) } td.l { (g.reason) }
                        td.l { @if let Some(l) = watch(cx.out, g.id) { a href=(l) { "watch" } } }
                    }
                }
            }
        } }
    }
}

fn document(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(html::STYLE)) }
            }
            body { (body) }
        }
    }
    .into_string()
}

/// A student's own folder: their page and copies of their games' replay data (with the
/// viewer).
fn student_folder(
    cx: &PageContext,
    name: &str,
    rec: &Record,
    page: String,
) -> std::io::Result<PathBuf> {
    let dir = cx.out.join(STUDENTS).join(anchor(name));
    let replays = dir.join("replays");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&replays)?;
    std::fs::write(dir.join(html::FILE), page)?;
    let mut any = false;
    for g in &rec.games {
        let from = html::replay_path(cx.out, g.id);
        if from.is_file() {
            std::fs::copy(&from, replays.join(viewer::data_file(g.id)))?;
            any = true;
        }
    }
    if any {
        viewer::write_assets(&replays, &format!("../{}", html::FILE))?;
    }
    Ok(dir)
}

/// Writes `report.html` into the results folder, and each student's folder.
pub fn write(
    cx: &PageContext,
    students: &[Student],
    rows: &[Row],
    standings: &Standings,
) -> std::io::Result<()> {
    let records = gather(cx, students)?;
    let mut sections = Vec::new();
    for (i, ((s, r), rec)) in students.iter().zip(rows).zip(&records).enumerate() {
        let body = section(cx, s, i, r, rec, standings);
        let own = document(
            &format!("{}: {}", cx.title, s.name),
            html! {
                h1 { (s.name) }
                p.muted { (cx.title) ". " (cx.summary) }
                (body)
            },
        );
        student_folder(cx, &s.name, rec, own)?;
        sections.push(body);
    }
    let total_forfeits = |r: &Row| r.forfeits.iter().sum::<u64>();
    let page = document(
        cx.title,
        html! {
            h1 { (cx.title) }
            p { (cx.summary) }
            p.muted { "Each student's folder under " code { (STUDENTS) "/" } " holds their page and their games' replays: it can be sent as it is." }
            div.scroll { table #marks {
                thead { tr {
                    th.l { "Student" } th { "Built" } th { "Games" }
                    @for b in cx.baselines { th { "vs " (b) } }
                    th { "Elo" } th { "Rank" } th { "Forfeits" } th { "Mark (/" (cx.maximum) ")" } th.l { "Own page" }
                } }
                tbody {
                    @for r in rows {
                        tr {
                            td.l { a href=(format!("#{}", anchor(&r.student))) { (r.student) } }
                            @if r.built { td { "yes" } } @else { td.no { "no" } }
                            td { (r.games) }
                            @for &(points, games) in &r.against { td { (percent(points, games)) } }
                            td { (r.rating.map_or("-".into(), |v| v.to_string())) }
                            td { (r.rank.map_or("-".into(), |k| k.to_string())) }
                            td { (total_forfeits(r)) }
                            td { (r.mark.total) " / " (cx.maximum) }
                            td.l { a href=(format!("{STUDENTS}/{}/report.html", anchor(&r.student))) { "folder" } }
                        }
                    }
                }
            } }
            @for (s, body) in students.iter().zip(sections) {
                h2 id=(anchor(&s.name)) { (s.name) }
                (body)
            }
        },
    );
    std::fs::write(cx.out.join(html::FILE), page)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_relative_to_the_class() {
        let class = Path::new("/home/t/class");
        let cache = Path::new("/tmp/x/cache");
        let text = "File \"/tmp/x/cache/0a1b2c/bot.py\", line 3\n\
                    reading /home/t/class/bob/data.txt and /tmp/x/cache/ffee/lib/util.py";
        assert_eq!(
            relative(text, class, cache, "bob/"),
            "File \"bob/bot.py\", line 3\nreading bob/data.txt and bob/lib/util.py"
        );
        assert_eq!(
            relative("/tmp/x/cache/0a1b/alice.py:2", class, cache, ""),
            "alice.py:2"
        );
    }
}
