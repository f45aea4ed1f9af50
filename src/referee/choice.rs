//! What a run plays: a game is one of a few kinds, and the kind decides who holds the rules and
//! who is asked each turn. Built-in rules live in `game/` and are asked by the referee's turn
//! loop; an external referee is a program (`external`) that holds the rules and asks the bots
//! itself; a CodinGame SDK game (`sdk`) is a Java referee driven over the SDK's own protocol.
//! arbiter always owns the bots, their clocks, the verdicts and the record.
//!
//! The enum lives here, above `game/` and beside the code that plays each kind, because an
//! external referee's game is a process to start (a `bot::BotSpec`): `game/` stays pure rules
//! and imports nothing from `bot/`. Where the kinds behave differently, code matches on the
//! kind; what every kind has (a name, seats, a description, a turn limit) is a method here.

use super::external::{External, RefereeCheckError, MAX_SEATS};
use super::sdk::SdkGame;
use super::RefereeConfig;
use crate::game::{Game, GameError, RulesChoice};
use std::sync::Arc;

/// The turn limit of an external referee's game unless `--max-turns`: the referee ends its
/// games, this only stops one that never does.
pub const EXTERNAL_MAX_TURNS: u32 = 10_000;

/// The variant an external referee's game is recorded with (the referee decides the rest).
pub const EXTERNAL_VARIANT: &str = "external";

/// The variant a CodinGame SDK game is recorded with.
pub const SDK_VARIANT: &str = "codingame-sdk";

/// Why the game's referee cannot play ([`GameChoice::check`]).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    External(#[from] RefereeCheckError),
    /// Boxed: it is large, and run errors travel by value.
    #[error(transparent)]
    Sdk(Box<super::sdk::check::SdkCheckError>),
}

/// A validated choice of what a run plays.
#[derive(Clone, Debug)]
pub enum GameChoice {
    /// Rules built into arbiter: a registry entry, its variant, seats and start position.
    Rules(RulesChoice),
    /// A referee program speaking the cg-brutaltester protocol, played by `seats` players; its
    /// games are played by [`super::external::play`].
    External {
        referee: Arc<External>,
        seats: usize,
    },
    /// A CodinGame SDK game (its Java referee, driven over its own protocol), played by `seats`
    /// players; its games are played by [`super::sdk::driver::play`].
    Sdk { game: Arc<SdkGame>, seats: usize },
}

impl GameChoice {
    /// A built-in game, validated (see [`RulesChoice::new`]).
    pub fn new(
        name: &str,
        variant: Option<&str>,
        seats: Option<usize>,
        position: Option<&str>,
    ) -> Result<GameChoice, GameError> {
        RulesChoice::new(name, variant, seats, position).map(GameChoice::Rules)
    }

    /// The game of an external referee, played by `seats` players.
    pub fn external(referee: External, seats: usize) -> Result<GameChoice, GameError> {
        if !(2..=MAX_SEATS).contains(&seats) {
            return Err(GameError::ExternalSeats {
                seats,
                max: MAX_SEATS,
            });
        }
        Ok(GameChoice::External {
            referee: Arc::new(referee),
            seats,
        })
    }

    /// A CodinGame SDK game, played by `seats` players.
    pub fn sdk(game: SdkGame, seats: usize) -> Result<GameChoice, GameError> {
        if !(2..=super::sdk::MAX_SEATS).contains(&seats) {
            return Err(GameError::ExternalSeats {
                seats,
                max: super::sdk::MAX_SEATS,
            });
        }
        Ok(GameChoice::Sdk {
            game: Arc::new(game),
            seats,
        })
    }

    /// The built-in rules, if the game has them.
    pub fn rules(&self) -> Option<&RulesChoice> {
        match self {
            GameChoice::Rules(rules) => Some(rules),
            GameChoice::External { .. } | GameChoice::Sdk { .. } => None,
        }
    }

    /// The external referee, if the game is one's.
    pub fn referee(&self) -> Option<&External> {
        match self {
            GameChoice::Rules(_) | GameChoice::Sdk { .. } => None,
            GameChoice::External { referee, .. } => Some(referee),
        }
    }

    /// The SDK game, if the game is one.
    pub fn sdk_game(&self) -> Option<&SdkGame> {
        match self {
            GameChoice::Sdk { game, .. } => Some(game),
            _ => None,
        }
    }

    /// Checks, before the first game, what the kind runs besides the bots: an external referee
    /// is started and must answer `###Start` in its protocol ([`super::external::check`]); an
    /// SDK game's referee must start and write its first frame ([`super::sdk::check::check`]),
    /// which tells the game's own time limits: where they stand (the user set none), they
    /// become `cfg`'s, so that the limits the bots are told, the records keep and the messages
    /// name are the ones each turn enforces. Built-in rules need nothing.
    pub fn check(&self, cfg: &mut RefereeConfig) -> Result<(), CheckError> {
        match self {
            GameChoice::Rules(_) => Ok(()),
            GameChoice::External { referee, seats } => {
                Ok(super::external::check(referee, *seats, cfg)?)
            }
            GameChoice::Sdk { game, seats } => {
                let limits =
                    super::sdk::check::check(game, *seats, cfg).map_err(CheckError::Sdk)?;
                if let (Some(limits), true) = (limits, game.game_limits) {
                    cfg.set_turn_limits(limits.first_turn, limits.turn);
                }
                Ok(())
            }
        }
    }

    /// The game's name in records: the referee's name for an external game.
    pub fn name(&self) -> &str {
        match self {
            GameChoice::Rules(rules) => rules.info.name,
            GameChoice::External { referee, .. } => &referee.name,
            GameChoice::Sdk { game, .. } => &game.name,
        }
    }

    /// How many players each game seats.
    pub fn seats(&self) -> usize {
        match self {
            GameChoice::Rules(rules) => rules.seats,
            GameChoice::External { seats, .. } | GameChoice::Sdk { seats, .. } => *seats,
        }
    }

    /// Whether some variant of the game (the referee, for an external one) seats `players`:
    /// what a seat count that does not fit may be told to try instead.
    pub fn can_seat(&self, players: usize) -> bool {
        match self {
            GameChoice::Rules(rules) => rules
                .info
                .variants
                .iter()
                .any(|v| v.seats.contains(&players)),
            GameChoice::External { .. } => (2..=MAX_SEATS).contains(&players),
            GameChoice::Sdk { .. } => (2..=super::sdk::MAX_SEATS).contains(&players),
        }
    }

    /// The variant in records ([`EXTERNAL_VARIANT`] for an external referee's game).
    pub fn variant(&self) -> &'static str {
        match self {
            GameChoice::Rules(rules) => rules.variant,
            GameChoice::External { .. } => EXTERNAL_VARIANT,
            GameChoice::Sdk { .. } => SDK_VARIANT,
        }
    }

    /// The start position given instead of the standard start, in the game's text form.
    pub fn position(&self) -> Option<&str> {
        self.rules().and_then(|r| r.position.as_deref())
    }

    /// Turns (one seat's move each) after which arbiter ends a game, unless `--max-turns`.
    pub fn default_max_turns(&self) -> u32 {
        match self {
            GameChoice::Rules(rules) => rules.info.default_max_turns,
            GameChoice::External { .. } | GameChoice::Sdk { .. } => EXTERNAL_MAX_TURNS,
        }
    }

    /// What the game's own per-seat scores count ("checkers removed"), for summaries; `None`
    /// for an external referee's game, whose only scores are the record's.
    pub fn own_scores(&self) -> Option<&'static str> {
        match self {
            GameChoice::Sdk { .. } => Some("score"),
            _ => self.rules().map(|r| r.info.score_name),
        }
    }

    /// The start position of the game played with `seed`; an external referee's positions live
    /// in the referee process, so asking for one is an error that says so.
    pub fn start(&self, seed: u64) -> Result<Box<dyn Game>, GameError> {
        match self {
            GameChoice::Rules(rules) => rules.start(seed),
            GameChoice::External { referee, .. } => Err(GameError::External {
                referee: referee.name.clone(),
                what: "a start position (an opening, a book)",
            }),
            GameChoice::Sdk { game, .. } => Err(GameError::External {
                referee: game.name.clone(),
                what: "a start position (an opening, a book)",
            }),
        }
    }

    /// "moscow-ice (partners, 4 seats)", "external referee 'NAME' (2 seats, `COMMAND`)".
    pub fn describe(&self) -> String {
        match self {
            GameChoice::Rules(rules) => rules.describe(),
            GameChoice::External { referee, seats } => format!(
                "external referee '{}' ({seats} seats, `{}`)",
                referee.name,
                referee.spec.command_line()
            ),
            GameChoice::Sdk { game, seats } => format!(
                "CodinGame SDK game '{}' ({seats} seats, {}, `{}`)",
                game.name,
                game.league_text(),
                game.launcher.describe(game)
            ),
        }
    }
}
