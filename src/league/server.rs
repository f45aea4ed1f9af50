//! The league server's state and its threads: local workers (each a blocking thread that leases
//! one game at a time and plays it through [`super::play`], never a tokio task: the referee waits
//! in poll(2)), the recorder (the one thread that completes games in the scheduler and appends
//! them to the records, first result wins), and the ratings thread ([`super::ratings`]). The HTTP
//! side ([`super::http`]) only reads this state and sends commands. Here: the state
//! ([`Shared`]) and what changes it; `start.rs` the start, `threads.rs` the local workers and
//! the ratings' thread, `recorder.rs` the recorder.
//!
//! Crash safety: every game is in `schedule.jsonl` before a worker gets it, and its result is in
//! games.csv before anything shows it; a restart marks the logged games that games.csv holds as
//! done and plays the others again under the same ids, so kill -9 loses and duplicates nothing.
//!
//! One lock over the state: everything that changes while the league runs (the scheduler, the
//! bots ready to play, the page's lists, the tally, the SPRTs, the versions, why recording
//! stopped, the games out of the ratings) is one [`State`] behind one `Mutex`, taken through
//! [`Shared::state`] (a poisoned lock is taken as it is, never a panic). One lock rather than a
//! task that owns the state and takes messages: the local workers, the recorder and the ratings
//! are blocking threads and the HTTP handlers read the state in place, so a message and its
//! answer would cost every page and lease a round trip where a lock costs a few nanoseconds;
//! and one lock rather than a dozen, because a change that spans the scheduler and the SPRTs
//! (an admit, a removal) is then one critical section, with no lock order to keep. Every
//! holder only computes: a file is never written nor a bot checked nor a fit made under it. What
//! must be written is taken out under the lock (the games a lease made, the games cancelled, the
//! SPRT lines, the suspensions) and written after it is dropped, under a lock that guards only
//! its file:
//! - `logs` (schedule.jsonl, cancelled.jsonl, sprt.jsonl): taken *before* the state's where the
//!   order of the lines must follow the order of the changes. A lease holds it from the
//!   scheduler's lease to the append of the games it made, so no other lease can hand out one
//!   of those games before they are in schedule.jsonl; an admit, a removal and the ratings hold
//!   it so that an SPRT's start is logged before its end.
//! - `records` (games.csv and records.jsonl): the recorder holds it from a game's append to its
//!   hand-over to the fit, a recount from its read of games.csv to the hand-over of its count
//!   ([`Shared::recount`]: each game counted once).
//! - `bots_file` (bots.toml, read and written back).
//!
//! The lock order is: a file's lock, then the state's; the state's lock is never held when
//! another is taken. `standings` stays its own read-write lock over an `Arc`: the ratings
//! thread swaps a new table in whole, and every page reads it without waiting for the state's
//! lock (a page only clones the `Arc`).

use super::error::LeagueError;
use super::events::{CancelledLine, LeagueEvent};
use super::folder::{self, BotEntry, FolderError, ScheduleLog};
use super::lines::{BotNotes, LiveGame};
use super::locks::{Locked, RwLocked};
use super::play::{self, PlaySetup};
use super::ratings::{self, Counted};
use super::scheduler::{Cancelled, Idle, LeagueGame, Scheduler};
use super::settings::LeagueSettings;
use crate::bot::BotSpec;
use crate::tournament::Finished;
use crate::utc::UtcTime;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

mod history;
mod recorder;
mod start;
mod threads;
use recorder::{games_thread, read_records};
pub use start::start;
use threads::{ratings_thread, renew_thread};

/// Recent games kept in memory for the page.
const RECENT: usize = 100;
/// Forfeits kept per bot for its page.
const BOT_FORFEITS: usize = 20;
/// Recent games kept per bot for its page.
const BOT_GAMES: usize = 20;

/// Everything the page and the API read.
#[derive(Default)]
pub struct Live {
    pub running: BTreeMap<u64, LiveGame>,
    pub recent: VecDeque<LiveGame>,
    pub notes: HashMap<String, BotNotes>,
    /// Bots being built or checked.
    pub building: Vec<String>,
    /// Offsets of the latest games' records in records.jsonl (their replay pages).
    pub offsets: super::record_index::RecordIndex,
}

/// The league's mutable state, behind one lock ([`Shared::state`]; see the module's doc).
pub struct State {
    pub sched: Scheduler,
    /// Bots ready to play, by name.
    pub specs: HashMap<String, BotSpec>,
    pub live: Live,
    pub counted: ratings::Tally,
    /// The candidates' SPRTs, fed by the ratings thread.
    pub sprt: super::sprt::Tests,
    /// Every bot's versions (`versions.jsonl`).
    pub versions: super::versions::Versions,
    /// Why the league stopped recording (its records could not be written, its recorder
    /// failed): from then on no result is accepted and no game leased (503), the page says so.
    recording: Option<String>,
    /// Games out of the ratings (a quarantined worker's): a recorded game in it is not handed
    /// to the fit, and a recount counts games.csv without them ([`Shared::recount`]).
    out_of_ratings: HashSet<u64>,
}

/// The league's logs, written under one lock that guards them only.
struct Logs {
    /// `schedule.jsonl`: every game before a worker gets it.
    schedule: ScheduleLog,
    /// `cancelled.jsonl`: the games that will not be played.
    cancelled: folder::CancelLog,
    /// `sprt.jsonl`: the SPRTs' starts and ends.
    sprt: folder::JsonLines,
}

/// The server's shared state.
pub struct Shared {
    pub dir: PathBuf,
    pub settings: LeagueSettings,
    pub table: PlaySetup,
    /// Everything that changes (see the module's doc).
    state: Mutex<State>,
    pub standings: RwLock<Arc<ratings::Table>>,
    /// The logs' writer (taken before the state's lock, never under it).
    logs: Mutex<Logs>,
    /// Held from a game's append to games.csv to its hand-over to the fit, and by a recount
    /// from its read of games.csv to the hand-over of its count (guards the records only).
    records: Mutex<()>,
    /// Held while `bots.toml` is read and written back.
    bots_file: Mutex<()>,
    /// What the league tells its page and the waiting workers (written as server-sent
    /// events at the HTTP edge).
    pub events: tokio::sync::broadcast::Sender<LeagueEvent>,
    /// Event streams open (at most `[http] max_event_streams`).
    pub event_streams: std::sync::atomic::AtomicUsize,
    /// The local workers when their machine cannot start games.
    pub backoff: super::backoff::Backoff,
    pub token_hash: String,
    /// The authors' tokens, each for one bot (read again when the file changes).
    pub authors: super::tokens::Tokens,
    /// Local workers (threads of the server).
    pub local_workers: usize,
    /// Workers wait here (on the state's lock) for a game to lease.
    wake: Condvar,
    pub stop: AtomicBool,
    /// The engine's queue of finished games: the local workers' and, through
    /// [`Shared::finished`], the remote workers'.
    done_tx: mpsc::Sender<crate::tournament::FinishedOrNot>,
    fit_tx: mpsc::Sender<Fit>,
    /// The folder's lock, held while the server runs (a second server or an offline `league
    /// add` of the folder is refused).
    _lock: crate::results::lock::FolderLock,
}

/// What the ratings thread is handed, in order.
enum Fit {
    /// A recorded game to count (and its id).
    Game(Counted, u64),
    /// Fit again (a bot came or went).
    Again,
    /// The standings counted again from games.csv, in place of those counted so far.
    Recounted(Box<ratings::Tally>),
}

/// A server that could not start.
#[derive(Debug, thiserror::Error)]
pub enum LeagueStartError {
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The game, its referee or its book could not be opened.
    #[error(transparent)]
    Session(#[from] crate::engine::session::SessionError),
    /// games.csv's rows that no reader takes could not be set aside.
    #[error("setting aside bad rows of {}: {source}", path.display())]
    SetAside {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// games.csv could not be opened for the league's records.
    #[error(transparent)]
    Games(#[from] crate::engine::StartError),
    /// games.csv could not be read back (the standings and the SPRTs are counted from it).
    #[error(transparent)]
    Records(#[from] crate::results::games_csv::ReadError),
}

/// Takes the games the scheduler cancelled (a bot removed, replaced, suspended or broken) off
/// the page's running games, to be logged once the state's lock is dropped
/// ([`Shared::log_cancelled`]).
fn take_cancelled(state: &mut State) -> Vec<Cancelled> {
    let cancelled = state.sched.take_cancelled();
    for c in &cancelled {
        state.live.running.remove(&c.game.game_id);
    }
    cancelled
}

impl Shared {
    /// The league's state, under its one lock: hold it only to compute (no file written, no
    /// blocking call made meanwhile).
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.locked()
    }

    /// Marks `game` as being played by `worker` (a local worker's name or a remote session):
    /// listed as running and told to the page.
    pub fn started(&self, game: &LeagueGame, worker: &str) {
        let line = LiveGame {
            game_id: game.game_id,
            bots: game.bots.clone(),
            ranks: None,
            reason: None,
            worker: Some(worker.to_string()),
        };
        self.state().live.running.insert(game.game_id, line.clone());
        self.tell(LeagueEvent::Started(line));
    }

    /// Whether bot `name` is the league's (in its standings or its schedule; removed ones too).
    pub fn knows(&self, name: &str) -> bool {
        self.standings.reading().bots.iter().any(|b| b.name == name)
            || self.state().sched.names().any(|n| n == name)
    }

    /// Tells every listener (the page's event streams, the workers waiting for a game).
    pub fn tell(&self, event: LeagueEvent) {
        let _ = self.events.send(event);
    }

    /// Wakes the workers (a game may be ready to lease).
    pub fn wake(&self) {
        self.wake.notify_all();
    }

    /// Waits until the workers are woken, or `at_most`.
    fn wait_for_work(&self, at_most: Duration) {
        let state = self.state();
        // A poisoned lock comes back as it is: it is dropped here either way.
        let _ = self.wake.wait_timeout(state, at_most);
    }

    /// Asks for a new fit.
    pub fn refit(&self) {
        let _ = self.fit_tx.send(Fit::Again);
    }

    /// Takes the games in `out` out of the ratings: counts the standings again from games.csv
    /// without them (and without those taken out before), every bot in `known` with its line,
    /// and refits. The recorder waits meanwhile.
    pub fn recount(
        &self,
        out: impl IntoIterator<Item = u64>,
        known: &[String],
    ) -> Result<(), LeagueError> {
        // Each game is counted once: the recorder holds `records` from a game's append to
        // games.csv to its hand-over to the fit (skipped when the game is out), and this holds
        // it from the change of the games out to the hand-over of the count. So a game recorded
        // before is in the count read here and was handed over before it (dropped with the
        // standings this count replaces); one recorded after is not in it, is handed over after
        // it, and only if it is not out. The state's lock is held only to change the set.
        let _records = self.records.locked();
        let skip = {
            let mut state = self.state();
            state.out_of_ratings.extend(out);
            state.out_of_ratings.clone()
        };
        let counted = super::trust::standings_without(&self.dir, &skip, known)?;
        let _ = self.fit_tx.send(Fit::Recounted(Box::new(counted)));
        Ok(())
    }

    /// Why the league stopped recording, if it did.
    pub fn recording_failure(&self) -> Option<String> {
        self.state().recording.clone()
    }

    /// Stops the league's recording for `why` (the first reason is kept), and says so on
    /// stderr and to the page: no result is accepted from now on, no game leased.
    fn fail_recording(&self, why: String) {
        {
            let mut state = self.state();
            if state.recording.is_some() {
                return;
            }
            state.recording = Some(why.clone());
        }
        eprintln!(
            "arbiter: error: the league stopped recording: {why}; no result is accepted and no \
             game leased until it is fixed and the league started again (`arbiter league \
             serve {}`: every game scheduled and not recorded is played again)",
            self.dir.display()
        );
        self.tell(LeagueEvent::RecordingFailed { why });
    }

    /// Logs the games `cancelled` (taken by [`take_cancelled`]): each scheduled game ends
    /// recorded or cancelled. A log that cannot be written stops the recording (a game would
    /// end neither). Not under the state's lock.
    fn log_cancelled(&self, cancelled: Vec<Cancelled>) {
        if !cancelled.is_empty() {
            self.log_cancelled_in(&mut self.logs.locked(), cancelled);
        }
    }

    /// [`Shared::log_cancelled`], the logs' lock held.
    fn log_cancelled_in(&self, logs: &mut Logs, cancelled: Vec<Cancelled>) {
        if cancelled.is_empty() {
            return;
        }
        if let Err(e) = logs.cancelled.append(&cancelled, UtcTime::now()) {
            self.fail_recording(e.to_string());
            return;
        }
        for c in cancelled {
            self.tell(LeagueEvent::Cancelled(CancelledLine {
                game_id: c.game.game_id,
                bots: c.game.bots,
                bot: c.bot,
                why: c.why,
            }));
        }
    }

    /// Logs SPRT lines (a test started or ended): a decision is kept in the folder. A log that
    /// cannot be written is said (the test's decision is made again from games.csv at the
    /// next start).
    fn log_sprt(&self, logs: &mut Logs, lines: Vec<super::sprt::Line>) {
        if lines.is_empty() {
            return;
        }
        if let Err(e) = logs.sprt.append(&lines) {
            eprintln!(
                "arbiter: warning: {} could not be written: {e}",
                folder::SPRT
            );
        }
    }

    /// Keeps the suspensions the scheduler made (taken from it under the state's lock) in
    /// `bots.toml`, so that a restart does not play the bots again (adding one again writes
    /// its entry anew).
    fn keep_suspensions(&self, suspended: Vec<(String, u32)>) {
        for (name, forfeits) in suspended {
            let kept = self.update_bots(|bots| {
                if let Some(b) = bots.iter_mut().find(|b| b.name == name) {
                    b.suspended = Some(forfeits);
                }
                Ok(())
            });
            if let Err(e) = kept {
                eprintln!(
                    "arbiter: warning: the suspension of {name} could not be kept in {}: {e} \
                     (a restart would play it again)",
                    folder::BOTS
                );
            }
        }
    }

    /// Leases one game to `worker`, logging new tables first.
    fn lease(&self, worker: &str) -> Option<LeagueGame> {
        self.lease_games(worker, worker, 1).pop()
    }

    /// Leases up to `slots` games to `worker` (a remote worker's session, of worker `group`:
    /// its token's name), logging new tables first. None once the league cannot record.
    pub fn lease_games(&self, worker: &str, group: &str, slots: usize) -> Vec<LeagueGame> {
        // The logs' lock first, held until the games this lease made are in schedule.jsonl:
        // another lease waits for it, so none hands out one of them before it is logged.
        let mut logs = self.logs.locked();
        let (games, cancelled, fresh) = {
            let mut state = self.state();
            if state.recording.is_some() {
                return Vec::new();
            }
            let games = state.sched.lease_for(worker, group, slots, Instant::now());
            let cancelled = take_cancelled(&mut state);
            (games, cancelled, state.sched.take_fresh())
        };
        self.log_cancelled_in(&mut logs, cancelled);
        if let Err(e) = logs.schedule.append(&fresh) {
            // Nothing may leave unlogged.
            let mut state = self.state();
            for g in &games {
                state.sched.release(g.game_id);
            }
            drop(state);
            self.fail_recording(e.to_string());
            return Vec::new();
        }
        games
    }

    /// Puts leased game `game_id` back in the queue unplayed (its worker's machine could not
    /// start it): no longer listed as running.
    pub fn release(&self, game_id: u64) {
        let cancelled = {
            let mut state = self.state();
            state.sched.release(game_id);
            state.live.running.remove(&game_id);
            take_cancelled(&mut state)
        };
        self.log_cancelled(cancelled);
        self.tell(LeagueEvent::Released { game_id });
        self.wake();
    }

    /// Hands a game played elsewhere (by a remote worker) to the recorder: the first result
    /// for a game id is recorded, later ones are dropped. False if the recorder has stopped
    /// ([`Shared::recording_failure`] says why).
    pub fn finished(&self, f: Finished) -> bool {
        self.recording_failure().is_none() && self.done_tx.send(Ok(f)).is_ok()
    }

    /// Checks (builds, test-starts) `entry` and adds it to the league, or marks it broken; `how`
    /// says whether it was sent anew (a new version) or is checked again. Runs on the calling
    /// (blocking) thread.
    pub fn admit(
        self: &Arc<Self>,
        entry: BotEntry,
        how: super::versions::Admission,
    ) -> Result<(), LeagueError> {
        let name = entry.name.clone();
        // A name the league cannot carry everywhere is no bot's: nothing of it is kept (one
        // read from bots.toml at a start is shown broken, saying why).
        if let Err(e) = super::names::check(&name, "bot") {
            let mut state = self.state();
            if state.sched.names().any(|n| n == name) {
                state.sched.set_idle(&name, Idle::Broken(e.to_string()));
            }
            return Err(e.into());
        }
        self.state().live.building.push(name.clone());
        self.tell(LeagueEvent::Building { name: name.clone() });
        // What its workers would be sent is checked first: a bot that names a file it may not
        // ship (outside its folder, or one another user could not read) is not played.
        let sources = super::bundle::sources(&entry);
        let version = self.note_version(&name, sources.as_ref().ok(), how);
        let checked = sources
            .map_err(|e| play::NotChecked::Broken(e.to_string()))
            .and_then(|_| {
                let tell = |e| self.tell(e);
                let mut listener = super::events::EngineListener { tell: &tell };
                play::check(&entry, &self.table.referee, &mut listener)
            });
        self.keep_build_log(&name, version, &checked);
        self.state().live.building.retain(|n| n != &name);
        let saved = self.update_bots(|bots| {
            folder::upsert(bots, entry.clone());
            Ok(())
        });
        let mut again = None;
        match &checked {
            Ok(_) => self.backoff.started("the league's server"),
            Err(play::NotChecked::Machine { fault, detail }) => {
                again = Some(
                    self.backoff
                        .failed("the league's server", *fault, detail)
                        .max(Duration::from_secs(5)),
                );
            }
            Err(play::NotChecked::Broken(_)) => {}
        }
        // The logs' lock before the state's: a test's start is logged before its end.
        let mut logs = self.logs.locked();
        let (result, cancelled, lines) = {
            let mut state = self.state();
            let state = &mut *state;
            state.counted.know(&name);
            let mut lines = Vec::new();
            let result = match checked {
                Ok(spec) => {
                    // A new version of a bot that played here: the old one's unplayed games
                    // are cancelled (a table is played by one version of each bot).
                    let replaced = state.specs.insert(name.clone(), spec).is_some();
                    if replaced {
                        state.sched.replace(&name);
                    }
                    state.sched.add_bot(&name);
                    let sprt = &mut state.sprt;
                    lines = match &entry.candidate_of {
                        // A new test, unless this is its candidate checked again at a start.
                        Some(old)
                            if replaced
                                || !sprt.list.iter().any(|t| t.new == name && &t.old == old) =>
                        {
                            let bounds = entry.sprt.unwrap_or_default();
                            sprt.start(
                                &name,
                                old,
                                bounds,
                                state.sched.next_game_id(),
                                UtcTime::now(),
                            )
                        }
                        Some(_) => Vec::new(),
                        None if replaced => {
                            sprt.end_of(&name, super::sprt::SprtVerdict::Replaced, UtcTime::now())
                        }
                        None => Vec::new(),
                    };
                    state.sched.set_priority(sprt.running());
                    Ok(())
                }
                Err(play::NotChecked::Broken(problem)) => {
                    state.sched.set_idle(&name, Idle::Broken(problem.clone()));
                    Err(LeagueError::Broken(problem))
                }
                Err(play::NotChecked::Machine { detail, .. }) => {
                    // No verdict on the bot: it stays "checking" and is checked again later.
                    state.sched.set_idle(&name, Idle::Checking);
                    Err(LeagueError::Machine(detail))
                }
            };
            (result, take_cancelled(state), lines)
        };
        self.log_sprt(&mut logs, lines);
        self.log_cancelled_in(&mut logs, cancelled);
        drop(logs);
        self.refit();
        self.wake();
        if let Some(pause) = again {
            let s = self.clone();
            std::thread::spawn(move || {
                std::thread::sleep(pause);
                let _ = s.admit(entry, super::versions::Admission::Again);
            });
        }
        saved.and(result)
    }

    /// Reads `bots.toml`, changes it, writes it back (one change at a time).
    fn update_bots(
        &self,
        change: impl FnOnce(&mut Vec<BotEntry>) -> Result<(), LeagueError>,
    ) -> Result<(), LeagueError> {
        let _one = self.bots_file.locked();
        let mut bots = folder::load_bots(&self.dir)?;
        change(&mut bots)?;
        Ok(folder::save_bots(&self.dir, &bots)?)
    }

    /// Stops playing `name` (its recorded games stay).
    pub fn remove(&self, name: &str) -> Result<(), LeagueError> {
        self.update_bots(|bots| match bots.iter_mut().find(|b| b.name == name) {
            Some(entry) => {
                entry.removed = true;
                Ok(())
            }
            None => Err(LeagueError::UnknownBot(name.to_string())),
        })?;
        // The logs' lock before the state's: a test's start is logged before its end.
        let mut logs = self.logs.locked();
        let (cancelled, lines) = {
            let mut state = self.state();
            state.sched.set_idle(name, Idle::Removed);
            let lines = state
                .sprt
                .end_of(name, super::sprt::SprtVerdict::Removed, UtcTime::now());
            let running = state.sprt.running();
            state.sched.set_priority(running);
            (take_cancelled(&mut state), lines)
        };
        self.log_cancelled_in(&mut logs, cancelled);
        self.log_sprt(&mut logs, lines);
        drop(logs);
        self.refit();
        Ok(())
    }
}
