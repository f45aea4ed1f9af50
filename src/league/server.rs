//! The league server's state and its threads: local workers (each a blocking thread that leases
//! one game at a time and plays it through [`super::play`], never a tokio task: the referee waits
//! in poll(2)), the recorder (the one thread that completes games in the scheduler and appends
//! them to the records, first result wins), and the ratings thread ([`super::ratings`]). The HTTP
//! side ([`super::http`]) only reads this state and sends commands.
//!
//! Crash safety: every game is in `schedule.jsonl` before a worker gets it, and its result is in
//! games.csv before anything shows it; a restart marks the logged games that games.csv holds as
//! done and plays the others again under the same ids, so kill -9 loses and duplicates nothing.

use super::folder::{self, BotEntry, FolderError, LeagueSettings, ScheduleLog};
use super::play::{self, Table};
use super::ratings::{self, Counted};
use super::scheduler::{Completion, Game, Idle, Outcome, Scheduler};
use crate::bot::BotSpec;
use crate::tournament::Finished;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

/// Recent games kept in memory for the page.
const RECENT: usize = 100;
/// Forfeits kept per bot for its page.
const BOT_FORFEITS: usize = 20;

/// A game as the page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct GameLine {
    pub game_id: u64,
    pub bots: Vec<String>,
    /// Ranks by seat once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who plays it (a local worker's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
}

/// A forfeit as a bot's page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct ForfeitLine {
    pub game_id: u64,
    pub reason: String,
    pub detail: String,
    pub turn: u32,
}

/// What the page shows of a bot besides its standings line.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BotNotes {
    pub forfeits: VecDeque<ForfeitLine>,
    /// Its stderr in its latest game (the tail the record keeps).
    pub stderr: String,
    pub stderr_game: Option<u64>,
}

/// Everything the page and the API read.
#[derive(Default)]
pub struct Live {
    pub running: BTreeMap<u64, GameLine>,
    pub recent: VecDeque<GameLine>,
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
    pub table: Table,
    pub sched: Mutex<Scheduler>,
    log: Mutex<ScheduleLog>,
    /// Bots ready to play, by name.
    pub specs: RwLock<HashMap<String, BotSpec>>,
    pub live: Mutex<Live>,
    pub standings: RwLock<Arc<ratings::Table>>,
    pub counted: Mutex<ratings::Standings>,
    /// A candidate's SPRT, fed by the ratings thread.
    pub sprt: Mutex<Option<super::sprt::Test>>,
    /// Server-sent events, as `(event name, JSON data)`.
    pub events: tokio::sync::broadcast::Sender<(String, String)>,
    pub token_hash: String,
    /// Local workers (threads of the server).
    pub local_workers: usize,
    /// Workers wait here for a game to lease.
    wake: Condvar,
    wake_lock: Mutex<()>,
    pub stop: AtomicBool,
    /// Held while `bots.toml` is read and written back.
    bots_file: Mutex<()>,
    done_tx: Mutex<mpsc::Sender<(Game, Finished)>>,
    fit_tx: Mutex<mpsc::Sender<Fit>>,
    /// Games out of the ratings (a quarantined worker's). Held by the recorder from a game's
    /// record to its hand-over to the fit, so that a recount from games.csv
    /// ([`Shared::recount`]) counts each game once: a game recorded before the recount is in
    /// it and was handed to the fit before it (and dropped with the standings it replaces); one
    /// recorded after is not in it and is handed over after it, unless it is out.
    out_of_ratings: Mutex<HashSet<u64>>,
}

/// What the ratings thread is handed, in order.
enum Fit {
    /// A recorded game to count.
    Game(Counted),
    /// Fit again (a bot came or went).
    Again,
    /// The standings counted again from games.csv, in place of those counted so far.
    Recounted(Box<ratings::Standings>),
}

/// A server that could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Folder(#[from] FolderError),
    #[error("{0}")]
    Other(String),
}

impl Shared {
    /// Marks `game` as being played by `worker` (a local worker's name or a remote session):
    /// listed as running and told to the page.
    pub fn started(&self, game: &Game, worker: &str) {
        let line = GameLine {
            game_id: game.game_id,
            bots: game.bots.clone(),
            ranks: None,
            reason: None,
            worker: Some(worker.to_string()),
        };
        self.live
            .lock()
            .unwrap()
            .running
            .insert(game.game_id, line.clone());
        self.tell("start", &line);
    }

    /// Tells every listener of the page.
    pub fn tell(&self, event: &str, data: &impl Serialize) {
        let text = serde_json::to_string(data).expect("an event serialises");
        let _ = self.events.send((event.to_string(), text));
    }

    /// Wakes the workers (a game may be ready to lease).
    pub fn wake(&self) {
        let _guard = self.wake_lock.lock().unwrap();
        self.wake.notify_all();
    }

    /// Asks for a new fit.
    pub fn refit(&self) {
        let _ = self.fit_tx.lock().unwrap().send(Fit::Again);
    }

    /// Takes the games in `out` out of the ratings: counts the standings again from games.csv
    /// without them (and without those taken out before), every bot in `known` with its line,
    /// and refits. The recorder waits meanwhile.
    pub fn recount(
        &self,
        out: impl IntoIterator<Item = u64>,
        known: &[String],
    ) -> Result<(), String> {
        let mut skip = self.out_of_ratings.lock().unwrap();
        skip.extend(out);
        let counted = super::trust::standings_without(&self.dir, &skip, known)?;
        let _ = self
            .fit_tx
            .lock()
            .unwrap()
            .send(Fit::Recounted(Box::new(counted)));
        Ok(())
    }

    /// Leases one game to `worker`, logging new tables first.
    fn lease(&self, worker: &str) -> Option<Game> {
        self.lease_games(worker, 1).pop()
    }

    /// Leases up to `slots` games to `worker` (a remote worker's session), logging new tables
    /// first.
    pub fn lease_games(&self, worker: &str, slots: usize) -> Vec<Game> {
        let mut sched = self.sched.lock().unwrap();
        let games = sched.lease(worker, slots, Instant::now());
        let fresh = sched.take_fresh();
        if let Err(e) = self.log.lock().unwrap().append(&fresh) {
            // Nothing may leave unlogged: a server that cannot write its folder stops.
            eprintln!(
                "arbiter: error: {e}; the league stops (fix the folder, then start it again)"
            );
            std::process::exit(3);
        }
        games
    }

    /// Hands a game played elsewhere (by a remote worker) to the recorder: the first result
    /// for a game id is recorded, later ones are dropped.
    pub fn finished(&self, game: Game, f: Finished) {
        let _ = self.done_tx.lock().unwrap().send((game, f));
    }

    /// Checks (builds, test-starts) `entry` and adds it to the league, or marks it broken.
    /// Runs on the calling (blocking) thread.
    pub fn admit(&self, entry: BotEntry) -> Result<(), String> {
        let name = entry.name.clone();
        self.live.lock().unwrap().building.push(name.clone());
        self.tell(
            "bot",
            &serde_json::json!({"name": name, "status": "building"}),
        );
        let checked = play::check(&entry, &self.table.referee);
        self.live.lock().unwrap().building.retain(|n| n != &name);
        let saved = self.update_bots(|bots| {
            folder::upsert(bots, entry.clone());
            Ok(())
        });
        self.counted.lock().unwrap().know(&name);
        let result = {
            let mut sched = self.sched.lock().unwrap();
            match checked {
                Ok(spec) => {
                    self.specs.write().unwrap().insert(name.clone(), spec);
                    sched.add_bot(&name);
                    if let Some(old) = &entry.candidate_of {
                        sched.set_priority(Some((name.clone(), old.clone())));
                        let mut sprt = self.sprt.lock().unwrap();
                        if sprt.as_ref().is_none_or(|t| t.new != name || &t.old != old) {
                            *sprt = Some(super::sprt::Test::new(&name, old));
                        }
                    }
                    Ok(())
                }
                Err(problem) => {
                    sched.set_idle(&name, Idle::Broken(problem.clone()));
                    Err(problem)
                }
            }
        };
        self.refit();
        self.wake();
        saved.and(result)
    }

    /// Reads `bots.toml`, changes it, writes it back (one change at a time).
    fn update_bots(
        &self,
        change: impl FnOnce(&mut Vec<BotEntry>) -> Result<(), String>,
    ) -> Result<(), String> {
        let _one = self.bots_file.lock().unwrap();
        let mut bots = folder::load_bots(&self.dir).map_err(|e| e.to_string())?;
        change(&mut bots)?;
        folder::save_bots(&self.dir, &bots).map_err(|e| e.to_string())
    }

    /// Stops playing `name` (its recorded games stay).
    pub fn remove(&self, name: &str) -> Result<(), String> {
        self.update_bots(|bots| match bots.iter_mut().find(|b| b.name == name) {
            Some(entry) => {
                entry.removed = true;
                Ok(())
            }
            None => Err(format!("no bot named '{name}' in this league")),
        })?;
        self.sched.lock().unwrap().set_idle(name, Idle::Removed);
        self.refit();
        Ok(())
    }
}

/// Opens the league in `dir` and starts its threads: `workers` local workers, the recorder and
/// the ratings. The bots are checked on their own threads (a slow build delays no game).
pub fn start(
    dir: PathBuf,
    settings: LeagueSettings,
    workers: usize,
) -> Result<Arc<Shared>, StartError> {
    let table = play::table(&settings).map_err(|e| StartError::Other(format!("{e:#}")))?;
    let seats = table.choice.seats();
    let (csv, done) =
        play::open_games(&dir, seats).map_err(|e| StartError::Other(format!("{e:#}")))?;
    let (log, scheduled) = ScheduleLog::open(&dir)?;
    let token_hash = folder::admin_token_hash(&dir)?;
    let bots = folder::load_bots(&dir)?;

    let mut sched = Scheduler::new(seats, settings.matchmaking.clone(), settings.seed);
    sched.set_capacity(workers.max(1));
    for b in &bots {
        sched.add_bot(&b.name);
        // Not played until checked.
        sched.set_idle(&b.name, Idle::Checking);
    }
    for g in scheduled {
        let recorded = done.contains(g.game_id);
        sched.restore(g, recorded);
    }
    let mut counted = ratings::Standings::default();
    for b in &bots {
        counted.know(&b.name);
    }
    let mut sprt = bots
        .iter()
        .rev()
        .find_map(|b| Some(super::sprt::Test::new(&b.name, b.candidate_of.as_ref()?)));
    let games_csv = [dir.join("games.csv")];
    crate::results::games_csv::try_for_each_result(&games_csv, |row| {
        if let Some(t) = &mut sprt {
            t.add(&row.bots, &row.ranks, row.pair_id.unwrap_or(0));
        }
        counted.add(&Counted {
            bots: row.bots,
            ranks: row.ranks,
            pair_id: row.pair_id.unwrap_or(0),
        });
        Ok::<(), crate::results::games_csv::ReadError>(())
    })
    .map_err(|e| StartError::Other(crate::errors::chain_text(&e)))?;
    let mut live = Live::default();
    read_records(&dir, &mut live);

    let (done_tx, done_rx) = mpsc::channel();
    let (fit_tx, fit_rx) = mpsc::channel();
    let (events, _) = tokio::sync::broadcast::channel(1024);
    let shared = Arc::new(Shared {
        dir: dir.clone(),
        settings,
        table,
        sched: Mutex::new(sched),
        log: Mutex::new(log),
        specs: RwLock::new(HashMap::new()),
        live: Mutex::new(live),
        standings: RwLock::new(Arc::new(ratings::Table::default())),
        counted: Mutex::new(counted),
        sprt: Mutex::new(sprt),
        events,
        token_hash,
        local_workers: workers,
        wake: Condvar::new(),
        wake_lock: Mutex::new(()),
        stop: AtomicBool::new(false),
        bots_file: Mutex::new(()),
        done_tx: Mutex::new(done_tx),
        fit_tx: Mutex::new(fit_tx),
        out_of_ratings: Mutex::default(),
    });
    {
        let s = shared.clone();
        std::thread::Builder::new()
            .name("league-ratings".into())
            .spawn(move || ratings_thread(&s, fit_rx))
            .expect("a thread starts");
    }
    shared.refit();
    {
        let s = shared.clone();
        std::thread::Builder::new()
            .name("league-recorder".into())
            .spawn(move || recorder_thread(&s, csv, done_rx))
            .expect("a thread starts");
    }
    for w in 0..workers {
        let s = shared.clone();
        std::thread::Builder::new()
            .name(format!("league-worker-{w}"))
            .spawn(move || worker_thread(&s, &format!("local-{w}")))
            .expect("a thread starts");
    }
    for b in bots.into_iter().filter(|b| !b.removed) {
        let s = shared.clone();
        std::thread::spawn(move || {
            let _ = s.admit(b);
        });
    }
    for b in folder::load_bots(&dir)?.into_iter().filter(|b| b.removed) {
        shared
            .sched
            .lock()
            .unwrap()
            .set_idle(&b.name, Idle::Removed);
    }
    Ok(shared)
}

/// What records.jsonl holds: the page's recent games, each bot's forfeits and stderr, and
/// where each game's record is (its replay page).
fn read_records(dir: &std::path::Path, live: &mut Live) {
    use std::io::BufRead;
    let path = dir.join(crate::results::records::FILE);
    let Ok(file) = std::fs::File::open(&path) else {
        return;
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
                    live.offsets.insert(rec.game_id, offset);
                }
                offset += n as u64;
            }
        }
    }
}

/// Adds a finished game to the page's lists.
fn note_record(live: &mut Live, rec: &crate::results::records::GameRecord) {
    live.running.remove(&rec.game_id);
    live.recent.push_front(GameLine {
        game_id: rec.game_id,
        bots: rec.bots.clone(),
        ranks: Some(rec.ranks.clone()),
        reason: Some(rec.reason.to_string()),
        worker: None,
    });
    live.recent.truncate(RECENT);
    for f in &rec.forfeits {
        let notes = live.notes.entry(rec.bots[f.seat].clone()).or_default();
        notes.forfeits.push_front(ForfeitLine {
            game_id: rec.game_id,
            reason: f.reason.to_string(),
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

fn worker_thread(s: &Shared, name: &str) {
    while !s.stop.load(Ordering::Relaxed) {
        let Some(game) = s.lease(name) else {
            let guard = s.wake_lock.lock().unwrap();
            let _ = s.wake.wait_timeout(guard, Duration::from_millis(500));
            continue;
        };
        let bots: Option<Vec<BotSpec>> = {
            let specs = s.specs.read().unwrap();
            game.bots.iter().map(|b| specs.get(b).cloned()).collect()
        };
        let Some(bots) = bots else {
            // A bot of a game from before a restart, not checked yet: it waits its turn.
            s.sched.lock().unwrap().release(game.game_id);
            std::thread::sleep(Duration::from_millis(200));
            continue;
        };
        s.started(&game, name);
        let finished = play::play(&s.table, &bots, &game);
        if s.done_tx.lock().unwrap().send((game, finished)).is_err() {
            break;
        }
    }
}

/// Completes each finished game in the scheduler and records the first result of each.
fn recorder_thread(s: &Shared, mut csv: play::GamesCsv, done: mpsc::Receiver<(Game, Finished)>) {
    let mut recorder =
        match play::Recorder::open(&mut csv, &s.dir, false, &s.table.choice, &s.table.referee) {
            Ok(r) => r,
            Err(e) => {
                eprintln!(
                    "arbiter: error: {e}; the league stops (fix the folder, then start it again)"
                );
                std::process::exit(3);
            }
        };
    let records = s.dir.join(crate::results::records::FILE);
    for (game, f) in done {
        let outcome = Outcome {
            forfeited: f.result.forfeits.iter().map(|x| x.seat).collect(),
            used: f
                .result
                .stats
                .iter()
                .map(|st| Duration::from_micros(st.total_us))
                .collect(),
        };
        let completion = s.sched.lock().unwrap().complete(game.game_id, &outcome);
        if completion != Completion::Accepted {
            s.live.lock().unwrap().running.remove(&game.game_id);
            continue;
        }
        let skip = s.out_of_ratings.lock().unwrap();
        let offset = std::fs::metadata(&records).map(|m| m.len()).unwrap_or(0);
        if let Err(e) = recorder.record(&f) {
            eprintln!(
                "arbiter: error: {e}; the league stops (fix the folder, then start it again)"
            );
            std::process::exit(3);
        }
        let rec = crate::results::records::GameRecord::new(
            &f.spec,
            &s.table.choice,
            &s.table.referee,
            &f.result,
        );
        {
            let mut live = s.live.lock().unwrap();
            note_record(&mut live, &rec);
            live.offsets.insert(game.game_id, offset);
        }
        if f.result.reason != crate::referee::Reason::RefereeError && !skip.contains(&game.game_id)
        {
            let _ = s.fit_tx.lock().unwrap().send(Fit::Game(Counted {
                bots: rec.bots.clone(),
                ranks: rec.ranks.clone(),
                pair_id: rec.pair_id,
            }));
        }
        drop(skip);
        s.tell(
            "game",
            &GameLine {
                game_id: rec.game_id,
                bots: rec.bots.clone(),
                ranks: Some(rec.ranks.clone()),
                reason: Some(rec.reason.to_string()),
                worker: None,
            },
        );
        s.wake();
    }
}

/// Refits whenever games arrived (all that queued up at once), off the games' path.
fn ratings_thread(s: &Shared, rx: mpsc::Receiver<Fit>) {
    while let Ok(first) = rx.recv() {
        let mut counted = s.counted.lock().unwrap();
        let mut sprt = s.sprt.lock().unwrap();
        for fit in std::iter::once(first).chain(rx.try_iter()) {
            match fit {
                Fit::Game(g) => {
                    if let Some(t) = sprt.as_mut() {
                        t.add(&g.bots, &g.ranks, g.pair_id);
                    }
                    counted.add(&g);
                }
                Fit::Again => {}
                Fit::Recounted(c) => *counted = *c,
            }
        }
        let (mut table, widths) = counted.fit();
        drop(counted);
        table.sprt = sprt.as_ref().map(|t| t.shown());
        let decided = sprt
            .as_ref()
            .is_some_and(|t| t.decision() != crate::rating::Decision::Continue);
        drop(sprt);
        {
            let sched = s.sched.lock().unwrap();
            let live = s.live.lock().unwrap();
            for line in &mut table.bots {
                (line.status, line.problem) = if live.building.contains(&line.name) {
                    ("building".into(), None)
                } else {
                    match sched.idle(&line.name) {
                        None => ("playing".into(), None),
                        Some(Idle::Removed) => ("removed".into(), None),
                        Some(Idle::Checking) => ("checking".into(), None),
                        Some(Idle::Broken(p)) => ("broken".into(), Some(p.clone())),
                        Some(Idle::Suspended { forfeits }) => (
                            "suspended".into(),
                            Some(format!(
                                "forfeited {forfeits} games in a row; fix it and add it again"
                            )),
                        ),
                    }
                };
            }
        }
        {
            let mut sched = s.sched.lock().unwrap();
            if decided {
                sched.set_priority(None);
            }
            for (name, rating, width) in widths {
                sched.set_rating(&name, rating, width);
            }
        }
        let games = table.games;
        *s.standings.write().unwrap() = Arc::new(table);
        s.tell("standings", &serde_json::json!({ "games": games }));
    }
}

/// The time now, for the page.
pub fn now_text() -> String {
    crate::report::html::data::utc(SystemTime::now())
}
