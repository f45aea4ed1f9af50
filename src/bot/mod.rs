//! Bots as child processes: resolving what the user named, building it, starting it in its own
//! process group, talking to it with deadlines, and ending every process it started.
//! Knows nothing of game rules.

pub mod build;
pub mod build_box;
mod build_stamp;
pub mod cgroup;
pub mod cleanup;
pub mod env;
pub mod host;
pub mod inherited;
mod init;
mod isolation;
pub mod machine;
mod netns;
pub mod open_files;
pub mod process;
mod reach;
pub mod sandbox;
mod sched;
pub mod schedstat;
mod seat_id;
mod seccomp;
pub mod source;
mod spawn;
pub mod spec;
mod status;
pub mod steal;

pub use isolation::{changes_user as bots_run_as_own_user, isolate as isolates_bots};
pub use machine::MachineFault;
pub use process::{shutdown_all, wait_line, BotProcess, Limits, SendError, SpawnError, Wait};
pub use seccomp::sigsys_note;
pub use spec::{BotSpec, SpecError};
pub use status::{describe_exit, ExitKind};
