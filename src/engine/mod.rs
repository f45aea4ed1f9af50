//! The run engine: plays a set of games into a results folder and tells consumers what happens.
//!
//! Every command that plays many games (`tournament`, `sprt`, `grade`, a shard of a Slurm job)
//! is a thin layer over one call, [`run`]: it does the start sequence they share and plays,
//! with what differs between them a [`Kind`] (its hooks: which bots, which field, which games)
//! and what is shown a [`Consumer`]. A stop signal while the games go on is an event of the
//! engine: no more games are handed out, [`Event::Stopping`] is told, the games that ended
//! before it are recorded, and the run returns [`Completion::Stopped`]. They share one
//! play-and-record loop ([`play_dealt`], which the league's server runs too, on games dealt
//! from its schedule and recorded first result first): the bot checks
//! ([`check_bots`]), the worker pool ([`Runner`]), the records written the moment a game ends
//! ([`Recorder`]: games.csv, records.jsonl, failures/, replays/), and the decision whether a game
//! was spoilt by a stop of the whole job ([`stop`]), and the run's recorded settings, which make a
//! continued run the same run ([`settings`]). What else happens with a game (the progress
//! display, the live report, an SPRT's decision, grading marks) is a [`Consumer`]: it gets
//! [`Event`]s on the engine's own thread, never on a game's, and the games never wait for it; a
//! consumer that may be slow runs on a thread of its own ([`Detached`]), so that it delays
//! neither the recording nor a decision taken on the engine's thread. The library describes all
//! three kinds of run ([`settings`]: a tournament's, an SPRT's and a grading's settings files;
//! [`GameSettings`]: the game and its referee, built with typed errors); an SPRT's decision is
//! [`sprt`], a grading's marks are tallied by `grade::Tally`, and a tournament cut into shards is
//! checked and put back together with [`shards`]. What decides whether and how a run begins
//! (its settings from a request or its folder, the options a continued run refuses, the field
//! of bots that can play) is [`start`], with typed errors.

mod bots;
mod detached;
mod drive;
mod game_settings;
mod placement;
mod record;
mod run;
pub mod session;
pub mod settings;
pub mod shards;
pub mod sprt;
pub mod start;
pub mod stop;

pub use bots::{check_bots, resolve_in, BotCheck, CheckBotsError, NameClash};
pub use detached::Detached;
pub use drive::{play_into, DriveReport};
pub use game_settings::{
    GameSettings, GameSettingsError, DEFAULT_FIRST_TURN_MS, DEFAULT_GAME, DEFAULT_TURN_MS,
};
pub use placement::{files_for_games, load_average, Placement};
pub use record::{RecordError, Recorder};
pub use run::{
    prepare, run, Completion, Context, Kind, Prepared, Ran, Ready, Request, RunError, RunSettings,
};
pub use start::{SprtRequest, StartError, TournamentRequest};

use crate::tournament::{Deal, Finished, FinishedOrNot, GameSpec, Runner};
use std::ops::ControlFlow;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Instant;

/// What happens in a run, as it happens.
pub enum Event<'a> {
    /// A bot's build command starts (`command`).
    BotBuilding {
        bot: usize,
        name: &'a str,
        command: &'a str,
    },
    /// A bot's build command (announced by [`Event::BotBuilding`]) ended after `took`, with
    /// `ok` whether it built.
    BotBuilt {
        bot: usize,
        name: &'a str,
        took: std::time::Duration,
        ok: bool,
    },
    /// A bot built and started: it can play.
    BotReady { bot: usize, name: &'a str },
    /// A bot cannot play: it did not resolve, build or start (`problem` says why).
    BotBroken {
        bot: usize,
        name: &'a str,
        problem: &'a str,
    },
    /// A line for the user before the games (a bot made for another game, a note on a limit).
    Notice(&'a str),
    /// The start is done: what the run plays (see [`Ready`]).
    Ready(&'a Ready<'a>),
    /// The games of `runner` begin (`games` of them, recorded into `dir`); an SPRT whose
    /// decision late games took back plays again.
    Playing {
        runner: &'a Runner<'a>,
        games: usize,
        dir: &'a std::path::Path,
    },
    /// The games begun by [`Event::Playing`] are over (every one recorded, or a record failed,
    /// or a stop signal ended them).
    Played(&'a DriveReport),
    /// A game ended and is recorded.
    GameFinished(&'a Finished),
    /// A game ended but could not be recorded; no more games are handed out.
    RecordFailed {
        game_id: u64,
        error: &'a RecordError,
    },
    /// A stop signal (number `signal`) reached the referee: every bot was killed, no more
    /// games are handed out, the games that ended before it are recorded, and the run ends
    /// "stopped by signal". Told once.
    Stopping { signal: i32 },
    /// A game that ended with a bot killed by the stop is not recorded (a continued run plays
    /// it again).
    Dropped { game_id: u64 },
    /// What a consumer asked the others to show (see [`Consumer::notes`]).
    Note(&'a Note),
}

/// What a consumer of a run says for the others to show (an SPRT's test to the progress
/// display): typed facts, rendered by whoever shows them.
#[derive(Clone, Debug)]
pub enum Note {
    /// The games to play are only the most the run may play (an SPRT's --max-pairs): the time
    /// left is an upper bound.
    Bounded,
    /// The run ends before every game is played (an SPRT decided).
    Decided,
    /// An SPRT's log-likelihood ratio between its bounds, with the Elo estimate so far.
    Sprt {
        llr: f64,
        lower: f64,
        upper: f64,
        elo: Option<crate::rating::EloEstimate>,
    },
}

/// Something that follows a run. Called on the engine's thread, in the order games are recorded;
/// `Break` stops handing out new games (games under way still finish and are recorded).
pub trait Consumer {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()>;

    /// What this consumer wants the others told after the event it was just given, as
    /// [`Event::Note`]s, in order (none by default).
    fn notes(&mut self) -> Vec<Note> {
        Vec::new()
    }
}

impl<F: FnMut(&Event<'_>) -> ControlFlow<()>> Consumer for F {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        self(event)
    }
}

/// How a run of [`play`] ended.
#[derive(Debug, Default)]
pub struct RunEnd {
    /// Games recorded.
    pub recorded: usize,
    /// The first game that could not be recorded, and why.
    pub failure: Option<(u64, RecordError)>,
    /// The first game the machine could not start (no more were handed out; it and the games
    /// not handed out are played by a continued run).
    pub unplayed: Option<crate::tournament::Unplayed>,
    /// The stop signal that ended the run, if one did (see [`Event::Stopping`]).
    pub stopped: Option<i32>,
}

/// How a run keeps a finished game. The engine's [`Recorder`] keeps every game a run plays; a
/// league's keeps the first result of each game (a game whose lease ran out may be played
/// twice) and declines the later ones.
pub trait Record {
    /// Keeps `f` in the records, or declines it; an error stops the run's recording.
    fn record(&mut self, f: &Finished) -> Result<Recorded, RecordError>;
}

/// What [`Record::record`] did with a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Written to the records: the consumers are told.
    Kept,
    /// Not written (a later result of a game already recorded): nobody is told.
    Declined,
}

impl Record for Recorder<'_> {
    fn record(&mut self, f: &Finished) -> Result<Recorded, RecordError> {
        Recorder::record(self, f).map(|()| Recorded::Kept)
    }
}

/// Plays `todo` with `runner`, records each game with `recorder` the moment it may be (see
/// [`stop`]), then tells `consumers`. Recording runs on this thread while the games go on: a
/// game never waits for a record, a consumer, or the stop decision on another game. A stop
/// signal while it plays ends the run in order: no more games are handed out, the consumers
/// are told [`Event::Stopping`], the games that ended before it are recorded, and the end says
/// which signal.
pub fn play(
    runner: &Runner,
    todo: &[GameSpec],
    recorder: &mut Recorder,
    consumers: &mut [&mut dyn Consumer],
) -> RunEnd {
    let claim = crate::bot::cleanup::claim_stop();
    let (tx, rx) = std::sync::mpsc::channel();
    let listed = crate::tournament::Listed::new(todo, runner.bots);
    let mut end = play_dealt(runner, &listed, (tx, rx), recorder, consumers);
    // A signal after the last game is the caller's to handle (the command line's).
    end.stopped = claim.release();
    end
}

/// The games of a run's queue: its sending side (a league hands clones to whoever brings
/// results played elsewhere) and its receiving side.
pub type Queue = (
    std::sync::mpsc::Sender<FinishedOrNot>,
    std::sync::mpsc::Receiver<FinishedOrNot>,
);

/// Plays what `dealer` deals with `runner` and records every game that comes through `queue`
/// (the runner's, and any other sender's) with `record`, as [`play`] does for a list: held back
/// where a stop may have spoilt it ([`stop`]), recorded, then told to `consumers`. It ends when
/// the queue does (every worker ended and every other sender dropped). It does not claim the
/// stop signal: [`play`] does for a run, which ends itself in order; a league's server is ended
/// by the signal, and a game that a stop spoilt is dropped, not recorded, meanwhile.
pub fn play_dealt(
    runner: &Runner,
    dealer: &dyn Deal,
    (tx, rx): Queue,
    record: &mut dyn Record,
    consumers: &mut [&mut dyn Consumer],
) -> RunEnd {
    let mut end = RunEnd::default();
    let mut told_stop = false;
    runner.run_dealt(dealer, tx, rx, |queue, halt| {
        let mut held = stop::Held::default();
        let mut open = true;
        while open || !held.is_empty() {
            let next = match held.deadline() {
                _ if !open => None,
                Some(at) => {
                    match queue.recv_timeout(at.saturating_duration_since(Instant::now())) {
                        Ok(f) => Some(f),
                        Err(RecvTimeoutError::Timeout) => None,
                        Err(RecvTimeoutError::Disconnected) => {
                            open = false;
                            None
                        }
                    }
                }
                None => match queue.recv() {
                    Ok(f) => Some(f),
                    Err(_) => {
                        open = false;
                        None
                    }
                },
            };
            if !open {
                // Every game is in: wait out the held ones' deadlines.
                if let Some(at) = held.deadline() {
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                }
            }
            let stopping = stop::stopping();
            if stopping && !std::mem::replace(&mut told_stop, true) {
                halt.store(true, Ordering::Relaxed);
                let signal = crate::bot::cleanup::stop_signal().unwrap_or(0);
                let _ = tell(consumers, &Event::Stopping { signal });
            }
            let mut ready = held.release(Instant::now(), stopping);
            match next {
                Some(Ok(f)) => ready.extend(held.admit(f, Instant::now(), stopping)),
                // The machine failed, not a bot: nothing is recorded, and no game is handed out
                // that would fail the same way.
                Some(Err(unplayed)) => {
                    halt.store(true, Ordering::Relaxed);
                    end.unplayed.get_or_insert(unplayed);
                }
                None => {}
            }
            for step in ready {
                let flow = match step {
                    stop::Step::Record(f) => record_one(&f, record, consumers, &mut end),
                    stop::Step::Discard(f) => {
                        let game_id = f.spec.game_id;
                        tell(consumers, &Event::Dropped { game_id })
                    }
                };
                if flow.is_break() {
                    halt.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    end
}

/// Records one game and tells the consumers.
fn record_one(
    f: &Finished,
    record: &mut dyn Record,
    consumers: &mut [&mut dyn Consumer],
    end: &mut RunEnd,
) -> ControlFlow<()> {
    if end.failure.is_some() {
        // After a failure nothing more is recorded (the folder may be full or gone).
        return ControlFlow::Break(());
    }
    match record.record(f) {
        Ok(Recorded::Kept) => {
            end.recorded += 1;
            tell(consumers, &Event::GameFinished(f))
        }
        Ok(Recorded::Declined) => ControlFlow::Continue(()),
        Err(error) => {
            let _ = tell(
                consumers,
                &Event::RecordFailed {
                    game_id: f.spec.game_id,
                    error: &error,
                },
            );
            end.failure = Some((f.spec.game_id, error));
            ControlFlow::Break(())
        }
    }
}

/// Tells every consumer, then every consumer the notes they gave (see [`Consumer::notes`]);
/// `Break` if any asks for it.
pub fn tell(consumers: &mut [&mut dyn Consumer], event: &Event<'_>) -> ControlFlow<()> {
    let mut flow = ControlFlow::Continue(());
    let mut notes = Vec::new();
    for c in consumers.iter_mut() {
        if c.event(event).is_break() {
            flow = ControlFlow::Break(());
        }
        notes.extend(c.notes());
    }
    for note in &notes {
        for c in consumers.iter_mut() {
            if c.event(&Event::Note(note)).is_break() {
                flow = ControlFlow::Break(());
            }
        }
    }
    flow
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::BotSpec;
    use crate::referee::GameChoice;
    use crate::referee::RefereeConfig;
    use crate::results::games_csv::GamesCsv;
    use crate::tournament::{schedule, Format};

    fn missing(name: &str) -> BotSpec {
        BotSpec::command(name, "/no/such/program", Vec::new(), ".")
    }

    #[test]
    fn every_game_is_recorded_then_told() {
        let dir = tempfile::tempdir().unwrap();
        let bots = [missing("a"), missing("b")];
        let cfg = RefereeConfig::default();
        let choice = GameChoice::new("impasse", None, None, None).unwrap();
        let runner = Runner {
            bots: &bots,
            game: &choice,
            opening_plies: 0,
            book: None,
            referee: &cfg,
            concurrency: 2,
            pin_cpus: false,
        };
        let games = schedule(2, Format::RoundRobin, 6, 1);
        let csv_path = dir.path().join("games.csv");
        let (mut csv, _) = GamesCsv::open(&csv_path, 2).unwrap();
        let mut recorder = Recorder::open(&mut csv, dir.path(), false, &choice, &cfg).unwrap();
        let mut told = Vec::new();
        let mut follow = |e: &Event<'_>| {
            if let Event::GameFinished(f) = e {
                // Told after the row is written: a consumer may read the files.
                let rows = std::fs::read_to_string(dir.path().join("games.csv")).unwrap();
                assert!(rows.lines().count() > told.len(), "told before recorded");
                told.push(f.spec.game_id);
            }
            ControlFlow::Continue(())
        };
        let end = play(&runner, &games, &mut recorder, &mut [&mut follow]);
        assert_eq!((end.recorded, end.stopped), (6, None));
        assert!(
            end.unplayed.is_none(),
            "a missing program is the bot's failure"
        );
        assert!(end.failure.is_none());
        told.sort_unstable();
        assert_eq!(told, (0..6).collect::<Vec<u64>>());
    }

    /// Deals games 0..`until` (bots that cannot start: each game ends at once), then none.
    struct Endless {
        bots: [BotSpec; 2],
        next: std::sync::atomic::AtomicU64,
        until: u64,
    }

    impl crate::tournament::Deal for Endless {
        fn next(
            &self,
            _worker: usize,
            _halt: &std::sync::atomic::AtomicBool,
        ) -> Option<crate::tournament::Dealt> {
            let id = self.next.fetch_add(1, Ordering::Relaxed);
            (id < self.until).then(|| crate::tournament::Dealt {
                spec: GameSpec {
                    game_id: id,
                    pair_id: id,
                    seed: id,
                    seats: vec![0, 1],
                },
                bots: self.bots.to_vec(),
                opening: crate::tournament::Opening::Own,
            })
        }

        fn most(&self) -> Option<usize> {
            None
        }
    }

    /// Keeps the first result of each game id.
    #[derive(Default)]
    struct FirstWins(std::collections::HashSet<u64>);

    impl Record for FirstWins {
        fn record(&mut self, f: &Finished) -> Result<Recorded, RecordError> {
            Ok(match self.0.insert(f.spec.game_id) {
                true => Recorded::Kept,
                false => Recorded::Declined,
            })
        }
    }

    #[test]
    fn a_dealt_run_records_the_workers_games_and_those_sent_from_elsewhere_and_tells_kept_ones_once(
    ) {
        let cfg = RefereeConfig::default();
        let choice = GameChoice::new("impasse", None, None, None).unwrap();
        let runner = Runner::dealt(&choice, &cfg, 2);
        let dealer = Endless {
            bots: [missing("a"), missing("b")],
            next: Default::default(),
            until: 6,
        };
        let (tx, rx) = std::sync::mpsc::channel();
        // Another sender (a league's remote results): game 3 again, and game 100.
        let elsewhere = tx.clone();
        let sender = std::thread::spawn(move || {
            for id in [3, 100] {
                let spec = GameSpec {
                    game_id: id,
                    pair_id: id,
                    seed: id,
                    seats: vec![0, 1],
                };
                let result = crate::referee::GameResult::unplayed(
                    "impasse",
                    id,
                    vec!["a".into(), "b".into()],
                    Vec::new(),
                    "played elsewhere".into(),
                );
                elsewhere.send(Ok(Finished { spec, result })).unwrap();
            }
        });
        let mut told = Vec::new();
        let mut follow = |e: &Event<'_>| {
            if let Event::GameFinished(f) = e {
                told.push(f.spec.game_id);
            }
            ControlFlow::Continue(())
        };
        let mut record = FirstWins::default();
        // Ends once the workers are dealt none and the other sender is gone.
        let end = play_dealt(&runner, &dealer, (tx, rx), &mut record, &mut [&mut follow]);
        sender.join().unwrap();
        told.sort_unstable();
        assert_eq!(
            told,
            vec![0, 1, 2, 3, 4, 5, 100],
            "each kept game told once"
        );
        assert_eq!(end.recorded, 7);
        assert!(end.failure.is_none() && end.unplayed.is_none());
        assert_eq!(end.stopped, None, "a dealt run does not claim the stop");
    }
}
