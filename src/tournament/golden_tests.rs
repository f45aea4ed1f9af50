//! Golden values: the schedule a master seed gives (game ids, table rounds, seeds, seats and
//! openings) must never change, since `--resume`, shards and `merge` find games by id and replay
//! them by seed. A failure here means recorded runs would no longer continue or merge: restore
//! the old stream rather than update the values.

use super::schedule::{opening, schedule, Format, GameSpec};
use crate::referee::GameChoice;

fn rows(games: &[GameSpec]) -> Vec<(u64, u64, u64, Vec<usize>)> {
    games
        .iter()
        .map(|g| (g.game_id, g.pair_id, g.seed, g.seats.clone()))
        .collect()
}

#[test]
fn a_two_seat_round_robin_keeps_its_ids_seeds_and_seats() {
    let want: Vec<(u64, u64, u64, Vec<usize>)> = vec![
        (0, 0, 6679422623415661, vec![0, 1]),
        (1, 0, 6679422623415661, vec![1, 0]),
        (4, 2, 8812791326472463, vec![0, 2]),
        (5, 2, 8812791326472463, vec![2, 0]),
        (8, 4, 8535327823509157, vec![1, 2]),
        (9, 4, 8535327823509157, vec![2, 1]),
        (2, 1, 7067349221208983, vec![0, 1]),
        (3, 1, 7067349221208983, vec![1, 0]),
        (6, 3, 2750446659327451, vec![0, 2]),
        (7, 3, 2750446659327451, vec![2, 0]),
        (10, 5, 5968113647504940, vec![1, 2]),
        (11, 5, 5968113647504940, vec![2, 1]),
    ];
    assert_eq!(rows(&schedule(3, Format::RoundRobin, 4, 42)), want);
}

#[test]
fn a_two_seat_gauntlet_keeps_its_ids_seeds_and_seats() {
    let want: Vec<(u64, u64, u64, Vec<usize>)> = vec![
        (0, 0, 6679422623415661, vec![0, 1]),
        (1, 0, 6679422623415661, vec![1, 0]),
        (4, 2, 8812791326472463, vec![0, 2]),
        (5, 2, 8812791326472463, vec![2, 0]),
        (2, 1, 7067349221208983, vec![0, 1]),
        (3, 1, 7067349221208983, vec![1, 0]),
        (6, 3, 2750446659327451, vec![0, 2]),
        (7, 3, 2750446659327451, vec![2, 0]),
    ];
    assert_eq!(rows(&schedule(3, Format::Gauntlet, 4, 42)), want);
}

#[test]
fn the_openings_of_a_schedule_stay_the_same() {
    let choice = GameChoice::new("impasse", None, None, None).unwrap();
    let games = schedule(3, Format::RoundRobin, 2, 42);
    let got: Vec<Vec<String>> = games[..3]
        .iter()
        .map(|g| opening(&choice, g.seed, 4).unwrap().1)
        .collect();
    let want = [
        ["c7e5", "a7b6", "d2h6", "d8c7"],
        ["c7e5", "a7b6", "d2h6", "d8c7"],
        ["c7a5", "b2f6", "b8d6", "f2c5"],
    ];
    assert_eq!(got, want, "the two games of a pair share the opening");
}
