//! The final ranks of a game in which seats were eliminated on the way.

use super::Forfeit;

/// Final ranks when seats were eliminated on the way: the seats still playing keep their order
/// from `ranks` (compressed to start at 0) above every eliminated seat, and a seat eliminated later
/// ranks above one eliminated earlier. `ending` is a forfeit that ended the game (ranked last).
/// With `simultaneous`, forfeits of the same turn (in order of turns) happened together: those
/// seats rank among themselves by `ranks` (the game's), equal ones tie.
pub(super) fn rank_with_eliminations(
    ranks: &[u8],
    forfeits: &[Forfeit],
    ending: Option<usize>,
    simultaneous: bool,
) -> Vec<u8> {
    let seats = ranks.len();
    let gone: Vec<usize> = forfeits.iter().map(|f| f.seat).chain(ending).collect();
    let playing: Vec<usize> = (0..seats).filter(|s| !gone.contains(s)).collect();
    let mut out = vec![0u8; seats];
    for &s in &playing {
        out[s] = playing.iter().filter(|&&o| ranks[o] < ranks[s]).count() as u8;
    }
    // Who went out when: one group a forfeit, or with `simultaneous` one a turn.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, &s) in gone.iter().enumerate() {
        let together =
            simultaneous && k > 0 && k < forfeits.len() && forfeits[k].turn == forfeits[k - 1].turn;
        match groups.last_mut() {
            Some(group) if together => group.push(s),
            _ => groups.push(vec![s]),
        }
    }
    // The last ones out rank just below the survivors, the first ones out last of all; in a
    // group, a seat ranks below those of it the game ranked higher.
    let mut above = playing.len();
    for group in groups.iter().rev() {
        for &s in group {
            out[s] = (above + group.iter().filter(|&&o| ranks[o] < ranks[s]).count()) as u8;
        }
        above += group.len();
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
        let ranks = rank_with_eliminations(&[1, 0, 0, 0], &[forfeit(1), forfeit(3)], None, false);
        assert_eq!(ranks, vec![1, 3, 0, 2]);
        // A tie among survivors stays a tie.
        let ranks = rank_with_eliminations(&[0, 0, 0, 0], &[forfeit(2)], None, false);
        assert_eq!(ranks, vec![0, 0, 3, 0], "three seats are ahead of seat 2");
        // A forfeit that ended the game is the latest out: above the seat eliminated before.
        let ranks = rank_with_eliminations(&[0, 0, 0, 0], &[forfeit(2)], Some(0), false);
        assert_eq!(ranks, vec![2, 0, 3, 0]);
        // Forfeits of one turn, one after the other, still rank the later one higher unless
        // they happened together.
        let ranks = rank_with_eliminations(&[0, 0, 0], &[forfeit(1), forfeit(2)], None, false);
        assert_eq!(ranks, vec![0, 2, 1]);
    }

    /// Players out in the same game turn of a game whose players answer a turn together (an SDK
    /// game's) are out together: the game's ranks order them, equal ones tie, and they rank
    /// below the players out later.
    #[test]
    fn players_out_in_the_same_turn_rank_together_by_the_games_ranks() {
        let at = |seat, turn| Forfeit {
            turn,
            ..forfeit(seat)
        };
        // Two seats, both out in turn 4 with equal scores: a tie, not the later asked first.
        assert_eq!(
            rank_with_eliminations(&[0, 0], &[at(0, 4), at(1, 4)], None, true),
            vec![0, 0]
        );
        // The game scored seat 1 higher: it ranks first of the two.
        assert_eq!(
            rank_with_eliminations(&[1, 0], &[at(0, 4), at(1, 4)], None, true),
            vec![1, 0]
        );
        // Four seats: seat 3 out in turn 2, seats 0 and 2 together in turn 5 (tied by the
        // game), seat 1 still playing.
        assert_eq!(
            rank_with_eliminations(&[3, 0, 3, 3], &[at(3, 2), at(0, 5), at(2, 5)], None, true),
            vec![1, 0, 1, 3]
        );
    }
}
