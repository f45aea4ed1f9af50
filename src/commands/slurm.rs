//! `arbiter slurm`: turns a tournament into a Slurm job array (one task per shard) and a merge
//! job that runs after it. The bots are built here, once, before anything is submitted (see
//! [`run`] for why), a few games are played to measure what a game costs, and the time limit
//! comes from that estimate.

use crate::cli::shard_line;
use crate::cli::SlurmArgs;
use anyhow::{bail, Context, Result};
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::shards::{self, GameCost};
use arbiter::report::run_start;
use arbiter::report::sbatch::{self, Job};
use arbiter::tournament::shard::{estimate, time_limit, GameClock};
use arbiter::tournament::{Runner, Shard};
use std::process::ExitCode;
use std::time::Duration;

/// Writes the scripts, and with `--submit` submits them.
///
/// The bots are built once, here, on the machine that submits (on a cluster, a login node that
/// sees the shared file system), not once per array task: N tasks building in the same shared
/// folder at once would wait on each other's locks (cargo) or overwrite each other's files
/// (make, a plain compiler call), cost N times the CPU, fail on nodes without the compilers, and
/// could produce different binaries on different nodes; built once, every shard plays the very
/// same programs. The tasks run with `--no-build` and still test-start every bot, so a binary
/// that does not run on a node is named in that shard's log.
pub fn run(mut args: SlurmArgs) -> Result<ExitCode> {
    let t = &mut args.tournament;
    if t.shard.is_some() || t.resume.is_some() {
        bail!("arbiter slurm chooses each task's --shard and folder itself; leave out --shard and --resume");
    }
    let seed = *t.run.seed.get_or_insert_with(crate::cli::fresh_seed);
    let concurrency = t.run.concurrency.unwrap_or(1);
    let settings = Settings::fresh(t.request())?;
    let run_dir = std::path::absolute(
        t.out
            .clone()
            .unwrap_or_else(|| crate::cli::default_out_dir("tournament")),
    )?;
    // Shards already there must belong to this run (a rerun of the same command is fine).
    for shard in Shard::all(args.shards) {
        let dir = run_dir.join(format!("shard-{}", shard.index()));
        arbiter::engine::shards::check_shard_folder(&dir, shard, &settings)?;
    }

    let choice = settings.game.choice_in(Some(&settings.workdir))?;
    let cfg = settings
        .game
        .referee_config_in(choice.default_max_turns(), Some(&settings.workdir))?;
    let resolved = arbiter::engine::resolve_in(&settings.bots, &settings.workdir);
    let mut tell = arbiter::report::progress::bot_check_lines;
    let mut field = arbiter::engine::check_bots(resolved, &cfg, true, &mut [&mut tell])?;
    run_start::lines(field.mark_wrong_game(choice.name()));
    field.check_field(t.skip_broken_bots, choice.seats(), &choice.describe())?;
    let (bots, problems) = (field.specs, field.problems);
    let schedule = settings.schedule(choice.seats());

    // What a game costs: measured on a few games of the first shard, else from the clocks.
    let cost = if args.sample > 0 {
        let sample = shards::sample(&schedule, args.shards, &problems, args.sample as usize);
        let book = settings.openings.book(&choice, settings.seed)?;
        let runner = Runner {
            bots: &bots,
            game: &choice,
            opening_plies: settings.opening_plies,
            book: book.as_ref(),
            referee: &cfg,
            concurrency: 1,
            pin_cpus: false,
        };
        GameCost::measure(&runner, &sample)
    } else {
        let clock = GameClock {
            seats: choice.seats() as u32,
            max_turns: cfg.max_turns,
            first_turn: cfg.time.first_turn,
            turn: cfg.time.turn,
            grace: cfg.time.grace,
        };
        GameCost::from_clocks(&clock, args.turn_share)
    };
    sbatch::cost_line(&cost);
    let per_game = cost.per_game();
    let est = estimate(&schedule, args.shards, concurrency, per_game);
    let limit = args.time_limit.map_or_else(
        || time_limit(est.shard),
        |m| Duration::from_secs(u64::from(m) * 60),
    );
    sbatch::plan_line(
        schedule.len(),
        args.shards,
        &est,
        per_game,
        limit,
        args.time_limit.is_some(),
    );

    let mut sbatch = Vec::new();
    if let Some(p) = &args.partition {
        sbatch.push(format!("--partition={p}"));
    }
    if let Some(a) = &args.account {
        sbatch.push(format!("--account={a}"));
    }
    sbatch.extend(args.sbatch.iter().cloned());
    // Checked: the options must give back these settings (the tasks would refuse to run otherwise).
    let mut options = shard_line::checked_options(&settings)?;
    if t.skip_broken_bots {
        options.push("--skip-broken-bots".into());
    }
    let job = Job {
        name: format!(
            "arbiter-{}",
            run_dir
                .file_name()
                .map_or("tournament".into(), |n| n.to_string_lossy().into_owned())
        ),
        shards: args.shards,
        cpus: concurrency,
        time_limit: limit,
        run_dir: run_dir.clone(),
        workdir: settings.workdir.clone(),
        arbiter: std::env::current_exe().context("finding the arbiter program")?,
        options,
        bots: settings.bots.clone(),
        merge_options: t
            .anchor
            .iter()
            .flat_map(|a| ["--anchor".to_string(), a.clone()])
            .collect(),
        sbatch,
    };
    job.write()?;
    sbatch::written(&job, seed, args.submit);
    if !args.submit {
        return Ok(ExitCode::SUCCESS);
    }
    let array = sbatch_submit(&[job.shards_file().display().to_string()])?;
    let merge = sbatch_submit(&[
        format!("--dependency=afterany:{array}"),
        job.merge_file().display().to_string(),
    ])?;
    sbatch::submitted(&job, &array, &merge);
    Ok(ExitCode::SUCCESS)
}

/// Runs `sbatch --parsable ARGS` and returns the job id.
pub(super) fn sbatch_submit(args: &[String]) -> Result<String> {
    let out = std::process::Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .context("running sbatch (is this a machine of a Slurm cluster? the scripts are written; submit.sh submits them)")?;
    if !out.status.success() {
        bail!(
            "sbatch {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch answered {:?}, not a job id", text.trim());
    }
    Ok(id)
}
