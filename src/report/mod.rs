//! The only place that renders results: the terminal's summaries and progress, tables of
//! standings (text and CSV), HTML pages, JSON summaries and replay files. The files a run must not
//! lose (games.csv, records.jsonl, failures/, the folder lock, merging shards) are `results`'s.

pub mod catalogue;
pub mod grade;
pub mod html;
pub mod merge_end;
pub mod play;
pub mod progress;
pub mod run_display;
pub mod run_end;
pub mod run_start;
pub mod sbatch;
pub mod sprt_block;
pub mod standings;
pub mod terminal;
