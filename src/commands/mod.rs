//! Runs each subcommand: wires the validated configuration to the library and the reporters.

mod bench;
mod bench_league;
mod games;
mod grade;
mod human;
mod league;
mod league_slurm;
mod league_work;
mod merge;
mod play;
mod ratings;
mod report;
mod slurm;
mod sprt;
mod stats;
mod tournament;

use crate::cli::Command;
use anyhow::Result;
use std::process::ExitCode;

/// Exit status for errors (bad arguments, a bot that cannot start, ...). 0, 1 and 2 are results.
pub const ERROR_EXIT: u8 = 3;

/// What to print after a run stopped by a signal: how to continue it.
static STOP_HINT: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Sets the line printed when a signal stops the run (how to continue it).
pub(crate) fn set_stop_hint(hint: String) {
    *STOP_HINT.lock().unwrap_or_else(|e| e.into_inner()) = hint;
}

/// Says that a stop signal `signal` ended the run (with the stop hint) and gives the exit
/// status, 128 + `signal`. Called by the signal thread where no run ends itself, and by a
/// command whose run the engine ended in order.
pub fn stopped(signal: i32) -> ExitCode {
    let hint = STOP_HINT.lock().unwrap_or_else(|e| e.into_inner()).clone();
    arbiter::report::run_end::stopped(signal, &hint);
    ExitCode::from(u8::try_from(128 + signal).unwrap_or(255))
}

/// The exit of a run that ended: `finished` for one that played on, or [`stopped`].
fn ended(outcome: arbiter::engine::Completion) -> Option<ExitCode> {
    match outcome {
        arbiter::engine::Completion::Finished => None,
        arbiter::engine::Completion::Stopped { signal } => Some(stopped(signal)),
    }
}

pub fn run(command: Command, given: &crate::cli::Given) -> Result<ExitCode> {
    let build = match &command {
        Command::Play(args) => Some(&args.game.build),
        Command::Tournament(args) => Some(&args.game.build),
        Command::Grade(args) => Some(&args.game.build),
        Command::Sprt(args) => Some(&args.game.build),
        Command::Slurm(args) => Some(&args.tournament.game.build),
        _ => None,
    };
    if let Some(build) = build {
        build.apply();
    }
    match command {
        Command::Play(args) => play::run(args, given),
        Command::Tournament(args) => tournament::run(args, given),
        Command::Grade(args) => grade::run(args),
        Command::Ratings(args) => ratings::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Sprt(args) => sprt::run(args, given),
        Command::Report(args) => report::run(args),
        Command::Replay(args) => report::replay(args),
        Command::HumanSeat => human::run(),
        Command::Stats(args) => stats::run(args),
        Command::Games(args) => games::games(args),
        Command::Perft(args) => games::perft(args),
        Command::Merge(args) => merge::run(args),
        Command::Slurm(args) => slurm::run(*args),
        Command::League(args) => league::run(*args),
    }
}
