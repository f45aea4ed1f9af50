//! `arbiter slurm`: turns a tournament into a Slurm job array (one task per shard) and a merge
//! job that runs after it. The bots are built here, once, before anything is submitted (see
//! [`run`] for why), a few games are played to measure what a game costs, and the time limit
//! comes from that estimate.

use crate::cli::shard_line as shards;
use crate::cli::SlurmArgs;
use anyhow::{bail, Context, Result};
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::report::sbatch::{minutes, Job};
use arbiter::report::{run_display, run_start};
use arbiter::tournament::shard::{estimate, time_limit, GameClock};
use arbiter::tournament::{Runner, Shard};
use std::process::ExitCode;
use std::time::{Duration, Instant};

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

    let choice = settings.game.choice()?;
    let cfg = settings
        .game
        .referee_config(choice.info.default_max_turns)?;
    let resolved = arbiter::engine::resolve_in(&settings.bots, &settings.workdir);
    let mut field = run_display::check_bots(resolved, &cfg, true)?;
    run_start::lines(field.mark_wrong_game(choice.name()));
    field.check_field(t.skip_broken_bots, choice.seats, &choice.describe())?;
    let (bots, problems) = (field.specs, field.problems);
    let schedule = settings.schedule(choice.seats);

    // What a game costs: measured on a few games of the first shard, else from the clocks.
    let per_game = if args.sample > 0 {
        let sample: Vec<_> = Shard::new(1, args.shards)
            .expect("at least one shard")
            .slice(&schedule)
            .into_iter()
            .filter(|g| g.seats.iter().all(|&s| problems[s].is_none()))
            .take(args.sample as usize)
            .collect();
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
        let start = Instant::now();
        for g in &sample {
            runner.play_one(g);
        }
        let took = start.elapsed();
        let per = took / (sample.len().max(1) as u32);
        eprintln!(
            "arbiter: measured {} games here in {:.1} s: {:.0} ms a game",
            sample.len(),
            took.as_secs_f64(),
            per.as_secs_f64() * 1000.0
        );
        per
    } else {
        let clock = GameClock {
            seats: choice.seats as u32,
            max_turns: cfg.max_turns,
            first_turn: cfg.time.first_turn,
            turn: cfg.time.turn,
            grace: cfg.time.grace,
        };
        let per = clock.worst_game().mul_f64(args.turn_share.clamp(0.0, 1.0));
        eprintln!(
            "arbiter: a game lasts at most {:.1} s on its clocks ({} turns); at {:.0}% of each turn: {:.1} s",
            clock.worst_game().as_secs_f64(),
            cfg.max_turns,
            args.turn_share * 100.0,
            per.as_secs_f64()
        );
        per
    };
    let est = estimate(&schedule, args.shards, concurrency, per_game);
    let limit = args.time_limit.map_or_else(
        || time_limit(est.shard),
        |m| Duration::from_secs(u64::from(m) * 60),
    );
    eprintln!(
        "arbiter: {} games in {} shards; the largest shard plays {} games, {} at a time: about {} \
         at {:.0} ms a game; time limit {} min per shard{}",
        schedule.len(),
        args.shards,
        est.games,
        est.concurrency,
        human(est.shard),
        per_game.as_secs_f64() * 1000.0,
        minutes(limit),
        if args.time_limit.is_some() {
            " (as given)"
        } else {
            " (half as much again plus 5 min; --time-limit MIN to choose)"
        }
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
    let mut options = shards::checked_options(&settings)?;
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
    std::fs::create_dir_all(job.slurm_dir())
        .with_context(|| format!("creating {}", job.slurm_dir().display()))?;
    let write = |path: std::path::PathBuf, text: String| -> Result<()> {
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        Ok(())
    };
    write(job.shards_file(), job.shards_script())?;
    write(job.merge_file(), job.merge_script())?;
    write(job.submit_file(), job.submit_script())?;
    println!("Seed {seed}; scripts in {}:", job.slurm_dir().display());
    println!(
        "  shards.sbatch  the job array ({} tasks, {concurrency} CPUs each)",
        args.shards
    );
    println!("  merge.sbatch   the merge into {}", run_dir.display());
    println!("  submit.sh      submits both");
    if !args.submit {
        println!("Submit with: {}", job.submit_file().display());
        return Ok(ExitCode::SUCCESS);
    }
    let array = sbatch_submit(&[job.shards_file().display().to_string()])?;
    let merge = sbatch_submit(&[
        format!("--dependency=afterany:{array}"),
        job.merge_file().display().to_string(),
    ])?;
    println!(
        "Submitted: shards job {array} (array 1-{}), merge job {merge}",
        args.shards
    );
    println!(
        "Follow with: squeue -j {array},{merge}; logs in {}",
        job.slurm_dir().display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `sbatch --parsable ARGS` and returns the job id.
fn sbatch_submit(args: &[String]) -> Result<String> {
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

/// "2 h 05 min", "3 min 20 s", "12 s".
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{:.1} s", d.as_secs_f64()),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}
