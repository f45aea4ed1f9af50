//! What a run must not lose when it is killed: the files of a results folder that are appended
//! and flushed game by game (games.csv, records.jsonl, failures/), the lock that makes one run the
//! folder's only writer, and the merging of the folders of a run's shards. Resume, the reports and
//! the ratings read these files back; rendering them for people is `report`'s business.

pub mod failures;
pub mod games_csv;
pub mod lock;
pub mod merge;
pub mod records;
