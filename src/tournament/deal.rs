//! Where a runner's workers take their games. A run plays a list it knows from the start
//! ([`Listed`]: a tournament's schedule, an SPRT's pairs, a grading's games, a shard), each game
//! once; a league plays a schedule that deals its games as bots come and go, and never ends.
//! Both are a [`Deal`]: the runner's workers, their CPUs, their bot starters and the engine's
//! recording loop are the same for both, and only what the next game is, and what a game the
//! machine could not start means, differ. What a dealt game came to ([`Finished`], [`Unplayed`])
//! is said here too, for the dealer and the runner alike.

use super::schedule::GameSpec;
use crate::bot::{BotSpec, MachineFault};
use crate::referee::GameResult;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A game dealt to a worker: what it is, the bots of its seats, and where its position comes
/// from.
pub struct Dealt {
    pub spec: GameSpec,
    /// The bots, seat by seat.
    pub bots: Vec<BotSpec>,
    pub opening: Opening,
}

/// Where a dealt game's first position comes from.
pub enum Opening {
    /// The runner's own: its book's line for the game's pair, then its random plies.
    Own,
    /// Moves told by another (a league's server tells a remote worker its games' openings: the
    /// worker has neither the book nor the plies); moves that cannot be played make the game
    /// a `referee-error` that says so.
    Told(Vec<String>),
}

/// A finished game with the spec it was played for.
pub struct Finished {
    pub spec: GameSpec,
    pub result: GameResult,
}

/// A game the machine could not start (out of descriptors, memory, processes: see
/// [`MachineFault`]): it has no result, since no bot is at fault, and is played again later.
#[derive(Clone, Debug)]
pub struct Unplayed {
    pub spec: GameSpec,
    pub fault: MachineFault,
    /// What could not start, and the system's error.
    pub detail: String,
}

impl std::fmt::Display for Unplayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {}: {}: {}; the machine failed, not a bot, so the game is not recorded",
            self.spec.game_id,
            self.fault.what(),
            self.detail
        )
    }
}

/// How a game handed to a worker ended: played (whatever the bots did), or not started.
pub type FinishedOrNot = Result<Finished, Unplayed>;

/// Deals games to a runner's workers. Called on the workers' threads, at once by several.
pub trait Deal: Sync {
    /// The next game for worker `worker`, or `None`: no more will come to it, and it ends. It
    /// may wait for a game; a dealer without end gives up its wait soon after `halt` is set.
    fn next(&self, worker: usize, halt: &AtomicBool) -> Option<Dealt>;

    /// The most games this dealer deals (no more workers start than that): `None` where it has
    /// no end.
    fn most(&self) -> Option<usize>;

    /// Whether a worker may take its next game while it plays one, to start that game's bots
    /// ahead on a spare CPU (see the runner). A list may; a league's schedule may not: its
    /// [`Deal::next`] waits until a game can be leased, which would hold up the game in hand,
    /// and a lease taken early keeps a game from the workers that are free.
    fn ahead(&self) -> bool {
        true
    }

    /// What a game of worker `worker` came to, before it is handed on (on the worker's thread:
    /// a pause here is that worker's): the game to hand to the consumer (a finished game to
    /// record; a game the machine could not start, which stops a run), or `None` where the
    /// dealer took it (a league's game the machine could not start goes back to its schedule;
    /// a remote worker sends its results itself). By default handed as it is.
    fn ended(&self, _worker: usize, ended: FinishedOrNot) -> Option<FinishedOrNot> {
        Some(ended)
    }
}

/// A list of games, each dealt once, in order, with the bots of its seats from `bots`.
pub struct Listed<'a> {
    games: &'a [GameSpec],
    bots: &'a [BotSpec],
    next: AtomicUsize,
}

impl<'a> Listed<'a> {
    /// Deals `games`, whose seats are indices into `bots`.
    pub fn new(games: &'a [GameSpec], bots: &'a [BotSpec]) -> Listed<'a> {
        Listed {
            games,
            bots,
            next: AtomicUsize::new(0),
        }
    }
}

impl Deal for Listed<'_> {
    fn next(&self, _worker: usize, _halt: &AtomicBool) -> Option<Dealt> {
        let spec = self.games.get(self.next.fetch_add(1, Ordering::Relaxed))?;
        Some(Dealt {
            spec: spec.clone(),
            bots: spec.seats.iter().map(|&i| self.bots[i].clone()).collect(),
            opening: Opening::Own,
        })
    }

    fn most(&self) -> Option<usize> {
        Some(self.games.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{schedule, Format};

    #[test]
    fn a_list_deals_each_game_once_with_the_bots_of_its_seats_then_none() {
        let bots = [
            BotSpec::command("a", "/bin/a", Vec::new(), "."),
            BotSpec::command("b", "/bin/b", Vec::new(), "."),
        ];
        let games = schedule(2, Format::RoundRobin, 4, 1);
        let listed = Listed::new(&games, &bots);
        let halt = AtomicBool::new(false);
        assert_eq!(listed.most(), Some(4));
        for game in &games {
            let dealt = listed.next(0, &halt).expect("a game is left");
            assert_eq!(dealt.spec.game_id, game.game_id);
            let names: Vec<&str> = dealt.bots.iter().map(|b| b.name.as_str()).collect();
            let want: Vec<&str> = game.seats.iter().map(|&i| bots[i].name.as_str()).collect();
            assert_eq!(names, want);
            assert!(matches!(dealt.opening, Opening::Own));
        }
        assert!(listed.next(1, &halt).is_none());
        assert!(listed.next(0, &halt).is_none(), "still none");
    }
}
