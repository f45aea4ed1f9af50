//! Which games a tournament plays: pairings, paired games with seats swapped, seeds and
//! openings. Pure and deterministic: the same settings always give the same games and ids,
//! which is what lets a resumed run skip exactly the games already recorded.

use crate::game::{new_game, Game, GameError};
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
    /// Unique and stable for the settings; the two games of a pair are `2p` and `2p + 1`.
    pub game_id: u64,
    pub pair_id: u64,
    /// Seeds the opening and the `random` answer; equal for both games of a pair.
    pub seed: u64,
    /// Bot indices by seat: `seats[0]` moves first.
    pub seats: [usize; 2],
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
    let pairings: Vec<(usize, usize)> = match format {
        Format::RoundRobin => (0..bots)
            .flat_map(|i| (i + 1..bots).map(move |j| (i, j)))
            .collect(),
        Format::Gauntlet => (1..bots).map(|j| (0, j)).collect(),
    };
    let rounds = u64::from(games_per_pair / 2);
    let mut games = Vec::with_capacity(pairings.len() * games_per_pair as usize);
    for round in 0..rounds {
        for (p, &(a, b)) in pairings.iter().enumerate() {
            let pair_id = p as u64 * rounds + round;
            let seed = Rng::derive(master_seed, pair_id) >> 11;
            games.push(GameSpec {
                game_id: 2 * pair_id,
                pair_id,
                seed,
                seats: [a, b],
            });
            games.push(GameSpec {
                game_id: 2 * pair_id + 1,
                pair_id,
                seed,
                seats: [b, a],
            });
        }
    }
    games
}

/// The position after `plies` random legal moves drawn from `seed`, and those moves. Stops
/// early (never ending the game) if a move would finish it or none is left.
pub fn opening(
    game: &str,
    seed: u64,
    plies: u32,
) -> Result<(Box<dyn Game>, Vec<String>), GameError> {
    let mut position = new_game(game, seed)?;
    let mut rng = Rng::new(Rng::derive(seed, 0x6f70_656e));
    let mut moves = Vec::with_capacity(plies as usize);
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
            assert_eq!(pair[0].seats, [pair[1].seats[1], pair[1].seats[0]]);
        }
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let n = games
                .iter()
                .filter(|g| g.seats == [a, b] || g.seats == [b, a])
                .count();
            assert_eq!(n, 4);
        }
        // The first round holds one pair of games of every pairing.
        let first_round: HashSet<[usize; 2]> = games[..6].iter().map(|g| g.seats).collect();
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

    #[test]
    fn openings_are_reproducible_and_legal() {
        let (pos, moves) = opening("impasse", 5, 4).unwrap();
        assert_eq!(moves.len(), 4);
        let (pos2, moves2) = opening("impasse", 5, 4).unwrap();
        assert_eq!(moves, moves2);
        assert_eq!(pos.describe(), pos2.describe());
        // Replaying the moves by text reaches the same position.
        let mut g = new_game("impasse", 5).unwrap();
        for m in &moves {
            let i = g.legal_moves().iter().position(|x| x == m).unwrap();
            g.play(i);
        }
        assert_eq!(g.describe(), pos.describe());
        let (_, none) = opening("impasse", 5, 0).unwrap();
        assert!(none.is_empty());
    }
}
