//! The arena's typed move, an [`Action`], and its text: the text is what bots see and what the
//! legal list is sorted by, so the key that sorts typed moves lives beside the writer of the text
//! (the soldier-king variant shares both).

use super::{square_name, Square, NONE};

/// What an action does before its bear-off and crown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ActionKind {
    SingleSlide,
    DoubleSlide,
    Transpose,
    ImpasseSingle,
    ImpasseDouble,
}

/// One complete turn (the typed move): the action, whether it bears off on `to`, and the crown
/// if any. Its text is `from`, `to` and `crown_from`, each when present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    pub(super) kind: ActionKind,
    pub(super) from: Square,
    /// Destination of a slide or transpose target; `NONE` at an impasse.
    pub(super) to: Square,
    pub(super) bear_off: bool,
    /// The single stacked onto `crown_to`, or `NONE`.
    pub(super) crown_from: Square,
    pub(super) crown_to: Square,
}

impl Action {
    pub(super) fn new(kind: ActionKind, from: Square, to: Square, bear_off: bool) -> Self {
        Action {
            kind,
            from,
            to,
            bear_off,
            crown_from: NONE,
            crown_to: NONE,
        }
    }

    pub(super) fn crowned(mut self, from: Square, to: Square) -> Self {
        self.crown_from = from;
        self.crown_to = to;
        self
    }

    /// Orders like the move text's bytes.
    pub(super) fn key(&self) -> u32 {
        text_key([self.from, self.to, self.crown_from])
    }

    /// Appends the move text, e.g. `c1a3`, `f8g7c5`, `b6` or `a3a3`.
    pub(super) fn write_text(&self, out: &mut String) {
        write_squares([self.from, self.to, self.crown_from], out);
    }
}

/// A key that orders like the text of up to three square names (`NONE` skipped): each name is
/// 7 bits (column first, then row, so `a8` < `b1`, as the bytes order), zero-padded, so a shorter
/// text sorts before every longer one it begins.
pub(super) fn text_key(squares: [Square; 3]) -> u32 {
    let mut key = 0u32;
    for sq in squares {
        if sq != NONE {
            key = key << 7 | u32::from((sq % 8) * 8 + sq / 8 + 1);
        }
    }
    let names = squares.iter().filter(|&&sq| sq != NONE).count() as u32;
    key << (7 * (3 - names))
}

/// Sorts `moves` by `key` in place, keeping the order of equal keys (the arena lists duplicate
/// texts in generation order and plays the first). Insertion sort: the lists are short and it
/// allocates nothing.
pub(super) fn stable_sort_by_key<T: Copy>(moves: &mut [T], key: impl Fn(&T) -> u32) {
    for i in 1..moves.len() {
        let x = moves[i];
        let kx = key(&x);
        let mut j = i;
        while j > 0 && key(&moves[j - 1]) > kx {
            moves[j] = moves[j - 1];
            j -= 1;
        }
        moves[j] = x;
    }
}

/// Appends the names of `squares` (`NONE` skipped): a move text such as `c1a3` or `f8g7c5`.
pub(super) fn write_squares(squares: [Square; 3], out: &mut String) {
    for sq in squares {
        if sq != NONE {
            let [c, r] = square_name(sq);
            out.push(c as char);
            out.push(r as char);
        }
    }
}
