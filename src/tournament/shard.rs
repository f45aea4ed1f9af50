//! Shards: one tournament cut into N slices that separate machines play on their own and
//! `arbiter merge` puts back together. Pure: the slice of a game depends only on its table round
//! (`GameSpec::pair_id`) and N, so the games of a table round (the colour-swapped pair for two
//! seats) always land in the same shard, and every machine computes the same slices from the
//! same settings. Also the time estimate a batch scheduler needs for one shard.

use crate::tournament::GameSpec;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The K-th of N slices of a schedule, K counted from 1 (as typed: `--shard 3/8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// A `--shard` value that is not `K/N` with 1 <= K <= N.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("shard '{text}': {why} (expected K/N with 1 <= K <= N, e.g. 3/8)")]
pub struct ShardError {
    text: String,
    why: &'static str,
}

impl Shard {
    /// The K-th (from 1) of `count` shards.
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (1..=count)
            .contains(&index)
            .then_some(Shard { index, count })
    }

    /// K, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// N.
    pub fn count(self) -> u32 {
        self.count
    }

    /// Every shard of a run of `count` shards, in order.
    pub fn all(count: u32) -> impl Iterator<Item = Shard> {
        (1..=count).map(move |index| Shard { index, count })
    }

    /// The shard that plays table round `pair_id`. Table rounds are dealt out in turn (round
    /// `p` to shard `p mod N + 1`), so each shard gets rounds of every table spread over the
    /// whole schedule: the shards hold the same number of rounds give or take one, and a slow
    /// table costs every shard alike instead of one.
    pub fn of_pair(pair_id: u64, count: u32) -> Shard {
        let count = count.max(1);
        Shard {
            index: (pair_id % u64::from(count)) as u32 + 1,
            count,
        }
    }

    /// Whether this shard plays `game`.
    pub fn holds(self, game: &GameSpec) -> bool {
        Shard::of_pair(game.pair_id, self.count) == self
    }

    /// The games of `schedule` this shard plays, in schedule order.
    pub fn slice(self, schedule: &[GameSpec]) -> Vec<GameSpec> {
        schedule.iter().filter(|g| self.holds(g)).cloned().collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let err = |why| ShardError {
            text: text.to_string(),
            why,
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(|| err("no '/'"))?;
        let k: u32 = k.trim().parse().map_err(|_| err("K is not a number"))?;
        let n: u32 = n.trim().parse().map_err(|_| err("N is not a number"))?;
        if n == 0 {
            return Err(err("N must be at least 1"));
        }
        Shard::new(k, n).ok_or_else(|| err("K must be between 1 and N"))
    }
}

impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What one game may cost at most, from its clocks: every seat's first turn at its limit plus
/// every later turn up to the turn limit at the turn limit, the grace included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameClock {
    pub seats: u32,
    pub max_turns: u32,
    pub first_turn: Duration,
    pub turn: Duration,
    pub grace: Duration,
}

impl GameClock {
    /// The longest a game can last on the bots' clocks (the referee's own time aside).
    pub fn worst_game(&self) -> Duration {
        let first = self.seats.min(self.max_turns);
        let later = self.max_turns - first;
        (self.first_turn + self.grace) * first + (self.turn + self.grace) * later
    }
}

/// How long one shard is expected to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Games of the largest shard.
    pub games: usize,
    /// Games at a time within the shard.
    pub concurrency: u32,
    /// The expected cost of one game.
    pub per_game: Duration,
    /// Waves of `concurrency` games times `per_game`.
    pub shard: Duration,
}

/// The expected run time of the largest of `shards` shards of `schedule`: its games in waves of
/// `concurrency`, each game costing `per_game`.
pub fn estimate(
    schedule: &[GameSpec],
    shards: u32,
    concurrency: u32,
    per_game: Duration,
) -> Estimate {
    let mut sizes = vec![0usize; shards.max(1) as usize];
    for g in schedule {
        sizes[(Shard::of_pair(g.pair_id, shards).index - 1) as usize] += 1;
    }
    let games = sizes.into_iter().max().unwrap_or(0);
    let concurrency = concurrency.max(1);
    let waves = games.div_ceil(concurrency as usize) as u32;
    Estimate {
        games,
        concurrency,
        per_game,
        shard: per_game * waves,
    }
}

/// A batch time limit for an expected run time: half as much again plus five minutes (bot
/// start-up, a slow node), rounded up to whole minutes.
pub fn time_limit(expected: Duration) -> Duration {
    let padded = expected.mul_f64(1.5) + Duration::from_secs(300);
    Duration::from_secs(padded.as_secs().div_ceil(60) * 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{schedule_tables, Format, Plan};
    use std::collections::{HashMap, HashSet};

    fn plan(bots: usize, seats: usize, games: u32) -> Plan {
        Plan {
            bots,
            seats,
            format: Format::RoundRobin,
            games_per_table: games,
            tables: None,
            master_seed: 11,
        }
    }

    #[test]
    fn the_shards_cover_the_schedule_once_and_keep_table_rounds_whole() {
        for (bots, seats, games, n) in [(3, 2, 8, 4), (5, 4, 8, 3), (7, 2, 2, 5), (2, 2, 2, 4)] {
            let all = schedule_tables(&plan(bots, seats, games));
            let mut seen: HashMap<u64, Shard> = HashMap::new();
            let mut sizes = Vec::new();
            for shard in Shard::all(n) {
                let part = shard.slice(&all);
                sizes.push(part.len() / seats);
                for g in &part {
                    assert!(
                        seen.insert(g.game_id, shard).is_none(),
                        "game in two shards"
                    );
                }
                // Schedule order is kept.
                let ids: Vec<u64> = part.iter().map(|g| g.game_id).collect();
                let order: Vec<u64> = all
                    .iter()
                    .map(|g| g.game_id)
                    .filter(|id| ids.contains(id))
                    .collect();
                assert_eq!(ids, order);
            }
            assert_eq!(seen.len(), all.len(), "every game in some shard");
            for g in &all {
                let round: HashSet<Shard> = all
                    .iter()
                    .filter(|h| h.pair_id == g.pair_id)
                    .map(|h| seen[&h.game_id])
                    .collect();
                assert_eq!(round.len(), 1, "table round {} split", g.pair_id);
            }
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "rounds per shard {sizes:?}");
        }
    }

    #[test]
    fn slices_depend_only_on_the_settings() {
        let all = schedule_tables(&plan(4, 2, 6));
        let again = schedule_tables(&plan(4, 2, 6));
        let k: Shard = "2/3".parse().unwrap();
        assert_eq!(k.slice(&all), k.slice(&again));
        // Known slice: table rounds 1, 4, 7, ... (pair ids are dealt out in turn).
        let pairs: Vec<u64> = k.slice(&all).iter().map(|g| g.pair_id).collect();
        assert_eq!(pairs.first(), Some(&1));
        assert!(pairs.iter().all(|p| p % 3 == 1), "{pairs:?}");
        // One shard of one is the whole schedule.
        assert_eq!("1/1".parse::<Shard>().unwrap().slice(&all), all);
    }

    #[test]
    fn shard_text_is_k_of_n() {
        let s: Shard = " 3/8 ".parse().unwrap();
        assert_eq!((s.index(), s.count(), s.to_string()), (3, 8, "3/8".into()));
        for bad in ["0/4", "5/4", "1/0", "3", "a/4", "1/b", ""] {
            let err = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(err.contains("expected K/N"), "{bad}: {err}");
        }
        let toml_text = toml::to_string(&HashMap::from([("shard", s)])).unwrap();
        assert_eq!(toml_text.trim(), "shard = \"3/8\"");
        let back: HashMap<String, Shard> = toml::from_str(&toml_text).unwrap();
        assert_eq!(back["shard"], s);
        assert!(toml::from_str::<HashMap<String, Shard>>("shard = \"9/8\"").is_err());
    }

    #[test]
    fn the_estimate_counts_waves_of_the_largest_shard() {
        // 3 bots, 8 games a pair: 12 table rounds of 2 games; 5 shards hold 3,3,2,2,2 rounds.
        let all = schedule_tables(&plan(3, 2, 8));
        let e = estimate(&all, 5, 2, Duration::from_secs(10));
        assert_eq!(e.games, 6);
        assert_eq!(e.shard, Duration::from_secs(30), "3 waves of 2 games");
        let clock = GameClock {
            seats: 2,
            max_turns: 10,
            first_turn: Duration::from_millis(1000),
            turn: Duration::from_millis(100),
            grace: Duration::from_millis(50),
        };
        assert_eq!(
            clock.worst_game(),
            Duration::from_millis(2 * 1050 + 8 * 150)
        );
        assert_eq!(
            time_limit(Duration::from_secs(100)),
            Duration::from_secs(480)
        );
        assert_eq!(time_limit(Duration::ZERO), Duration::from_secs(300));
    }
}
