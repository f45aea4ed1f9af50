//! How a fit is made (its options): its own file, so that the fit (`field.rs`) and its prior
//! (`prior.rs`), which both read them, do not lean on each other for them.

use serde::Serialize;

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FitOptions {
    /// `(bot, elo)`: fix this bot's rating; `None` centres the fitted bots on mean 0.
    pub anchor: Option<(usize, f64)>,
    /// Largest accepted |gradient| (in points) of any bot; never below 1e-13 times the largest
    /// bot's game count.
    pub tolerance: f64,
    /// Newton iteration cap.
    pub max_iterations: usize,
    /// Virtual draws per bot when the field has perfect scores (must be positive; otherwise
    /// the default 2 is used).
    pub prior_draws: f64,
    /// Apply the virtual draws to every field, not only where the plain fit has no solution.
    pub prior_always: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            anchor: None,
            tolerance: 1e-10,
            max_iterations: 100,
            prior_draws: 2.0,
            prior_always: false,
        }
    }
}
