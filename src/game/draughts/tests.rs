//! Rules tests for international draughts: perft from the start and hand-built positions.

use super::*;
use crate::game::perft;

#[test]
fn perft_from_the_start() {
    let g = Draughts::new();
    let want = [9, 81, 658, 4265, 27117];
    for (d, &n) in want.iter().enumerate() {
        assert_eq!(perft(&g, d as u32 + 1), n, "depth {}", d + 1);
    }
}
