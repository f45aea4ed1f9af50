//! Standings of a field from recorded games: the Bradley-Terry table with intervals, the
//! cross-table, the LOS matrix, and for two bots the fastchess-style match block (with
//! pentanomial pair counts when the rows carry pair ids). Printed, or written as CSV and JSON.

use crate::rating::{self, CrossTable, EloEstimate, FieldFit, Note, Pentanomial, RatingValue, Wdl};
use crate::results::games_csv::{ReadError, ResultRow};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

/// Standings that cannot be made from the recorded games.
#[derive(Debug, thiserror::Error)]
pub enum StandingsError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("a game where '{0}' sits twice cannot be rated")]
    SeatsTwice(String),
    #[error(transparent)]
    Record(#[from] rating::RecordError),
    #[error("--anchor names '{bot}', which played no game here; bots: {}", names.join(", "))]
    Anchor { bot: String, names: Vec<String> },
}

type Result<T> = std::result::Result<T, StandingsError>;

/// Everything the standings show.
pub struct Standings {
    pub names: Vec<String>,
    pub table: CrossTable,
    pub fit: FieldFit,
    /// Which model the ratings come from, for the line under the table.
    pub model: String,
    /// Games each bot played (in a game of k seats: one, though it counts k - 1 pairwise results).
    pub played: Vec<u64>,
    /// Forfeits by bot (index into `names`) and reason, with their counts.
    pub forfeits: Vec<(usize, String, u64)>,
    /// For exactly two bots: the match seen from the first.
    pub duel: Option<Duel>,
    /// Games the referee could not play (`referee-error`): in no figure above, but never
    /// silent (the summary says so, and a run's exit status).
    pub referee_errors: u64,
}

/// Two bots' match, from the first bot's side.
pub struct Duel {
    pub first: String,
    pub second: String,
    pub wdl: Wdl,
    pub penta: Pentanomial,
    /// From pairs when there are any, else from single games.
    pub estimate: Option<EloEstimate>,
}

/// Builds the standings from result rows streamed in one at a time: memory holds counts per
/// pair of bots (and per unfinished game pair), never the rows.
pub struct Builder {
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// The statistics of the games (cross-table, games played, rankings, the duel).
    record: rating::FieldRecord,
    /// Hashes of (bots by seat, moves) seen, to count games replayed move for move.
    played: std::collections::HashSet<u64>,
    repeats: u64,
    /// Forfeits counted by (bot, reason).
    forfeits: std::collections::BTreeMap<(usize, String), u64>,
}

impl Builder {
    /// `order` lists bots to show first (and in that order in the cross-table); bots found only
    /// in the rows follow in order of appearance.
    pub fn new(order: &[String]) -> Builder {
        Builder {
            names: order.to_vec(),
            index: order
                .iter()
                .cloned()
                .enumerate()
                .map(|(i, n)| (n, i))
                .collect(),
            record: rating::FieldRecord::new(order.len()),
            played: std::collections::HashSet::new(),
            repeats: 0,
            forfeits: std::collections::BTreeMap::new(),
        }
    }

    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// Counts one game. A game of k seats counts in the cross-table as one result between every
    /// two of its bots (1 to the better rank, half each for equal ranks).
    pub fn add(&mut self, row: &ResultRow) -> Result<()> {
        let ids: Vec<usize> = row.bots.iter().map(|b| self.id(b)).collect();
        self.record
            .add(&ids, &row.ranks, row.pair_id)
            .map_err(|e| match e {
                rating::RecordError::SeatsTwice(b) => {
                    StandingsError::SeatsTwice(self.names[b].clone())
                }
                other => other.into(),
            })?;
        for (seat, reason) in &row.forfeits {
            *self
                .forfeits
                .entry((ids[*seat], reason.clone()))
                .or_default() += 1;
        }
        if let Some(hash) = &row.moves_hash {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&ids, hash).hash(&mut h);
            if !self.played.insert(h.finish()) {
                self.repeats += 1;
            }
        }
        Ok(())
    }

    /// Fits the ratings, centred on mean 0 or on `anchor` (bot name, Elo).
    pub fn finish(mut self, anchor: Option<&(String, f64)>) -> Result<Standings> {
        let names = self.names;
        let anchor = match anchor {
            Some((bot, elo)) => match names.iter().position(|n| n == bot) {
                Some(i) => Some((i, *elo)),
                None => {
                    return Err(StandingsError::Anchor {
                        bot: bot.clone(),
                        names,
                    })
                }
            },
            None => None,
        };
        // Bots named in the order but without a game still get their row.
        while self.record.table.len() < names.len() {
            self.record.table.add_bot();
        }
        let mut fit = self.record.fit(&rating::FitOptions {
            anchor,
            ..rating::FitOptions::default()
        })?;
        if self.repeats > 0 {
            fit.warnings.push(Note::text(format!(
                "{} an earlier game move for move with the same bots in the same seats \
                 (deterministic bots replaying a game): they add no information, yet the ratings \
                 count them; give the bots different starts with --opening-plies K (bots must \
                 then read the position from their input) or bots that vary their play",
                match self.repeats {
                    1 => "1 game repeats".to_string(),
                    n => format!("{n} games repeat"),
                }
            )));
        }
        let model = if self.record.seats > 2 {
            format!(
                "{} of the finishing orders of {}-seat games; Points and W/D/L count each game as \
                 one result against every other bot at the table",
                fit.method, self.record.seats
            )
        } else {
            fit.method.to_string()
        };
        // The fit speaks of bots by index; users know them by name.
        for w in fit.warnings.iter_mut().chain([&mut fit.perfect_scores]) {
            w.name_bots(|i| match names.get(i) {
                Some(name) => format!("'{name}'"),
                None => format!("bot {i}"),
            });
        }
        let duel = (names.len() == 2).then(|| Duel {
            first: names[0].clone(),
            second: names[1].clone(),
            wdl: self.record.duel.wdl,
            penta: self.record.duel.penta,
            estimate: if self.record.duel.penta.pairs() > 0 {
                EloEstimate::from_pentanomial(&self.record.duel.penta)
            } else {
                EloEstimate::from_wdl(&self.record.duel.wdl)
            },
        });
        let mut played = self.record.played;
        played.resize(names.len(), 0);
        Ok(Standings {
            names,
            played,
            table: self.record.table,
            forfeits: self
                .forfeits
                .into_iter()
                .map(|((bot, reason), n)| (bot, reason, n))
                .collect(),
            model,
            fit,
            duel,
            referee_errors: 0,
        })
    }
}

/// Standings of the games in `paths`, streamed.
pub fn from_files(
    paths: &[std::path::PathBuf],
    order: &[String],
    anchor: Option<&(String, f64)>,
) -> Result<(Standings, u64)> {
    let mut builder = Builder::new(order);
    let read = crate::results::games_csv::try_for_each_result(paths, |row| builder.add(&row))?;
    let mut standings = builder.finish(anchor)?;
    note_read(&mut standings, &read);
    Ok((standings, read.games))
}

/// Adds to the standings' warnings what reading the results files found besides the games.
pub fn note_read(standings: &mut Standings, read: &crate::results::games_csv::ReadSummary) {
    standings.referee_errors = read.referee_errors;
    if read.duplicates > 0 {
        standings.fit.warnings.push(Note::text(format!(
            "{} rows repeat a game id already read from the same file and were counted once",
            read.duplicates
        )));
    }
    for path in &read.torn {
        standings.fit.warnings.push(Note::text(format!(
            "the last line of {} is incomplete (a run still writing?) and was skipped",
            path.display()
        )));
    }
}

fn interval(r: &rating::BotRating) -> String {
    let end = |x: f64| rating::fmt_elo(x);
    format!("[{}, {}]", end(r.low), end(r.high))
}

/// The rating table, the cross-table, and for two bots the match block.
pub fn print(out: &mut impl Write, s: &Standings) -> io::Result<()> {
    let width = s.names.iter().map(String::len).max().unwrap_or(3).max(3);
    writeln!(
        out,
        "{:>4}  {:<width$}  {:>9}  {:>20}  {:>6}  {:>7}  {:>11}",
        "Rank", "Bot", "Elo", "95% interval", "Games", "Points", "W/D/L"
    )?;
    for (rank, &i) in s.fit.ranking().iter().enumerate() {
        let r = &s.fit.ratings[i];
        writeln!(
            out,
            "{:>4}  {:<width$}  {:>9}  {:>20}  {:>6}  {:>7.1}  {:>11}",
            rank + 1,
            s.names[i],
            r.rating.to_string(),
            interval(r),
            s.played[i],
            r.points,
            format!("{}/{}/{}", r.wins, r.draws, r.losses)
        )?;
    }
    for w in &s.fit.warnings {
        writeln!(out, "note: {w}")?;
    }
    writeln!(out, "Ratings: {}.", s.model)?;
    writeln!(out, "Perfect scores: {}.", s.fit.perfect_scores)?;
    writeln!(
        out,
        "\nCross-table (points of the row bot against the column bot, out of games):"
    )?;
    let cell = width.max(7);
    write!(out, "{:<width$}", "")?;
    for n in &s.names {
        write!(out, "  {:>cell$}", truncate(n, cell))?;
    }
    writeln!(out)?;
    for (i, n) in s.names.iter().enumerate() {
        write!(out, "{n:<width$}")?;
        for j in 0..s.names.len() {
            let text = if i == j {
                "-".to_string()
            } else {
                let g = s.table.games(i, j);
                if g == 0 {
                    ".".to_string()
                } else {
                    format!("{}/{}", s.table.points(i, j), g)
                }
            };
            write!(out, "  {text:>cell$}")?;
        }
        writeln!(out)?;
    }
    if let Some(d) = &s.duel {
        writeln!(out)?;
        print_duel(out, d)?;
    }
    print_forfeits(out, s)
}

/// The forfeits by bot and reason, or a line saying there were none; then the games the
/// referee could not play, if any.
pub fn print_forfeits(out: &mut impl Write, s: &Standings) -> io::Result<()> {
    print_bot_forfeits(out, s)?;
    if s.referee_errors > 0 {
        writeln!(
            out,
            "\nReferee errors: {} games could not be played (reason referee-error in games.csv, \
             whose detail column says what the referee did); no bot lost them and they are \
             in no rating.",
            s.referee_errors
        )?;
    }
    Ok(())
}

fn print_bot_forfeits(out: &mut impl Write, s: &Standings) -> io::Result<()> {
    if s.forfeits.is_empty() {
        return writeln!(out, "\nNo forfeits.");
    }
    writeln!(out, "\nForfeits (games lost by a bot's fault):")?;
    let width = s
        .forfeits
        .iter()
        .map(|f| s.names[f.0].len())
        .max()
        .unwrap_or(3)
        .max(3);
    writeln!(out, "  {:<width$}  {:<16}  {:>6}", "Bot", "Reason", "Games")?;
    for (bot, reason, n) in &s.forfeits {
        writeln!(out, "  {:<width$}  {reason:<16}  {n:>6}", s.names[*bot])?;
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The fastchess-style block of a two-bot match.
pub fn print_duel(out: &mut impl Write, d: &Duel) -> io::Result<()> {
    let games = d.wdl.games();
    writeln!(
        out,
        "Results of {} vs {} ({games} games):",
        d.first, d.second
    )?;
    match &d.estimate {
        Some(e) => {
            writeln!(out, "Elo: {}, nElo: {}", e.elo_text(), e.nelo_text())?;
            let pairs_ratio = crate::report::sprt_block::pairs_ratio(&d.penta);
            writeln!(
                out,
                "LOS: {}, {}, PairsRatio: {pairs_ratio}",
                rating::fmt_percent(e.los),
                crate::report::sprt_block::draw_ratio(e)
            )?;
        }
        None => writeln!(out, "Elo: n/a (no games)")?,
    }
    let points = d.wdl.points();
    writeln!(
        out,
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({})",
        d.wdl.wins,
        d.wdl.losses,
        d.wdl.draws,
        rating::fmt_percent(if games == 0 {
            f64::NAN
        } else {
            points / games as f64
        })
    )?;
    let p = d.penta.0;
    writeln!(
        out,
        "Ptnml(0-2): [{}, {}, {}, {}, {}]",
        p[0], p[1], p[2], p[3], p[4]
    )
}

fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 100.0).round() / 100.0)
    } else {
        Value::Null
    }
}

/// The JSON form: `{"ratings": [...], "los": {bot: {bot: p}}, "method": ..., "warnings": [...]}`.
pub fn json(s: &Standings) -> Value {
    let ratings: Vec<Value> = s
        .fit
        .ranking()
        .iter()
        .map(|&i| {
            let r = &s.fit.ratings[i];
            let (elo, bound) = match r.rating {
                RatingValue::Finite(x) => (finite(x), Value::Null),
                RatingValue::Unrated => (Value::Null, json!("unrated")),
            };
            json!({
                "bot": s.names[i],
                "elo": elo,
                "bound": bound,
                "low": finite(r.low),
                "high": finite(r.high),
                "games": s.played[i],
                "points": r.points,
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
            })
        })
        .collect();
    let mut los = serde_json::Map::new();
    for (i, row_los) in s.fit.los.iter().enumerate() {
        let mut row = serde_json::Map::new();
        for (j, b) in s.names.iter().enumerate() {
            if let Some(p) = row_los[j] {
                row.insert(b.clone(), json!((p * 10000.0).round() / 10000.0));
            }
        }
        los.insert(s.names[i].clone(), Value::Object(row));
    }
    // Large fields have no LOS matrix: each bot's LOS over the next one in the ranking instead.
    let los_next: Vec<Value> = s
        .fit
        .ranking()
        .windows(2)
        .filter_map(|w| {
            s.fit.los_next[w[0]].map(|p| {
                json!({"bot": s.names[w[0]], "next": s.names[w[1]], "los": (p * 10000.0).round() / 10000.0})
            })
        })
        .collect();
    json!({
        "ratings": ratings,
        "los": los,
        "los_next": los_next,
        "method": s.model,
        "perfect_scores": s.fit.perfect_scores,
        "warnings": s.fit.warnings,
    })
}

/// Writes ratings.csv, crosstable.csv, los.csv, forfeits.csv and ratings.json into `dir`.
pub fn write_files(dir: &Path, s: &Standings) -> io::Result<()> {
    // Names as text cells: a name a spreadsheet would run as a formula is not one.
    let name = |i: usize| crate::results::games_csv::text_cell(&s.names[i]).into_owned();
    let mut w = csv::Writer::from_path(dir.join("ratings.csv"))?;
    w.write_record([
        "rank", "bot", "elo", "bound", "low", "high", "games", "points", "wins", "draws", "losses",
    ])?;
    for (rank, &i) in s.fit.ranking().iter().enumerate() {
        let r = &s.fit.ratings[i];
        let (elo, bound) = match r.rating {
            RatingValue::Finite(x) => (format!("{x:.2}"), ""),
            RatingValue::Unrated => (String::new(), "unrated"),
        };
        let end = |x: f64| {
            if x.is_finite() {
                format!("{x:.2}")
            } else {
                format!("{x}")
            }
        };
        w.write_record([
            (rank + 1).to_string(),
            name(i),
            elo,
            bound.to_string(),
            end(r.low),
            end(r.high),
            s.played[i].to_string(),
            r.points.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
        ])?;
    }
    w.flush()?;
    let matrix = |file: &str, cell: &dyn Fn(usize, usize) -> String| -> io::Result<()> {
        let mut w = csv::Writer::from_path(dir.join(file))?;
        let mut header = vec!["bot".to_string()];
        header.extend((0..s.names.len()).map(name));
        w.write_record(&header)?;
        for i in 0..s.names.len() {
            let mut row = vec![name(i)];
            row.extend((0..s.names.len()).map(|j| cell(i, j)));
            w.write_record(&row)?;
        }
        w.flush()
    };
    matrix("crosstable.csv", &|i, j| {
        if i == j {
            String::new()
        } else {
            s.table.points(i, j).to_string()
        }
    })?;
    if s.fit.los.is_empty() && !s.names.is_empty() {
        // Too many bots for a matrix: each bot's LOS over the next one in the ranking.
        let mut w = csv::Writer::from_path(dir.join("los.csv"))?;
        w.write_record(["bot", "next", "los"])?;
        for pair in s.fit.ranking().windows(2) {
            if let Some(p) = s.fit.los_next[pair[0]] {
                w.write_record([name(pair[0]), name(pair[1]), format!("{p:.4}")])?;
            }
        }
        w.flush()?;
    } else {
        matrix("los.csv", &|i, j| {
            s.fit.los[i][j]
                .map(|p| format!("{p:.4}"))
                .unwrap_or_default()
        })?;
    }
    let mut w = csv::Writer::from_path(dir.join("forfeits.csv"))?;
    w.write_record(["bot", "reason", "games"])?;
    for (bot, reason, n) in &s.forfeits {
        w.write_record([name(*bot).as_str(), reason, &n.to_string()])?;
    }
    w.flush()?;
    let text = serde_json::to_string_pretty(&json(s)).map_err(io::Error::other)?;
    std::fs::write(dir.join("ratings.json"), text + "\n")
}
