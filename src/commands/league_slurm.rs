//! `arbiter league slurm URL --workers N --token-file F`: a pool of league workers on a Slurm
//! cluster, as a job array of long-lived `arbiter league work` processes (the script:
//! [`arbiter::league::slurm`]). Slurm places, limits and ends the workers; the league needs no
//! more than a worker needs anywhere else (an outbound connection and a token).

use crate::cli::LeagueSlurmArgs;
use anyhow::{bail, Context, Result};
use arbiter::league::slurm::WorkerJob;
use arbiter::league::{client, token_file};
use std::process::ExitCode;
use std::time::Duration;

pub fn run(args: LeagueSlurmArgs) -> Result<ExitCode> {
    let url = args.url.trim_end_matches('/').to_string();
    if client::authority(&url).is_none() {
        bail!("{url} is not a league's address: give it as http://HOST:PORT, as the cluster's nodes reach the server");
    }
    // Checked here, on the machine that submits, so that a token file others can read (or no
    // token at all) is said now rather than in N logs; its text stays in the file.
    token_file::read(&args.token_file)?;
    let token_file = std::path::absolute(&args.token_file)?;
    let dir = std::path::absolute(
        args.out
            .clone()
            .unwrap_or_else(|| crate::cli::default_out_dir("league-workers")),
    )?;
    let mut sbatch = Vec::new();
    if let Some(p) = &args.partition {
        sbatch.push(format!("--partition={p}"));
    }
    if let Some(a) = &args.account {
        sbatch.push(format!("--account={a}"));
    }
    sbatch.extend(args.sbatch.iter().cloned());
    let job = WorkerJob {
        name: "arbiter-league-workers".into(),
        url: url.clone(),
        workers: args.workers,
        throttle: args.throttle,
        concurrency: args.concurrency,
        time_limit: Duration::from_secs(u64::from(args.time_limit) * 60),
        dir,
        arbiter: std::env::current_exe().context("finding the arbiter program")?,
        work: vec![
            "league".into(),
            "work".into(),
            url.clone(),
            "--token-file".into(),
            token_file.display().to_string(),
            "--concurrency".into(),
            args.concurrency.to_string(),
            "--cache".into(),
        ],
        sbatch,
    };
    job.write()?;
    let script = job.script_file();
    println!("Script in {}:", job.dir.display());
    println!(
        "  workers.sbatch  the job array: {} workers{}, {} game(s) at a time each, for {} min",
        job.workers,
        job.throttle
            .map_or(String::new(), |k| format!(" (at most {k} at once)")),
        job.concurrency,
        args.time_limit
    );
    if !args.submit {
        println!("Submit with: sbatch {}", script.display());
        return Ok(ExitCode::SUCCESS);
    }
    let id = super::slurm::sbatch_submit(&[script.display().to_string()])?;
    println!("Submitted: workers job {id} (array 1-{})", job.workers);
    println!(
        "Follow with: squeue -j {id}; logs in {}; stop them with: scancel {id}",
        job.dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
