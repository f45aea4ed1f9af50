//! The end of a run on the terminal: a tournament's standings, the bots left out, where the
//! results and the report are (or why the report is missing), and for a shard how to merge.

use crate::report::run_display::ReportWritten;
use crate::report::standings;
use crate::results::standings::Standings;
use crate::tournament::Shard;
use std::io::{self, Write};
use std::path::Path;

/// `Report: PATH` on `out`, or on stderr why report.html could not be written (the results
/// are safe in any case).
pub fn report_line(out: &mut impl Write, report: &ReportWritten) -> io::Result<()> {
    match report {
        Ok(path) => writeln!(out, "Report: {}", path.display()),
        Err(e) => {
            eprintln!(
                "arbiter: warning: report.html not written: {}",
                crate::errors::chain_text(e)
            );
            Ok(())
        }
    }
}

/// A run ended by a stop signal `signal`, on stderr: every bot was killed, the games finished
/// before it are saved, and `hint` (how to continue it), if any.
pub fn stopped(signal: i32, hint: &str) {
    eprintln!(
        "\narbiter: stopped by signal {signal}; every bot was killed; finished games are saved"
    );
    if !hint.is_empty() {
        eprintln!("arbiter: {hint}");
    }
}

/// A finished tournament: the standings, each bot left out (`name`, why), the results folder
/// `dir`, the report, and for a shard the way to put the shards together.
pub fn tournament(
    out: &mut impl Write,
    table: &Standings,
    left_out: &[(&str, &str)],
    dir: &Path,
    report: &ReportWritten,
    shard: Option<Shard>,
) -> io::Result<()> {
    standings::print(out, table)?;
    for (bot, why) in left_out {
        writeln!(out, "\nLeft out: {bot} could not play: {why}")?;
    }
    writeln!(out, "\nResults: {}", dir.display())?;
    report_line(out, report)?;
    if let Some(shard) = shard {
        writeln!(
            out,
            "These are the games of shard {shard} alone; put the shards together with: \
             arbiter merge OUT SHARD_DIR..."
        )?;
    }
    Ok(())
}
