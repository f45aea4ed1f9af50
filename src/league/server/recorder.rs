//! The league's recorder (the one thread that completes games in the scheduler and appends them
//! to the records, first result wins) and what the page keeps of the records (recent games,
//! each bot's games, forfeits and stderr, where each game's record is), read back at a start.
//! A game it cannot record stops the recording, said and refused from then on (503), never
//! taken and lost: see [`Shared::recording_failure`].

use super::{take_cancelled, Fit, Live, Shared, BOT_FORFEITS, BOT_GAMES, RECENT};
use crate::league::folder::FolderError;
use crate::league::lines::{ForfeitLine, LiveGame};
use crate::league::locks::Locked;
use crate::league::play;
use crate::league::ratings::Counted;
use crate::league::record_index::IndexFile;
use crate::league::scheduler::{Acceptance, LeagueGame, SeatReport};
use crate::tournament::Finished;
use std::sync::mpsc;
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

/// Completes each finished game in the scheduler and records the first result of each. A game
/// it cannot record (a file that cannot be written, a result that makes it fail) stops the
/// recording: said on stderr and the page, and every later result is refused (503), never
/// taken and lost.
pub(super) fn recorder_thread(
    s: &Shared,
    mut csv: play::GamesCsv,
    done: mpsc::Receiver<(LeagueGame, Finished)>,
) {
    let mut recorder =
        match play::Recorder::open(&mut csv, &s.dir, false, &s.table.choice, &s.table.referee) {
            Ok(r) => r,
            Err(e) => return s.fail_recording(e.to_string()),
        };
    // Every game's offset in the index file, written without the state's lock.
    let index = s.state().live.offsets.file();
    for (game, f) in done {
        let id = game.game_id;
        let recorded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            record_one(s, &mut recorder, index.as_deref(), game, &f)
        }));
        match recorded {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return s.fail_recording(e.to_string()),
            Err(_) => {
                return s.fail_recording(format!(
                    "recording game {id} failed inside arbiter (a bug: please report it with \
                     the league's folder)"
                ))
            }
        }
    }
}

/// Records one finished game: completed in the scheduler, appended to the records (if it is
/// the first result of its id), shown and handed to the fit. The state's lock is taken to
/// complete it and to show it, never across the writes.
fn record_one(
    s: &Shared,
    recorder: &mut play::Recorder<'_>,
    index: Option<&IndexFile>,
    game: LeagueGame,
    f: &Finished,
) -> Result<(), crate::engine::RecordError> {
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
        let completion = state.sched.complete(game.game_id, &outcome);
        if completion != Acceptance::Accepted {
            state.live.running.remove(&game.game_id);
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
        return Ok(());
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
    if let Err(e) = index.map_or(Ok(()), |i| i.insert(game.game_id, offset)) {
        // Its replay page is found while it is among the latest games only.
        eprintln!(
            "arbiter: warning: the replay index ({}) could not be written for game {}: {e}",
            crate::league::record_index::FILE,
            game.game_id
        );
    }
    let counted = {
        let mut state = s.state();
        note_record(&mut state.live, &rec);
        state.live.offsets.remember(game.game_id, offset);
        f.result.reason != crate::referee::Reason::RefereeError
            && !state.out_of_ratings.contains(&game.game_id)
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
    // Told as the engine tells a recorded game to a tournament's consumers.
    let tell = |e| s.tell(e);
    let mut listener = crate::league::events::EngineListener { tell: &tell };
    let _ = crate::engine::Consumer::event(&mut listener, &crate::engine::Event::GameFinished(f));
    s.wake();
    Ok(())
}
