//! `arbiter merge OUT SHARD_DIR...`: puts the results folders of a tournament's shards back
//! together: checks they come from one run, copies each game once into OUT/games.csv, names the
//! missing games and shards with the commands that play them, and writes the standings, the
//! merged records.jsonl and the report with every game's replay page. The checks are
//! [`arbiter::engine::shards`]'s, the notes and the missing lines [`arbiter::report::merge_end`]'s.

use crate::cli::shard_line as shards;
use crate::cli::{self, MergeArgs};
use anyhow::{Context, Result};
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::shards::{self as engine_shards, Merging};
use arbiter::report::{merge_end, standings};
use arbiter::results::merge::merge_games;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status of a merge that wrote its files but lacks games.
pub const INCOMPLETE_EXIT: u8 = 1;

pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let anchor = args.anchor.as_deref().map(cli::parse_anchor).transpose()?;
    let out = std::path::absolute(&args.out)?;
    // Folders without settings are shards that never started: reported as missing below.
    let inputs = engine_shards::shard_folders(&args.dirs, &out, &mut merge_end::folder_note)?;
    let first = &inputs[0];
    let run = Settings {
        shard: None,
        ..first.settings.clone()
    };
    let choice = run.game.choice_in(Some(&run.workdir))?;
    let schedule = run.schedule(choice.seats());

    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let _lock = arbiter::results::lock::FolderLock::acquire(&out)?;
    let csvs: Vec<PathBuf> = inputs.iter().map(|i| i.dir.join("games.csv")).collect();
    let present: Vec<usize> = (0..inputs.len()).filter(|&i| csvs[i].exists()).collect();
    let files: Vec<PathBuf> = present.iter().map(|&i| csvs[i].clone()).collect();
    // Each game must belong to its folder's shard, with the same bots as the other shards.
    let mut merging = Merging::new(&run, &schedule);
    let merged = out.join("games.csv");
    let summary = merge_games(&files, &merged, choice.seats(), |n, id, bots| {
        let input = &inputs[present[n]];
        merging
            .check(&input.dir, input.settings.shard, id, bots)
            .map_err(Into::into)
    })?;
    merge_end::file_notes(&summary.torn, summary.repeated, 0);
    arbiter::engine::settings::save(&out, &run)?;

    let order = merging.names();
    let (table, _) = arbiter::results::standings::from_files(
        std::slice::from_ref(&merged),
        &order,
        anchor.as_ref(),
    )?;
    standings::write_files(&out, &table)?;
    let mut stdout = std::io::stdout().lock();
    standings::print(&mut stdout, &table)?;

    // The records (each game once, as games.csv) and the report with every game's replay.
    let records: Vec<PathBuf> = inputs
        .iter()
        .map(|i| i.dir.join(arbiter::results::records::FILE))
        .collect();
    let merged_records = arbiter::results::merge::merge_records(
        &records,
        &out.join(arbiter::results::records::FILE),
    )?;
    merge_end::file_notes(&[], 0, merged_records.skipped);
    // An SDK game's own viewer, which each shard's run wrote into its replays: one serves all.
    let viewer = |dir: &std::path::Path| {
        dir.join("replays")
            .join(arbiter::report::html::sdk_view::FILE)
    };
    if let Some(from) = inputs.iter().map(|i| viewer(&i.dir)).find(|p| p.is_file()) {
        let to = viewer(&out);
        std::fs::create_dir_all(out.join("replays"))
            .and_then(|_| std::fs::copy(&from, &to))
            .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    }
    let report = out.join(arbiter::report::html::FILE);
    let written = arbiter::report::html::write_report(
        std::slice::from_ref(&out),
        &report,
        &order,
        arbiter::report::html::Pages::All,
    )
    .with_context(|| format!("writing {}", report.display()))?;
    arbiter::report::run_start::lines(written.failed.iter().map(|f| format!("warning: {f}")));

    let lacking = engine_shards::lacking_by_folder(&inputs, &schedule, &merging.recorded);
    let missing = merge_end::missing_lines(&run, &inputs, &lacking, &out, &|shard, dir| {
        shards::shard_arguments(&run, &shard.to_string(), dir).ok()
    });
    let total = schedule.len();
    writeln!(
        stdout,
        "\nMerged {} of {total} games from {} folders into {}",
        summary.written,
        inputs.len(),
        out.display()
    )?;
    writeln!(
        stdout,
        "Report: {} ({} replay pages)",
        report.display(),
        written.pages
    )?;
    if missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(stdout, "\nMissing:")?;
    for line in missing {
        writeln!(stdout, "{line}")?;
    }
    Ok(ExitCode::from(INCOMPLETE_EXIT))
}
