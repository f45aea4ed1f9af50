//! Recording a finished game in the results folder the moment it is decided: its row in
//! games.csv, its record in records.jsonl (the report's replay pages), its forfeits under
//! failures/, and, when asked, its replay file under replays/. Every command that plays into a
//! results folder records the same files, so a continued run and the reports see them all.

use crate::referee::GameChoice;
use crate::referee::RefereeConfig;
use crate::results::games_csv::{GameRow, GamesCsv};
use crate::results::replay;
use crate::results::{failures, records};
use crate::tournament::Finished;
use std::path::{Path, PathBuf};

/// A game that could not be recorded.
#[derive(Debug, thiserror::Error)]
#[error("recording game {game_id} in {file}: {source}")]
pub struct RecordError {
    pub game_id: u64,
    /// The file (or folder) that could not be written.
    pub file: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Writes each finished game into a results folder.
pub struct Recorder<'a> {
    csv: &'a mut GamesCsv,
    records: records::RecordsFile,
    out: PathBuf,
    replays: bool,
    choice: &'a GameChoice,
    referee: &'a RefereeConfig,
    /// Games where bots waited long for a CPU (the fair clock's note at the end of a run).
    starved: crate::results::starved::Starved,
}

impl<'a> Recorder<'a> {
    /// Records into `out` (games.csv through `csv`; records.jsonl opened here), with a replay
    /// file per game if `replays`.
    pub fn open(
        csv: &'a mut GamesCsv,
        out: &Path,
        replays: bool,
        choice: &'a GameChoice,
        referee: &'a RefereeConfig,
    ) -> Result<Recorder<'a>, RecordError> {
        let path = out.join(records::FILE);
        let records = records::RecordsFile::open(&path).map_err(|source| RecordError {
            game_id: 0,
            file: path,
            source,
        })?;
        Ok(Recorder {
            csv,
            records,
            out: out.to_path_buf(),
            replays,
            choice,
            referee,
            starved: Default::default(),
        })
    }

    /// The games so far where bots waited long for a CPU.
    pub fn starved(&self) -> &crate::results::starved::Starved {
        &self.starved
    }

    /// The games where bots waited long for a CPU, once recording is over.
    pub fn into_starved(self) -> crate::results::starved::Starved {
        self.starved
    }

    /// Records one game (the CSV row first: it is what a continued run counts as done).
    pub fn record(&mut self, f: &Finished) -> Result<(), RecordError> {
        let game_id = f.spec.game_id;
        let fail = |file: PathBuf| {
            move |source| RecordError {
                game_id,
                file,
                source,
            }
        };
        self.csv
            .append(&GameRow::new(&f.spec, &f.result))
            .map_err(fail(self.csv.path().to_path_buf()))?;
        let record = records::GameRecord::new(&f.spec, self.choice, self.referee, &f.result);
        self.starved.add(&record);
        self.records
            .append(&record)
            .map_err(fail(self.out.join(records::FILE)))?;
        failures::write(&self.out, game_id, &f.result).map_err(fail(self.out.join("failures")))?;
        if self.replays {
            let path = self
                .out
                .join("replays")
                .join(format!("game-{game_id}.jsonl"));
            replay::write(&path, &f.result, self.referee, self.choice).map_err(fail(path))?;
        }
        Ok(())
    }
}
