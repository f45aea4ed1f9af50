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

use super::error::LeagueError;
use super::events::{CancelledLine, LeagueEvent};
use super::folder::{self, BotEntry, FolderError, ScheduleLog};
use super::lines::{BotNotes, LiveGame};
use super::locks::{Locked, RwLocked};
use super::play::{self, PlaySetup};
use super::ratings::{self, Counted};
use super::scheduler::{Idle, LeagueGame, Scheduler};
use super::settings::LeagueSettings;
use crate::bot::BotSpec;
use crate::tournament::Finished;
use crate::utc::UtcTime;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

mod history;
mod recorder;
mod start;
mod threads;
use recorder::{read_records, recorder_thread};
pub use start::start;
use threads::{local_name, ratings_thread, renew_thread, worker_thread};

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

/// The server's shared state.
pub struct Shared {
    pub dir: PathBuf,
    pub settings: LeagueSettings,
    pub table: PlaySetup,
    pub sched: Mutex<Scheduler>,
    log: Mutex<ScheduleLog>,
    /// The games that will not be played (`cancelled.jsonl`).
    cancel_log: Mutex<folder::CancelLog>,
    /// Bots ready to play, by name.
    pub specs: RwLock<HashMap<String, BotSpec>>,
    pub live: Mutex<Live>,
    pub standings: RwLock<Arc<ratings::Table>>,
    pub counted: Mutex<ratings::Tally>,
    /// The candidates' SPRTs, fed by the ratings thread.
    pub sprt: Mutex<super::sprt::Tests>,
    /// Their starts and ends (`sprt.jsonl`).
    sprt_log: Mutex<folder::JsonLines>,
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
    /// Workers wait here for a game to lease.
    wake: Condvar,
    wake_lock: Mutex<()>,
    pub stop: AtomicBool,
    /// Held while `bots.toml` is read and written back.
    bots_file: Mutex<()>,
    done_tx: Mutex<mpsc::Sender<(LeagueGame, Finished)>>,
    fit_tx: Mutex<mpsc::Sender<Fit>>,
    /// Why the league stopped recording (its records could not be written, its recorder
    /// failed): from then on no result is accepted and no game leased (503), the page says so.
    recording: Mutex<Option<String>>,
    /// Every bot's versions (`versions.jsonl`).
    pub versions: Mutex<super::versions::Versions>,
    /// Games out of the ratings (a quarantined worker's). Held by the recorder from a game's
    /// record to its hand-over to the fit, so that a recount from games.csv
    /// ([`Shared::recount`]) counts each game once: a game recorded before the recount is in
    /// it and was handed to the fit before it (and dropped with the standings it replaces); one
    /// recorded after is not in it and is handed over after it, unless it is out.
    out_of_ratings: Mutex<HashSet<u64>>,
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
    #[error("{0}")]
    Other(String),
}

impl Shared {
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
        self.live
            .locked()
            .running
            .insert(game.game_id, line.clone());
        self.tell(LeagueEvent::Started(line));
    }

    /// Whether bot `name` is the league's (in its standings or its schedule; removed ones too).
    pub fn knows(&self, name: &str) -> bool {
        self.standings.reading().bots.iter().any(|b| b.name == name)
            || self.sched.locked().names().any(|n| n == name)
    }

    /// Tells every listener (the page's event streams, the workers waiting for a game).
    pub fn tell(&self, event: LeagueEvent) {
        let _ = self.events.send(event);
    }

    /// Wakes the workers (a game may be ready to lease).
    pub fn wake(&self) {
        let _guard = self.wake_lock.locked();
        self.wake.notify_all();
    }

    /// Asks for a new fit.
    pub fn refit(&self) {
        let _ = self.fit_tx.locked().send(Fit::Again);
    }

    /// Takes the games in `out` out of the ratings: counts the standings again from games.csv
    /// without them (and without those taken out before), every bot in `known` with its line,
    /// and refits. The recorder waits meanwhile.
    pub fn recount(
        &self,
        out: impl IntoIterator<Item = u64>,
        known: &[String],
    ) -> Result<(), LeagueError> {
        let mut skip = self.out_of_ratings.locked();
        skip.extend(out);
        let counted = super::trust::standings_without(&self.dir, &skip, known)?;
        let _ = self.fit_tx.locked().send(Fit::Recounted(Box::new(counted)));
        Ok(())
    }

    /// Why the league stopped recording, if it did.
    pub fn recording_failure(&self) -> Option<String> {
        self.recording.locked().clone()
    }

    /// Stops the league's recording for `why` (the first reason is kept), and says so on
    /// stderr and to the page: no result is accepted from now on, no game leased.
    fn fail_recording(&self, why: String) {
        let mut failed = self.recording.locked();
        if failed.is_some() {
            return;
        }
        eprintln!(
            "arbiter: error: the league stopped recording: {why}; no result is accepted and no \
             game leased until it is fixed and the league started again (`arbiter league \
             serve {}`: every game scheduled and not recorded is played again)",
            self.dir.display()
        );
        *failed = Some(why.clone());
        drop(failed);
        self.tell(LeagueEvent::RecordingFailed { why });
    }

    /// Logs the games `sched` cancelled (a bot removed, replaced, suspended or broken): each
    /// scheduled game ends recorded or cancelled. A log that cannot be written stops the
    /// recording (a game would end neither).
    pub fn log_cancelled(&self, sched: &mut Scheduler) {
        let cancelled = sched.take_cancelled();
        if cancelled.is_empty() {
            return;
        }
        if let Err(e) = self.cancel_log.locked().append(&cancelled, UtcTime::now()) {
            self.fail_recording(e.to_string());
            return;
        }
        let mut live = self.live.locked();
        for c in &cancelled {
            live.running.remove(&c.game.game_id);
        }
        drop(live);
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
    fn log_sprt(&self, lines: Vec<super::sprt::Line>) {
        if let Err(e) = self.sprt_log.locked().append(&lines) {
            eprintln!(
                "arbiter: warning: {} could not be written: {e}",
                folder::SPRT
            );
        }
    }

    /// Keeps the suspensions `sched` made in `bots.toml`, so that a restart does not play the
    /// bots again (adding one again writes its entry anew).
    fn keep_suspensions(&self, sched: &mut Scheduler) {
        for (name, forfeits) in sched.take_suspended() {
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
        if self.recording_failure().is_some() {
            return Vec::new();
        }
        let mut sched = self.sched.locked();
        let games = sched.lease_for(worker, group, slots, Instant::now());
        self.log_cancelled(&mut sched);
        let fresh = sched.take_fresh();
        if let Err(e) = self.log.locked().append(&fresh) {
            // Nothing may leave unlogged.
            for g in &games {
                sched.release(g.game_id);
            }
            drop(sched);
            self.fail_recording(e.to_string());
            return Vec::new();
        }
        games
    }

    /// Puts leased game `game_id` back in the queue unplayed (its worker's machine could not
    /// start it): no longer listed as running.
    pub fn release(&self, game_id: u64) {
        {
            let mut sched = self.sched.lock().unwrap_or_else(|e| e.into_inner());
            sched.release(game_id);
            self.log_cancelled(&mut sched);
        }
        self.live.locked().running.remove(&game_id);
        self.tell(LeagueEvent::Released { game_id });
        self.wake();
    }

    /// Hands a game played elsewhere (by a remote worker) to the recorder: the first result
    /// for a game id is recorded, later ones are dropped. False if the recorder has stopped
    /// ([`Shared::recording_failure`] says why).
    pub fn finished(&self, game: LeagueGame, f: Finished) -> bool {
        self.done_tx.locked().send((game, f)).is_ok()
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
            let mut sched = self.sched.locked();
            if sched.names().any(|n| n == name) {
                sched.set_idle(&name, Idle::Broken(e.to_string()));
            }
            return Err(e.into());
        }
        self.live.locked().building.push(name.clone());
        self.tell(LeagueEvent::Building { name: name.clone() });
        // What its workers would be sent is checked first: a bot that names a file it may not
        // ship (outside its folder, or one another user could not read) is not played.
        let sources = super::bundle::sources(&entry);
        let version = self.note_version(&name, sources.as_ref().ok(), how);
        let checked = sources
            .map_err(|e| play::NotChecked::Broken(e.to_string()))
            .and_then(|_| {
                let tell = |e| self.tell(e);
                let mut listener = super::events::CheckListener { tell: &tell };
                play::check(&entry, &self.table.referee, &mut listener)
            });
        self.keep_build_log(&name, version, &checked);
        self.live.locked().building.retain(|n| n != &name);
        let saved = self.update_bots(|bots| {
            folder::upsert(bots, entry.clone());
            Ok(())
        });
        self.counted.locked().know(&name);
        let mut again = None;
        let result = {
            let mut sched = self.sched.locked();
            let result = match checked {
                Ok(spec) => {
                    self.backoff.started("the league's server");
                    // A new version of a bot that played here: the old one's unplayed games
                    // are cancelled (a table is played by one version of each bot).
                    let replaced = self.specs.writing().insert(name.clone(), spec).is_some();
                    if replaced {
                        sched.replace(&name);
                    }
                    sched.add_bot(&name);
                    let mut sprt = self.sprt.locked();
                    let lines = match &entry.candidate_of {
                        // A new test, unless this is its candidate checked again at a start.
                        Some(old)
                            if replaced
                                || !sprt.list.iter().any(|t| t.new == name && &t.old == old) =>
                        {
                            let bounds = entry.sprt.unwrap_or_default();
                            sprt.start(&name, old, bounds, sched.next_game_id(), UtcTime::now())
                        }
                        Some(_) => Vec::new(),
                        None if replaced => {
                            sprt.end_of(&name, super::sprt::SprtVerdict::Replaced, UtcTime::now())
                        }
                        None => Vec::new(),
                    };
                    sched.set_priority(sprt.running());
                    drop(sprt);
                    self.log_sprt(lines);
                    Ok(())
                }
                Err(play::NotChecked::Broken(problem)) => {
                    sched.set_idle(&name, Idle::Broken(problem.clone()));
                    Err(LeagueError::Broken(problem))
                }
                Err(play::NotChecked::Machine { fault, detail }) => {
                    // No verdict on the bot: it stays "checking" and is checked again later.
                    sched.set_idle(&name, Idle::Checking);
                    again = Some(
                        self.backoff
                            .failed("the league's server", fault, &detail)
                            .max(Duration::from_secs(5)),
                    );
                    Err(LeagueError::Machine(detail))
                }
            };
            self.log_cancelled(&mut sched);
            result
        };
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
        {
            let mut sched = self.sched.locked();
            sched.set_idle(name, Idle::Removed);
            self.log_cancelled(&mut sched);
            let mut sprt = self.sprt.locked();
            let lines = sprt.end_of(name, super::sprt::SprtVerdict::Removed, UtcTime::now());
            sched.set_priority(sprt.running());
            drop(sprt);
            self.log_sprt(lines);
        }
        self.refit();
        Ok(())
    }
}
