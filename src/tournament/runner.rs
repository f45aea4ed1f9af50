//! Plays the games a dealer deals (a run's list, a league's schedule: see [`super::deal`]) on a
//! fixed number of worker threads (one game per worker at a time,
//! one thread per worker for the whole run, never one per game or turn) and hands each finished
//! game to the caller, in the caller's thread, the moment it ends. The hand-over never waits for
//! the caller: a worker queues its game and takes the next one at once, so nothing the caller
//! does with a game (recording it, a report, a decision) slows the games.
//!
//! Where bots can be held before their game (isolated bots: as root, without the sandbox), fewer
//! workers than CPUs leave some spare, and the dealer lets a worker take its next game early
//! (a list does, a league's schedule does not: [`Deal::ahead`]), each worker has a bot starter, a thread of its own
//! on the spare CPUs, that starts the bots of the worker's next game while the worker plays the
//! current one: their namespaces, inits, users, cgroups and seccomp filters are set up off the
//! game's CPU and time, and the bots' programs start only when their game does (see
//! `BotProcess::spawn_held`). Where games are pinned and CPUs are spare, the process's other
//! threads (recording, the progress display, the live report) also move there for the run, so
//! that a game's CPU runs only the game.

use super::deal::{Deal, Dealt, Finished, FinishedOrNot, Listed, Opening, Unplayed};
use super::openings::Book;
use super::schedule::{opening_from, opening_told, GameSpec};
use crate::bot::{BotProcess, BotSpec};
use crate::referee::GameChoice;
use crate::referee::{
    self, GameResult, NotPlayed, NotPlayedError, Reason, RefereeConfig, RefereeError,
};
use std::ops::ControlFlow;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// What the games are played with.
pub struct Runner<'a> {
    pub bots: &'a [BotSpec],
    pub game: &'a GameChoice,
    pub opening_plies: u32,
    /// An opening book: each table round starts from its line (before any random plies).
    pub book: Option<&'a Book>,
    pub referee: &'a RefereeConfig,
    pub concurrency: usize,
    /// Pin worker `w` (and so the bots it starts, which inherit its CPU) to the `w`-th CPU this
    /// process may use. Bots of one game take turns, so one CPU serves a game well, and turns cost
    /// about half as much; a bot that thinks with several threads gets one CPU.
    pub pin_cpus: bool,
}

/// The names of the threads that play games (then the worker's number) and start their bots.
const WORKER_THREAD: &str = "game-worker-";
const STARTER_THREAD: &str = "bot-starter-";

/// The CPUs this thread may run on.
pub fn allowed_cpus() -> Vec<usize> {
    use rustix::thread::{sched_getaffinity, CpuSet};
    sched_getaffinity(None).map_or_else(
        |_| Vec::new(),
        |set| (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
    )
}

/// Pins the calling thread (and the processes it starts afterwards) to `cpu`.
pub fn pin_this_thread(cpu: usize) -> std::io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set).map_err(std::io::Error::from)
}

/// This process's threads restricted to some CPUs until dropped, then each back on the CPUs
/// it had (a thread started meanwhile: on the CPUs the mover had). Threads started meanwhile
/// by a moved thread are moved too (Linux copies a thread's CPUs to the threads it creates).
struct OnCpus {
    before: Vec<(i32, rustix::thread::CpuSet)>,
    mover: Option<rustix::thread::CpuSet>,
}

/// The thread ids of this process but the games' own threads (workers and bot starters,
/// which place themselves; another run's, where a program runs several at once).
fn own_threads() -> Vec<i32> {
    let of_games = |tid: i32| {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/comm"))
            .is_ok_and(|name| name.starts_with(WORKER_THREAD) || name.starts_with(STARTER_THREAD))
    };
    std::fs::read_dir("/proc/self/task")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .filter(|&tid| !of_games(tid))
                .collect()
        })
        .unwrap_or_default()
}

/// The CPUs thread `tid` may run on.
fn affinity_of(tid: i32) -> Option<rustix::thread::CpuSet> {
    let pid = rustix::process::Pid::from_raw(tid)?;
    rustix::thread::sched_getaffinity(Some(pid)).ok()
}

/// Restricts thread `tid` to `set` (a thread that has ended meanwhile is left).
fn set_affinity_of(tid: i32, set: &rustix::thread::CpuSet) {
    if let Some(pid) = rustix::process::Pid::from_raw(tid) {
        let _ = rustix::thread::sched_setaffinity(Some(pid), set);
    }
}

impl OnCpus {
    fn move_all(cpus: &[usize]) -> OnCpus {
        let mut set = rustix::thread::CpuSet::new();
        cpus.iter().for_each(|&c| set.set(c));
        let mover = rustix::thread::sched_getaffinity(None).ok();
        let mut before = Vec::new();
        for tid in own_threads() {
            if let Some(old) = affinity_of(tid) {
                set_affinity_of(tid, &set);
                before.push((tid, old));
            }
        }
        OnCpus { before, mover }
    }
}

impl Drop for OnCpus {
    fn drop(&mut self) {
        for tid in own_threads() {
            match self.before.iter().find(|(t, _)| *t == tid) {
                Some((_, old)) => set_affinity_of(tid, old),
                None => {
                    if let Some(mover) = &self.mover {
                        set_affinity_of(tid, mover);
                    }
                }
            }
        }
    }
}

/// The bots of a game started ahead of it by a worker's bot starter (`None` where they could
/// not be held, or the starter failed: the worker starts them itself).
type HeldBots = Option<Result<Vec<BotProcess>, RefereeError>>;

impl<'a> Runner<'a> {
    /// A runner of dealt games, each of which carries its bots (a league's: its field changes
    /// as it plays), `concurrency` at a time: no random plies, no book, not pinned (set them
    /// where the dealer's games start from the runner's own openings).
    pub fn dealt(game: &'a GameChoice, referee: &'a RefereeConfig, concurrency: usize) -> Self {
        Runner {
            bots: &[],
            game,
            opening_plies: 0,
            book: None,
            referee,
            concurrency,
            pin_cpus: false,
        }
    }

    /// Plays `games`; `on_finished` runs in the calling thread for each game that ended (or
    /// could not start), in the order they end. Returning `Break` stops handing out new games;
    /// games already under way still finish and are reported.
    pub fn run(
        &self,
        games: &[GameSpec],
        mut on_finished: impl FnMut(FinishedOrNot) -> ControlFlow<()>,
    ) {
        self.run_queued(games, |queue, stop| {
            for finished in queue {
                if on_finished(finished).is_break() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        });
    }

    /// How many workers play the games of a dealer that deals at most `most` (`None`: no end).
    fn workers(&self, most: Option<usize>) -> usize {
        match most {
            Some(games) => self.concurrency.clamp(1, games.max(1)),
            // A league may have no local worker: its games are all played elsewhere.
            None => self.concurrency,
        }
    }

    /// Whether playing `games` games keeps every CPU this process may use: no CPU is spare for
    /// starting bots ahead or for the caller's own work.
    pub fn fills_every_cpu(&self, games: usize) -> bool {
        self.workers(Some(games)) >= allowed_cpus().len()
    }

    /// Plays `games` (seats: indices into the runner's bots) as [`Runner::run_dealt`] plays
    /// what a dealer deals, on a queue of its own: it ends when every game has been handed
    /// over.
    pub fn run_queued(
        &self,
        games: &[GameSpec],
        consume: impl FnOnce(mpsc::Receiver<FinishedOrNot>, &AtomicBool),
    ) {
        let (tx, rx) = mpsc::channel::<FinishedOrNot>();
        self.run_dealt(&Listed::new(games, self.bots), tx, rx, consume);
    }

    /// Plays what `dealer` deals while `consume` runs in the calling thread with the queue of
    /// finished games and the flag that stops dealing new games. Each worker's ended games go
    /// into `tx`, the sending side of the queue `rx`; the queue ends when every worker has
    /// ended and every other sender of `tx` (a league's remote results) is dropped. Workers
    /// never wait for `consume`: a game under way when the flag is set still finishes and is
    /// queued, so a worker runs at most one game past a stop. While `consume` lags behind (a
    /// slow record or report), the workers go on playing: a stop it asks for takes effect when
    /// it reads the flag, so a few more games than a synchronous hand-over would play may be
    /// queued. (An unbounded queue: a worker never waits for the consumer; a rendezvous channel
    /// made every game wait while the consumer recorded, or paused over a crash.)
    pub fn run_dealt(
        &self,
        dealer: &dyn Deal,
        tx: mpsc::Sender<FinishedOrNot>,
        rx: mpsc::Receiver<FinishedOrNot>,
        consume: impl FnOnce(mpsc::Receiver<FinishedOrNot>, &AtomicBool),
    ) {
        let stop = AtomicBool::new(false);
        let workers = self.workers(dealer.most());
        let allowed = allowed_cpus();
        let cpus = if self.pin_cpus {
            allowed.clone()
        } else {
            Vec::new()
        };
        // Bots are started ahead only where fewer workers than CPUs leave some spare: on the
        // CPUs no worker has when pinned (a game on a CPU of its own then never shares it with
        // the next game's start), anywhere otherwise. Where every CPU has a worker, each worker
        // starts its bots itself between games, as the work would otherwise land in the turns
        // of bots thinking on every CPU.
        let spare: Vec<usize> = match (workers < allowed.len(), self.pin_cpus) {
            (false, _) => Vec::new(),
            (true, true) => allowed[workers..].to_vec(),
            (true, false) => allowed.clone(),
        };
        // Where games are pinned and some CPUs are spare, this process's other threads (the
        // caller's recording, the progress display, the live report's page writer, the
        // signal watcher) run there until the games are over: on a game's CPU they took 8% of
        // it in a concurrency-1 tournament. Moved before the workers start, which pin
        // themselves.
        let _away = (self.pin_cpus && !spare.is_empty()).then(|| OnCpus::move_all(&spare));
        std::thread::scope(|scope| {
            for w in 0..workers {
                let tx = tx.clone();
                let stop = &stop;
                let cpu = (!cpus.is_empty()).then(|| cpus[w % cpus.len()]);
                let spare = &spare;
                std::thread::Builder::new()
                    .name(format!("{WORKER_THREAD}{w}"))
                    .spawn_scoped(scope, move || {
                        if let Some(cpu) = cpu {
                            let _ = pin_this_thread(cpu);
                        }
                        self.work(dealer, stop, &tx, (w, cpu, spare));
                        crate::bot::cgroup::drop_spares();
                    })
                    .expect("cannot start a worker thread");
            }
            drop(tx);
            consume(rx, &stop);
        });
    }

    /// One worker (number, CPU, the spare CPUs its bot starter may use: none, no starter):
    /// takes the next game until none is left or `stop` is set.
    fn work(
        &self,
        dealer: &dyn Deal,
        stop: &AtomicBool,
        tx: &mpsc::Sender<FinishedOrNot>,
        (worker, cpu, spare): (usize, Option<usize>, &[usize]),
    ) {
        let take = || {
            (!stop.load(Ordering::Relaxed))
                .then(|| dealer.next(worker, stop))
                .flatten()
        };
        let send = |dealt: Dealt, result: Result<GameResult, Unplayed>| {
            let ended = result.map(|result| Finished {
                spec: dealt.spec,
                result,
            });
            match dealer.ended(worker, ended) {
                Some(ended) => tx.send(ended).is_ok(),
                None => true,
            }
        };
        let holds = !spare.is_empty()
            && dealer.ahead()
            && self.game.rules().is_some()
            && BotProcess::can_hold(&self.referee.limits);
        if !holds {
            while let Some(dealt) = take() {
                let result = self.play_dealt(&dealt, None);
                if !send(dealt, result) {
                    break;
                }
            }
            return;
        }
        std::thread::scope(|scope| {
            let (ask, asked) = mpsc::channel::<(Dealt, Vec<crate::bot::cgroup::Cgroup>)>();
            let (give, given) = mpsc::channel::<(Dealt, HeldBots)>();
            std::thread::Builder::new()
                .name(format!("{STARTER_THREAD}{worker}"))
                .spawn_scoped(scope, move || {
                    // On the spare CPUs: the namespaces and inits of the next game are set up
                    // beside the game.
                    let mut set = rustix::thread::CpuSet::new();
                    spare.iter().for_each(|&c| set.set(c));
                    let _ = rustix::thread::sched_setaffinity(None, &set);
                    for (dealt, spares) in asked {
                        crate::bot::cgroup::adopt_spares(spares);
                        let held = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            referee::start_held(&dealt.bots, self.referee, dealt.spec.seed, cpu)
                        }));
                        if give.send((dealt, held.ok().flatten())).is_err() {
                            break;
                        }
                    }
                    crate::bot::cgroup::drop_spares();
                })
                .expect("cannot start a bot starter thread");
            let Some(first) = take() else {
                return;
            };
            let _ = ask.send((first, Vec::new()));
            // The game whose bots the starter is starting.
            let mut asked_for = true;
            while asked_for {
                let Ok((dealt, held)) = given.recv() else {
                    break;
                };
                // The next game's bots start while this one is played, in cgroups that the
                // games before this one left.
                asked_for = match take() {
                    Some(f) => ask.send((f, crate::bot::cgroup::take_spares())).is_ok(),
                    None => false,
                };
                let result = self.play_dealt(&dealt, held);
                if !send(dealt, result) {
                    break;
                }
                // A stop asked for during this game: the next one's bots are ended unplayed.
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            drop(ask);
            // The next game's held bots (if any) are ended as they are dropped.
            drop(given);
        });
    }

    /// The bots of `spec`, seat by seat.
    fn bots_of(&self, spec: &GameSpec) -> Vec<BotSpec> {
        spec.seats.iter().map(|&i| self.bots[i].clone()).collect()
    }

    /// Plays one game of the runner's bots (`spec.seats` index them); whatever goes wrong in
    /// the referee becomes a `referee-error` result, but a game the machine could not start is
    /// [`Unplayed`].
    pub fn play_one(&self, spec: &GameSpec) -> Result<GameResult, Unplayed> {
        let dealt = Dealt {
            spec: spec.clone(),
            bots: self.bots_of(spec),
            opening: Opening::Own,
        };
        self.play(&dealt)
    }

    /// Plays one dealt game on the calling thread (as [`Runner::play_one`]).
    pub fn play(&self, dealt: &Dealt) -> Result<GameResult, Unplayed> {
        self.play_dealt(dealt, None)
    }

    /// Plays a dealt game, with its bots started ahead by a bot starter where they were.
    fn play_dealt(&self, dealt: &Dealt, held: HeldBots) -> Result<GameResult, Unplayed> {
        let (spec, bots) = (&dealt.spec, &dealt.bots);
        match &dealt.opening {
            Opening::Own => {
                let book = self.book.map(|b| (b, spec.pair_id));
                self.play_from(spec, bots, held, || {
                    opening_from(self.game, spec.seed, self.opening_plies, book)
                })
            }
            Opening::Told(moves) => self.play_from(spec, bots, held, || {
                opening_told(self.game, spec.seed, moves)
            }),
        }
    }

    /// Plays one game from the position `start` makes.
    fn play_from<E: std::error::Error + Send + Sync + 'static>(
        &self,
        spec: &GameSpec,
        bots: &[BotSpec],
        held: HeldBots,
        start: impl Fn() -> Result<(Box<dyn crate::game::Game>, Vec<String>), E>,
    ) -> Result<GameResult, Unplayed> {
        let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
        // What this thread reads of the bots while they play fails when the machine is out of
        // descriptors: noted from here on (see below).
        crate::bot::machine::take_noted();
        let attempt = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let Some(held) = held else {
                return referee::play_choice(self.game, start, bots, self.referee, spec.seed);
            };
            let (position, moves) = start().map_err(|e| NotPlayed::start(Vec::new(), e))?;
            let procs = match held {
                Ok(procs) => procs,
                Err(e) => return Err(NotPlayed::of(moves, e)),
            };
            let played = referee::play_held(position, &moves, bots, procs, self.referee, spec.seed);
            played.map_err(|e| NotPlayed::of(moves, e))
        }));
        let not_played = match attempt {
            Ok(Ok(result)) => {
                // A forfeit while the machine failed to let the referee watch the bots (their
                // clocks' files, their cgroups) may be the machine's doing: the game is not
                // recorded, as one that could not start.
                let doubtful = !result.forfeits.is_empty() || result.reason == Reason::RefereeError;
                return match crate::bot::machine::take_noted().filter(|_| doubtful) {
                    Some(fault) => Err(Unplayed {
                        spec: spec.clone(),
                        fault,
                        detail: format!(
                            "arbiter could not watch the game's bots while they played ({}), \
                             and a bot lost it by {}",
                            std::io::Error::from_raw_os_error(fault.errno()),
                            result.reason
                        ),
                    }),
                    None => Ok(result),
                };
            }
            Ok(Err(not_played)) => not_played,
            Err(panic) => NotPlayed {
                opening: Vec::new(),
                why: NotPlayedError::Panicked(
                    panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())),
                ),
            },
        };
        if let Some(fault) = not_played.machine() {
            return Err(Unplayed {
                spec: spec.clone(),
                fault,
                detail: not_played.detail(),
            });
        }
        Ok(GameResult::unplayed(
            self.game.name(),
            spec.seed,
            names,
            not_played.opening,
            not_played.why.to_string(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::Reason;
    use crate::tournament::schedule::{schedule, Format};

    fn missing(name: &str) -> BotSpec {
        BotSpec::command(name, "/no/such/program", Vec::new(), ".")
    }

    #[test]
    fn a_game_the_referee_cannot_play_is_recorded_and_the_rest_go_on() {
        let bots = [missing("a"), missing("b")];
        let cfg = RefereeConfig::default();
        let runner = Runner {
            bots: &bots,
            game: &GameChoice::new("impasse", None, None, None).unwrap(),
            opening_plies: 2,
            book: None,
            referee: &cfg,
            concurrency: 2,
            pin_cpus: true,
        };
        let games = schedule(2, Format::RoundRobin, 4, 1);
        let mut seen = Vec::new();
        runner.run(&games, |f| {
            let f = f.expect("a missing program is the bot's failure");
            assert_eq!(f.result.reason, Reason::RefereeError);
            assert!(
                f.result.detail.contains("cannot start"),
                "{}",
                f.result.detail
            );
            assert_eq!(f.result.opening.len(), 2, "the opening is still recorded");
            seen.push(f.spec.game_id);
            ControlFlow::Continue(())
        });
        seen.sort_unstable();
        assert_eq!(seen, vec![0, 1, 2, 3]);
    }

    #[test]
    fn break_stops_handing_out_games() {
        let bots = [missing("a"), missing("b")];
        let cfg = RefereeConfig::default();
        let runner = Runner {
            bots: &bots,
            game: &GameChoice::new("impasse", None, None, None).unwrap(),
            opening_plies: 0,
            book: None,
            referee: &cfg,
            concurrency: 1,
            pin_cpus: false,
        };
        let games = schedule(2, Format::RoundRobin, 20, 1);
        let mut n = 0;
        runner.run(&games, |_| {
            n += 1;
            ControlFlow::Break(())
        });
        assert!(n <= 2, "{n}");
    }
}
