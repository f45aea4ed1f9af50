//! Playing a run's games into its results folder: the recorder opened on the folder, the games
//! played and recorded by [`super::play`], the consumers told. What a command shows while the
//! games go on (the progress display, the live report) is one of those consumers, given by the
//! caller; nothing here prints.

use super::{Consumer, RecordError, Recorder};
use crate::results::games_csv::GamesCsv;
use crate::results::starved::Starved;
use crate::tournament::{GameSpec, Runner};
use std::path::Path;

/// How the games of [`play_into`] ended.
#[derive(Debug)]
pub struct DriveReport {
    /// The first game that could not be recorded, and why (games stopped being handed out).
    pub failure: Option<RecordError>,
    /// The stop signal that ended the games, if one did.
    pub stopped: Option<i32>,
    /// The first game the machine could not start (games stopped being handed out).
    pub unplayed: Option<crate::tournament::Unplayed>,
    /// The games where bots waited long for a CPU.
    pub starved: Starved,
}

/// Plays `todo` with `runner`, recording each finished game in `out` (games.csv through `csv`,
/// records.jsonl, failures/, with `replays` a replay file each) and telling `consumers`. The
/// first error in recording stops handing out games and is returned in [`DriveReport`] once the
/// games under way have ended; failing to open the records is the error.
pub fn play_into(
    runner: &Runner,
    todo: &[GameSpec],
    csv: &mut GamesCsv,
    out: &Path,
    replays: bool,
    consumers: &mut [&mut dyn Consumer],
) -> Result<DriveReport, RecordError> {
    let mut recorder = Recorder::open(csv, out, replays, runner.game, runner.referee)?;
    let end = super::play(runner, todo, &mut recorder, consumers);
    Ok(DriveReport {
        failure: end.failure.map(|(_, e)| e),
        stopped: end.stopped,
        unplayed: end.unplayed,
        starved: recorder.into_starved(),
    })
}
