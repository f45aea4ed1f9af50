//! What a run must not lose when it is killed: the files of a results folder that are appended
//! and flushed game by game (games.csv, records.jsonl, failures/), the lock that makes one run the
//! folder's only writer, and the merging of the folders of a run's shards. Resume, the reports and
//! the ratings read these files back. Also what is computed from them below the renderers: the
//! standings, a record's steps rebuilt through the rules, the replay file's format, and the
//! tally of games the machine starved; rendering them for people is `report`'s business.

pub mod failures;
pub mod games_csv;
pub mod lock;
pub mod merge;
pub mod rebuild;
pub mod records;
pub mod replay;
pub mod scripts;
pub mod standings;
pub mod starved;
