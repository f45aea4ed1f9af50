//! `arbiter merge OUT SHARD_DIR...`: puts the results folders of a tournament's shards back
//! together: checks they come from one run, copies each game once into OUT/games.csv, names the
//! missing games and shards with the commands that play them, and writes the standings, the
//! merged records.jsonl and the report with every game's replay page.

use crate::cli::{self, MergeArgs};
use crate::cli::shard_line as shards;
use arbiter::engine::settings::TournamentSettings as Settings;
use anyhow::{bail, Context, Result};
use arbiter::engine::settings::Recorded;
use arbiter::engine::shards::{differences, Merging};
use arbiter::report::standings;
use arbiter::results::merge::merge_games;
use arbiter::tournament::{GameSpec, Shard};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status of a merge that wrote its files but lacks games.
pub const INCOMPLETE_EXIT: u8 = 1;

/// One input folder with its recorded settings.
struct Input {
    dir: PathBuf,
    settings: Settings,
}

pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let anchor = args.anchor.as_deref().map(cli::parse_anchor).transpose()?;
    let out = std::path::absolute(&args.out)?;
    let mut stderr = std::io::stderr().lock();
    // Folders without settings are shards that never started: reported as missing below.
    let mut inputs: Vec<Input> = Vec::new();
    for dir in &args.dirs {
        let dir = std::path::absolute(dir)?;
        if same_folder(&dir, &out) {
            bail!(
                "{} is both the output and an input; write the merge into another folder",
                out.display()
            );
        }
        if !dir.join(Settings::FILE).exists() {
            writeln!(
                stderr,
                "arbiter: {} holds no {} (a shard that never started?): skipped",
                dir.display(),
                Settings::FILE
            )?;
            continue;
        }
        let settings: Settings = arbiter::engine::settings::load(&dir)?;
        inputs.push(Input { dir, settings });
    }
    let Some(first) = inputs.first() else {
        bail!(
            "none of the folders holds a tournament's results ({})",
            Settings::FILE
        );
    };
    for other in &inputs[1..] {
        let diff = differences(&first.settings, &other.settings)?;
        if !diff.is_empty() {
            bail!(
                "{} and {} are not shards of the same run:\n  {}",
                first.dir.display(),
                other.dir.display(),
                diff.join("\n  ")
            );
        }
        if other.settings.workdir != first.settings.workdir {
            writeln!(
                stderr,
                "arbiter: note: the bots of {} were named from {}, those of {} from {}",
                first.dir.display(),
                first.settings.workdir.display(),
                other.dir.display(),
                other.settings.workdir.display()
            )?;
        }
    }
    let run = Settings {
        shard: None,
        ..first.settings.clone()
    };
    let choice = run.game.choice()?;
    let schedule = run.schedule(choice.seats);

    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let _lock = arbiter::results::lock::FolderLock::acquire(&out)?;
    let csvs: Vec<PathBuf> = inputs.iter().map(|i| i.dir.join("games.csv")).collect();
    let present: Vec<usize> = (0..inputs.len()).filter(|&i| csvs[i].exists()).collect();
    let files: Vec<PathBuf> = present.iter().map(|&i| csvs[i].clone()).collect();
    // Each game must belong to its folder's shard, with the same bots as the other shards.
    let mut merging = Merging::new(&run, &schedule);
    let merged = out.join("games.csv");
    let summary = merge_games(&files, &merged, choice.seats, |n, id, bots| {
        let input = &inputs[present[n]];
        Ok(merging.check(&input.dir, input.settings.shard, id, bots)?)
    })?;
    for path in &summary.torn {
        writeln!(
            stderr,
            "arbiter: the last line of {} was cut off (a shard killed while writing) and left out",
            path.display()
        )?;
    }
    if summary.repeated > 0 {
        writeln!(
            stderr,
            "arbiter: {} rows repeat a game already merged and were counted once",
            summary.repeated
        )?;
    }
    arbiter::engine::settings::save(&out, &run)?;

    let order = merging.names();
    let (table, _) = standings::from_files(std::slice::from_ref(&merged), &order, anchor.as_ref())?;
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
    if merged_records.skipped > 0 {
        writeln!(
            stderr,
            "arbiter: {} lines of the shards' records.jsonl are not records (a shard killed \
             while writing?) and were left out",
            merged_records.skipped
        )?;
    }
    let report = out.join(arbiter::report::html::FILE);
    let written = arbiter::report::html::write_report(
        std::slice::from_ref(&out),
        &report,
        &order,
        arbiter::report::html::Pages::All,
    )
    .with_context(|| format!("writing {}", report.display()))?;
    for f in &written.failed {
        writeln!(stderr, "arbiter: warning: {f}")?;
    }

    let missing = missing_report(&run, &inputs, &schedule, &merging.recorded, &out)?;
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

/// Whether two paths name the same folder (the second may not exist yet).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Lines naming every shard that is missing or lacks games, with the command that plays them.
fn missing_report(
    run: &Settings,
    inputs: &[Input],
    schedule: &[GameSpec],
    recorded: &arbiter::results::games_csv::DoneSet,
    out: &Path,
) -> Result<Vec<String>> {
    let count = inputs
        .iter()
        .find_map(|i| i.settings.shard)
        .map_or(1, Shard::count);
    let sharded = inputs.iter().any(|i| i.settings.shard.is_some());
    // Games still to play, by shard.
    let lacking = arbiter::engine::shards::lacking(schedule, recorded, count);
    let mut lines = Vec::new();
    let sbatch = out.join("slurm").join("shards.sbatch");
    let mut resubmit: Vec<u32> = Vec::new();
    for (shard, ids) in &lacking {
        let folder = inputs
            .iter()
            .find(|i| i.settings.shard.is_none_or(|s| s == *shard))
            .map(|i| i.dir.clone());
        let listed = ids
            .iter()
            .take(10)
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let more = if ids.len() > 10 { ", ..." } else { "" };
        let what = if sharded {
            format!("shard {shard}: ")
        } else {
            String::new()
        };
        let command = match &folder {
            Some(dir) => format!("arbiter tournament --resume {}", shell_path(dir)),
            None => {
                let dir = inputs[0]
                    .dir
                    .parent()
                    .unwrap_or(out)
                    .join(format!("shard-{}", shard.index()));
                let dir_text = dir.display().to_string();
                match shards::shard_arguments(run, &shard.to_string(), &dir_text) {
                    Ok(args) => {
                        let mut words = vec!["arbiter".to_string(), "tournament".into()];
                        words.extend(args);
                        format!(
                            "cd {} && {}",
                            shell_path(&run.workdir),
                            shards::shell_line(&words)
                        )
                    }
                    // Any shard's settings with this shard's number make its folder.
                    Err(_) => format!(
                        "mkdir -p {d} && sed 's|^shard = .*|shard = \"{shard}\"|' {from} > {d}/{file} \
                         && arbiter tournament --resume {d}",
                        d = shell_path(&dir),
                        from = shell_path(&inputs[0].dir.join(Settings::FILE)),
                        file = Settings::FILE
                    ),
                }
            }
        };
        let state = match &folder {
            Some(dir) => format!("{} of its games missing in {}", ids.len(), dir.display()),
            None => format!("no results folder ({} games)", ids.len()),
        };
        lines.push(format!(
            "  {what}{state} (game ids {listed}{more})\n    play them with: {command}"
        ));
        resubmit.push(shard.index());
    }
    if sharded && sbatch.exists() && !resubmit.is_empty() {
        let list = resubmit
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        lines.push(format!(
            "  on Slurm: sbatch --array={list} {} (then merge again)",
            shell_path(&sbatch)
        ));
    }
    Ok(lines)
}

fn shell_path(p: &Path) -> String {
    shell_words::quote(&p.display().to_string()).into_owned()
}
