//! The only place that prints or writes results: summaries, tables, CSV, JSON and replays.

pub mod play;
pub mod games_csv;
pub mod progress;
pub mod sprt_block;
pub mod standings;
pub mod replay;
