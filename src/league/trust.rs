//! Results a league can trust from machines it does not own (issue 38). A game a remote worker
//! played whose forfeit the fair clock lays at the machine's door is not a loss: a seat that
//! timed out after waiting for a CPU (longer than a turn's limit in some turn, the one it
//! timed out on included, or for more than half of its turns' time: the facts behind the
//! tournament's "too busy" note, [`crate::results::starved`]) lost to the worker's load, not to
//! its opponent. The server voids such a game: the evidence goes to `voided.jsonl` in the
//! league's folder (shown on the page and in `/api/workers`), nothing goes to the records, and
//! the same game (same id, seed and seats) goes back to the queue for another worker; the
//! worker that voided it gets no game for [`VOID_PAUSE`]. A game voided [`MAX_VOIDS`] times is
//! recorded as played: a bot that is only ever late on busy machines must still finish its
//! games somewhere.
//!
//! A worker that [`super::residuals`] finds off the fit is quarantined: its entry (with its
//! games) goes to `quarantined.jsonl`, and the standings are counted again from games.csv
//! without its games ([`standings_without`]); the records keep them.

use crate::referee::{GameResult, Reason};
use crate::utc::UtcTime;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The league folder's log of voided games.
pub const VOIDED: &str = "voided.jsonl";
/// How often one game may be voided before its next result stands.
pub const MAX_VOIDS: u32 = 3;
/// How long a worker that voided a game gets none (its load may pass; another worker may take
/// the game meanwhile).
pub const VOID_PAUSE: Duration = Duration::from_secs(5);

/// A voided game and the evidence that the machine, not the bot, lost it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Voided {
    pub game_id: u64,
    pub pair_id: u64,
    pub bots: Vec<String>,
    /// The worker's session (`NAME#N`) that played it.
    pub worker: String,
    /// The seat that timed out, and the verdict it got.
    pub seat: usize,
    pub reason: Reason,
    pub detail: String,
    /// That seat's turns that waited for a CPU longer than their limit.
    pub starved_turns: u32,
    /// That seat's waiting for a CPU, in all and in its worst turn, and its turns' wall time.
    pub waited_total_us: u64,
    pub waited_max_us: u64,
    pub total_us: u64,
    /// When it was voided.
    pub at: UtcTime,
}

/// The starved seat whose time forfeit spoiled `result`, if any: a [`Reason::Timeout`]
/// forfeit by a seat whose clock shows it starved ([`crate::referee::SeatStats::starved`]).
/// Forfeits of other kinds (a crash, an illegal move) are the bot's whatever the load.
pub fn spoiled_seat(result: &GameResult) -> Option<usize> {
    result
        .forfeits
        .iter()
        .filter(|f| f.reason == Reason::Timeout)
        .map(|f| f.seat)
        .find(|&seat| result.stats.get(seat).is_some_and(|s| s.starved()))
}

/// The evidence of `result`'s void, for the log.
pub fn evidence(
    game: &super::scheduler::LeagueGame,
    worker: &str,
    seat: usize,
    result: &GameResult,
) -> Voided {
    let forfeit = result.forfeits.iter().find(|f| f.seat == seat);
    let stats = result.stats.get(seat).cloned().unwrap_or_default();
    Voided {
        game_id: game.game_id,
        pair_id: game.pair_id,
        bots: game.bots.clone(),
        worker: worker.to_string(),
        seat,
        reason: forfeit.map_or(Reason::Timeout, |f| f.reason),
        detail: forfeit.map(|f| f.detail.clone()).unwrap_or_default(),
        starved_turns: stats.starved_turns,
        waited_total_us: stats.waited_total_us,
        waited_max_us: stats.waited_max_us,
        total_us: stats.total_us,
        at: UtcTime::now(),
    }
}

/// A league folder's log (voided games, quarantined workers, who played what) that cannot be
/// written.
#[derive(Debug, thiserror::Error)]
#[error("cannot append to {}: {source}", path.display())]
pub struct VoidLogError {
    path: PathBuf,
    source: std::io::Error,
}

/// Appends `v` to the voided log in `dir` (one JSON line, flushed).
pub fn append(dir: &Path, v: &Voided) -> Result<(), VoidLogError> {
    append_line(dir, VOIDED, v)
}

fn append_line(dir: &Path, file: &str, v: &impl Serialize) -> Result<(), VoidLogError> {
    let path = dir.join(file);
    super::folder::append_json_line(&path, v, true).map_err(|source| VoidLogError { path, source })
}

/// Which remote worker played each recorded game (the residuals' input), so that a restarted
/// server checks its workers on every game they played, not only on those since the start.
pub const PLAYED: &str = "played-by.jsonl";

/// Appends `p` to the log of who played what in `dir`. Not synced: a line lost to a power cut
/// costs the check one game, and a sync per result would double the server's disk cost.
pub fn append_played(dir: &Path, p: &super::residuals::PlayedBy) -> Result<(), VoidLogError> {
    let path = dir.join(PLAYED);
    super::folder::append_json_line(&path, p, false).map_err(|source| VoidLogError { path, source })
}

/// The log of who played what in `dir` (a torn last line is skipped).
pub fn read_played(dir: &Path) -> Vec<super::residuals::PlayedBy> {
    read_lines(dir, PLAYED)
}

/// The voided log in `dir` (a torn last line, from a crash, is skipped).
pub fn read(dir: &Path) -> Vec<Voided> {
    read_lines(dir, VOIDED)
}

fn read_lines<T: serde::de::DeserializeOwned>(dir: &Path, file: &str) -> Vec<T> {
    let Ok(f) = std::fs::File::open(dir.join(file)) else {
        return Vec::new();
    };
    std::io::BufReader::new(f)
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str(&l).ok())
        .collect()
}

/// How often each game was voided.
pub fn counts(voided: &[Voided]) -> HashMap<u64, u32> {
    let mut n = HashMap::new();
    for v in voided {
        *n.entry(v.game_id).or_default() += 1;
    }
    n
}

/// The league folder's log of quarantined workers.
pub const QUARANTINED: &str = "quarantined.jsonl";

/// A worker whose results are off the league's fit ([`super::residuals`]): its games are out
/// of the ratings (kept in the records), and it gets no more games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quarantined {
    /// The worker's name (its token's).
    pub worker: String,
    pub why: QuarantineWhy,
    /// Its games, out of the ratings.
    pub games: Vec<u64>,
    pub at: UtcTime,
}

/// Why a worker was quarantined. Written (to the log, the API, the page) as its text, which
/// says what to do about it; a quarantine read back from the log keeps the text it was written
/// with.
#[derive(Clone, Debug, PartialEq)]
pub enum QuarantineWhy {
    /// Its results are off the league's fit (or the other workers') in this cell, the one
    /// furthest out.
    OffFit(super::residuals::Residual),
    /// It voided far more games than the other workers.
    Voids(super::residuals::VoidRate),
    /// As `quarantined.jsonl` says it.
    Logged(String),
}

impl std::fmt::Display for QuarantineWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QuarantineWhy::OffFit(x) => write!(
                f,
                "its results are off the league's fit: over {} games {} scored {:+.2} a game \
                 against the ratings' expectation, z = {:.1} against the other workers (at most \
                 {:.1} for an honest one)",
                x.games, x.cell, x.mean, x.z, x.threshold
            )?,
            QuarantineWhy::Voids(x) => write!(
                f,
                "it voided {} of its {} games (its machine's load lost them, it said): at the \
                 other workers' rate ({:.1}%, 2% at least) that many or more has a chance of \
                 {:.1e} (at least {:.1e} for an honest one)",
                x.voids,
                x.results,
                100.0 * x.others,
                x.p,
                x.threshold
            )?,
            QuarantineWhy::Logged(text) => return f.write_str(text),
        }
        f.write_str(
            "; its games are out of the ratings (kept in the records). Check that machine and \
             its arbiter, then give it a new token",
        )
    }
}

impl Serialize for QuarantineWhy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for QuarantineWhy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<QuarantineWhy, D::Error> {
        String::deserialize(d).map(QuarantineWhy::Logged)
    }
}

/// Appends `q` to the quarantine log in `dir`.
pub fn append_quarantined(dir: &Path, q: &Quarantined) -> Result<(), VoidLogError> {
    append_line(dir, QUARANTINED, q)
}

/// The quarantine log in `dir`.
pub fn read_quarantined(dir: &Path) -> Vec<Quarantined> {
    read_lines(dir, QUARANTINED)
}

/// The league's standings counted again from games.csv without the games in `out` (a
/// quarantined worker's), every bot in `known` with its line.
pub fn standings_without(
    dir: &Path,
    out: &std::collections::HashSet<u64>,
    known: &[String],
) -> Result<super::ratings::Tally, super::error::LeagueError> {
    let mut counted = super::ratings::Tally::default();
    for b in known {
        counted.know(b);
    }
    crate::results::games_csv::try_for_each_result(&[dir.join("games.csv")], |row| {
        // As the recorder feeds the fit: a referee's failure is no result.
        let failed = row.reason == Some(Reason::RefereeError);
        if !failed && !row.game_id.is_some_and(|id| out.contains(&id)) {
            counted.add(&super::ratings::Counted {
                bots: row.bots,
                ranks: row.ranks,
                pair_id: row.pair_id.unwrap_or(0),
            });
        }
        Ok::<(), crate::results::games_csv::ReadError>(())
    })
    .map_err(|e| super::error::LeagueError::GamesCsv(crate::errors::chain_text(&e)))?;
    Ok(counted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{Forfeit, SeatStats};
    use std::io::Write;

    fn result(reason: Reason, starved_turns: u32, waited: u64) -> GameResult {
        let line = serde_json::json!({
            "game": "impasse", "seed": 1, "bots": ["a", "b"], "opening": [], "winner": 1,
            "ranks": [1, 0], "reason": reason, "detail": "", "offender": 0, "forfeits": [],
            "turns": 3, "scores": [-1, 1], "removed": [0, 0], "stats": [], "moves": [],
            "stderr_bytes": [0, 0], "duration_ms": 1
        });
        let mut r: GameResult = serde_json::from_value(line).unwrap_or_else(|e| panic!("{e}"));
        r.forfeits = vec![Forfeit {
            seat: 0,
            reason,
            detail: "no answer".into(),
            turn: 3,
            exit: None,
        }];
        let mut s = SeatStats {
            turns: 2,
            total_us: 400_000,
            starved_turns,
            waited_total_us: waited,
            ..Default::default()
        };
        s.waited_max_us = waited;
        r.stats = vec![s, SeatStats::default()];
        r
    }

    #[test]
    fn a_timeout_of_a_starved_seat_is_spoiled_and_other_forfeits_are_not() {
        assert_eq!(spoiled_seat(&result(Reason::Timeout, 1, 150_000)), Some(0));
        // Waiting for more than half of its turns' time, though no turn past its limit.
        assert_eq!(spoiled_seat(&result(Reason::Timeout, 0, 250_000)), Some(0));
        assert_eq!(spoiled_seat(&result(Reason::Timeout, 0, 10_000)), None);
        assert_eq!(spoiled_seat(&result(Reason::Crash, 1, 150_000)), None);
        assert_eq!(spoiled_seat(&result(Reason::InvalidMove, 2, 300_000)), None);
    }

    /// Who played what survives a restart: the residual check of a restarted server sees every
    /// game a worker played, so a worker cannot reset its record by outliving one server.
    #[test]
    fn who_played_what_is_read_back_after_a_restart_and_a_torn_line_is_skipped() {
        use super::super::residuals::PlayedBy;
        let dir = tempfile::tempdir().unwrap();
        assert!(read_played(dir.path()).is_empty());
        let games: Vec<PlayedBy> = (0..3)
            .map(|i| PlayedBy {
                worker: format!("w{}", i % 2),
                game_id: i,
                bots: vec!["a".into(), "b".into()],
                ranks: vec![0, 1],
            })
            .collect();
        for g in &games {
            append_played(dir.path(), g).unwrap();
        }
        // A crash in the middle of a line.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(PLAYED))
            .unwrap();
        f.write_all(b"{\"worker\":\"w1\",\"game_").unwrap();
        assert_eq!(read_played(dir.path()), games);
    }

    /// A quarantine is logged and sent as the text it always was, and a line of an older log
    /// reads back and is sent again the same.
    #[test]
    fn a_quarantine_is_written_as_its_text_and_an_old_line_reads_back_the_same() {
        use super::super::residuals::{Residual, ResidualCell};
        let q = Quarantined {
            worker: "w1".into(),
            why: QuarantineWhy::OffFit(Residual {
                worker: "w1".into(),
                cell: ResidualCell::Bot("a".into()),
                games: 40,
                mean: 0.25,
                z: 6.04,
                flagged: true,
                threshold: 4.5,
            }),
            games: vec![3, 5],
            at: "2026-05-01 10:20 UTC".parse().unwrap(),
        };
        let line = serde_json::to_string(&q).unwrap();
        assert_eq!(
            line,
            "{\"worker\":\"w1\",\"why\":\"its results are off the league's fit: over 40 games bot \
             a scored +0.25 a game against the ratings' expectation, z = 6.0 against the other \
             workers (at most 4.5 for an honest one); its games are out of the ratings (kept in \
             the records). Check that machine and its arbiter, then give it a new token\",\
             \"games\":[3,5],\"at\":\"2026-05-01 10:20 UTC\"}"
        );
        let back: Quarantined = serde_json::from_str(&line).unwrap();
        assert_eq!(back.why, QuarantineWhy::Logged(q.why.to_string()));
        assert_eq!((back.at, &back.games), (q.at, &q.games));
        assert_eq!(serde_json::to_string(&back).unwrap(), line);

        let dir = tempfile::tempdir().unwrap();
        let old = "{\"game_id\":8,\"pair_id\":4,\"bots\":[\"a\",\"b\"],\"worker\":\"w#1\",\
                   \"seat\":1,\"reason\":\"timeout\",\"detail\":\"no answer\",\
                   \"starved_turns\":2,\"waited_total_us\":300000,\"waited_max_us\":200000,\
                   \"total_us\":400000,\"at\":\"2025-12-31 23:59 UTC\"}";
        std::fs::write(dir.path().join(VOIDED), format!("{old}\n")).unwrap();
        let voided = read(dir.path());
        assert_eq!(voided.len(), 1, "the old line reads");
        assert_eq!(voided[0].at.to_string(), "2025-12-31 23:59 UTC");
        assert_eq!(serde_json::to_string(&voided[0]).unwrap(), old);
    }
}
