//! Tournaments: pure scheduling (pairings, paired openings, stable game ids), a runner with a
//! concurrency limit that plays what a dealer deals (a run's list, a league's schedule) and
//! hands finished games to the caller as they end, and the slices (shards) that let several
//! machines share one tournament.

pub mod deal;
pub mod openings;
pub mod runner;
pub mod schedule;
pub mod shard;

#[cfg(test)]
mod golden_tests;

pub use deal::{Deal, Dealt, Finished, FinishedOrNot, Listed, Opening, Unplayed};
pub use runner::{allowed_cpus, pin_this_thread, Runner};
pub use schedule::{
    games_of_tables, opening, schedule, schedule_grown, schedule_tables, tables, Format, GameSpec,
    Plan, Stage,
};
pub use shard::Shard;
