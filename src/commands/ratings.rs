//! `arbiter ratings`: standings recomputed from games.csv files, as a table or JSON.

use crate::cli::{self, RatingsArgs};
use anyhow::Result;
use arbiter::report::standings;
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: RatingsArgs) -> Result<ExitCode> {
    let anchor = args.anchor.as_deref().map(cli::parse_anchor).transpose()?;
    let (table, games) =
        arbiter::results::standings::from_files(&args.files, &[], anchor.as_ref())?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &standings::json(&table))?;
        writeln!(out)?;
    } else {
        writeln!(out, "{} games from {} file(s)\n", games, args.files.len())?;
        standings::print(&mut out, &table)?;
    }
    Ok(ExitCode::SUCCESS)
}
