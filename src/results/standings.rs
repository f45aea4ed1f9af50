//! Standings of a field from recorded games: the Bradley-Terry table with intervals, the
//! cross-table, the LOS matrix, and for two bots the fastchess-style match block (with
//! pentanomial pair counts when the rows carry pair ids), computed from the records as they
//! are streamed in. Rendering them (text, CSV, JSON) is `crate::report::standings`'s.

use crate::options::Opt;
use crate::rating::{self, CrossTable, EloEstimate, FieldFit, FitNote, Pentanomial, Wdl};
use crate::results::games_csv::{ReadError, ResultRow};
use std::collections::HashMap;

/// Standings that cannot be made from the recorded games.
#[derive(Debug, thiserror::Error)]
pub enum StandingsError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("a game where '{0}' sits twice cannot be rated")]
    SeatsTwice(String),
    #[error(transparent)]
    Record(#[from] rating::CountError),
    #[error("{} names '{bot}', which played no game here; bots: {}", Opt::Anchor, names.join(", "))]
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
                rating::CountError::SeatsTwice(b) => {
                    StandingsError::SeatsTwice(self.names[b].clone())
                }
                other => other.into(),
            })?;
        for (seat, reason) in &row.forfeits {
            *self
                .forfeits
                .entry((ids[*seat], reason.to_string()))
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
            fit.warnings.push(FitNote::text(format!(
                "{} an earlier game move for move with the same bots in the same seats \
                 (deterministic bots replaying a game): they add no information, yet the ratings \
                 count them; give the bots different starts with {} K (bots must \
                 then read the position from their input) or bots that vary their play",
                match self.repeats {
                    1 => "1 game repeats".to_string(),
                    n => format!("{n} games repeat"),
                },
                Opt::OpeningPlies
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
        standings.fit.warnings.push(FitNote::text(format!(
            "{} rows repeat a game id already read from the same file and were counted once",
            read.duplicates
        )));
    }
    for path in &read.torn {
        standings.fit.warnings.push(FitNote::text(format!(
            "the last line of {} is incomplete (a run still writing?) and was skipped",
            path.display()
        )));
    }
}
