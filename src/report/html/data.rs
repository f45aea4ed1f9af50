//! What the report shows, gathered from a results folder's files: the run's settings, the
//! standings, each bot's think times and the list of games. The page templates only lay it out.

use crate::rating::RatingValue;
use crate::results::games_csv::for_each_result;
use crate::results::records::{GameRecord, ReadRecords};
use crate::results::standings::{self, Standings};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One bot's line of the standings.
pub struct RatingRow {
    pub name: String,
    pub elo: String,
    /// The rating as a number (bounds for `>`/`<` ratings), for the error-bar chart.
    pub value: Option<f64>,
    pub low: f64,
    pub high: f64,
    pub games: u64,
    pub points: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// The standings as the page shows them (the one place that reads [`Standings`]).
pub struct StandingsView {
    pub rows: Vec<RatingRow>,
    /// Bot names in cross-table order.
    pub names: Vec<String>,
    /// `(points, games)` of the row bot against the column bot.
    pub cross: Vec<Vec<(f64, u64)>>,
    pub los: Vec<Vec<Option<f64>>>,
    pub forfeits: Vec<(String, String, u64)>,
    pub model: String,
    pub warnings: Vec<String>,
}

impl StandingsView {
    pub fn new(s: &Standings) -> StandingsView {
        let n = s.names.len();
        let rows = s
            .fit
            .ranking()
            .iter()
            .map(|&i| {
                let r = &s.fit.ratings[i];
                let value = match r.rating {
                    RatingValue::Finite(x) => Some(x),
                    RatingValue::Unrated => None,
                };
                RatingRow {
                    name: s.names[i].clone(),
                    elo: r.rating.to_string(),
                    value,
                    low: r.low,
                    high: r.high,
                    games: s.played[i],
                    points: r.points,
                    wins: r.wins,
                    draws: r.draws,
                    losses: r.losses,
                }
            })
            .collect();
        StandingsView {
            rows,
            names: s.names.clone(),
            cross: (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| (s.table.points(i, j), s.table.games(i, j)))
                        .collect()
                })
                .collect(),
            los: s.fit.los.clone(),
            forfeits: s
                .forfeits
                .iter()
                .map(|(b, r, k)| (s.names[*b].clone(), r.clone(), *k))
                .collect(),
            model: format!("{}. Perfect scores: {}", s.model, s.fit.perfect_scores),
            warnings: s.fit.warnings.iter().map(ToString::to_string).collect(),
        }
    }
}

/// One bot's think times per turn on the clock the limit applies to (wall or CPU), its first
/// turn of each game apart (it has its own limit). Times are counted by value, kept to three
/// significant digits (exact below 1 ms), so a run of any length takes a few kilobytes.
#[derive(Default)]
pub struct BotTimes {
    pub name: String,
    /// How many later turns took each time (microseconds, rounded).
    pub counts: std::collections::BTreeMap<u64, u64>,
    /// Later turns in all.
    pub turns: u64,
    pub first_max_us: u64,
    pub late: u64,
}

/// `us` to three significant digits (exact below 1,000).
fn rounded(us: u64) -> u64 {
    let mut unit = 1;
    while us / unit >= 1000 {
        unit *= 10;
    }
    (us + unit / 2) / unit * unit
}

impl BotTimes {
    /// Counts one later turn.
    pub fn add(&mut self, us: u64) {
        *self.counts.entry(rounded(us)).or_default() += 1;
        self.turns += 1;
    }

    /// The `q`-quantile (0..=1) of the later turns, nearest rank.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.turns == 0 {
            return None;
        }
        let k = ((q * self.turns as f64).ceil() as u64).clamp(1, self.turns);
        let mut seen = 0;
        for (&us, &n) in &self.counts {
            seen += n;
            if seen >= k {
                return Some(us);
            }
        }
        self.counts.keys().next_back().copied()
    }
}

/// What the report needs of the records, gathered one record at a time (a run of any length
/// is never held in memory).
#[derive(Default)]
pub struct RecordFacts {
    /// `(folder, game id)` to the game's turns and whether it has a replay page.
    pub games: HashMap<(usize, u64), (u32, bool)>,
    /// Per folder: its replay data's folder as a link from the report (`replays`).
    pub links: HashMap<usize, String>,
    pub times: Vec<BotTimes>,
    /// The turn limit, first-turn limit and clock of the records (the first one's).
    pub limits: Option<(u64, u64, String)>,
    /// Per folder: the game as played, "impasse (arena, 2 seats)".
    pub played: HashMap<usize, String>,
    /// Per folder: the game's name in its records (an external referee's own name).
    pub names: HashMap<usize, String>,
    /// Forfeits grouped by bot, verdict and the last lines of stderr.
    pub failures: Vec<FailureGroup>,
    /// Games where bots waited long for a CPU (the fair clock's note).
    pub starved: crate::results::starved::Starved,
}

/// `text` with each run of digits as `#`: stderr that differs only in numbers (a seat, a turn,
/// a value) groups as the same failure.
pub fn numbers_hidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

/// Forfeits of one bot with the same verdict and the same end of stderr (numbers aside).
pub struct FailureGroup {
    /// The stderr as compared ([`numbers_hidden`]).
    pub key: String,
    pub bot: String,
    pub reason: String,
    /// The last lines the bot wrote to stderr (the same in every game of the group).
    pub stderr: String,
    /// One detail as an example (the first game's).
    pub detail: String,
    /// Forfeits in the group.
    pub count: u64,
    /// `(folder, game id, replay page)` of the first [`GROUP_LINKS`] games, in the order read.
    pub games: Vec<(usize, u64, Option<String>)>,
}

/// Games of a group listed by link at most (the count says how many in all).
pub const GROUP_LINKS: usize = 20;

impl RecordFacts {
    /// Takes in one record of folder `d` whose replay page is `link`.
    pub fn add(&mut self, d: usize, rec: &GameRecord, link: Option<String>) {
        self.starved.add(rec);
        self.games.insert(
            (d, rec.game_id),
            ((rec.opening.len() + rec.moves.len()) as u32, link.is_some()),
        );
        self.names.entry(d).or_insert_with(|| rec.game.clone());
        self.played
            .entry(d)
            .or_insert_with(|| format!("{} ({}, {} seats)", rec.game, rec.variant, rec.seats));
        self.limits.get_or_insert((
            rec.clocks.turn_us,
            rec.clocks.first_turn_us,
            rec.clocks.clock.clone(),
        ));
        for f in &rec.forfeits {
            let bot = rec.bots.get(f.seat).cloned().unwrap_or_default();
            let tail = rec.stderr.get(f.seat).map_or("", String::as_str);
            let stderr = crate::results::failures::last_lines(
                tail,
                crate::results::failures::STDERR_LINES,
                crate::results::failures::STDERR_BYTES,
            )
            .to_string();
            let at = (d, rec.game_id, link.clone());
            let key = numbers_hidden(&stderr);
            match self
                .failures
                .iter_mut()
                .find(|g| g.bot == bot && g.reason == f.reason.as_str() && g.key == key)
            {
                Some(g) => {
                    g.count += 1;
                    if g.games.len() < GROUP_LINKS {
                        g.games.push(at);
                    }
                }
                None => self.failures.push(FailureGroup {
                    key,
                    bot,
                    reason: f.reason.to_string(),
                    stderr,
                    detail: f.detail.clone(),
                    count: 1,
                    games: vec![at],
                }),
            }
        }
        let mut first = vec![true; rec.seats];
        // The times the limit applies to: CPU time on the CPU clock, the time charged on the
        // fair clock.
        let charged: Vec<u64>;
        let clock = match rec.clocks.clock.as_str() {
            "cpu" => &rec.cpu_us,
            "fair" if !rec.waited_us.is_empty() => {
                charged = crate::results::starved::charged_us(rec);
                &charged
            }
            _ => &rec.wall_us,
        };
        for (i, &us) in clock.iter().enumerate() {
            let Some(&seat) = rec.seat.get(i) else { break };
            let seat = seat as usize;
            let name = &rec.bots[seat];
            let k = match self.times.iter().position(|t| &t.name == name) {
                Some(k) => k,
                None => {
                    self.times.push(BotTimes {
                        name: name.clone(),
                        ..Default::default()
                    });
                    self.times.len() - 1
                }
            };
            let t = &mut self.times[k];
            if std::mem::replace(&mut first[seat], false) {
                t.first_max_us = t.first_max_us.max(us);
            } else {
                t.add(us);
            }
            if rec.is_late(i) {
                t.late += 1;
            }
        }
    }
}

/// One line of the games list.
pub struct GameLine {
    pub game_id: u64,
    /// The folder the game comes from (an index into [`ReportData::folders`]).
    pub folder: usize,
    pub bots: Vec<String>,
    pub ranks: Vec<u8>,
    pub reason: Option<crate::referee::Reason>,
    pub forfeits: Vec<(usize, String)>,
    pub turns: Option<u32>,
    /// The replay page, relative to the report, when the game has a record.
    pub link: Option<String>,
}

/// One results folder and its recorded settings.
pub struct Folder {
    pub path: PathBuf,
    /// The settings file's entries, flattened (`game.turn_ms = 100`).
    pub settings: Vec<(String, String)>,
    /// The game's name in the records, when there is one.
    pub game: Option<String>,
}

/// Everything the report shows.
pub struct ReportData {
    pub folders: Vec<Folder>,
    /// When the report was written.
    pub generated: crate::utc::UtcTime,
    pub version: &'static str,
    pub standings: Option<StandingsView>,
    /// The games listed: past [`GAMES_LISTED`] of each kind, the forfeits and the other
    /// games last recorded.
    pub games: Vec<GameLine>,
    /// Games in all.
    pub total_games: usize,
    pub times: Vec<BotTimes>,
    /// The turn limit, first-turn limit and clock of the records (the first folder's).
    pub limits: Option<(u64, u64, String)>,
    pub failures: Vec<FailureGroup>,
    pub records: ReadRecords,
    pub record_bytes: u64,
    pub notes: Vec<String>,
    /// The test of an SPRT's folder (a report of that one folder).
    pub sprt: Option<super::sprt::SprtView>,
}

/// Games listed in the report at most, of forfeits and of other games each: a page of
/// 100,000 rows helps nobody, and the report's memory stays flat (games.csv lists them all,
/// and every game has its page `replays/game-ID.html`).
pub const GAMES_LISTED: usize = 5_000;

/// Flattens a TOML table into `key = value` lines.
fn flatten(prefix: &str, t: &toml::Table, out: &mut Vec<(String, String)>) {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(inner) => flatten(&key, inner, out),
            toml::Value::Array(items) => out.push((
                key,
                items
                    .iter()
                    .map(|i| match i {
                        toml::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            )),
            toml::Value::String(s) => out.push((key, s.clone())),
            other => out.push((key, other.to_string())),
        }
    }
}

/// The settings a results folder recorded (tournament.toml or sprt.toml).
pub fn folder_settings(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in ["tournament.toml", "sprt.toml"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(file)) {
            out.push(("command".into(), file.trim_end_matches(".toml").into()));
            if let Ok(table) = text.parse::<toml::Table>() {
                flatten("", &table, &mut out);
            }
        }
    }
    out
}

/// Gathers the report of `dirs`; `order` lists bots to show first; `facts` is what the
/// records gave ([`RecordFacts::add`] for each).
pub fn gather(
    dirs: &[PathBuf],
    order: &[String],
    facts: RecordFacts,
    read: ReadRecords,
) -> Result<ReportData, standings::StandingsError> {
    let mut notes = Vec::new();
    let csvs: Vec<PathBuf> = dirs
        .iter()
        .map(|d| d.join("games.csv"))
        .filter(|p| p.exists())
        .collect();
    let standings = if csvs.is_empty() {
        None
    } else {
        let (s, _) = standings::from_files(&csvs, order, None)?;
        Some(StandingsView::new(&s))
    };
    let RecordFacts {
        games: by_id,
        links,
        mut times,
        limits,
        played,
        names,
        failures,
        starved,
    } = facts;
    let mut recent: std::collections::VecDeque<GameLine> = Default::default();
    let mut forfeited: std::collections::VecDeque<GameLine> = Default::default();
    let mut total = 0usize;
    for (d, dir) in dirs.iter().enumerate() {
        let csv = dir.join("games.csv");
        if !csv.exists() {
            notes.push(format!("{} has no games.csv", dir.display()));
            continue;
        }
        let mut k = 0u64;
        for_each_result(std::slice::from_ref(&csv), |row| {
            let id = row.game_id.unwrap_or(k);
            k += 1;
            total += 1;
            let rec = by_id.get(&(d, id));
            let line = GameLine {
                game_id: id,
                folder: d,
                turns: rec.map(|r| r.0),
                link: rec.filter(|r| r.1).and_then(|_| {
                    links
                        .get(&d)
                        .map(|l| format!("{l}/{}", super::viewer::link(id)))
                }),
                bots: row.bots,
                ranks: row.ranks,
                reason: row.reason,
                forfeits: (row.forfeits.into_iter())
                    .map(|(seat, reason)| (seat, reason.to_string()))
                    .collect(),
            };
            let list = if line.forfeits.is_empty() {
                &mut recent
            } else {
                &mut forfeited
            };
            if list.len() == GAMES_LISTED {
                list.pop_front();
            }
            list.push_back(line);
            Ok(())
        })?;
    }
    let mut games: Vec<GameLine> = forfeited.into_iter().chain(recent).collect();
    games.sort_by_key(|g| (g.folder, g.game_id));
    if games.len() < total {
        notes.push(format!(
            "{total} games: the list below shows the last {GAMES_LISTED} forfeits and the last \
             {GAMES_LISTED} other games ({} in all); games.csv lists every game, and every game's \
             replay is replays/game-ID.html",
            games.len()
        ));
    }
    if let Some(s) = &standings {
        times.sort_by_key(|t| s.names.iter().position(|n| n == &t.name));
    }
    notes.extend(starved.note());
    if read.skipped > 0 {
        notes.push(format!(
            "{} lines of records.jsonl could not be read (a run still writing?) and were skipped",
            read.skipped
        ));
    }
    let record_bytes = dirs
        .iter()
        .filter_map(|d| std::fs::metadata(d.join(crate::results::records::FILE)).ok())
        .map(|m| m.len())
        .sum();
    Ok(ReportData {
        folders: dirs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let mut settings = folder_settings(d);
                // The settings name the variant and seats only when they were given.
                if let Some(p) = played.get(&i) {
                    settings.insert(settings.len().min(1), ("played".into(), p.clone()));
                }
                Folder {
                    path: d.clone(),
                    settings,
                    game: names.get(&i).cloned(),
                }
            })
            .collect(),
        generated: crate::utc::UtcTime::now(),
        version: env!("CARGO_PKG_VERSION"),
        standings,
        games,
        total_games: total,
        times,
        limits,
        failures,
        records: read,
        record_bytes,
        notes,
        sprt: match dirs {
            [one] => super::sprt::gather(one),
            _ => None,
        },
    })
}
