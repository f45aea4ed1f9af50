//! The replay data of an external referee's game: no board (the rules live in the referee
//! process), but every turn's input and answer per player, the clocks, the verdict, and the
//! referee's stderr beside the bots'. The viewer draws it as a table of turns.

use super::viewer::verdict;
use crate::referee::Reason;
use crate::results::records::{ExternalRecord, GameRecord};
use serde_json::json;

/// The JSON text of `rec`'s replay data (a record with its external part), titled `title`.
/// Such games take a referee process's start each (a JVM's, often): a tree of values costs
/// nothing beside that.
pub fn json(rec: &GameRecord, ext: &ExternalRecord, title: &str) -> Vec<u8> {
    let colours: Vec<_> = super::seats::palette(rec)
        .iter()
        .map(|c| (c.name, c.fill, c.ink))
        .collect();
    let data = json!({
        "answers": rec.moves,
        "bots": rec.bots,
        "colours": colours,
        "detail": rec.detail,
        "external": true,
        "game": rec.game,
        "game_id": rec.game_id,
        "inputs": ext.inputs,
        "late": rec.late,
        "offender": rec.offender,
        "ranks": rec.ranks,
        "referee": ext.referee,
        "referee_error": rec.reason == Reason::RefereeError,
        "referee_stderr": ext.stderr,
        "seat": rec.seat,
        "seats": rec.seats,
        "seed": rec.seed.to_string(),
        "stderr": rec.stderr,
        "stderr_bytes": rec.stderr_bytes,
        "title": title,
        "verdict": verdict(rec),
        "wall_us": rec.wall_us,
    });
    serde_json::to_vec(&data).expect("JSON values serialise")
}
