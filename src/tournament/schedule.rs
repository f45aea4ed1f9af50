//! Which games a tournament plays: pairings, paired games with seats swapped, seeds and
//! openings. Pure and deterministic: the same settings always give the same games and ids,
//! which is what lets a resumed run skip exactly the games already recorded.

use super::openings::Book;
use crate::game::{Game, GameError};
use crate::referee::GameChoice;
use crate::rng::Rng;

/// How bots are paired.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every bot against every other.
    RoundRobin,
    /// The first bot against each of the others.
    Gauntlet,
}

/// One game to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// Unique and stable for the settings; the k games of a table round are `k t .. k t + k - 1`.
    pub game_id: u64,
    /// The table round (for two seats: the pair of games with seats swapped).
    pub pair_id: u64,
    /// Seeds the opening and the `random` answer; equal for all games of a table round.
    pub seed: u64,
    /// Bot indices by seat: `seats[0]` moves first.
    pub seats: Vec<usize>,
}

/// Every game of a two-seat tournament of `bots` bots with `games_per_pair` games per pairing
/// (even: each pair of games shares a seed and an opening, with seats swapped). Games come
/// round by round, so that a tournament stopped early is still balanced.
pub fn schedule(
    bots: usize,
    format: Format,
    games_per_pair: u32,
    master_seed: u64,
) -> Vec<GameSpec> {
    schedule_tables(&Plan {
        bots,
        seats: 2,
        format,
        games_per_table: games_per_pair,
        tables: None,
        master_seed,
    })
}

/// What decides a tournament's games.
#[derive(Clone, Debug)]
pub struct Plan {
    pub bots: usize,
    /// Seats of the game (k).
    pub seats: usize,
    pub format: Format,
    /// Games per table, a multiple of `seats`: each round of k games shares a seed and an opening
    /// and rotates the bots so that each plays every seat once.
    pub games_per_table: u32,
    /// Play this many sampled tables instead of every table (for large fields): see [`tables`].
    pub tables: Option<usize>,
    pub master_seed: u64,
}

/// The tables (sets of k bots, in seat order of their first game) a plan plays.
///
/// Without a sample size: round robin is every set of k bots, gauntlet is bot 0 with every set
/// of k - 1 others. With `tables = Some(n)`: n tables drawn in rounds; each round shuffles the
/// bots (gauntlet: the others) with the master seed and cuts them into tables of k (gauntlet:
/// k - 1 plus bot 0); bots left over in a round sit out and are shuffled in by the next, so every
/// bot sits at the same number of tables give or take one and meets a random sample of the
/// others (within a round, the bots with the fewest tables so far are seated first). The same settings always give the same tables.
pub fn tables(plan: &Plan) -> Vec<Vec<usize>> {
    let k = plan.seats;
    let (pool, fixed): (Vec<usize>, Option<usize>) = match plan.format {
        Format::RoundRobin => ((0..plan.bots).collect(), None),
        Format::Gauntlet => ((1..plan.bots).collect(), Some(0)),
    };
    let pick = k - usize::from(fixed.is_some());
    let with_fixed = |mut t: Vec<usize>| {
        if let Some(f) = fixed {
            t.insert(0, f);
        }
        t
    };
    let Some(want) = plan.tables else {
        return combinations(&pool, pick)
            .into_iter()
            .map(with_fixed)
            .collect();
    };
    let mut out = Vec::with_capacity(want);
    if pick == 0 || pool.len() < pick {
        return out;
    }
    let mut round = 0u64;
    let mut seated = vec![0u32; plan.bots];
    while out.len() < want {
        let mut order = pool.clone();
        let mut rng = Rng::new(Rng::derive(plan.master_seed, 0x7461_626c ^ round));
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        order.sort_by_key(|&b| seated[b]);
        for chunk in order.chunks_exact(pick) {
            for &b in chunk {
                seated[b] += 1;
            }
            if out.len() == want {
                break;
            }
            let mut t = chunk.to_vec();
            t.sort_unstable();
            out.push(with_fixed(t));
        }
        round += 1;
    }
    out
}

/// Every subset of `k` items of `pool`, in lexicographic order.
fn combinations(pool: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut idx: Vec<usize> = (0..k).collect();
    if k > pool.len() {
        return out;
    }
    loop {
        out.push(idx.iter().map(|&i| pool[i]).collect());
        let Some(i) = (0..k).rev().find(|&i| idx[i] != i + pool.len() - k) else {
            return out;
        };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Every game of a plan, round by round over the tables (so a run stopped early is still
/// balanced). The k games of a table round share a seed and an opening, and rotate the table so
/// that each bot plays every seat once (for two seats: the pair with seats swapped).
pub fn schedule_tables(plan: &Plan) -> Vec<GameSpec> {
    games_of_tables(
        &tables(plan),
        plan.seats,
        plan.games_per_table,
        plan.master_seed,
    )
}

/// The games of a list of tables of `seats` bots each, `games_per_table` per table (a multiple of
/// `seats`), round by round as [`schedule_tables`] plays them; for callers that choose their
/// tables themselves. Ids depend on the position of each table in the list.
pub fn games_of_tables(
    tables: &[Vec<usize>],
    seats: usize,
    games_per_table: u32,
    master_seed: u64,
) -> Vec<GameSpec> {
    let k = seats.max(1);
    let rounds = u64::from(games_per_table / k as u32);
    let mut games = Vec::with_capacity(tables.len() * games_per_table as usize);
    for round in 0..rounds {
        for (t, table) in tables.iter().enumerate() {
            let pair_id = t as u64 * rounds + round;
            let seed = Rng::derive(master_seed, pair_id) >> 11;
            for r in 0..k {
                games.push(GameSpec {
                    game_id: k as u64 * pair_id + r as u64,
                    pair_id,
                    seed,
                    seats: seat_order(table, round, r),
                });
            }
        }
    }
    games
}

/// The orders of the four games of a four-seat table round, as indices into the round's order
/// of the table: each index plays every seat once (a Latin square), and the partners (seats 0
/// and 2, seats 1 and 3) differ between games: rows 0 and 2 pair 0-2 and 1-3, rows 1 and 3 pair
/// 0-1 and 2-3. A cyclic rotation would keep the same two partnerships in every game.
const FOUR_SEATS: [[usize; 4]; 4] = [[0, 1, 2, 3], [1, 3, 0, 2], [3, 2, 1, 0], [2, 0, 3, 1]];

/// The order of the table in table round `round` of four seats: three rounds see the three ways
/// to pair four bots twice each (round 0: the table's own order, pairing a-c/b-d and a-b/c-d;
/// round 1: a-b/c-d and a-d/b-c; round 2: a-d/b-c and a-c/b-d).
const FOUR_SEAT_ROUNDS: [[usize; 4]; 3] = [[0, 1, 2, 3], [0, 3, 1, 2], [0, 2, 3, 1]];

/// The bots by seat of game `r` of a table round: each bot plays every seat once in the round.
/// Two and three seats rotate the table (for two seats: the pair with seats swapped); four
/// seats follow [`FOUR_SEATS`] over the round's order of the table, so partners (in a partners
/// game: seats 0 and 2 against 1 and 3) change from game to game and from round to round, and
/// every bot is rated apart from each of its partners.
fn seat_order(table: &[usize], round: u64, r: usize) -> Vec<usize> {
    let k = table.len();
    if k == 4 {
        let order = FOUR_SEAT_ROUNDS[(round % 3) as usize];
        return FOUR_SEATS[r].iter().map(|&i| table[order[i]]).collect();
    }
    (0..k).map(|s| table[(s + k - r) % k]).collect()
}

/// The position after `plies` random legal moves drawn from `seed`, and those moves. Stops
/// early (never ending the game) if a move would finish it or none is left.
pub fn opening(
    game: &GameChoice,
    seed: u64,
    plies: u32,
) -> Result<(Box<dyn Game>, Vec<String>), GameError> {
    opening_from(game, seed, plies, None)
}

/// One stage of a run that was grown on purpose: from this stage on the field has `bots` bots
/// and each table plays `games_per_table` games.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stage {
    pub bots: usize,
    pub games_per_table: u32,
}

/// Every game of a run that began as `plan` and was then grown through `stages` (more bots
/// appended at the end of the list, more games per table). The games of the first plan keep
/// their ids, seeds and seats; each stage adds only the table rounds no earlier stage had
/// (rounds of new tables, and further rounds of old ones), numbered after every earlier id. So
/// growing a run never replays a finished game and never changes one already scheduled.
pub fn schedule_grown(plan: &Plan, stages: &[Stage]) -> Vec<GameSpec> {
    use std::collections::HashSet;
    let k = plan.seats.max(1);
    let mut games = schedule_tables(plan);
    // A table round is known by its set of bots and its round number.
    let key = |seats: &[usize], round: u64| {
        let mut set = seats.to_vec();
        set.sort_unstable();
        (set, round)
    };
    let first_rounds = u64::from(plan.games_per_table / k as u32).max(1);
    let mut seen: HashSet<(Vec<usize>, u64)> = games
        .iter()
        .step_by(k)
        .map(|g| key(&g.seats, g.pair_id % first_rounds))
        .collect();
    let mut next_pair = games.last().map_or(0, |g| g.pair_id + 1);
    for stage in stages {
        let grown = Plan {
            bots: stage.bots,
            games_per_table: stage.games_per_table,
            ..plan.clone()
        };
        let rounds = u64::from(stage.games_per_table / k as u32);
        for round in 0..rounds {
            for table in tables(&grown) {
                if !seen.insert(key(&table, round)) {
                    continue;
                }
                let pair_id = next_pair;
                next_pair += 1;
                let seed = Rng::derive(plan.master_seed, pair_id) >> 11;
                for r in 0..k {
                    games.push(GameSpec {
                        game_id: k as u64 * pair_id + r as u64,
                        pair_id,
                        seed,
                        seats: seat_order(&table, round, r),
                    });
                }
            }
        }
    }
    games
}

/// The start of one game: the book's line for its table round (if a book is given), then
/// `plies` random legal moves drawn from the seed; with the moves played.
pub fn opening_from(
    game: &GameChoice,
    seed: u64,
    plies: u32,
    book: Option<(&Book, u64)>,
) -> Result<(Box<dyn Game>, Vec<String>), GameError> {
    let mut position = game.start(seed)?;
    let mut moves = match book {
        Some((book, pair_id)) => book.apply(position.as_mut(), pair_id),
        None => Vec::new(),
    };
    let mut rng = Rng::new(Rng::derive(seed, 0x6f70_656e));
    for _ in 0..plies {
        let n = position.legal_moves().len();
        if n == 0 || position.outcome().is_some() {
            break;
        }
        let i = rng.below(n);
        let mut next = position.box_clone();
        next.play(i);
        if next.outcome().is_some() {
            break;
        }
        moves.push(position.legal_moves()[i].clone());
        position = next;
    }
    Ok((position, moves))
}

/// An opening told by someone else (a league's server to its worker) that cannot be played here.
#[derive(Debug, thiserror::Error)]
pub enum ToldOpeningError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(
        "opening move {n} ({text:?}) is not legal here, or the game is over before it: the \
         opening was made for another game (run the same arbiter and game as the server)"
    )]
    Illegal { n: usize, text: String },
}

/// The start of one game from an opening given as moves (see [`opening_from`], which made
/// them): each move checked against the rules before it is played.
pub fn opening_told(
    game: &GameChoice,
    seed: u64,
    moves: &[String],
) -> Result<(Box<dyn Game>, Vec<String>), ToldOpeningError> {
    let mut position = game.start(seed)?;
    for (k, m) in moves.iter().enumerate() {
        let legal = position.outcome().is_none();
        let Some(i) = legal
            .then(|| position.legal_moves().iter().position(|l| l == m))
            .flatten()
        else {
            return Err(ToldOpeningError::Illegal {
                n: k + 1,
                text: m.clone(),
            });
        };
        position.play(i);
    }
    if position.outcome().is_some() && !moves.is_empty() {
        return Err(ToldOpeningError::Illegal {
            n: moves.len(),
            text: moves[moves.len() - 1].clone(),
        });
    }
    Ok((position, moves.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn round_robin_pairs_everyone_with_seats_swapped() {
        let games = schedule(3, Format::RoundRobin, 4, 9);
        assert_eq!(games.len(), 3 * 4);
        let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
        assert_eq!(ids.len(), games.len());
        for pair in games.chunks(2) {
            assert_eq!(pair[0].pair_id, pair[1].pair_id);
            assert_eq!(pair[0].seed, pair[1].seed);
            assert_eq!(pair[0].seats, vec![pair[1].seats[1], pair[1].seats[0]]);
        }
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let n = games
                .iter()
                .filter(|g| g.seats == vec![a, b] || g.seats == vec![b, a])
                .count();
            assert_eq!(n, 4);
        }
        // The first round holds one pair of games of every pairing.
        let first_round: HashSet<Vec<usize>> = games[..6].iter().map(|g| g.seats.clone()).collect();
        assert_eq!(first_round.len(), 6);
        assert_eq!(games, schedule(3, Format::RoundRobin, 4, 9));
        assert_ne!(
            games[0].seed,
            schedule(3, Format::RoundRobin, 4, 10)[0].seed
        );
    }

    #[test]
    fn gauntlet_plays_the_first_bot_against_each_other() {
        let games = schedule(4, Format::Gauntlet, 2, 1);
        assert_eq!(games.len(), 6);
        assert!(games.iter().all(|g| g.seats.contains(&0)));
    }

    fn impasse() -> GameChoice {
        GameChoice::new("impasse", None, None, None).unwrap()
    }

    #[test]
    fn openings_are_reproducible_and_legal() {
        let (pos, moves) = opening(&impasse(), 5, 4).unwrap();
        assert_eq!(moves.len(), 4);
        let (pos2, moves2) = opening(&impasse(), 5, 4).unwrap();
        assert_eq!(moves, moves2);
        assert_eq!(pos.describe(), pos2.describe());
        // Replaying the moves by text reaches the same position.
        let mut g = impasse().start(5).unwrap();
        for m in &moves {
            let i = g.legal_moves().iter().position(|x| x == m).unwrap();
            g.play(i);
        }
        assert_eq!(g.describe(), pos.describe());
        let (_, none) = opening(&impasse(), 5, 0).unwrap();
        assert!(none.is_empty());
    }

    fn plan(bots: usize, seats: usize, format: Format, tables: Option<usize>) -> Plan {
        Plan {
            bots,
            seats,
            format,
            games_per_table: seats as u32,
            tables,
            master_seed: 3,
        }
    }

    #[test]
    fn four_seat_tables_rotate_every_bot_through_every_seat() {
        let games = schedule_tables(&plan(5, 4, Format::RoundRobin, None));
        // C(5, 4) = 5 tables of 4 games each.
        assert_eq!(games.len(), 20);
        for table in games.chunks(4) {
            assert!(table.iter().all(|g| g.seed == table[0].seed));
            for seat in 0..4 {
                let at_seat: HashSet<usize> = table.iter().map(|g| g.seats[seat]).collect();
                assert_eq!(at_seat.len(), 4, "each bot plays seat {seat} once");
            }
        }
        let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
        assert_eq!(ids.len(), 20);
        assert_eq!(*ids.iter().max().unwrap(), 19);
        let gauntlet = schedule_tables(&plan(5, 4, Format::Gauntlet, None));
        assert_eq!(gauntlet.len(), 4 * 4, "bot 0 with each 3 of the 4 others");
        assert!(gauntlet.iter().all(|g| g.seats.contains(&0)));
    }

    #[test]
    fn four_seat_partners_change_within_a_round_and_see_all_three_pairings_in_three() {
        let partners = |g: &GameSpec| {
            let mut p = [
                [g.seats[0].min(g.seats[2]), g.seats[0].max(g.seats[2])],
                [g.seats[1].min(g.seats[3]), g.seats[1].max(g.seats[3])],
            ];
            p.sort_unstable();
            p
        };
        let one_round = schedule_tables(&plan(4, 4, Format::RoundRobin, None));
        assert_eq!(one_round.len(), 4);
        // The first game keeps the table's order (ids, seeds and the first game unchanged).
        assert_eq!(one_round[0].seats, vec![0, 1, 2, 3]);
        // In four games no bot has the same partner throughout.
        for bot in 0..4 {
            let with: HashSet<usize> = one_round
                .iter()
                .map(|g| {
                    let s = g.seats.iter().position(|&b| b == bot).unwrap();
                    g.seats[(s + 2) % 4]
                })
                .collect();
            assert_eq!(with.len(), 2, "bot {bot}: partners {with:?}");
        }
        let three_rounds = schedule_tables(&Plan {
            games_per_table: 12,
            ..plan(4, 4, Format::RoundRobin, None)
        });
        let mut count = std::collections::HashMap::new();
        for g in &three_rounds {
            *count.entry(partners(g)).or_insert(0) += 1;
        }
        assert_eq!(count.len(), 3, "{count:?}");
        assert!(count.values().all(|&n| n == 4), "{count:?}");
        for round in three_rounds.chunks(4) {
            for seat in 0..4 {
                let at: HashSet<usize> = round.iter().map(|g| g.seats[seat]).collect();
                assert_eq!(at.len(), 4, "each bot plays seat {seat} once a round");
            }
        }
    }

    #[test]
    fn two_seat_tables_are_the_classic_pairs() {
        let plan = Plan {
            games_per_table: 6,
            ..plan(4, 2, Format::RoundRobin, None)
        };
        assert_eq!(
            schedule_tables(&plan),
            schedule(4, Format::RoundRobin, 6, 3)
        );
    }

    #[test]
    fn sampled_tables_spread_thirty_bots_evenly() {
        let t = tables(&plan(30, 4, Format::RoundRobin, Some(70)));
        assert_eq!(t.len(), 70);
        assert_eq!(t, tables(&plan(30, 4, Format::RoundRobin, Some(70))));
        let mut seen = vec![0; 30];
        for table in &t {
            let distinct: HashSet<_> = table.iter().collect();
            assert_eq!(distinct.len(), 4);
            for &b in table {
                seen[b] += 1;
            }
        }
        // 7 tables a round (2 bots sit out), 70 tables: each bot at 9 or 10 tables.
        let (lo, hi) = (seen.iter().min().unwrap(), seen.iter().max().unwrap());
        assert!(hi - lo <= 1, "{seen:?}");
    }

    #[test]
    fn growing_a_run_keeps_every_scheduled_game_and_adds_only_new_ones() {
        let base = Plan {
            games_per_table: 4,
            ..plan(3, 2, Format::RoundRobin, None)
        };
        let before = schedule_tables(&base);
        assert_eq!(schedule_grown(&base, &[]), before);
        // One more bot and 6 games per pair instead of 4.
        let grown = schedule_grown(
            &base,
            &[Stage {
                bots: 4,
                games_per_table: 6,
            }],
        );
        assert_eq!(&grown[..before.len()], &before[..], "old games unchanged");
        let ids: HashSet<u64> = grown.iter().map(|g| g.game_id).collect();
        assert_eq!(ids.len(), grown.len());
        // Every pair of the 4 bots now plays 6 games, seats swapped in pairs.
        for (a, b) in [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)] {
            let n = grown
                .iter()
                .filter(|g| g.seats == vec![a, b] || g.seats == vec![b, a])
                .count();
            assert_eq!(n, 6, "{a} {b}");
        }
        // Growing again by nothing adds nothing.
        let same = schedule_grown(
            &base,
            &[
                Stage {
                    bots: 4,
                    games_per_table: 6,
                },
                Stage {
                    bots: 4,
                    games_per_table: 6,
                },
            ],
        );
        assert_eq!(same, grown);
    }
}
