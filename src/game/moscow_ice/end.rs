//! How a game of Moscow Ice ends and ranks its seats: pieces home (the score), progress, the
//! winner (a seat, or a team of partners), a full round of passes, and the ranking by progress.

use super::{col, exists, progress, row, MoscowIce, Race};
use crate::game::Outcome;

impl MoscowIce {
    /// Pieces of `seat` on its finish line (the score).
    pub fn home(&self, seat: usize) -> i32 {
        let axis = self.axis(seat);
        (0..64u8)
            .filter(|&sq| progress(axis, sq) == 7 && exists(col(sq), row(sq)))
            .map(|sq| {
                self.board[sq as usize]
                    .pieces()
                    .filter(|p| p.seat() == seat)
                    .count() as i32
            })
            .sum()
    }

    /// The seats (bit `s` for seat `s`) each of whose pieces (at least one) stands on its finish
    /// line. In play this is exactly "all stacks rebuilt" (the order rule builds only S-M-L stacks
    /// there); positions built with fewer pieces finish when what they have is home.
    fn finished_mask(&self) -> u8 {
        let (mut any, mut away) = (0u8, 0u8);
        for sq in 0..64u8 {
            for p in self.board[sq as usize].pieces() {
                let seat = p.seat();
                any |= 1 << seat;
                if progress(self.axis(seat), sq) != 7 {
                    away |= 1 << seat;
                }
            }
        }
        any & !away
    }

    /// Progress of one seat: 100 per piece on its finish line plus the summed distance of all its
    /// pieces from its start line (at most 84), so home pieces count first.
    pub fn progress_value(&self, seat: usize) -> i64 {
        let axis = self.axis(seat);
        let mut dist = 0i64;
        for sq in 0..64u8 {
            for p in self.board[sq as usize].pieces() {
                if p.seat() == seat {
                    dist += i64::from(progress(axis, sq));
                }
            }
        }
        100 * i64::from(self.home(seat)) + dist
    }

    /// The progress that ranks `seat`: its own, or its team's (both partners summed).
    fn ranking_progress(&self, seat: usize) -> i64 {
        if self.partners {
            self.progress_value(seat) + self.progress_value((seat + 2) % 4)
        } else {
            self.progress_value(seat)
        }
    }

    /// Ranks every seat: the winner (seat or team) first, then by progress; eliminated seats
    /// share the last place below every seat still playing.
    pub(super) fn ranks(&self, winner: Option<usize>) -> Outcome {
        let values: Vec<i64> = (0..self.seats)
            .map(|s| {
                if self.is_out(s) {
                    return 0;
                }
                let won = winner.is_some_and(|w| w == s || (self.partners && w % 2 == s % 2));
                1 + self.ranking_progress(s) + if won { 1_000_000 } else { 0 }
            })
            .collect();
        Outcome::from_values(&values)
    }

    /// Ends the game if the rules say so: a winner, too few seats left, or a full round of passes.
    /// Choice: the seed has no rule for everyone blocked; a full round of passes cannot change
    /// anything, so it ends the game ranked by progress instead of running to the turn limit.
    pub(super) fn check_end(&mut self) {
        let active = self.active_mask();
        let finished = self.finished_mask();
        let winner = if self.partners {
            // Team 0 is seats 0 and 2 (bits 0b0101), team 1 seats 1 and 3.
            (0..2u8).find(|&team| {
                let members = active & (0b0101 << team);
                let other_alive = active & !members != 0;
                members != 0 && (!other_alive || members & finished == members)
            })
        } else if active.count_ones() == 1 {
            Some(active.trailing_zeros() as u8)
        } else {
            // The lowest active seat that has finished.
            let done = active & finished;
            (done != 0).then(|| done.trailing_zeros() as u8)
        };
        if let Some(w) = winner {
            self.end = Race::Won(w);
        } else if u32::from(self.passes) >= active.count_ones() {
            self.end = Race::Stuck;
        }
    }
}
