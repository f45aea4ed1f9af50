//! The league's games on the engine (the one thread that runs the engine's play-and-record loop
//! for the local workers' and the remote workers' games: completed in the scheduler, appended
//! to the records, first result wins) and what the page keeps of the records (recent games,
//! each bot's games, forfeits and stderr, where each game's record is), read back at a start.
//! A game it cannot record stops the recording, said and refused from then on (503), never
//! taken and lost: see [`Shared::recording_failure`].

use super::threads::LocalWorkers;
use super::{take_cancelled, Fit, Live, Shared, BOT_FORFEITS, BOT_GAMES, RECENT};
use crate::engine::{Record, Recorded};
use crate::league::events::EngineListener;
use crate::league::folder::FolderError;
use crate::league::lines::{ForfeitLine, LiveGame};
use crate::league::locks::Locked;
use crate::league::play;
use crate::league::ratings::Counted;
use crate::league::record_index::IndexFile;
use crate::league::scheduler::{Acceptance, SeatReport};
use crate::tournament::Finished;
use std::time::Duration;

/// What records.jsonl holds: the page's recent games, each bot's forfeits and stderr, and
/// where each game's record is (its replay page; the index file is written again here).
pub(super) fn read_records(dir: &std::path::Path, live: &mut Live) -> Result<(), FolderError> {
    use std::io::BufRead;
    let path = dir.join(crate::results::records::FILE);
    let Ok(file) = std::fs::File::open(&path) else {
        return Ok(());
    };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    let mut offset = 0u64;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if let Ok(rec) =
                    serde_json::from_slice::<crate::results::records::GameRecord>(&line)
                {
                    if !live.offsets.contains(rec.game_id) {
                        note_record(live, &rec);
                    }
                    live.offsets
                        .insert(rec.game_id, offset)
                        .map_err(|source| FolderError::Io {
                            path: dir.join(crate::league::record_index::FILE),
                            source,
                        })?;
                }
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Adds a finished game to the page's lists.
fn note_record(live: &mut Live, rec: &crate::results::records::GameRecord) {
    live.running.remove(&rec.game_id);
    let line = LiveGame {
        game_id: rec.game_id,
        bots: rec.bots.clone(),
        ranks: Some(rec.ranks.clone()),
        reason: Some(rec.reason),
        worker: None,
    };
    let mut seen = std::collections::BTreeSet::new();
    for bot in &rec.bots {
        if seen.insert(bot) {
            let games = &mut live.notes.entry(bot.clone()).or_default().games;
            games.push_front(line.clone());
            games.truncate(BOT_GAMES);
        }
    }
    live.recent.push_front(line);
    live.recent.truncate(RECENT);
    for f in &rec.forfeits {
        let Some(bot) = rec.bots.get(f.seat) else {
            continue;
        };
        let notes = live.notes.entry(bot.clone()).or_default();
        notes.forfeits.push_front(ForfeitLine {
            game_id: rec.game_id,
            reason: f.reason,
            detail: f.detail.clone(),
            turn: f.turn,
        });
        notes.forfeits.truncate(BOT_FORFEITS);
    }
    for (seat, bot) in rec.bots.iter().enumerate() {
        let notes = live.notes.entry(bot.clone()).or_default();
        notes.stderr = rec.stderr.get(seat).cloned().unwrap_or_default();
        notes.stderr_game = Some(rec.game_id);
    }
}

/// Plays and records the league's games on the engine: the engine's runner plays what the
/// local workers are dealt ([`LocalWorkers`]), and the engine's recording loop records every
/// game of the queue, the local workers' and the remote workers' (handed in by
/// [`Shared::finished`]), with [`LeagueRecords`], then tells the page through the engine's
/// events ([`EngineListener`]). It runs as long as the server does. A game it cannot record
/// stops the recording: said on stderr and the page, and every later result is refused (503),
/// never taken and lost.
pub(super) fn games_thread(s: &Shared, mut csv: play::GamesCsv, queue: crate::engine::Queue) {
    let recorder =
        match play::Recorder::open(&mut csv, &s.dir, false, &s.table.choice, &s.table.referee) {
            Ok(r) => r,
            Err(e) => return s.fail_recording(e.to_string()),
        };
    let mut records = LeagueRecords {
        s,
        recorder,
        // Every game's offset in the index file, written without the state's lock.
        index: s.state().live.offsets.file(),
    };
    // The local workers' games start from the league's openings of their tables.
    let runner = crate::tournament::Runner {
        opening_plies: s.table.opening_plies,
        book: s.table.book.as_ref(),
        ..crate::tournament::Runner::dealt(&s.table.choice, &s.table.referee, s.local_workers)
    };
    let tell = |e| s.tell(e);
    let mut listener = EngineListener { tell: &tell };
    // The loop ends only with the server: should it end or fail otherwise, no result may be
    // taken and lost after it (a result is refused once the recording stopped).
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::engine::play_dealt(
            &runner,
            &LocalWorkers { s },
            queue,
            &mut records,
            &mut [&mut listener],
        )
    }));
    s.fail_recording(
        "the league's games stopped inside arbiter (a bug: please report it with the league's \
         folder)"
            .into(),
    );
}

/// How the league keeps a finished game (the engine's [`Record`]): completed in the scheduler,
/// and recorded with the engine's recorder if it is the first result of its id (a game whose
/// lease ran out may come back twice); a failure stops the league's recording.
struct LeagueRecords<'a> {
    s: &'a Shared,
    recorder: play::Recorder<'a>,
    index: Option<std::sync::Arc<IndexFile>>,
}

impl Record for LeagueRecords<'_> {
    fn record(&mut self, f: &Finished) -> Result<Recorded, crate::engine::RecordError> {
        let s = self.s;
        let recorded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            record_one(s, &mut self.recorder, self.index.as_deref(), f)
        }));
        let error = match recorded {
            Ok(Ok(recorded)) => return Ok(recorded),
            Ok(Err(e)) => e,
            Err(_) => crate::engine::RecordError {
                game_id: f.spec.game_id,
                file: s.dir.join(crate::results::records::FILE),
                source: std::io::Error::other(
                    "it failed inside arbiter (a bug: please report it with the league's folder)",
                ),
            },
        };
        s.fail_recording(error.to_string());
        Err(error)
    }
}

/// Records one finished game: completed in the scheduler, appended to the records (if it is
/// the first result of its id), shown and handed to the fit. The state's lock is taken to
/// complete it and to show it, never across the writes.
fn record_one(
    s: &Shared,
    recorder: &mut play::Recorder<'_>,
    index: Option<&IndexFile>,
    f: &Finished,
) -> Result<Recorded, crate::engine::RecordError> {
    let game_id = f.spec.game_id;
    let records = s.dir.join(crate::results::records::FILE);
    let outcome = SeatReport {
        forfeited: f.result.forfeits.iter().map(|x| x.seat).collect(),
        used: f
            .result
            .stats
            .iter()
            .map(|st| Duration::from_micros(st.total_us))
            .collect(),
    };
    let (completion, cancelled, suspended) = {
        let mut state = s.state();
        let completion = state.sched.complete(game_id, &outcome);
        if completion != Acceptance::Accepted {
            state.live.running.remove(&game_id);
        }
        (
            completion,
            take_cancelled(&mut state),
            state.sched.take_suspended(),
        )
    };
    // A suspension cancels the bot's queued games, and is kept in bots.toml.
    s.log_cancelled(cancelled);
    s.keep_suspensions(suspended);
    if completion != Acceptance::Accepted {
        return Ok(Recorded::Declined);
    }
    // Held from the append to the hand-over to the fit: see `Shared::recount`.
    let records_lock = s.records.locked();
    let offset = std::fs::metadata(&records).map(|m| m.len()).unwrap_or(0);
    recorder.record(f)?;
    let rec = crate::results::records::GameRecord::new(
        &f.spec,
        &s.table.choice,
        &s.table.referee,
        &f.result,
    );
    if let Err(e) = index.map_or(Ok(()), |i| i.insert(game_id, offset)) {
        // Its replay page is found while it is among the latest games only.
        eprintln!(
            "arbiter: warning: the replay index ({}) could not be written for game {}: {e}",
            crate::league::record_index::FILE,
            game_id
        );
    }
    let counted = {
        let mut state = s.state();
        note_record(&mut state.live, &rec);
        state.live.offsets.remember(game_id, offset);
        f.result.reason != crate::referee::Reason::RefereeError
            && !state.out_of_ratings.contains(&game_id)
    };
    if counted {
        let _ = s.fit_tx.send(Fit::Game(
            Counted {
                bots: rec.bots.clone(),
                ranks: rec.ranks.clone(),
                pair_id: rec.pair_id,
            },
            rec.game_id,
        ));
    }
    drop(records_lock);
    s.wake();
    // The engine tells the page (its listener) once this returns.
    Ok(Recorded::Kept)
}
