//! What every command needs to know about a game without building a position: its name, the seat
//! counts and variants it supports, its default turn limit, its statement for bot writers, and how
//! to create a position from a setup (seats, variant, seed) or from its one-line text.

use super::{Game, PositionError};

/// One way a game can be played (board size, partnerships, a rule variant).
#[derive(Debug)]
pub struct Variant {
    /// The name users type after `--variant`.
    pub name: &'static str,
    /// One line for `arbiter games`.
    pub about: &'static str,
    /// The seat counts this variant supports; the first is the default.
    pub seats: &'static [usize],
}

/// A validated choice of how to play a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub seats: usize,
    /// One of the game's variant names.
    pub variant: &'static str,
    /// Drives random setups (no game so far has one); recorded with every game.
    pub seed: u64,
}

/// Reads a position from its one-line text form, or says why it cannot.
pub type FromPosition = fn(&Setup, &str) -> Result<Box<dyn Game>, PositionError>;

/// A game arbiter knows.
pub struct GameInfo {
    /// The name users type after `--game`.
    pub name: &'static str,
    /// The game's full name, for titles.
    pub title: &'static str,
    /// One line for `arbiter games`.
    pub about: &'static str,
    /// The variants; the first is the default.
    pub variants: &'static [Variant],
    /// Turns (one seat's move each) after which the referee ends the game, unless `--max-turns`.
    pub default_max_turns: u32,
    /// Opening books shipped with the game, usable by name after `--openings`: (name, text with
    /// one opening a line, move texts from the start separated by spaces).
    pub books: &'static [(&'static str, &'static str)],
    /// What the game's own per-seat scores ([`super::Rules::scores`]) count, for summaries
    /// ("checkers removed", "game points").
    pub score_name: &'static str,
    /// The statement for bot writers (rules, coordinates, input lines, move syntax, end of game),
    /// shown by `arbiter games NAME`.
    pub statement: &'static str,
    /// The start position of a validated setup.
    pub new: fn(&Setup) -> Box<dyn Game>,
    /// A position from its one-line text form (as [`super::Rules::position_text`] prints it).
    pub from_position: FromPosition,
}

impl std::fmt::Debug for GameInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameInfo")
            .field("name", &self.name)
            .finish()
    }
}

/// Every game arbiter knows, in the order `arbiter games` lists them.
pub static GAMES: &[&GameInfo] = &[
    &super::impasse::INFO,
    &super::draughts::INFO,
    &super::moscow_ice::INFO,
    &super::attraktion::INFO,
    &super::alva::INFO,
    &super::accasta::INFO,
    &super::abande::INFO,
    &super::attangle::INFO,
];

/// Why a game choice is not valid.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("unknown game '{name}'{}; known games: {known} (see `arbiter games`)", did_you_mean(.name, .known))]
    Unknown { name: String, known: String },
    #[error("game '{game}' has no variant '{variant}'; its variants: {known}")]
    UnknownVariant {
        game: &'static str,
        variant: String,
        known: String,
    },
    #[error("game '{game}' (variant '{variant}') is played by {allowed} seats, not {seats}")]
    Seats {
        game: &'static str,
        variant: &'static str,
        seats: usize,
        allowed: String,
    },
    #[error("an external referee ('{referee}') has no rules inside arbiter: {what} needs a built-in game ({})", crate::options::Opt::Game)]
    External { referee: String, what: &'static str },
    #[error("an external referee seats 2 to {max} players (the protocol's ids are one digit), not {seats}")]
    ExternalSeats { seats: usize, max: usize },
    #[error("not a valid {game} position: {why}")]
    Position {
        game: &'static str,
        why: PositionError,
    },
}

/// ` (did you mean 'NAME'?)` for the one name of `known` (comma-separated) closest to `typed`
/// when it is a likely typo (at most a third of its letters wrong, at least one), else nothing.
fn did_you_mean(typed: &str, known: &str) -> String {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let here = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(here + 1);
                prev = here;
            }
        }
        row[b.len()]
    };
    let typed = typed.to_lowercase();
    known
        .split(", ")
        .map(|k| (distance(&typed, k), k))
        .min()
        .filter(|&(d, _)| d <= (typed.chars().count() / 3).max(1))
        .map(|(_, k)| format!(" (did you mean '{k}'?)"))
        .unwrap_or_default()
}

/// The registry entry called `name`.
pub fn find(name: &str) -> Result<&'static GameInfo, GameError> {
    GAMES
        .iter()
        .copied()
        .find(|g| g.name == name)
        .ok_or_else(|| GameError::Unknown {
            name: name.to_string(),
            known: GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        })
}

/// Validates a choice of game, variant and seat count; `None` takes the defaults (the first
/// variant; its first seat count).
pub fn lookup(
    name: &str,
    variant: Option<&str>,
    seats: Option<usize>,
    seed: u64,
) -> Result<(&'static GameInfo, Setup), GameError> {
    let info = find(name)?;
    let v = match variant {
        None => &info.variants[0],
        Some(want) => info
            .variants
            .iter()
            .find(|v| v.name == want)
            .ok_or_else(|| GameError::UnknownVariant {
                game: info.name,
                variant: want.to_string(),
                known: info
                    .variants
                    .iter()
                    .map(|v| v.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?,
    };
    let seats = seats.unwrap_or(v.seats[0]);
    if !v.seats.contains(&seats) {
        return Err(GameError::Seats {
            game: info.name,
            variant: v.name,
            seats,
            allowed: v
                .seats
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" or "),
        });
    }
    Ok((
        info,
        Setup {
            seats,
            variant: v.name,
            seed,
        },
    ))
}

impl GameInfo {
    /// The start position of `setup` (validated by [`lookup`]).
    pub fn start(&self, setup: &Setup) -> Box<dyn Game> {
        (self.new)(setup)
    }

    /// A position from its text form, with the game's name in the error.
    pub fn position(&self, setup: &Setup, text: &str) -> Result<Box<dyn Game>, GameError> {
        (self.from_position)(setup, text).map_err(|why| GameError::Position {
            game: self.name,
            why,
        })
    }

    /// The variant called `name`.
    pub fn variant(&self, name: &str) -> Option<&'static Variant> {
        self.variants.iter().find(|v| v.name == name)
    }
}

/// The start position of `name` with its default variant and seats (tests and examples).
pub fn start_default(name: &str, seed: u64) -> Result<Box<dyn Game>, GameError> {
    let (info, setup) = lookup(name, None, None, seed)?;
    Ok(info.start(&setup))
}

/// A validated choice of a built-in game, variant, seat count and optional start position:
/// everything a run needs to make each game's start position from its seed. A run's game may
/// also be another kind (an external referee's): `referee::GameChoice` holds the kinds.
#[derive(Clone, Debug)]
pub struct RulesChoice {
    pub info: &'static GameInfo,
    pub variant: &'static str,
    pub seats: usize,
    /// A start position in the game's text form instead of the standard start.
    pub position: Option<String>,
}

impl RulesChoice {
    /// Validates the choice (and reads the position once, so a bad one fails before any game).
    pub fn new(
        name: &str,
        variant: Option<&str>,
        seats: Option<usize>,
        position: Option<&str>,
    ) -> Result<RulesChoice, GameError> {
        let (info, setup) = lookup(name, variant, seats, 0)?;
        if let Some(text) = position {
            info.position(&setup, text)?;
        }
        Ok(RulesChoice {
            info,
            variant: setup.variant,
            seats: setup.seats,
            position: position.map(str::to_string),
        })
    }

    /// The setup of the game played with `seed`.
    pub fn setup(&self, seed: u64) -> Setup {
        Setup {
            seats: self.seats,
            variant: self.variant,
            seed,
        }
    }

    /// The start position of the game played with `seed`.
    pub fn start(&self, seed: u64) -> Result<Box<dyn Game>, GameError> {
        let setup = self.setup(seed);
        match &self.position {
            Some(text) => self.info.position(&setup, text),
            None => Ok(self.info.start(&setup)),
        }
    }

    /// "moscow-ice (partners, 4 seats)", or just the name for a default two-seat game.
    pub fn describe(&self) -> String {
        if self.info.variants.len() == 1 && self.seats == 2 {
            self.info.name.to_string()
        } else {
            format!(
                "{} ({}, {} seats)",
                self.info.name, self.variant, self.seats
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_game_name_gets_a_suggestion() {
        let err = find("dragts").unwrap_err().to_string();
        assert!(err.contains("did you mean 'draughts'?"), "{err}");
        let err = find("Alva").unwrap_err().to_string();
        assert!(err.contains("did you mean 'alva'?"), "{err}");
        let err = find("chess").unwrap_err().to_string();
        assert!(!err.contains("did you mean"), "{err}");
    }
}
