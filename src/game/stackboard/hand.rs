//! The one-line position of the stacking games played from a hand (Abande, Attangle): the board
//! rows, the side to move, each side's pieces in hand and the passes just played in a row.
//! Read once here; each game checks its own stack rules after.

use super::{Geometry, Stacks};
use crate::game::PositionError;
use std::borrow::Cow;

/// A position read from `rows side hand0 hand1 passes`.
#[derive(Debug)]
pub struct HandPosition {
    pub board: Stacks,
    pub to_move: usize,
    pub hand: [u8; 2],
    pub passes: u8,
}

/// Reads the form; `letters` are the seats' letters (seat 0 first), `sides` their names for
/// messages, `pieces` each side's whole set. Fewer pieces than the set are accepted (out of
/// play), so that small positions can be written by hand; more are not.
pub fn parse(
    geo: &Geometry,
    text: &str,
    letters: [char; 2],
    sides: [&'static str; 2],
    pieces: u8,
) -> Result<HandPosition, PositionError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [rows, side, h0, h1, passes] = words[..] else {
        return Err(PositionError::Form {
            expected: Cow::Owned(format!(
                "`rows side {}-hand {}-hand passes`",
                sides[0].to_lowercase(),
                sides[1].to_lowercase()
            )),
            got: None,
        });
    };
    let board = geo.parse_rows(rows, letters)?;
    let to_move = letters
        .iter()
        .position(|l| side.len() == 1 && side.starts_with(*l))
        .ok_or_else(|| PositionError::SideToMove {
            sides: letters,
            note: "",
            got: side.to_string(),
        })?;
    let num = |w: &str, max: u8| -> Result<u8, PositionError> {
        w.parse::<u8>()
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| PositionError::Number {
                text: w.to_string(),
                max: max.into(),
            })
    };
    let hand = [num(h0, pieces)?, num(h1, pieces)?];
    let passes = num(passes, 2)?;
    for seat in 0..2 {
        let on_board: usize = board.iter().map(|s| s.count(seat)).sum();
        if on_board + hand[seat] as usize > pieces as usize {
            return Err(PositionError::TooManyWithHand {
                side: sides[seat],
                on_board,
                in_hand: hand[seat],
                max: pieces,
            });
        }
    }
    Ok(HandPosition {
        board,
        to_move,
        hand,
        passes,
    })
}
