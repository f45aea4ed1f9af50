//! Games in which the machine, not the bots, set the pace: on the fair clock a bot is not
//! charged for waiting for a CPU, but when that waiting is large (longer than a turn's limit,
//! or more than half of a game's turn time) the games were played on a machine too busy for
//! them. The run says so at its end and in its report, names the games and says what to do.

use crate::results::records::GameRecord;

/// How many game ids a note names before "and N more".
const NAMED: usize = 12;

/// What the records of a run say about waiting for a CPU.
#[derive(Debug, Default)]
pub struct Starved {
    /// Ids of the games where waiting was large.
    games: Vec<u64>,
    /// Games with per-turn waiting recorded (fair clock).
    measured: usize,
    /// The turn that waited longest for its limit: its waiting and its limit, in microseconds.
    worst: (u64, u64),
    waited_us: u64,
    wall_us: u64,
}

impl Starved {
    /// Adds one game's record (records of other clocks carry no waiting and count for nothing).
    pub fn add(&mut self, rec: &GameRecord) {
        if rec.waited_us.is_empty() {
            return;
        }
        self.measured += 1;
        let mut first = vec![true; rec.seats];
        let (mut large, mut waited, mut wall) = (false, 0u64, 0u64);
        for (i, &w) in rec.waited_us.iter().enumerate() {
            let seat = rec.seat.get(i).map_or(0, |&s| s as usize);
            let is_first = first
                .get_mut(seat)
                .is_some_and(|f| std::mem::replace(f, false));
            let limit = if is_first {
                rec.clocks.first_turn_us
            } else {
                rec.clocks.turn_us
            };
            if w > limit {
                large = true;
            }
            // The worst turn is the one with the most waiting for its limit.
            if w * self.worst.1.max(1) > self.worst.0 * limit.max(1) {
                self.worst = (w, limit);
            }
            // A game's bots start up together (as on CodinGame), so a first turn waits for the
            // others' start-up on the game's CPU: arbiter's doing, not the machine's load. With
            // instant bots that start-up is most of a game's turn time, so first turns count
            // only against their own limit.
            if !is_first {
                waited += w;
                wall += rec.wall_us.get(i).copied().unwrap_or(0);
            }
        }
        if waited * 2 > wall.max(1) {
            large = true;
        }
        self.waited_us += waited;
        self.wall_us += wall;
        if large {
            self.games.push(rec.game_id);
        }
    }

    /// What `records` say.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a GameRecord>) -> Starved {
        let mut s = Starved::default();
        for r in records {
            s.add(r);
        }
        s
    }

    /// The note, when waiting was large in some game.
    pub fn note(&self) -> Option<String> {
        if self.games.is_empty() {
            return None;
        }
        let mut ids: Vec<String> = self.games.iter().take(NAMED).map(u64::to_string).collect();
        if self.games.len() > NAMED {
            ids.push(format!("and {} more", self.games.len() - NAMED));
        }
        let share = self.waited_us as f64 * 100.0 / self.wall_us.max(1) as f64;
        Some(format!(
            "the machine was too busy for {} of {} games (games {}): bots waited for a CPU longer \
             than a turn's limit, or for more than half of their turns' time after the first (worst \
             turn: {:.0} ms of waiting on a {:.0} ms limit; {share:.0}% of all turn time after \
             the first turns was waiting). The fair \
             clock did not charge that waiting, so the verdicts stand, but the bots were slowed: \
             play fewer games at once ({}), stop other work on the machine, or judge \
             CPU time alone with {} cpu",
            self.games.len(),
            self.measured,
            ids.join(", "),
            self.worst.0 as f64 / 1000.0,
            self.worst.1 as f64 / 1000.0,
            crate::options::Opt::Concurrency,
            crate::options::Opt::Clock,
        ))
    }
}

/// The time the fair clock charged for each move of `rec`, in microseconds.
pub fn charged_us(rec: &GameRecord) -> Vec<u64> {
    let mut stolen = rec.stolen_us.iter().peekable();
    rec.wall_us
        .iter()
        .zip(&rec.waited_us)
        .zip(&rec.cpu_us)
        .enumerate()
        .map(|(i, ((&wall, &waited), &cpu))| {
            let us = std::time::Duration::from_micros;
            let steal = stolen
                .next_if(|(at, _)| *at as usize == i)
                .map_or(0, |&(_, s)| s);
            crate::referee::charged(us(wall), us(waited), us(cpu), us(steal)).as_micros() as u64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::records::Clocks;

    fn rec(id: u64, waited: &[u64], wall: &[u64]) -> GameRecord {
        let line = serde_json::json!({
            "game_id": id, "pair_id": 0, "game": "impasse", "variant": "standard", "seats": 2,
            "seed": 1, "bots": ["a", "b"],
            "clocks": Clocks { first_turn_us: 1_000_000, turn_us: 100_000, grace_us: 0,
                strikes: 1, clock: "fair".into(), max_turns: 10 },
            "opening": [], "moves": vec!["m"; waited.len()],
            "seat": (0..waited.len()).map(|i| i % 2).collect::<Vec<_>>(),
            "wall_us": wall, "cpu_us": vec![0; waited.len()], "waited_us": waited,
            "reason": "turn-limit", "ranks": [0, 0], "scores": [0, 0], "stderr": ["", ""],
            "stderr_bytes": [0, 0], "duration_ms": 1
        });
        serde_json::from_value(line).unwrap()
    }

    #[test]
    fn names_games_where_waiting_passed_a_limit_or_dominated() {
        let mut s = Starved::default();
        // First turns may wait up to their own (longer) limit.
        s.add(&rec(
            1,
            &[500_000, 300_000, 10_000, 0],
            &[1_100_000, 1_000_000, 90_000, 90_000],
        ));
        assert_eq!(s.note(), None);
        // Instant bots: the first turns (the bots' start-up, together) are most of the game's
        // turn time, and each waited for the other's start-up.
        s.add(&rec(
            4,
            &[900, 700, 0, 2, 0, 1],
            &[1_200, 1_000, 12, 10, 11, 10],
        ));
        assert_eq!(s.note(), None);
        // A later turn waiting 150 ms on a 100 ms limit.
        s.add(&rec(
            2,
            &[0, 0, 150_000, 0],
            &[10_000, 10_000, 200_000, 10_000],
        ));
        // Short waits that are most of the turns' time.
        s.add(&rec(
            3,
            &[0, 0, 60_000, 60_000],
            &[1_000, 1_000, 80_000, 80_000],
        ));
        let note = s.note().unwrap();
        assert!(note.contains("2 of 4 games (games 2, 3)"), "{note}");
        assert!(
            note.contains("150 ms of waiting on a 100 ms limit"),
            "{note}"
        );
        let clock_cpu = format!("{} cpu", crate::options::Opt::Clock);
        assert!(note.contains(&clock_cpu), "{note}");
    }
}
