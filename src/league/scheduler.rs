//! Which game a league plays next, and who plays it: a pure, lease-based scheduler. Nothing here
//! reads a clock, a file or a socket: the time is passed in, so every policy is unit-tested.
//!
//! A worker (a local thread today, a remote machine over HTTP next, issue 38) asks for `slots`
//! games with [`Scheduler::lease`]; each game it gets is leased to it until a deadline. A result
//! comes back through [`Scheduler::complete`], which is idempotent: the first result for a game
//! id wins, a second one is a [`Completion::Duplicate`]. A lease not completed by its deadline
//! goes back to the front of the queue for any worker ([`Scheduler::expire`], run by every
//! lease). Game ids are handed out once and never reused; the server writes each new table to its
//! schedule log (see [`Scheduler::take_fresh`]) before any of its games leaves, so that a restart
//! plays again exactly the games that were scheduled and not recorded.
//!
//! Matchmaking makes tables (for two seats: a pair of games sharing a seed, seats swapped; for k
//! seats: k games, each bot in each seat once) in this order: the SPRT pair of a candidate, if
//! any; a bot still calibrating (its rating interval wider than `calibration_elo`), fewest games
//! first; a pair below the floor of games; otherwise a random bot against opponents drawn with a
//! weight that falls with the rating gap. A slow bot (it uses `slow_factor` times the median bot's time
//! in a game) may hold at most `slow_share` of the league's slots at once. A bot that forfeits
//! `suspend_after` games in a row is suspended (shown, not played) until it is added again.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

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
    /// How long a worker holds a game before it goes to another, in seconds.
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
            lease_s: 600,
        }
    }
}

/// One game to play: its id (never reused), its table round (`pair_id`), the seed its table
/// shares, and its bots by seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    pub game_id: u64,
    pub pair_id: u64,
    pub seed: u64,
    pub bots: Vec<String>,
}

/// What became of a result handed to [`Scheduler::complete`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The first result for this game: record it.
    Accepted,
    /// The game has a result already: drop this one.
    Duplicate,
    /// No such game was ever handed out.
    Unknown,
}

/// A finished game as the scheduler needs it.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
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
}

struct Lease {
    game: Game,
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
    queue: VecDeque<Game>,
    leases: BTreeMap<u64, Lease>,
    done: crate::results::games_csv::DoneSet,
    next_game: u64,
    next_pair: u64,
    fresh: Vec<Game>,
    /// Slots of all workers (what a slow bot's share is of).
    capacity: usize,
    /// A candidate and its reference, whose tables come first.
    priority: Option<(String, String)>,
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
            priority: None,
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
                });
            }
        }
    }

    /// Stops playing a bot (its queued games are dropped; games under way still finish).
    pub fn set_idle(&mut self, name: &str, why: Idle) {
        if !self.index.contains_key(name) {
            self.add_bot(name);
        }
        let i = self.index[name];
        self.bots[i].idle = Some(why);
        self.queue.retain(|g| !g.bots.iter().any(|b| b == name));
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

    /// Gives the tables of `new` against `reference` priority (an SPRT inside the league), or
    /// none.
    pub fn set_priority(&mut self, pair: Option<(String, String)>) {
        self.priority = pair;
    }

    /// A game from the schedule log of an earlier server: counted if `recorded` (games.csv
    /// has its result), else queued to be played again under the same id.
    pub fn restore(&mut self, game: Game, recorded: bool) {
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

    /// Games with a result.
    pub fn results(&self) -> usize {
        self.done.len()
    }

    /// Games queued (scheduled, not leased).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Games leased now.
    pub fn leased(&self) -> impl Iterator<Item = (&Game, &str)> {
        self.leases.values().map(|l| (&l.game, l.worker.as_str()))
    }

    /// Games created since the last call, to be logged before any of them is handed out.
    pub fn take_fresh(&mut self) -> Vec<Game> {
        std::mem::take(&mut self.fresh)
    }

    /// Up to `slots` games for `worker`, each leased until `now` plus the lease time. Expired
    /// leases go back to the queue first.
    pub fn lease(&mut self, worker: &str, slots: usize, now: Instant) -> Vec<Game> {
        self.expire(now);
        let until = now + Duration::from_secs(self.knobs.lease_s);
        let mut out = Vec::new();
        let mut made = 0;
        while out.len() < slots {
            let Some(k) = self.queue.iter().position(|g| self.may_start(g)) else {
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
            self.queue.push_back(l.game);
        }
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
            self.queue.push_front(lease.game);
        }
    }

    /// The first result for `game_id` wins; later ones are duplicates.
    pub fn complete(&mut self, game_id: u64, outcome: &Outcome) -> Completion {
        if self.done.contains(game_id) {
            return Completion::Duplicate;
        }
        let game = match self.leases.remove(&game_id) {
            Some(l) => l.game,
            None => match self.queue.iter().position(|g| g.game_id == game_id) {
                // A late result for a game whose lease expired: still the first.
                Some(k) => self.queue.remove(k).expect("position is in the queue"),
                None => return Completion::Unknown,
            },
        };
        self.done.insert(game_id);
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
                if self.knobs.suspend_after > 0 && n >= self.knobs.suspend_after {
                    let name = name.clone();
                    self.set_idle(&name, Idle::Suspended { forfeits: n });
                }
            } else {
                bot.forfeits_in_a_row = 0;
            }
        }
        Completion::Accepted
    }

    /// Counts a game with a result for its bots and their pairs.
    fn count(&mut self, bots: &[String]) {
        let ids: Vec<usize> = bots
            .iter()
            .map(|name| {
                if !self.index.contains_key(name) {
                    // A bot of the records no longer in the list: known, not played.
                    self.add_bot(name);
                    self.bots.last_mut().expect("just added").idle = Some(Idle::Removed);
                }
                self.index[name]
            })
            .collect();
        for &i in &ids {
            self.bots[i].games += 1;
        }
        for (k, &a) in ids.iter().enumerate() {
            for &b in &ids[k + 1..] {
                *self.pairs.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }

    fn pair_games(&self, a: usize, b: usize) -> u64 {
        self.pairs.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }

    /// Games `bot` is leased in now.
    fn running(&self, bot: &str) -> usize {
        self.leases
            .values()
            .filter(|l| l.game.bots.iter().any(|b| b == bot))
            .count()
    }

    /// Whether bot `i` is slow (it uses `slow_factor` times the median bot's time in a game).
    fn slow(&self, i: usize) -> bool {
        let Some(mine) = self.bots[i].mean_ms else {
            return false;
        };
        // A bot that uses under a second a game holds no worker long, whatever the others use
        // (and a few quick games say little about a bot's speed).
        if mine < SLOW_FLOOR_MS {
            return false;
        }
        let mut all: Vec<f64> = self.bots.iter().filter_map(|b| b.mean_ms).collect();
        if all.len() < 2 {
            return false;
        }
        all.sort_by(f64::total_cmp);
        let median = all[all.len() / 2];
        mine > self.knobs.slow_factor * median
    }

    /// Games a bot may be leased in at once: unlimited, or a slow bot's share of the slots.
    fn cap(&self, i: usize) -> usize {
        if self.slow(i) {
            ((self.knobs.slow_share * self.capacity as f64).floor() as usize).max(1)
        } else {
            usize::MAX
        }
    }

    fn may_start(&self, game: &Game) -> bool {
        game.bots.iter().all(|name| {
            let i = self.index[name];
            self.bots[i].idle.is_none() && self.running(name) < self.cap(i)
        })
    }

    /// Bots that may sit at a new table now.
    fn eligible(&self) -> Vec<usize> {
        (0..self.bots.len())
            .filter(|&i| {
                self.bots[i].idle.is_none() && self.running(&self.bots[i].name) < self.cap(i)
            })
            .collect()
    }

    fn calibrating(&self, i: usize) -> bool {
        // NaN (no fit yet) calibrates too.
        self.bots[i].width.partial_cmp(&self.knobs.calibration_elo)
            != Some(std::cmp::Ordering::Less)
    }

    /// The weight of `b` as an opponent of `a`: falls with the rating gap and with the games
    /// they have played already.
    fn weight(&self, a: usize, b: usize) -> f64 {
        let near = match (self.bots[a].rating, self.bots[b].rating) {
            (Some(x), Some(y)) => {
                let z = (x - y) / self.knobs.nearness_elo.max(1.0);
                (-z * z / 2.0).exp()
            }
            _ => 1.0,
        };
        near / (1.0 + self.pair_games(a, b) as f64).sqrt()
    }

    /// Draws one of `from` with probability proportional to `weights`.
    fn draw(&mut self, from: &[usize], weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        if total.is_nan() || total <= 0.0 {
            return from[self.rng.below(from.len())];
        }
        let mut x = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        for (k, w) in weights.iter().enumerate() {
            if x < *w {
                return from[k];
            }
            x -= w;
        }
        from[from.len() - 1]
    }

    /// Chooses the next table's bots (the first is whose turn it is), or `None` when fewer bots
    /// than seats can play.
    fn choose_table(&mut self) -> Option<Vec<usize>> {
        let eligible = self.eligible();
        if eligible.len() < self.seats {
            return None;
        }
        if let Some((new, old)) = self.priority.clone() {
            let (a, b) = (self.index.get(&new), self.index.get(&old));
            if let (Some(&a), Some(&b)) = (a, b) {
                if eligible.contains(&a) && eligible.contains(&b) {
                    return Some(self.fill(vec![a, b], &eligible));
                }
            }
        }
        let first = if let Some(&c) = eligible
            .iter()
            .filter(|&&i| self.calibrating(i))
            .min_by_key(|&&i| (self.bots[i].games, i))
        {
            c
        } else if let Some((a, b)) = self.under_floor(&eligible) {
            return Some(self.fill(vec![a, b], &eligible));
        } else {
            eligible[self.rng.below(eligible.len())]
        };
        Some(self.fill(vec![first], &eligible))
    }

    /// The active pair with the fewest games, if below the floor.
    fn under_floor(&self, eligible: &[usize]) -> Option<(usize, usize)> {
        let mut best: Option<(u64, usize, usize)> = None;
        for (k, &a) in eligible.iter().enumerate() {
            for &b in &eligible[k + 1..] {
                let n = self.pair_games(a, b);
                if n < self.knobs.pair_floor && best.is_none_or(|(m, _, _)| n < m) {
                    best = Some((n, a, b));
                }
            }
        }
        best.map(|(_, a, b)| (a, b))
    }

    /// Fills `table` up to the seat count with opponents of its first bot, drawn by weight.
    fn fill(&mut self, mut table: Vec<usize>, eligible: &[usize]) -> Vec<usize> {
        let first = table[0];
        while table.len() < self.seats {
            let rest: Vec<usize> = eligible
                .iter()
                .copied()
                .filter(|i| !table.contains(i))
                .collect();
            let weights: Vec<f64> = rest.iter().map(|&b| self.weight(first, b)).collect();
            let pick = self.draw(&rest, &weights);
            table.push(pick);
        }
        table
    }

    /// Queues a new table's games (each bot in each seat once, one seed); false when none can
    /// be made.
    fn make_table(&mut self) -> bool {
        let Some(table) = self.choose_table() else {
            return false;
        };
        let pair_id = self.next_pair;
        self.next_pair += 1;
        let seed = Rng::derive(self.master_seed, pair_id);
        let k = table.len();
        for r in 0..k {
            let bots = (0..k)
                .map(|s| self.bots[table[(s + r) % k]].name.clone())
                .collect();
            let game = Game {
                game_id: self.next_game,
                pair_id,
                seed,
                bots,
            };
            self.next_game += 1;
            self.fresh.push(game.clone());
            self.queue.push_back(game);
        }
        true
    }
}

#[cfg(test)]
#[path = "scheduler_tests.rs"]
mod tests;
