//! The only place that prints or writes results: summaries, tables, CSV, JSON and replays.

pub mod play;
pub mod replay;
