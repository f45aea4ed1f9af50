//! arbiter: a referee for bot-vs-bot games in the CodinGame line format.
//!
//! The library holds everything but argument parsing, so that the bundled Rust bots reuse the
//! same rules the referee enforces, and integration tests reach every layer.

// An unsafe call inside an `unsafe fn` still needs its own `unsafe` block and SAFETY note.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod bot;
pub mod botkit;
pub mod engine;
pub mod errors;
pub mod game;
pub mod grade;
pub mod league;
pub mod options;
pub mod protocol;
pub mod rating;
pub mod referee;
pub mod report;
pub mod results;
pub mod rng;
pub mod tournament;
pub mod utc;

#[cfg(test)]
mod layers;

// The command line's clap definitions, compiled into the library's unit tests alone: the layers
// test derives arbiter's own flags from them (so its list cannot go stale). `cli` names the
// library `arbiter`, as the binary does.
#[cfg(test)]
extern crate self as arbiter;
#[cfg(test)]
#[path = "cli/mod.rs"]
#[allow(dead_code, unused_imports)]
mod cli;
