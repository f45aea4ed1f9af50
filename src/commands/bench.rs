//! `arbiter bench`: being written.

use crate::cli::BenchArgs;
use anyhow::Result;
use std::process::ExitCode;

pub fn run(_args: BenchArgs) -> Result<ExitCode> {
    anyhow::bail!("arbiter bench is not available in this build")
}
