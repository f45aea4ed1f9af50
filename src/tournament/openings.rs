//! Opening books: positions to start games from, one a line as move texts from the start,
//! separated by spaces (draughts matches are played from balloted openings, as engines are
//! tested from opening books). Each table round takes one, in order or shuffled by the seed.
//! A book is checked move by move before any game starts.

use crate::game::{Game, GameError};
use crate::referee::GameChoice;
use crate::rng::Rng;
use std::path::{Path, PathBuf};

/// Books shipped with the games ([`crate::game::GameInfo::books`]), usable by name instead of a
/// file: (book, game, text).
pub fn builtin() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    crate::game::GAMES
        .iter()
        .flat_map(|g| g.books.iter().map(|&(name, text)| (name, g.name, text)))
}

/// How a run walks through its book.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Table round n takes line n (cycling).
    #[default]
    InOrder,
    /// A permutation drawn from the master seed (cycling through it).
    Shuffled,
}

/// A checked opening book.
#[derive(Clone, Debug)]
pub struct Book {
    /// The file or built-in name it came from.
    pub source: String,
    pub lines: Vec<Vec<String>>,
    order: Vec<usize>,
}

/// Why a book cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("cannot read the openings file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{source_name} line {line}: {why}")]
    Line {
        source_name: String,
        line: usize,
        why: String,
    },
    #[error(
        "{0} holds no opening (one a line: move texts separated by spaces; # starts a comment)"
    )]
    Empty(String),
    #[error("the built-in book {name} is for {game}, not {wanted}")]
    WrongGame {
        name: String,
        game: String,
        wanted: String,
    },
    #[error(transparent)]
    Game(#[from] GameError),
}

impl Book {
    /// Reads `spec` (a built-in book's name or a file) and checks every line against the rules
    /// of `game` from its start position.
    pub fn load(spec: &str, game: &GameChoice, order: Order, seed: u64) -> Result<Book, BookError> {
        let text = match builtin().find(|(name, _, _)| *name == spec) {
            Some((name, for_game, text)) => {
                if for_game != game.name() {
                    return Err(BookError::WrongGame {
                        name: name.to_string(),
                        game: for_game.to_string(),
                        wanted: game.name().to_string(),
                    });
                }
                text.to_string()
            }
            None => std::fs::read_to_string(Path::new(spec)).map_err(|source| BookError::Read {
                path: PathBuf::from(spec),
                source,
            })?,
        };
        Self::parse(spec, &text, game, order, seed)
    }

    /// Checks a book's text (see [`Book::load`]).
    pub fn parse(
        source_name: &str,
        text: &str,
        game: &GameChoice,
        order: Order,
        seed: u64,
    ) -> Result<Book, BookError> {
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let moves: Vec<String> = body.split_whitespace().map(str::to_string).collect();
            let bad = |why: String| BookError::Line {
                source_name: source_name.to_string(),
                line: i + 1,
                why,
            };
            let mut position = game.start(0)?;
            for (n, m) in moves.iter().enumerate() {
                if position.outcome().is_some() {
                    return Err(bad(format!("the game is over before move {} ({m})", n + 1)));
                }
                let Some(index) = position.legal_moves().iter().position(|l| l == m) else {
                    let legal = position.legal_moves();
                    return Err(bad(format!(
                        "move {} \"{m}\" is not legal here; legal: {}{}",
                        n + 1,
                        legal.iter().take(20).cloned().collect::<Vec<_>>().join(" "),
                        if legal.len() > 20 { " ..." } else { "" }
                    )));
                };
                position.play(index);
            }
            if position.outcome().is_some() {
                return Err(bad("the opening ends the game".into()));
            }
            lines.push(moves);
        }
        if lines.is_empty() {
            return Err(BookError::Empty(source_name.to_string()));
        }
        let mut order_ix: Vec<usize> = (0..lines.len()).collect();
        if order == Order::Shuffled {
            let mut rng = Rng::new(Rng::derive(seed, 0x626f_6f6b));
            for i in (1..order_ix.len()).rev() {
                order_ix.swap(i, rng.below(i + 1));
            }
        }
        Ok(Book {
            source: source_name.to_string(),
            lines,
            order: order_ix,
        })
    }

    /// The opening of table round `pair_id`.
    pub fn line(&self, pair_id: u64) -> &[String] {
        &self.lines[self.order[(pair_id % self.order.len() as u64) as usize]]
    }

    /// Plays the opening of table round `pair_id` on `position`.
    pub fn apply(&self, position: &mut dyn Game, pair_id: u64) -> Vec<String> {
        let line = self.line(pair_id);
        for m in line {
            let i = position
                .legal_moves()
                .iter()
                .position(|l| l == m)
                .expect("checked when the book was loaded");
            position.play(i);
        }
        line.to_vec()
    }

    /// A fingerprint of the book's content, saved with a run so that a resume notices a changed file.
    pub fn fingerprint(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for line in &self.lines {
            for b in line.join(" ").bytes().chain(std::iter::once(b'\n')) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        format!("{h:016x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draughts() -> GameChoice {
        GameChoice::new("draughts", None, None, None).unwrap()
    }

    #[test]
    fn a_bad_line_is_named_before_any_game() {
        let text = "# ballots\n32-28 19-23\n\n31-27 99-98\n";
        let err = Book::parse("my.txt", text, &draughts(), Order::InOrder, 1)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("my.txt line 4: move 2 \"99-98\" is not legal"),
            "{err}"
        );
        let err = Book::parse("e.txt", "# nothing\n", &draughts(), Order::InOrder, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("holds no opening"), "{err}");
        let err = Book::load(
            "draughts-3move",
            &GameChoice::new("impasse", None, None, None).unwrap(),
            Order::InOrder,
            1,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("is for draughts"), "{err}");
    }

    #[test]
    fn rounds_take_lines_in_order_or_shuffled_by_the_seed() {
        let text = "32-28\n31-27\n33-29\n";
        let book = Book::parse("b", text, &draughts(), Order::InOrder, 1).unwrap();
        assert_eq!(book.line(0), ["32-28"]);
        assert_eq!(book.line(4), ["31-27"]);
        let a = Book::parse("b", text, &draughts(), Order::Shuffled, 7).unwrap();
        let b = Book::parse("b", text, &draughts(), Order::Shuffled, 7).unwrap();
        let seen: std::collections::HashSet<_> = (0..3).map(|p| a.line(p).to_vec()).collect();
        assert_eq!(seen.len(), 3, "a permutation");
        assert!((0..3).all(|p| a.line(p) == b.line(p)));
        let mut g = draughts().start(0).unwrap();
        assert_eq!(book.apply(g.as_mut(), 2), vec!["33-29"]);
        assert_eq!(g.to_move(), 1);
    }

    /// Every book shipped with a game (the games' own tests check their content) loads by its
    /// name for its game: each line is legal from the start and leaves the game open.
    #[test]
    fn every_builtin_book_loads_for_its_game() {
        let mut books = 0;
        for (name, game, _) in builtin() {
            let choice = GameChoice::new(game, None, None, None).unwrap();
            let book = Book::load(name, &choice, Order::InOrder, 0).unwrap();
            assert_eq!(book.source, name);
            books += 1;
        }
        assert!(books >= 1, "no game ships a book");
    }
}
