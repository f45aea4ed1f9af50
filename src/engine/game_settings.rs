//! The game, its clocks and the bots' limits as a run records them in its settings file: plain
//! data, so that the library decides whether a continued run is the same run. The command line's
//! flags for them (with their help and defaults) are the CLI's `GameOpts`, which converts to and
//! from this; the field names are the settings files' keys, kept as they were written before.

use crate::referee::Clock;
use serde::{Deserialize, Serialize};

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
