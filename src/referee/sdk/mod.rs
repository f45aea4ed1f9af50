//! CodinGame SDK games (placeholder until the driver's module lands).

pub mod build;
pub mod launcher;
