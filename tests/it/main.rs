//! The integration tests, one crate (one build and one link instead of one per file): each
//! module runs the real `arbiter` binary or the library against real bot processes.

mod bots;
mod build_hostile;
mod build_stamp;
mod cgroup_reuse;
mod clock;
mod common;
mod escapes;
mod external;
mod freezing;
mod grade;
mod grade_hostile;
mod grade_page;
mod hostile;
mod human;
mod inherited;
mod isolation;
mod java;
mod league;
mod league_workers;
mod memory;
mod messages;
mod open_files;
mod play;
mod process;
mod report;
mod results;
mod sandbox;
mod seats;
mod shards;
mod slurm;
mod sprt;
mod term;
mod tournament;
mod trust;
mod walls;
