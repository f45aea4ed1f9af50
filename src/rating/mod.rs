//! Ratings and match statistics: pure numbers, no I/O.
//!
//! * [`elo`] — two-bot estimates from W/D/L or pentanomial counts: Elo with a 95% margin, LOS,
//!   normalized Elo.
//! * [`format`](mod@format) — the text helpers reports use ([`fmt_elo`] and friends).
//! * [`sprt`] — the generalized sequential probability ratio test (logistic or normalized Elo
//!   bounds) with fishtest/fastchess semantics.
//! * [`cross_table`] — the per-pair W/D/L table of a field of bots.
//! * [`bradley_terry`] — the joint Bradley-Terry maximum-likelihood fit of a field (Ordo style),
//!   with 95% intervals, a LOS matrix, and bounds for bots without a finite rating (its numerical
//!   core is the private `bt_solver`; `linalg` and `roots` are small private helpers).
//!
//! The formulas and check values are in `shared/specs/statistics.md`.

pub mod bradley_terry;
mod bt_solver;
pub mod cross_table;
pub mod elo;
pub mod format;
mod linalg;
mod roots;
pub mod sprt;

pub use bradley_terry::{fit_field, BotRating, FieldFit, FitOptions, RatingValue};
pub use cross_table::{CrossTable, CrossTableError};
pub use elo::{
    elo_to_score, fmt_elo, fmt_elo_opt, fmt_margin, fmt_percent, normal_cdf, score_to_elo,
    EloEstimate, GameOutcome, Pentanomial, Wdl, NELO_PER_T, Z95,
};
pub use sprt::{
    bounds, decide, llr_pentanomial, llr_wdl, Decision, SprtError, SprtModel, SprtParams,
};
