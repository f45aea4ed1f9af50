//! What `arbiter merge` says: the notes on its input folders and files (stderr), and the lines
//! that name each shard still lacking games with the command that plays them.

use crate::engine::settings::{Recorded, TournamentSettings};
use crate::engine::shards::{FolderNote, Lacking, ShardFolder};
use crate::options::Opt;
use crate::tournament::Shard;
use std::path::Path;

/// A note on an input folder, on stderr.
pub fn folder_note(note: FolderNote<'_>) {
    match note {
        FolderNote::NoSettings(dir) => eprintln!(
            "arbiter: {} holds no {} (a shard that never started?): skipped",
            dir.display(),
            TournamentSettings::FILE
        ),
        FolderNote::OtherWorkdir { first, other } => eprintln!(
            "arbiter: note: the bots of {} were named from {}, those of {} from {}",
            first.dir.display(),
            first.settings.workdir.display(),
            other.dir.display(),
            other.settings.workdir.display()
        ),
    }
}

/// What merging the files found besides the games: `torn` files, `repeated` rows and
/// `skipped_records` lines that are not records.
pub fn file_notes(torn: &[std::path::PathBuf], repeated: u64, skipped_records: u64) {
    for path in torn {
        eprintln!(
            "arbiter: the last line of {} was cut off (a shard killed while writing) and left out",
            path.display()
        );
    }
    if repeated > 0 {
        eprintln!("arbiter: {repeated} rows repeat a game already merged and were counted once");
    }
    if skipped_records > 0 {
        eprintln!(
            "arbiter: {skipped_records} lines of the shards' records.jsonl are not records (a shard killed \
             while writing?) and were left out"
        );
    }
}

/// Lines naming every shard that lacks games (`lacking`), with the command that plays them:
/// `--resume` of its folder, else `shard_line(shard, folder)`, the arguments of
/// `arbiter tournament` that play it into a new folder (`None`: the settings cannot be written
/// as one command line). `out` is the merge's folder (a Slurm run's scripts are there).
pub fn missing_lines(
    run: &TournamentSettings,
    inputs: &[ShardFolder],
    lacking: &[Lacking],
    out: &Path,
    shard_line: &dyn Fn(Shard, &str) -> Option<Vec<String>>,
) -> Vec<String> {
    let sharded = inputs.iter().any(|i| i.settings.shard.is_some());
    let mut lines = Vec::new();
    let sbatch = out.join("slurm").join("shards.sbatch");
    for Lacking { shard, ids, folder } in lacking {
        let shard = *shard;
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
        let command = match folder {
            Some(dir) => format!("arbiter tournament {} {}", Opt::Resume, shell_path(dir)),
            None => {
                let dir = inputs[0]
                    .dir
                    .parent()
                    .unwrap_or(out)
                    .join(format!("shard-{}", shard.index()));
                match shard_line(shard, &dir.display().to_string()) {
                    Some(args) => {
                        let mut words = vec!["arbiter".to_string(), "tournament".into()];
                        words.extend(args);
                        format!(
                            "cd {} && {}",
                            shell_path(&run.workdir),
                            shell_words::join(&words)
                        )
                    }
                    // Any shard's settings with this shard's number make its folder.
                    None => format!(
                        "mkdir -p {d} && sed 's|^shard = .*|shard = \"{shard}\"|' {from} > {d}/{file} \
                         && arbiter tournament {resume} {d}",
                        resume = Opt::Resume,
                        d = shell_path(&dir),
                        from = shell_path(&inputs[0].dir.join(TournamentSettings::FILE)),
                        file = TournamentSettings::FILE
                    ),
                }
            }
        };
        let state = match folder {
            Some(dir) => format!("{} of its games missing in {}", ids.len(), dir.display()),
            None => format!("no results folder ({} games)", ids.len()),
        };
        lines.push(format!(
            "  {what}{state} (game ids {listed}{more})\n    play them with: {command}"
        ));
    }
    if sharded && sbatch.exists() && !lacking.is_empty() {
        let list = lacking
            .iter()
            .map(|l| l.shard.index().to_string())
            .collect::<Vec<_>>()
            .join(",");
        lines.push(format!(
            "  on Slurm: sbatch --array={list} {} (then merge again)",
            shell_path(&sbatch)
        ));
    }
    lines
}

fn shell_path(p: &Path) -> String {
    shell_words::quote(&p.display().to_string()).into_owned()
}
