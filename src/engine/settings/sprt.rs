//! The recorded settings of an SPRT (`sprt.toml`): the two bots, the test's bounds and error
//! rates, and the games' settings; the same keys as the command line's flags.

use super::{OpeningsSettings, Recorded};
use crate::engine::GameSettings;
use crate::rating::{SprtError, SprtParams};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything that decides which games an SPRT plays and when it stops; saved as sprt.toml.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSettings {
    /// The candidate's BOT argument as typed.
    pub new: String,
    /// The reference's BOT argument as typed.
    pub old: String,
    /// Where they were typed.
    pub workdir: PathBuf,
    pub max_pairs: u64,
    pub opening_plies: u32,
    #[serde(flatten)]
    pub openings: OpeningsSettings,
    pub seed: u64,
    pub sprt: SprtTestSettings,
    pub game: GameSettings,
}

impl Recorded for SprtSettings {
    const FILE: &'static str = "sprt.toml";
    fn seed_mut(&mut self) -> &mut u64 {
        &mut self.seed
    }
}

/// The hypotheses and how they are judged (see `--elo0`, `--elo1`, `--model`, `--alpha`,
/// `--beta`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtTestSettings {
    /// H0: the candidate is not better than this many Elo.
    pub elo0: f64,
    /// H1: the candidate is better by at least this many Elo.
    pub elo1: f64,
    /// The Elo model of the bounds: `normalized` or `logistic`.
    pub model: String,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

impl SprtTestSettings {
    /// The test's parameters, checked.
    pub fn params(&self) -> Result<SprtParams, SprtError> {
        SprtParams::new(
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            self.model.parse()?,
        )
    }
}
