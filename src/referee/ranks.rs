//! The final ranks of a game in which seats were eliminated on the way.

use super::Forfeit;

/// Final ranks when seats were eliminated on the way: the seats still playing keep their order
/// from `ranks` (compressed to start at 0) above every eliminated seat, and a seat eliminated later
/// ranks above one eliminated earlier. `ending` is a forfeit that ended the game (ranked last).
pub(super) fn rank_with_eliminations(
    ranks: &[u8],
    forfeits: &[Forfeit],
    ending: Option<usize>,
) -> Vec<u8> {
    let seats = ranks.len();
    let gone: Vec<usize> = forfeits.iter().map(|f| f.seat).chain(ending).collect();
    let playing: Vec<usize> = (0..seats).filter(|s| !gone.contains(s)).collect();
    let mut out = vec![0u8; seats];
    for &s in &playing {
        out[s] = playing.iter().filter(|&&o| ranks[o] < ranks[s]).count() as u8;
    }
    // The last one out ranks just below the survivors, the first one out last of all.
    for (k, &s) in gone.iter().rev().enumerate() {
        out[s] = (playing.len() + k) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::Reason;

    fn forfeit(seat: usize) -> Forfeit {
        Forfeit {
            seat,
            reason: Reason::Timeout,
            detail: String::new(),
            turn: 1,
            exit: None,
        }
    }

    #[test]
    fn eliminated_seats_rank_below_survivors_latest_out_highest() {
        // Seat 1 out first, then seat 3; of seats 0 and 2 the rules made 2 the winner.
        let ranks = rank_with_eliminations(&[1, 0, 0, 0], &[forfeit(1), forfeit(3)], None);
        assert_eq!(ranks, vec![1, 3, 0, 2]);
        // A tie among survivors stays a tie.
        let ranks = rank_with_eliminations(&[0, 0, 0, 0], &[forfeit(2)], None);
        assert_eq!(ranks, vec![0, 0, 3, 0], "three seats are ahead of seat 2");
        // A forfeit that ended the game is the latest out: above the seat eliminated before.
        let ranks = rank_with_eliminations(&[0, 0, 0, 0], &[forfeit(2)], Some(0));
        assert_eq!(ranks, vec![2, 0, 3, 0]);
    }
}
