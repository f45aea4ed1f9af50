//! The run engine: plays a set of games into a results folder and tells consumers what happens.
//!
//! Every command that plays many games (`tournament`, `sprt`, `grade`, a shard of a Slurm job)
//! is a thin layer over it, so they share one play-and-record loop: the bot checks
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
mod game_settings;
mod placement;
mod record;
pub mod settings;
pub mod shards;
pub mod sprt;
pub mod start;
pub mod stop;

pub use bots::{check_bots, resolve_in, BotCheck, NameClash};
pub use detached::Detached;
pub use game_settings::{
    GameSettings, GameSettingsError, DEFAULT_FIRST_TURN_MS, DEFAULT_GAME, DEFAULT_TURN_MS,
};
pub use placement::{load_average, Placement};
pub use record::{RecordError, Recorder};
pub use start::{SprtRequest, StartError, TournamentRequest};

use crate::tournament::{Finished, GameSpec, Runner};
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
    /// A game ended and is recorded.
    GameFinished(&'a Finished),
    /// A game ended but could not be recorded; no more games are handed out.
    RecordFailed {
        game_id: u64,
        error: &'a RecordError,
    },
    /// The job is being stopped (a signal): a game that ended with a bot killed by that stop
    /// is not recorded (a continued run plays it again).
    Stopping { game_id: u64 },
}

/// Something that follows a run. Called on the engine's thread, in the order games are recorded;
/// `Break` stops handing out new games (games under way still finish and are recorded).
pub trait Consumer {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()>;
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
    /// A stop of the whole job was seen.
    pub stopped: bool,
}

/// Plays `todo` with `runner`, records each game with `recorder` the moment it may be (see
/// [`stop`]), then tells `consumers`. Recording runs on this thread while the games go on: a
/// game never waits for a record, a consumer, or the stop decision on another game.
pub fn play(
    runner: &Runner,
    todo: &[GameSpec],
    recorder: &mut Recorder,
    consumers: &mut [&mut dyn Consumer],
) -> RunEnd {
    let mut end = RunEnd::default();
    runner.run_queued(todo, |queue, halt| {
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
            let mut ready = held.release(Instant::now(), stop::stopping());
            if let Some(f) = next {
                ready.extend(held.admit(f, Instant::now(), stop::stopping()));
            }
            for step in ready {
                let flow = match step {
                    stop::Step::Record(f) => record_one(&f, recorder, consumers, &mut end),
                    stop::Step::Discard(f) => {
                        let game_id = f.spec.game_id;
                        end.stopped = true;
                        tell(consumers, &Event::Stopping { game_id })
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
    recorder: &mut Recorder,
    consumers: &mut [&mut dyn Consumer],
    end: &mut RunEnd,
) -> ControlFlow<()> {
    if end.failure.is_some() {
        // After a failure nothing more is recorded (the folder may be full or gone).
        return ControlFlow::Break(());
    }
    match recorder.record(f) {
        Ok(()) => {
            end.recorded += 1;
            tell(consumers, &Event::GameFinished(f))
        }
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

/// Tells every consumer; `Break` if any asks for it.
pub fn tell(consumers: &mut [&mut dyn Consumer], event: &Event<'_>) -> ControlFlow<()> {
    let mut flow = ControlFlow::Continue(());
    for c in consumers.iter_mut() {
        if c.event(event).is_break() {
            flow = ControlFlow::Break(());
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
        assert_eq!((end.recorded, end.stopped), (6, false));
        assert!(end.failure.is_none());
        told.sort_unstable();
        assert_eq!(told, (0..6).collect::<Vec<u64>>());
    }
}
