//! Matchmaking: which table the scheduler makes next (the candidates' share, calibration, the
//! floor of games a pair, opponents drawn by rating, the slow bots' cap), and the counts it
//! reads them from. Split from `scheduler.rs` by purpose: leases and results there, tables
//! here.

use super::{Idle, LeagueGame, Scheduler, SLOW_FLOOR_MS};
use crate::rng::Rng;
use std::time::Instant;

impl Scheduler {
    /// Counts a game with a result for its bots and their pairs.
    pub(super) fn count(&mut self, bots: &[String]) {
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

    pub(super) fn pair_games(&self, a: usize, b: usize) -> u64 {
        self.pairs.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }

    /// Games `bot` is leased in now.
    pub(super) fn running(&self, bot: &str) -> usize {
        self.leases
            .values()
            .filter(|l| l.game.bots.iter().any(|b| b == bot))
            .count()
    }

    /// Whether bot `i` is slow (it uses `slow_factor` times the median bot's time in a game).
    pub(super) fn slow(&self, i: usize) -> bool {
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

    /// Games a bot may be leased in at once: unlimited, or a slow bot's share of the slots;
    /// and a bot not yet proven (added, or added again, and no game finished without a forfeit
    /// since) or whose last game was a forfeit, no more games than it may still forfeit before
    /// it is suspended: so it is suspended after exactly `suspend_after` forfeits in a row (its
    /// games under way at the suspension would add forfeits past it). A proven bot that starts
    /// forfeiting every game may forfeit those it was playing at once.
    pub(super) fn cap(&self, i: usize) -> usize {
        let share = if self.slow(i) {
            ((self.knobs.slow_share * self.capacity as f64).floor() as usize).max(1)
        } else {
            usize::MAX
        };
        let bot = &self.bots[i];
        let streak = bot.forfeits_in_a_row;
        let to_suspension = match self.knobs.suspend_after {
            0 => usize::MAX,
            _ if streak == 0 && bot.proven => usize::MAX,
            n => n.saturating_sub(streak).max(1) as usize,
        };
        share.min(to_suspension)
    }

    pub(super) fn may_start(&self, game: &LeagueGame, group: &str, now: Instant) -> bool {
        let avoided = self
            .avoid
            .get(&game.game_id)
            .is_some_and(|groups| groups.iter().any(|(g, until)| g == group && now < *until));
        !avoided
            && game.bots.iter().all(|name| {
                let i = self.index[name];
                self.bots[i].idle.is_none() && self.running(name) < self.cap(i)
            })
    }

    /// Bots that may sit at a new table now.
    pub(super) fn eligible(&self) -> Vec<usize> {
        (0..self.bots.len())
            .filter(|&i| {
                self.bots[i].idle.is_none() && self.running(&self.bots[i].name) < self.cap(i)
            })
            .collect()
    }

    pub(super) fn calibrating(&self, i: usize) -> bool {
        // NaN (no fit yet) calibrates too.
        self.bots[i].width.partial_cmp(&self.knobs.calibration_elo)
            != Some(std::cmp::Ordering::Less)
    }

    /// The weight of `b` as an opponent of `a`: falls with the rating gap and with the games
    /// they have played already.
    pub(super) fn weight(&self, a: usize, b: usize) -> f64 {
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
    pub(super) fn draw(&mut self, from: &[usize], weights: &[f64]) -> usize {
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

    /// Chooses the next table's bots (the first is whose turn it is) and the candidate whose
    /// SPRT it is for (none: the league's own share), or `None` when fewer bots than seats can
    /// play.
    pub(super) fn choose_table(&mut self) -> Option<(Vec<usize>, Option<String>)> {
        let eligible = self.eligible();
        if eligible.len() < self.seats {
            return None;
        }
        let (sprt, rest) = self.tables_made;
        if !self.priority.is_empty()
            && (sprt as f64) < self.knobs.candidate_share * (sprt + rest + 1) as f64
        {
            // The tests in turn, each its pairs; one that cannot play now gives its turn.
            let n = self.priority.len();
            for k in 0..n {
                let (new, old) = self.priority[(sprt as usize + k) % n].clone();
                let (a, b) = (self.index.get(&new), self.index.get(&old));
                if let (Some(&a), Some(&b)) = (a, b) {
                    if eligible.contains(&a) && eligible.contains(&b) {
                        self.tables_made.0 += 1;
                        return Some((self.fill(vec![a, b], &eligible), Some(new)));
                    }
                }
            }
        }
        self.tables_made.1 += 1;
        let first = if let Some(&c) = eligible
            .iter()
            .filter(|&&i| self.calibrating(i))
            .min_by_key(|&&i| (self.bots[i].games, i))
        {
            // It meets each opponent the floor's games first: a bot that wins (or loses) every
            // game never narrows its interval, and drawn by rating it would meet its nearest
            // opponent for ever, the others never.
            if let Some(b) = self.under_floor_of(c, &eligible) {
                return Some((self.fill(vec![c, b], &eligible), None));
            }
            c
        } else if let Some((a, b)) = self.under_floor(&eligible) {
            return Some((self.fill(vec![a, b], &eligible), None));
        } else {
            eligible[self.rng.below(eligible.len())]
        };
        Some((self.fill(vec![first], &eligible), None))
    }

    /// The active pair with the fewest games, if below the floor.
    pub(super) fn under_floor(&self, eligible: &[usize]) -> Option<(usize, usize)> {
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

    /// The opponent of `a` with the fewest games against it, if below the floor.
    pub(super) fn under_floor_of(&self, a: usize, eligible: &[usize]) -> Option<usize> {
        eligible
            .iter()
            .copied()
            .filter(|&b| b != a)
            .map(|b| (self.pair_games(a, b), b))
            .filter(|&(n, _)| n < self.knobs.pair_floor)
            .min()
            .map(|(_, b)| b)
    }

    /// Fills `table` up to the seat count with opponents of its first bot, drawn by weight.
    pub(super) fn fill(&mut self, mut table: Vec<usize>, eligible: &[usize]) -> Vec<usize> {
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
    pub(super) fn make_table(&mut self) -> bool {
        let Some((table, sprt)) = self.choose_table() else {
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
            let game = LeagueGame {
                game_id: self.next_game,
                pair_id,
                seed,
                bots,
                sprt: sprt.clone(),
            };
            self.next_game += 1;
            self.fresh.push(game.clone());
            self.queue.push_back(game);
        }
        true
    }
}
