//! The only place that prints or writes results: summaries, tables, CSV, JSON and replays.

pub mod catalogue;
pub mod errors;
pub mod failures;
pub mod games_csv;
pub mod html;
pub mod lock;
pub mod merge;
pub mod play;
pub mod progress;
pub mod rebuild;
pub mod records;
pub mod replay;
pub mod sbatch;
pub mod sprt_block;
pub mod standings;
pub mod starved;
pub mod terminal;
