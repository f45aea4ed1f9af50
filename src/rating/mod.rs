//! Ratings and match statistics: pure numbers, no I/O.
//!
//! * [`elo`] — two-bot estimates from W/D/L or pentanomial counts: Elo with a 95% margin, LOS,
//!   normalized Elo.
//! * [`format`](mod@format) — the text helpers reports use ([`fmt_elo`] and friends).
//! * [`sprt`] — the generalized sequential probability ratio test (logistic or normalized Elo
//!   bounds) with fishtest/fastchess semantics.
//! * [`cross_table`] — the per-pair W/D/L table of a field of bots.
//! * [`bradley_terry`] — the joint Bradley-Terry maximum-likelihood fit of a field (Ordo style).
//! * [`plackett_luce`] — the Plackett-Luce fit of finishing orders of games with more than two
//!   seats (ties allowed), which is Bradley-Terry for two seats.
//! * [`note`] — the fits' notes, which name bots by index for the reporter to name.
//! * [`field`] — what both fits return ([`FieldFit`]: ratings, 95% intervals, LOS) and the
//!   steps they share: who is rated, the virtual-draw prior for perfect scores, intervals.
//!   The private `prior` decides who is fitted and whether virtual draws apply; the private
//!   `solver` is the numerical core (sparse Newton / conjugate gradients, covariance);
//!   `linalg` and `roots` are small private helpers.
//!
//! The formulas and check values are in `shared/specs/statistics.md`.

pub mod bradley_terry;
pub mod cross_table;
pub mod elo;
pub mod field;
pub mod format;
mod linalg;
pub mod note;
mod options;
pub mod pairs;
pub mod plackett_luce;
mod prior;
pub mod record;
mod roots;
mod solver;
pub mod sprt;

pub use bradley_terry::fit_field;
pub use cross_table::{CrossTable, CrossTableError};
pub use elo::{
    elo_to_score, fmt_elo, fmt_elo_opt, fmt_margin, fmt_percent, normal_cdf, score_to_elo,
    EloEstimate, GameOutcome, Pentanomial, Wdl, NELO_PER_T, Z95,
};
pub use field::{BotRating, FieldFit, RatingValue};
pub use note::FitNote;
pub use options::FitOptions;
pub use pairs::PairCounter;
pub use plackett_luce::{PlackettLuceError, RankedGame};
pub use record::{CountError, FieldRecord};
pub use sprt::{
    bounds, decide, llr_pentanomial, llr_wdl, Decision, SprtError, SprtModel, SprtParams,
};
