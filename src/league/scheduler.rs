//! Which game a league plays next, and who plays it: a pure, lease-based scheduler. Nothing here
//! reads a clock, a file or a socket: the time is passed in, so every policy is unit-tested.
//!
//! A worker (a local thread today, a remote machine over HTTP next, issue 38) asks for `slots`
//! games with [`Scheduler::lease`]; each game it gets is leased to it until a deadline. A result
//! comes back through [`Scheduler::complete`], which is idempotent: the first result for a game
//! id wins, a second one is an [`Acceptance::Duplicate`]. A lease not completed by its deadline
//! goes back to the front of the queue for any worker ([`Scheduler::expire`], run by every
//! lease). Game ids are handed out once and never reused; the server writes each new table to its
//! schedule log (see [`Scheduler::take_fresh`]) before any of its games leaves, so that a restart
//! plays again exactly the games that were scheduled and not recorded.
//!
//! Matchmaking makes tables (for two seats: a pair of games sharing a seed, seats swapped; for k
//! seats: k games, each bot in each seat once) in this order: while candidates' SPRTs run,
//! `candidate_share` of the new tables are their pairs (the tests in turn); a bot still calibrating (its rating interval wider than `calibration_elo`), fewest games
//! first (each of its pairs below the floor of games before opponents drawn by rating); a pair
//! below the floor of games; otherwise a random bot against opponents drawn with a
//! weight that falls with the rating gap. A slow bot (it uses `slow_factor` times the median bot's time
//! in a game) may hold at most `slow_share` of the league's slots at once. A bot that forfeits
//! `suspend_after` games in a row is suspended (shown, not played) until it is added again.
//!
//! Every game handed out ends recorded or cancelled: the unplayed games of a bot removed,
//! suspended, broken or replaced by a new version are cancelled ([`Scheduler::take_cancelled`],
//! logged in `cancelled.jsonl`), so a table is played by one version of each of its bots.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

/// The lease unless `league.toml` says otherwise, in seconds: a killed worker's games go to
/// another within it (issue 47: it was 600 s, and a dead worker held its game ten minutes).
pub const DEFAULT_LEASE_S: u64 = 30;

/// The share of new tables the candidates' SPRTs get unless `league.toml` says otherwise.
pub const DEFAULT_CANDIDATE_SHARE: f64 = 0.5;

/// Time a bot uses in a game below which it is never slow, in milliseconds.
const SLOW_FLOOR_MS: f64 = 1000.0;

/// The matchmaking knobs (in `league.toml`, under `[matchmaking]`; the guide explains them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Knobs {
    /// A bot calibrates (its tables come first) until its 95% interval is narrower than this, in
    /// Elo.
    pub calibration_elo: f64,
    /// Every active pair plays at least this many games before pairs are drawn by rating.
    pub pair_floor: u64,
    /// The rating gap (Elo) at which an opponent is drawn about 0.6 times as often as an equal
    /// one (a Gaussian weight: `exp(-(gap / nearness_elo)^2 / 2)`).
    pub nearness_elo: f64,
    /// A bot is slow when it uses this many times the median bot's time in a game.
    pub slow_factor: f64,
    /// The share of the league's slots a slow bot may hold at once (at least one game).
    pub slow_share: f64,
    /// Forfeits in a row after which a bot is suspended (0: never).
    pub suspend_after: u32,
    /// The share of the league's new tables that go to the candidates' SPRTs while any runs
    /// (the other bots play the rest).
    pub candidate_share: f64,
    /// How long a worker holds a game unless it renews it, in seconds: a worker renews every
    /// third of it while it plays (a long game is never played twice), so a killed worker's
    /// games go to another within this time.
    pub lease_s: u64,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            calibration_elo: 200.0,
            pair_floor: 2,
            nearness_elo: 200.0,
            slow_factor: 3.0,
            slow_share: 0.25,
            suspend_after: 5,
            lease_s: DEFAULT_LEASE_S,
            candidate_share: DEFAULT_CANDIDATE_SHARE,
        }
    }
}

/// One game to play: its id (never reused), its table round (`pair_id`), the seed its table
/// shares, its bots by seat, and the candidate whose SPRT its table was made for (none: a
/// table of the league's own share), so that the schedule log shows how the share went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueGame {
    pub game_id: u64,
    pub pair_id: u64,
    pub seed: u64,
    pub bots: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<String>,
}

/// What became of a result handed to [`Scheduler::complete`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acceptance {
    /// The first result for this game: record it.
    Accepted,
    /// The game has a result already: drop this one.
    Duplicate,
    /// No such game was ever handed out.
    Unknown,
}

/// A finished game as the scheduler needs it.
#[derive(Clone, Debug, Default)]
pub struct SeatReport {
    /// The seats that forfeited.
    pub forfeited: Vec<usize>,
    /// The time each seat's bot used, by seat (its turns' clock time).
    pub used: Vec<Duration>,
}

/// Why a bot is not played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Idle {
    /// Removed by its owner.
    Removed,
    /// Being built and test-started (added moments ago, or the server is starting).
    Checking,
    /// Could not be built or started (the text says why).
    Broken(String),
    /// Forfeited its last games one after the other.
    Suspended { forfeits: u32 },
}

/// Why a scheduled game will not be played (a line of `cancelled.jsonl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CancelWhy {
    /// One of its bots was removed.
    Removed,
    /// One of its bots was replaced by a new version (a table is played by one version of
    /// each of its bots: the unplayed games of the old one's tables are cancelled).
    Replaced,
    /// One of its bots was suspended (it forfeited its games one after the other).
    Suspended,
    /// One of its bots could not be built or started.
    Broken,
}

/// A scheduled game that will not be played, and why (which bot, what became of it).
#[derive(Clone, Debug, PartialEq)]
pub struct Cancelled {
    pub game: LeagueGame,
    pub bot: String,
    pub why: CancelWhy,
}

#[derive(Clone, Debug)]
struct Bot {
    name: String,
    idle: Option<Idle>,
    rating: Option<f64>,
    /// Width of the 95% interval in Elo (infinite before the first fit).
    width: f64,
    games: u64,
    /// Mean time it uses in a game, in milliseconds (exponentially weighted), once it has
    /// played.
    mean_ms: Option<f64>,
    forfeits_in_a_row: u32,
    /// It finished a game without forfeiting since it was added (or added again).
    proven: bool,
}

struct Lease {
    game: LeagueGame,
    worker: String,
    until: Instant,
}

/// The league's schedule: bots, the queue, the leases and which games have results.
pub struct Scheduler {
    seats: usize,
    knobs: Knobs,
    master_seed: u64,
    rng: Rng,
    bots: Vec<Bot>,
    index: HashMap<String, usize>,
    /// Games between two bots (smaller index first), results only.
    pairs: HashMap<(usize, usize), u64>,
    queue: VecDeque<LeagueGame>,
    leases: BTreeMap<u64, Lease>,
    done: crate::results::games_csv::DoneSet,
    next_game: u64,
    next_pair: u64,
    fresh: Vec<LeagueGame>,
    /// Slots of all workers (what a slow bot's share is of).
    capacity: usize,
    /// The running SPRTs' candidates and references, whose tables get `candidate_share` of
    /// the new tables.
    priority: Vec<(String, String)>,
    /// New tables made for the SPRTs and for the rest since the last change of `priority`.
    tables_made: (u64, u64),
    /// Bots suspended since the last [`Scheduler::take_suspended`], with their forfeits.
    suspended: Vec<(String, u32)>,
    /// Games not to be leased to these workers (by group, a remote worker's token name) until
    /// then: they voided them ([`Scheduler::release_to_others`]).
    avoid: HashMap<u64, Vec<(String, Instant)>>,
    /// Leased games of a bot replaced since: cancelled, not played again, should they come
    /// back unplayed (their bot and why).
    doomed: HashMap<u64, (String, CancelWhy)>,
    /// Games cancelled since the last [`Scheduler::take_cancelled`], to be logged.
    cancelled: Vec<Cancelled>,
}

impl Scheduler {
    /// An empty league of `seats`-seat games whose table seeds derive from `master_seed`.
    pub fn new(seats: usize, knobs: Knobs, master_seed: u64) -> Scheduler {
        Scheduler {
            seats: seats.max(2),
            knobs,
            master_seed,
            rng: Rng::new(master_seed ^ 0x6c65_6167_7565),
            bots: Vec::new(),
            index: HashMap::new(),
            pairs: HashMap::new(),
            queue: VecDeque::new(),
            leases: BTreeMap::new(),
            done: Default::default(),
            next_game: 0,
            next_pair: 0,
            fresh: Vec::new(),
            capacity: 1,
            priority: Vec::new(),
            tables_made: (0, 0),
            suspended: Vec::new(),
            avoid: HashMap::new(),
            doomed: HashMap::new(),
            cancelled: Vec::new(),
        }
    }

    pub fn knobs(&self) -> &Knobs {
        &self.knobs
    }

    /// Sets the slots of all workers together (a slow bot's cap is a share of them).
    pub fn set_capacity(&mut self, slots: usize) {
        self.capacity = slots.max(1);
    }

    /// The slots of all workers together.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Adds a bot, or plays again one that was removed, broken or suspended.
    pub fn add_bot(&mut self, name: &str) {
        match self.index.get(name) {
            Some(&i) => {
                self.bots[i].idle = None;
                self.bots[i].forfeits_in_a_row = 0;
                self.bots[i].proven = false;
            }
            None => {
                self.index.insert(name.to_string(), self.bots.len());
                self.bots.push(Bot {
                    name: name.to_string(),
                    idle: None,
                    rating: None,
                    width: f64::INFINITY,
                    games: 0,
                    mean_ms: None,
                    forfeits_in_a_row: 0,
                    proven: false,
                });
            }
        }
    }

    /// Stops playing a bot. Games under way still finish; its queued games are cancelled
    /// ([`Scheduler::take_cancelled`]), and so are those under way that come back unplayed,
    /// unless it is only being checked (they wait for it).
    pub fn set_idle(&mut self, name: &str, why: Idle) {
        if !self.index.contains_key(name) {
            self.add_bot(name);
        }
        let i = self.index[name];
        let cancel = cancel_why(&why);
        self.bots[i].idle = Some(why);
        if let Some(why) = cancel {
            self.cancel_queued(name, why);
        }
    }

    /// `name` is replaced by a new version (call before [`Scheduler::add_bot`] plays it
    /// again): its queued games are cancelled, and its games under way, which the old version
    /// plays, are cancelled should they come back unplayed. Its tables' games are played by one
    /// version of it, never half by each.
    pub fn replace(&mut self, name: &str) {
        self.cancel_queued(name, CancelWhy::Replaced);
        for (id, l) in &self.leases {
            if l.game.bots.iter().any(|b| b == name) {
                self.doomed
                    .insert(*id, (name.to_string(), CancelWhy::Replaced));
            }
        }
    }

    /// Cancels the queued games of `name`.
    fn cancel_queued(&mut self, name: &str, why: CancelWhy) {
        let (out, keep): (VecDeque<LeagueGame>, VecDeque<LeagueGame>) =
            std::mem::take(&mut self.queue)
                .into_iter()
                .partition(|g| g.bots.iter().any(|b| b == name));
        self.queue = keep;
        for game in out {
            self.avoid.remove(&game.game_id);
            self.cancelled.push(Cancelled {
                game,
                bot: name.to_string(),
                why,
            });
        }
    }

    /// Games cancelled since the last call, to be logged (`cancelled.jsonl`).
    pub fn take_cancelled(&mut self) -> Vec<Cancelled> {
        std::mem::take(&mut self.cancelled)
    }

    /// A leased game back unplayed: queued again (first, or last), or cancelled if its bot was
    /// replaced, removed, suspended or broken meanwhile.
    fn back_unplayed(&mut self, game: LeagueGame, first: bool) {
        let why = self.doomed.remove(&game.game_id).or_else(|| {
            game.bots.iter().find_map(|b| {
                let i = *self.index.get(b)?;
                let why = cancel_why(self.bots[i].idle.as_ref()?)?;
                Some((b.clone(), why))
            })
        });
        match why {
            Some((bot, why)) => {
                self.avoid.remove(&game.game_id);
                self.cancelled.push(Cancelled { game, bot, why });
            }
            None if first => self.queue.push_front(game),
            None => self.queue.push_back(game),
        }
    }

    /// Why `name` is not played (`None`: it is, or it is unknown).
    pub fn idle(&self, name: &str) -> Option<&Idle> {
        self.index
            .get(name)
            .and_then(|&i| self.bots[i].idle.as_ref())
    }

    /// The bots in the order they joined.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.bots.iter().map(|b| b.name.as_str())
    }

    /// The latest fit: `name`'s rating and the width of its 95% interval (Elo).
    pub fn set_rating(&mut self, name: &str, rating: Option<f64>, width: f64) {
        if let Some(&i) = self.index.get(name) {
            self.bots[i].rating = rating;
            self.bots[i].width = width;
        }
    }

    /// Gives the tables of each `(new, reference)` (the SPRTs running inside the league)
    /// `candidate_share` of the new tables, in turn.
    pub fn set_priority(&mut self, pairs: Vec<(String, String)>) {
        if pairs != self.priority {
            self.tables_made = (0, 0);
        }
        self.priority = pairs;
    }

    /// The id the next game scheduled will have.
    pub fn next_game_id(&self) -> u64 {
        self.next_game
    }

    /// Bots suspended since the last call, with the forfeits they were suspended at (to be
    /// kept in the folder: a suspension survives a restart).
    pub fn take_suspended(&mut self) -> Vec<(String, u32)> {
        std::mem::take(&mut self.suspended)
    }

    /// A game from the schedule log of an earlier server: counted if `recorded` (games.csv
    /// has its result), else queued to be played again under the same id.
    pub fn restore(&mut self, game: LeagueGame, recorded: bool) {
        self.next_game = self.next_game.max(game.game_id + 1);
        self.next_pair = self.next_pair.max(game.pair_id + 1);
        if recorded {
            if !self.done.contains(game.game_id) {
                self.done.insert(game.game_id);
                self.count(&game.bots);
            }
        } else if !self.done.contains(game.game_id)
            && !self.queue.iter().any(|g| g.game_id == game.game_id)
        {
            self.queue.push_back(game);
        }
    }

    /// A game from the schedule log of an earlier server that was cancelled (`cancelled.jsonl`
    /// has it): never played, its id never reused.
    pub fn restore_cancelled(&mut self, game: &LeagueGame) {
        self.next_game = self.next_game.max(game.game_id + 1);
        self.next_pair = self.next_pair.max(game.pair_id + 1);
    }

    /// Games with a result.
    pub fn results(&self) -> usize {
        self.done.len()
    }

    /// Games queued (scheduled, not leased).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Games leased now.
    pub fn leased(&self) -> impl Iterator<Item = (&LeagueGame, &str)> {
        self.leases.values().map(|l| (&l.game, l.worker.as_str()))
    }

    /// Games created since the last call, to be logged before any of them is handed out.
    pub fn take_fresh(&mut self) -> Vec<LeagueGame> {
        std::mem::take(&mut self.fresh)
    }

    /// Up to `slots` games for `worker`, each leased until `now` plus the lease time. Expired
    /// leases go back to the queue first.
    pub fn lease(&mut self, worker: &str, slots: usize, now: Instant) -> Vec<LeagueGame> {
        self.lease_for(worker, worker, slots, now)
    }

    /// [`Scheduler::lease`] for a worker of `group` (a remote worker's token name): no game
    /// that group voided ([`Scheduler::release_to_others`]).
    pub fn lease_for(
        &mut self,
        worker: &str,
        group: &str,
        slots: usize,
        now: Instant,
    ) -> Vec<LeagueGame> {
        self.expire(now);
        let until = now + Duration::from_secs(self.knobs.lease_s);
        let mut out = Vec::new();
        let mut made = 0;
        while out.len() < slots {
            let Some(k) = self
                .queue
                .iter()
                .position(|g| self.may_start(g, group, now))
            else {
                // Each new table is tried once per call: one that cannot start (a capped bot)
                // waits in the queue.
                if made > self.seats || !self.make_table() {
                    break;
                }
                made += 1;
                continue;
            };
            let game = self.queue.remove(k).expect("position is in the queue");
            self.leases.insert(
                game.game_id,
                Lease {
                    game: game.clone(),
                    worker: worker.to_string(),
                    until,
                },
            );
            out.push(game);
        }
        out
    }

    /// Extends `worker`'s leases to `now` plus the lease time (a remote worker's heartbeat).
    pub fn renew(&mut self, worker: &str, now: Instant) {
        let until = now + Duration::from_secs(self.knobs.lease_s);
        for l in self.leases.values_mut().filter(|l| l.worker == worker) {
            l.until = until;
        }
    }

    /// Gives a leased game back unplayed (to the end of the queue).
    pub fn release(&mut self, game_id: u64) {
        if let Some(l) = self.leases.remove(&game_id) {
            self.back_unplayed(l.game, false);
        }
    }

    /// Gives a leased game back unplayed, first in the queue, for a worker of another group
    /// than `group` (which voided it: a void must not be a re-roll): `group` gets it again only
    /// after a lease time, should no other worker have taken it by then (a league of one
    /// worker still plays its games).
    pub fn release_to_others(&mut self, game_id: u64, group: &str, now: Instant) {
        self.avoid(game_id, group, now);
        if let Some(l) = self.leases.remove(&game_id) {
            self.back_unplayed(l.game, true);
        }
    }

    /// Leases game `game_id` to no worker of `group` for a lease time from `now` (a void; one
    /// read back at a restart).
    pub fn avoid(&mut self, game_id: u64, group: &str, now: Instant) {
        if self.done.contains(game_id) {
            return;
        }
        let until = now + Duration::from_secs(self.knobs.lease_s);
        let groups = self.avoid.entry(game_id).or_default();
        groups.retain(|(g, _)| g != group);
        groups.push((group.to_string(), until));
    }

    /// Puts every lease past its deadline back at the front of the queue.
    pub fn expire(&mut self, now: Instant) {
        let expired: Vec<u64> = self
            .leases
            .iter()
            .filter(|(_, l)| l.until <= now)
            .map(|(&id, _)| id)
            .collect();
        for id in expired.into_iter().rev() {
            let lease = self.leases.remove(&id).expect("listed above");
            self.back_unplayed(lease.game, true);
        }
    }

    /// The first result for `game_id` wins; later ones are duplicates.
    pub fn complete(&mut self, game_id: u64, outcome: &SeatReport) -> Acceptance {
        if self.done.contains(game_id) {
            return Acceptance::Duplicate;
        }
        let game = match self.leases.remove(&game_id) {
            Some(l) => l.game,
            None => match self.queue.iter().position(|g| g.game_id == game_id) {
                // A late result for a game whose lease expired: still the first.
                Some(k) => self.queue.remove(k).expect("position is in the queue"),
                None => return Acceptance::Unknown,
            },
        };
        self.done.insert(game_id);
        self.avoid.remove(&game_id);
        self.doomed.remove(&game_id);
        self.count(&game.bots);
        for (seat, name) in game.bots.iter().enumerate() {
            let i = self.index[name];
            let bot = &mut self.bots[i];
            let used = outcome.used.get(seat).copied().unwrap_or_default();
            let ms = used.as_secs_f64() * 1000.0;
            bot.mean_ms = Some(match bot.mean_ms {
                Some(m) => 0.8 * m + 0.2 * ms,
                None => ms,
            });
            if outcome.forfeited.contains(&seat) {
                bot.forfeits_in_a_row += 1;
                let n = bot.forfeits_in_a_row;
                // Suspended once, with the count it was suspended at.
                if self.knobs.suspend_after > 0
                    && n >= self.knobs.suspend_after
                    && bot.idle.is_none()
                {
                    let name = name.clone();
                    self.set_idle(&name, Idle::Suspended { forfeits: n });
                    self.suspended.push((name, n));
                }
            } else {
                bot.forfeits_in_a_row = 0;
                bot.proven = true;
            }
        }
        Acceptance::Accepted
    }
}

/// Whether a bot idle for `why` has its games cancelled (not while it is being checked: they
/// wait for it).
fn cancel_why(why: &Idle) -> Option<CancelWhy> {
    match why {
        Idle::Removed => Some(CancelWhy::Removed),
        Idle::Checking => None,
        Idle::Broken(_) => Some(CancelWhy::Broken),
        Idle::Suspended { .. } => Some(CancelWhy::Suspended),
    }
}

mod tables;

#[cfg(test)]
#[path = "scheduler_tests.rs"]
mod tests;
