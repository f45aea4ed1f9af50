//! What the report shows, gathered from a results folder's files: the run's settings, the
//! standings, each bot's think times and the list of games. The page templates only lay it out.

use crate::rating::RatingValue;
use crate::report::games_csv::for_each_result;
use crate::report::records::{GameRecord, ReadRecords};
use crate::report::standings::{self, Standings};
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
/// turn of each game apart (it has its own limit).
#[derive(Default)]
pub struct BotTimes {
    pub name: String,
    /// Time of every later turn, microseconds.
    pub turns_us: Vec<u64>,
    pub first_max_us: u64,
    pub late: u64,
}

impl BotTimes {
    /// The `q`-quantile (0..=1) of the later turns, nearest rank.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let mut v = self.turns_us.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        Some(v[k])
    }
}

/// One line of the games list.
pub struct GameLine {
    pub game_id: u64,
    /// The folder the game comes from (an index into [`ReportData::folders`]).
    pub folder: usize,
    pub bots: Vec<String>,
    pub ranks: Vec<u8>,
    pub reason: String,
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
}

/// Everything the report shows.
pub struct ReportData {
    pub folders: Vec<Folder>,
    pub generated: String,
    pub version: &'static str,
    pub standings: Option<StandingsView>,
    pub games: Vec<GameLine>,
    pub times: Vec<BotTimes>,
    /// The turn limit, first-turn limit and clock of the records (the first folder's).
    pub limits: Option<(u64, u64, String)>,
    pub records: ReadRecords,
    pub record_bytes: u64,
    pub notes: Vec<String>,
}

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

/// `YYYY-MM-DD HH:MM UTC` of a time.
pub fn utc(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days to a civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Gathers the report of `dirs`; `order` lists bots to show first. `link` gives the replay
/// page of a record, relative to the report, or `None` when it has none.
pub fn gather(
    dirs: &[PathBuf],
    order: &[String],
    records: &[(usize, GameRecord)],
    read: ReadRecords,
    link: &dyn Fn(usize, &GameRecord) -> Option<String>,
) -> anyhow::Result<ReportData> {
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
    let by_id: HashMap<(usize, u64), &GameRecord> =
        records.iter().map(|(d, r)| ((*d, r.game_id), r)).collect();
    let mut games = Vec::new();
    for (d, dir) in dirs.iter().enumerate() {
        let csv = dir.join("games.csv");
        if !csv.exists() {
            notes.push(format!("{} has no games.csv", dir.display()));
            continue;
        }
        for_each_result(std::slice::from_ref(&csv), |row| {
            let id = row.game_id.unwrap_or(games.len() as u64);
            let rec = by_id.get(&(d, id)).copied();
            games.push(GameLine {
                game_id: id,
                folder: d,
                turns: rec.map(|r| (r.opening.len() + r.moves.len()) as u32),
                link: rec.and_then(|r| link(d, r)),
                bots: row.bots,
                ranks: row.ranks,
                reason: row.reason.unwrap_or_default(),
                forfeits: row.forfeits,
            });
            Ok(())
        })?;
    }
    games.sort_by_key(|g| (g.folder, g.game_id));
    let mut times: Vec<BotTimes> = Vec::new();
    let mut limits = None;
    for (_, rec) in records {
        limits.get_or_insert((
            rec.clocks.turn_us,
            rec.clocks.first_turn_us,
            rec.clocks.clock.clone(),
        ));
        let mut first = vec![true; rec.seats];
        // The times the limit applies to: CPU time on the CPU clock, the time charged on the
        // fair clock.
        let charged: Vec<u64>;
        let clock = match rec.clocks.clock.as_str() {
            "cpu" => &rec.cpu_us,
            "fair" if !rec.waited_us.is_empty() => {
                charged = crate::report::starved::charged_us(rec);
                &charged
            }
            _ => &rec.wall_us,
        };
        for (i, &us) in clock.iter().enumerate() {
            let Some(&seat) = rec.seat.get(i) else { break };
            let seat = seat as usize;
            let name = &rec.bots[seat];
            let k = match times.iter().position(|t| &t.name == name) {
                Some(k) => k,
                None => {
                    times.push(BotTimes {
                        name: name.clone(),
                        ..Default::default()
                    });
                    times.len() - 1
                }
            };
            let t = &mut times[k];
            if std::mem::replace(&mut first[seat], false) {
                t.first_max_us = t.first_max_us.max(us);
            } else {
                t.turns_us.push(us);
            }
            if rec.is_late(i) {
                t.late += 1;
            }
        }
    }
    if let Some(s) = &standings {
        times.sort_by_key(|t| s.names.iter().position(|n| n == &t.name));
    }
    notes.extend(crate::report::starved::Starved::of(records.iter().map(|(_, r)| r)).note());
    if read.skipped > 0 {
        notes.push(format!(
            "{} lines of records.jsonl could not be read (a run still writing?) and were skipped",
            read.skipped
        ));
    }
    let record_bytes = dirs
        .iter()
        .filter_map(|d| std::fs::metadata(d.join(crate::report::records::FILE)).ok())
        .map(|m| m.len())
        .sum();
    Ok(ReportData {
        folders: dirs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let mut settings = folder_settings(d);
                // The settings name the variant and seats only when they were given.
                if let Some((_, r)) = records.iter().find(|(f, _)| *f == i) {
                    let played = format!("{} ({}, {} seats)", r.game, r.variant, r.seats);
                    settings.insert(settings.len().min(1), ("played".into(), played));
                }
                Folder {
                    path: d.clone(),
                    settings,
                }
            })
            .collect(),
        generated: utc(std::time::SystemTime::now()),
        version: env!("CARGO_PKG_VERSION"),
        standings,
        games,
        times,
        limits,
        records: read,
        record_bytes,
        notes,
    })
}
