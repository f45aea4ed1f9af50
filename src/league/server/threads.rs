//! What the league server's threads do besides recording: its local workers' dealing (the
//! engine's runner plays the games; this says which game each worker plays next), the renewal
//! of their leases, and the ratings' refits.

use super::*;
use crate::tournament::{Deal, Dealt, FinishedOrNot, Opening};

/// The name of local worker `w` (as its leases and the page name it).
pub(super) fn local_name(w: usize) -> String {
    format!("local-{w}")
}

/// Renews the local workers' leases every third of a lease time, as a remote worker does: a
/// local game longer than the lease is never handed to another worker, and the lease can be
/// short (a killed remote worker's games move on within it).
pub(super) fn renew_thread(s: &Shared, workers: usize) {
    while !s.stop.load(Ordering::Relaxed) {
        let every = Duration::from_secs(s.state().sched.knobs().lease_s) / 3;
        std::thread::sleep(every.max(Duration::from_millis(100)));
        let mut state = s.state();
        let now = Instant::now();
        for w in 0..workers {
            state.sched.renew(&local_name(w), now);
        }
    }
}

/// The server's own workers as the engine's runner deals to them: worker `w` leases one game
/// at a time from the schedule under its name ([`local_name`]), waiting while there is none,
/// and plays it from the league's opening of its table, as a tournament's worker plays its
/// game. A game its machine could not start goes back to the schedule unrecorded, and that
/// worker waits before it takes another ([`super::super::backoff`]). No game is dealt once
/// the league cannot record, or once the engine halts.
pub(super) struct LocalWorkers<'a> {
    pub s: &'a Shared,
}

impl Deal for LocalWorkers<'_> {
    fn next(&self, worker: usize, halt: &AtomicBool) -> Option<Dealt> {
        let (s, name) = (self.s, local_name(worker));
        loop {
            if halt.load(Ordering::Relaxed)
                || s.stop.load(Ordering::Relaxed)
                || s.recording_failure().is_some()
            {
                return None;
            }
            let Some(game) = s.lease(&name) else {
                s.wait_for_work(Duration::from_millis(500));
                continue;
            };
            let bots: Option<Vec<BotSpec>> = {
                let state = s.state();
                game.bots
                    .iter()
                    .map(|b| state.specs.get(b).cloned())
                    .collect()
            };
            let Some(bots) = bots else {
                // A bot of a game from before a restart, not checked yet: it waits its turn.
                s.state().sched.release(game.game_id);
                std::thread::sleep(Duration::from_millis(200));
                continue;
            };
            s.started(&game, &name);
            return Some(Dealt {
                spec: play::spec_of(&game, bots.len()),
                bots,
                opening: Opening::Own,
            });
        }
    }

    fn most(&self) -> Option<usize> {
        None
    }

    fn ahead(&self) -> bool {
        false
    }

    fn ended(&self, _worker: usize, ended: FinishedOrNot) -> Option<FinishedOrNot> {
        const WHO: &str = "the league's local workers";
        match ended {
            Ok(f) => {
                self.s.backoff.started(WHO);
                Some(Ok(f))
            }
            Err(unplayed) => {
                // The machine failed, not a bot: the game goes back to the queue unrecorded,
                // and this worker waits before it takes another.
                self.s.release(unplayed.spec.game_id);
                let pause = self
                    .s
                    .backoff
                    .failed(WHO, unplayed.fault, &unplayed.to_string());
                std::thread::sleep(pause);
                None
            }
        }
    }
}

/// Refits whenever games arrived (all that queued up at once), off the games' path: the
/// games are counted under the state's lock, the fit is made on a copy of the tally without it.
pub(super) fn ratings_thread(s: &Shared, rx: mpsc::Receiver<Fit>) {
    while let Ok(first) = rx.recv() {
        let (counted, sprts) = {
            // The logs' lock before the state's: the tests these games end are logged after
            // their starts.
            let mut logs = s.logs.locked();
            let (counted, sprts, ended) = {
                let mut state = s.state();
                let state = &mut *state;
                let mut ended = Vec::new();
                for fit in std::iter::once(first).chain(rx.try_iter()) {
                    match fit {
                        Fit::Game(g, game_id) => {
                            ended.extend(state.sprt.add(
                                game_id,
                                &g.bots,
                                &g.ranks,
                                g.pair_id,
                                UtcTime::now(),
                            ));
                            state.counted.add(&g);
                        }
                        Fit::Again => {}
                        Fit::Recounted(c) => state.counted = *c,
                    }
                }
                (state.counted.clone(), state.sprt.shown(), ended)
            };
            s.log_sprt(&mut logs, ended);
            (counted, sprts)
        };
        let (mut table, widths) = counted.fit();
        table.sprts = sprts;
        // The page's first test: the latest running one, else the latest.
        table.sprt = table
            .sprts
            .iter()
            .rev()
            .find(|t| t.verdict == crate::league::sprt::SprtVerdict::Running)
            .or(table.sprts.last())
            .cloned();
        {
            let mut state = s.state();
            for line in &mut table.bots {
                (line.status, line.problem) = if state.live.building.contains(&line.name) {
                    (ratings::BotStatus::Building, None)
                } else {
                    match state.sched.idle(&line.name) {
                        None => (ratings::BotStatus::Playing, None),
                        Some(Idle::Removed) => (ratings::BotStatus::Removed, None),
                        Some(Idle::Checking) => (ratings::BotStatus::Checking, None),
                        Some(Idle::Broken(p)) => (ratings::BotStatus::Broken, Some(p.clone())),
                        Some(Idle::Suspended { forfeits }) => (
                            ratings::BotStatus::Suspended,
                            Some(format!(
                                "forfeited {forfeits} games in a row; fix it and add it again"
                            )),
                        ),
                    }
                };
            }
            let running = state.sprt.running();
            state.sched.set_priority(running);
            for (name, rating, width) in widths {
                state.sched.set_rating(&name, rating, width);
            }
        }
        let games = table.games;
        *s.standings.writing() = Arc::new(table);
        s.tell(crate::league::events::LeagueEvent::Standings { games });
    }
}
