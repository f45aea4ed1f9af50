//! Bots as child processes: resolving what the user named, building it, starting it in its own
//! process group, talking to it with deadlines, and ending every process it started.
//! Knows nothing of game rules.

pub mod cgroup;
pub mod cleanup;
pub mod process;
pub mod sandbox;
pub mod source;
mod spawn;
pub mod spec;

pub use process::{
    describe_exit, shutdown_all, wait_line, BotProcess, Limits, SendError, SpawnError, Wait,
};
pub use spec::{BotSpec, SpecError};
