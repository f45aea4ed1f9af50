//! `arbiter report` and `arbiter replay`: HTML pages from the files a run or a game left.

use crate::cli::{ReplayArgs, ReportArgs};
use anyhow::{bail, Context, Result};
use arbiter::report::html::{self, Pages};
use std::process::ExitCode;

pub fn run(args: ReportArgs) -> Result<ExitCode> {
    for dir in &args.dirs {
        if !dir.join("games.csv").exists() {
            bail!(
                "{} has no games.csv: give results folders of `arbiter tournament` or `arbiter sprt`",
                dir.display()
            );
        }
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.dirs[0].join(html::FILE));
    let written = html::write_report(&args.dirs, &out, &[], Pages::All)
        .with_context(|| format!("writing {}", out.display()))?;
    for f in &written.failed {
        eprintln!("arbiter: warning: {f}");
    }
    println!(
        "{} games, {} replay pages; report: {}",
        written.games,
        written.pages,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn replay(args: ReplayArgs) -> Result<ExitCode> {
    let rec = arbiter::report::html::origins::read_shown(&args.file)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.file.with_extension("html"));
    // An SDK game is drawn by its own viewer where one was written for it.
    let viewer = match rec.external.as_ref().and_then(|e| e.sdk.as_ref()) {
        Some(_) => html::sdk_view::for_replay(&args.file),
        None => None,
    };
    let page = match &viewer {
        Some(text) => {
            html::viewer::page_with_viewer(&rec, None, html::viewer::Viewer::Inline(text))?
        }
        None => html::viewer::page(&rec, None)?,
    };
    std::fs::write(&out, page).with_context(|| format!("writing {}", out.display()))?;
    println!("Replay: {}", out.display());
    Ok(ExitCode::SUCCESS)
}
