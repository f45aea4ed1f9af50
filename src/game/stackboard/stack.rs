//! A stack of two seats' pieces, bottom first, as the stacking games keep one on every cell.

use crate::game::PositionError;

/// A stack of up to eight pieces of two seats, bottom first: small and `Copy`, so a board is a
/// plain array and copying a position costs nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stack {
    len: u8,
    /// Bit `i` set: piece `i` (0 at the bottom) belongs to seat 1.
    bits: u8,
}

impl Stack {
    pub const EMPTY: Stack = Stack { len: 0, bits: 0 };
    /// Stacks never grow past this many pieces.
    pub const MAX: usize = 8;

    /// `n` pieces of `seat`.
    pub fn of(seat: usize, n: usize) -> Stack {
        let mut s = Stack::EMPTY;
        for _ in 0..n {
            s.push(seat);
        }
        s
    }

    pub fn height(self) -> usize {
        self.len as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The seat of piece `i` (0 at the bottom).
    pub fn seat_at(self, i: usize) -> usize {
        usize::from(self.bits >> i & 1 == 1)
    }

    /// The seat of the top piece.
    pub fn top(self) -> Option<usize> {
        (self.len > 0).then(|| self.seat_at(self.len as usize - 1))
    }

    /// How many of the pieces belong to `seat`.
    pub fn count(self, seat: usize) -> usize {
        let ones = (self.bits & mask(self.len as usize)).count_ones() as usize;
        if seat == 1 {
            ones
        } else {
            self.len as usize - ones
        }
    }

    /// Adds one piece of `seat` on top.
    pub fn push(&mut self, seat: usize) {
        debug_assert!((self.len as usize) < Stack::MAX);
        if seat == 1 {
            self.bits |= 1 << self.len;
        } else {
            self.bits &= !(1 << self.len);
        }
        self.len += 1;
    }

    /// Lifts the top `k` pieces off (`k <= height`) and returns them as a stack.
    pub fn split_top(&mut self, k: usize) -> Stack {
        debug_assert!(k <= self.len as usize);
        let rest = self.len as usize - k;
        let top = Stack {
            len: k as u8,
            bits: (self.bits >> rest) & mask(k),
        };
        self.len = rest as u8;
        self.bits &= mask(rest);
        top
    }

    /// Puts `upper` on top of this stack.
    pub fn put(&mut self, upper: Stack) {
        debug_assert!(self.height() + upper.height() <= Stack::MAX);
        self.bits = (self.bits & mask(self.len as usize)) | (upper.bits << self.len);
        self.len += upper.len;
    }

    /// Appends the pieces bottom first as `letters[seat]`, or `.` when empty.
    pub fn write(self, out: &mut String, letters: [char; 2]) {
        if self.len == 0 {
            out.push('.');
        }
        for i in 0..self.len as usize {
            out.push(letters[self.seat_at(i)]);
        }
    }

    /// Reads what [`Stack::write`] printed.
    pub fn parse(s: &str, letters: [char; 2]) -> Result<Stack, PositionError> {
        if s == "." {
            return Ok(Stack::EMPTY);
        }
        if s.is_empty() || s.chars().count() > Stack::MAX {
            return Err(PositionError::Stack {
                stack: s.to_string(),
            });
        }
        let mut st = Stack::EMPTY;
        for ch in s.chars() {
            let seat =
                letters
                    .iter()
                    .position(|&l| l == ch)
                    .ok_or_else(|| PositionError::Piece {
                        piece: ch,
                        stack: s.to_string(),
                    })?;
            st.push(seat);
        }
        Ok(st)
    }
}

fn mask(n: usize) -> u8 {
    if n >= 8 {
        u8::MAX
    } else {
        (1u8 << n) - 1
    }
}
