//! `arbiter slurm`: turns a tournament into a Slurm job array (one task per shard) and a merge
//! job that runs after it. The bots are built here, once, before anything is submitted (see
//! [`run`] for why), a few games are played to measure what a game costs, and the time limit
//! comes from that estimate.

use crate::cli::shard_line;
use crate::cli::SlurmArgs;
use anyhow::{bail, Context, Result};
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::shards::{self, GameCost};
use arbiter::engine::start::Opened;
use arbiter::engine::{self, BotCheck, Context as RunContext, Event, Kind, RunError};
use arbiter::report::run_display;
use arbiter::report::sbatch::{self, Job};
use arbiter::results::games_csv::DoneSet;
use arbiter::tournament::shard::{estimate, time_limit, GameClock};
use arbiter::tournament::{GameSpec, Shard};
use std::ops::ControlFlow;
use std::path::Path;
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
    let opened = Opened {
        settings: Settings::fresh(t.request())?,
        dir: std::path::absolute(
            t.out
                .clone()
                .unwrap_or_else(|| crate::cli::default_out_dir("tournament")),
        )?,
        resuming: false,
    };
    // The engine's start (the game, its referee checked, the bots built once and test-started,
    // the field checked); the games are the cluster's.
    let mut kind = Shards {
        shards: args.shards,
        skip_broken_bots: t.skip_broken_bots,
    };
    let mut terminal = run_display::Terminal::default();
    let run = engine::prepare(opened, true, &mut kind, &mut [&mut terminal])?;
    let (settings, choice, cfg) = (&run.settings, &run.choice, &run.cfg);
    let run_dir = run.dir.clone();
    let schedule = settings.schedule(choice.seats());

    // What a game costs: measured on a few games of the first shard, else from the clocks.
    let cost = if args.sample > 0 {
        let sample = shards::sample(
            &schedule,
            args.shards,
            &run.field.problems,
            args.sample as usize,
        );
        GameCost::measure(&run.runner(1, false), &sample)
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
    let mut options = shard_line::checked_options(settings)?;
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
        spell: crate::cli::spelling,
    };
    arbiter::results::scripts::write_executables(&job.slurm_dir(), &job.scripts())?;
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

/// A tournament in shards as a kind of run: the engine's start alone ([`engine::prepare`]);
/// each shard's task plays its games as a tournament.
struct Shards {
    shards: u32,
    skip_broken_bots: bool,
}

impl Kind for Shards {
    type Settings = Settings;

    /// Shards already there must belong to this run (a rerun of the same command is fine).
    fn before_bots(&mut self, run: &RunContext<'_, Settings>) -> Result<(), RunError> {
        for shard in Shard::all(self.shards) {
            let dir = run.dir.join(format!("shard-{}", shard.index()));
            shards::check_shard_folder(&dir, shard, run.settings)
                .map_err(|e| RunError::Kind(Box::new(e)))?;
        }
        Ok(())
    }

    fn skip_broken_bots(&self) -> bool {
        self.skip_broken_bots
    }

    /// The whole tournament's games, as a run in one folder would play them ([`engine::prepare`]
    /// stops before asking: the shards split them).
    fn todo(
        &mut self,
        run: &RunContext<'_, Settings>,
        field: &BotCheck,
        done: &DoneSet,
        _games_csv: &Path,
    ) -> Result<Vec<GameSpec>, RunError> {
        let seats = run.choice.seats();
        Ok(run.settings.games_to_play(seats, &field.active(), done))
    }
}

impl engine::Consumer for Shards {
    fn event(&mut self, _event: &Event<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}
