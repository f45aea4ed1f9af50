//! The game, its clocks and the bots' limits as a run records them in its settings file: plain
//! data, so that the library decides whether a continued run is the same run, and builds from it
//! the game to play ([`GameSettings::choice`]) and the referee's configuration
//! ([`GameSettings::referee_config`]), checked, with typed errors. The command line's flags for
//! them (with their help and defaults) are the CLI's `GameOpts`, which converts to and from
//! this; the field names are the settings files' keys, kept as they were written before.

use crate::bot::{Limits, SpecError};
use crate::game::GameError;
use crate::options::Opt;
use crate::referee::external::spec::{RefereeSpecError, Resolved};
use crate::referee::GameChoice;
use crate::referee::{Clock, RefereeConfig, TimeControl};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// `--first-turn-ms` when not given.
pub const DEFAULT_FIRST_TURN_MS: u64 = 1000;
/// `--turn-ms` when not given.
pub const DEFAULT_TURN_MS: u64 = 100;
/// `--game` when not given.
pub const DEFAULT_GAME: &str = "impasse";

/// Settings of a game that cannot be played as given (each names the flag to change).
#[derive(Debug, thiserror::Error)]
pub enum GameSettingsError {
    #[error(
        "{} {plies} cannot be played with {} \"{referee}\": arbiter does not know the moves of \
         an external referee's game; leave out {} (a referee that varies its games does so by \
         its seed: see {})",
        Opt::OpeningPlies,
        Opt::Referee,
        Opt::OpeningPlies,
        Opt::RefereeSeed
    )]
    PliesWithReferee { plies: u32, referee: String },
    #[error(
        "{} {book} cannot be played with {} \"{referee}\": an opening book holds moves of a \
         built-in game; leave out {}",
        Opt::Openings,
        Opt::Referee,
        Opt::Openings
    )]
    BookWithReferee { book: String, referee: String },
    #[error("{} must be at least 1", Opt::RefereeTimeoutMs)]
    RefereeTimeout,
    #[error(
        "{} {game} and {} both name the game to play: give {} alone for the external referee's \
         game, or {} alone for a built-in game",
        Opt::Game,
        Opt::Referee,
        Opt::Referee,
        Opt::Game
    )]
    GameAndReferee { game: String },
    #[error(
        "{} and {} are for built-in games; an external referee ({}) makes its own games",
        Opt::Variant,
        Opt::Position,
        Opt::Referee
    )]
    VariantWithReferee,
    #[error("building the referee '{name}'")]
    RefereeBuild {
        name: String,
        #[source]
        source: Box<SpecError>,
    },
    #[error(transparent)]
    Referee(#[from] RefereeSpecError),
    #[error(transparent)]
    Sdk(#[from] crate::referee::sdk::SdkError),
    #[error(
        "{} and {} are for CodinGame SDK games ({} naming a game's class path or source \
         folder); leave them out",
        Opt::League,
        Opt::GameParam,
        Opt::Referee
    )]
    SdkOptionsWithoutSdk,
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("{} and {} must be at least 1", Opt::TurnMs, Opt::FirstTurnMs)]
    ZeroTurn,
    #[error(
        "{} must be at least 1 (1 = the first late answer loses)",
        Opt::Strikes
    )]
    ZeroStrikes,
    #[error("{} must be at least 1", Opt::MaxTurns)]
    ZeroMaxTurns,
    /// A `--bot-env` that is not NAME or NAME=VALUE (the message says which).
    #[error("{0}")]
    BotEnv(String),
    /// `--sandbox` without a working bubblewrap (the message says what to install).
    #[error("{0}")]
    Sandbox(String),
}

/// The game and how it is played, as recorded (see the `--game` ... `--kill-grace-ms` flags).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSettings {
    /// The built-in game's name, when `--game` was given (impasse otherwise; never with a
    /// referee).
    #[serde(default)]
    pub game: Option<String>,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub seats: Option<usize>,
    /// The start position in the game's one-line text form, if not the standard one.
    #[serde(default)]
    pub position: Option<String>,
    /// An external referee's command line or folder.
    #[serde(default)]
    pub referee: Option<String>,
    #[serde(default)]
    pub referee_seed: bool,
    #[serde(default)]
    pub referee_timeout_ms: Option<u64>,
    /// A CodinGame SDK game's league level (`--league`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<u32>,
    /// A CodinGame SDK game's parameters (`--game-param KEY=VALUE`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub game_params: Vec<String>,
    pub first_turn_ms: u64,
    pub turn_ms: u64,
    pub grace_ms: u64,
    pub strikes: u32,
    pub strict: bool,
    pub max_turns: Option<u32>,
    pub clock: Clock,
    pub allow_pondering: bool,
    /// MiB; 0 = none.
    pub memory_mb: u64,
    pub max_processes: Option<u64>,
    #[serde(default)]
    pub bot_env: Vec<String>,
    pub sandbox: bool,
    pub kill_grace_ms: u64,
}

impl GameSettings {
    /// A note for the start line when the memory limit cannot be enforced in full.
    pub fn memory_note(&self) -> Option<String> {
        (self.memory_mb > 0 && !crate::bot::cgroup::memory_cap_is_full()).then(|| {
            format!(
                "{} {} is a partial cap here: no memory cgroup can be made (run as root for \
                 one), so it limits each process's private memory only (RLIMIT_DATA), not shared \
                 memory, files in RAM or the sum over a bot's children",
                Opt::MemoryMb,
                self.memory_mb
            )
        })
    }

    /// Refuses the run options an external referee's game cannot honour: random opening plies
    /// and opening books are moves of a built-in game's rules, which arbiter does not know for
    /// a referee's game.
    pub fn check_run(
        &self,
        opening_plies: u32,
        openings: Option<&str>,
    ) -> Result<(), GameSettingsError> {
        let Some(referee) = &self.referee else {
            return Ok(());
        };
        if opening_plies > 0 {
            return Err(GameSettingsError::PliesWithReferee {
                plies: opening_plies,
                referee: referee.clone(),
            });
        }
        if let Some(book) = openings {
            return Err(GameSettingsError::BookWithReferee {
                book: book.to_string(),
                referee: referee.clone(),
            });
        }
        Ok(())
    }

    /// The external referee with its referee.toml's defaults, if one is given: a relative
    /// path (its folder, or its command's program and files) as typed in `workdir` (`None`: the
    /// current directory), where its command also runs.
    fn external(&self, workdir: Option<&Path>) -> Result<Option<Resolved>, GameSettingsError> {
        let Some(arg) = &self.referee else {
            return Ok(None);
        };
        if crate::referee::sdk::detect(arg, workdir).is_some() {
            return Ok(None);
        }
        if self.referee_timeout_ms == Some(0) {
            return Err(GameSettingsError::RefereeTimeout);
        }
        let limit = self.referee_timeout_ms.map(Duration::from_millis);
        Ok(Some(crate::referee::external::spec::resolve_in(
            arg,
            workdir,
            self.referee_seed,
            limit,
        )?))
    }

    /// The CodinGame SDK game `--referee` names, if it names one (see [`crate::referee::sdk::detect`]):
    /// each turn's limit is the game's own unless --turn-ms or --first-turn-ms is given.
    fn sdk(
        &self,
        workdir: Option<&Path>,
    ) -> Result<Option<crate::referee::sdk::SdkGame>, GameSettingsError> {
        use crate::referee::sdk;
        let Some(arg) = &self.referee else {
            return Ok(None);
        };
        let Some(detected) = sdk::detect(arg, workdir) else {
            return Ok(None);
        };
        let opts = sdk::SdkOptions {
            league: self.league,
            params: self.game_params.clone(),
            user_limits: self.turn_ms != DEFAULT_TURN_MS
                || self.first_turn_ms != DEFAULT_FIRST_TURN_MS,
            message_limit: self.referee_timeout_ms.map(Duration::from_millis),
        };
        Ok(Some(sdk::resolve(detected, arg, workdir, &opts)?))
    }

    /// The validated game, variant, seats and start position; an external referee's game with
    /// a referee (whose build command, if any, runs here once), as typed in the current
    /// directory.
    pub fn choice(&self) -> Result<GameChoice, GameSettingsError> {
        self.choice_in(None)
    }

    /// [`GameSettings::choice`] with an external referee as typed in `workdir` (a recorded
    /// run's folder of origin: a continued run finds and runs its referee exactly as the first
    /// did, whatever the current directory).
    pub fn choice_in(&self, workdir: Option<&Path>) -> Result<GameChoice, GameSettingsError> {
        if let Some(game) = self.sdk(workdir)? {
            if let Some(name) = &self.game {
                return Err(GameSettingsError::GameAndReferee { game: name.clone() });
            }
            if self.variant.is_some() || self.position.is_some() {
                return Err(GameSettingsError::VariantWithReferee);
            }
            return Ok(GameChoice::sdk(game, self.seats.unwrap_or(2))?);
        }
        if self.league.is_some() || !self.game_params.is_empty() {
            return Err(GameSettingsError::SdkOptionsWithoutSdk);
        }
        if let Some(resolved) = self.external(workdir)? {
            if let Some(game) = &self.game {
                return Err(GameSettingsError::GameAndReferee { game: game.clone() });
            }
            if self.variant.is_some() || self.position.is_some() {
                return Err(GameSettingsError::VariantWithReferee);
            }
            let seats = self.seats.or(resolved.toml.seats).unwrap_or(2);
            let mut referee = resolved.referee;
            let built = referee
                .spec
                .build()
                .map_err(|source| GameSettingsError::RefereeBuild {
                    name: referee.spec.name.clone(),
                    source: Box::new(source),
                })?;
            // Built in the box: the referee runs from its copy in the build cache.
            if let Some(copy) = built {
                referee.spec = copy;
            }
            return Ok(GameChoice::external(referee, seats)?);
        }
        Ok(GameChoice::new(
            self.game.as_deref().unwrap_or(DEFAULT_GAME),
            self.variant.as_deref(),
            self.seats,
            self.position.as_deref(),
        )?)
    }

    /// The referee's settings; `default_max_turns` is the game's own limit.
    pub fn referee_config(
        &self,
        default_max_turns: u32,
    ) -> Result<RefereeConfig, GameSettingsError> {
        self.referee_config_in(default_max_turns, None)
    }

    /// [`GameSettings::referee_config`] with an external referee's referee.toml as typed in
    /// `workdir` (see [`GameSettings::choice_in`]).
    pub fn referee_config_in(
        &self,
        default_max_turns: u32,
        workdir: Option<&Path>,
    ) -> Result<RefereeConfig, GameSettingsError> {
        if self.turn_ms == 0 || self.first_turn_ms == 0 {
            return Err(GameSettingsError::ZeroTurn);
        }
        if self.strikes == 0 {
            return Err(GameSettingsError::ZeroStrikes);
        }
        // A referee.toml's limits stand in for the flags left at their defaults.
        let toml = self.external(workdir)?.map(|r| r.toml).unwrap_or_default();
        let first_turn_ms = match toml.first_turn_ms {
            Some(ms) if self.first_turn_ms == DEFAULT_FIRST_TURN_MS => ms,
            _ => self.first_turn_ms,
        };
        let turn_ms = match toml.turn_ms {
            Some(ms) if self.turn_ms == DEFAULT_TURN_MS => ms,
            _ => self.turn_ms,
        };
        let max_turns = self
            .max_turns
            .or(toml.max_turns)
            .unwrap_or(default_max_turns);
        if max_turns == 0 {
            return Err(GameSettingsError::ZeroMaxTurns);
        }
        let (grace, strikes) = if self.strict {
            (Duration::ZERO, 1)
        } else {
            (Duration::from_millis(self.grace_ms), self.strikes)
        };
        // A bot that budgets its time reads its limits here instead of assuming the arena's;
        // then what the user passes on. They go to each bot through its spawn request, never
        // through arbiter's own environment.
        let mut env = vec![
            ("ARBITER_TURN_MS".to_string(), turn_ms.to_string()),
            (
                "ARBITER_FIRST_TURN_MS".to_string(),
                first_turn_ms.to_string(),
            ),
            ("ARBITER_CLOCK".to_string(), self.clock.as_str().to_string()),
        ];
        for arg in &self.bot_env {
            env.push(crate::bot::env::parse_bot_env(arg).map_err(GameSettingsError::BotEnv)?);
        }
        Ok(RefereeConfig {
            time: TimeControl {
                first_turn: Duration::from_millis(first_turn_ms),
                turn: Duration::from_millis(turn_ms),
                grace,
                strikes,
                clock: self.clock,
            },
            max_turns,
            freeze_idle: !self.allow_pondering,
            freeze_after: crate::referee::FREEZE_AFTER,
            kill_grace: Duration::from_millis(self.kill_grace_ms),
            limits: Limits {
                memory_bytes: (self.memory_mb > 0).then_some(self.memory_mb * 1024 * 1024),
                max_processes: match self.max_processes {
                    Some(0) => None,
                    Some(n) => Some(n),
                    None => crate::bot::cgroup::default_max_processes(),
                },
                sandbox: if self.sandbox {
                    Some(crate::bot::sandbox::require().map_err(GameSettingsError::Sandbox)?)
                } else {
                    None
                },
                env,
            },
            record_turns: false,
            record_inputs: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain() -> GameSettings {
        GameSettings {
            game: None,
            variant: None,
            seats: None,
            position: None,
            referee: None,
            referee_seed: false,
            referee_timeout_ms: None,
            league: None,
            game_params: Vec::new(),
            first_turn_ms: DEFAULT_FIRST_TURN_MS,
            turn_ms: DEFAULT_TURN_MS,
            grace_ms: 50,
            strikes: 3,
            strict: false,
            max_turns: None,
            clock: Clock::Wall,
            allow_pondering: false,
            memory_mb: 0,
            max_processes: Some(0),
            bot_env: Vec::new(),
            sandbox: false,
            kill_grace_ms: 200,
        }
    }

    #[test]
    fn settings_build_the_game_and_the_referee_or_name_the_flag_to_change() {
        let g = plain();
        assert_eq!(g.choice().unwrap().name(), DEFAULT_GAME);
        let cfg = g.referee_config(250).unwrap();
        assert_eq!(cfg.time.turn, Duration::from_millis(DEFAULT_TURN_MS));
        assert_eq!(cfg.max_turns, 250);
        // The limits reach the bots through their spawn request, not arbiter's environment.
        assert!(cfg
            .limits
            .env
            .contains(&("ARBITER_TURN_MS".into(), DEFAULT_TURN_MS.to_string())));
        assert!(std::env::var_os("ARBITER_TURN_MS").is_none());
        let strict = GameSettings {
            strict: true,
            ..plain()
        };
        let cfg = strict.referee_config(250).unwrap();
        assert_eq!((cfg.time.grace, cfg.time.strikes), (Duration::ZERO, 1));

        let err = |g: GameSettings| g.referee_config(250).unwrap_err();
        assert!(matches!(
            err(GameSettings {
                turn_ms: 0,
                ..plain()
            }),
            GameSettingsError::ZeroTurn
        ));
        assert!(matches!(
            err(GameSettings {
                strikes: 0,
                ..plain()
            }),
            GameSettingsError::ZeroStrikes
        ));
        let e = err(GameSettings {
            max_turns: Some(0),
            ..plain()
        });
        assert_eq!(e.to_string(), "max_turns must be at least 1");
        let e = err(GameSettings {
            bot_env: vec!["=x".into()],
            ..plain()
        });
        assert!(matches!(e, GameSettingsError::BotEnv(_)), "{e}");
        let e = GameSettings {
            game: Some("no-such-game".into()),
            ..plain()
        }
        .choice()
        .unwrap_err();
        assert!(matches!(e, GameSettingsError::Game(_)), "{e}");
        let e = GameSettings {
            referee: Some("ref".into()),
            ..plain()
        }
        .check_run(2, None)
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("opening_plies 2 cannot be played"),
            "{e}"
        );
    }
}
