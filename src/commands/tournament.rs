//! `arbiter tournament`: prepares the bots (build, start-up check), schedules the games that
//! games.csv lacks, plays them with a progress display, and prints the standings.

use crate::cli::{self, GameOpts, TournamentArgs};
use anyhow::{bail, Context, Result};
use arbiter::bot::BotSpec;
pub use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::settings::{self, Recorded};
use arbiter::report::standings;
use arbiter::results::games_csv::GamesCsv;
use arbiter::results::lock::FolderLock;
use arbiter::tournament::Runner;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Decides the settings and the results folder: the recorded ones with `resume`; else `fresh`,
/// resuming when `out` already holds the same run (a seed the user did not give is taken from
/// the record). Returns the settings, the folder, and whether it is a resume.
pub fn settings_and_dir<S: Recorded>(
    resume: Option<&PathBuf>,
    out: Option<&PathBuf>,
    name: &str,
    seed_given: bool,
    fresh: impl FnOnce() -> Result<S>,
) -> Result<(S, PathBuf, bool)> {
    if let Some(dir) = resume {
        return Ok((settings::load(dir)?, dir.clone(), true));
    }
    let out = out.cloned().unwrap_or_else(|| cli::default_out_dir(name));
    let (settings, resuming) = settings::continue_or_start(&out, fresh()?, seed_given)?;
    Ok((settings, out, resuming))
}

/// The opening book of a new run, as its settings record it (with the book's fingerprint).
pub fn openings_of(run: &cli::RunOpts, game: &GameOpts) -> Result<settings::OpeningsSettings> {
    let none = settings::OpeningsSettings {
        openings_order: run.openings_order,
        ..Default::default()
    };
    if run.openings.is_none() {
        return Ok(none); // without a book, the game (an external referee's build) is not needed
    }
    Ok(settings::OpeningsSettings::new(
        run.openings.clone(),
        run.openings_order,
        &game.choice()?,
    )?)
}

/// Claims the results folder for this run (see [`FolderLock`]): held until the run ends.
pub fn claim_folder(dir: &Path) -> Result<FolderLock> {
    Ok(FolderLock::acquire(dir)?)
}

/// Resolves (as typed in `workdir`, where the run began), builds and test-starts every bot.
/// Bots that fail are reported and left out; a clash of names is an error.
pub fn prepare_bots(
    origins: &[String],
    workdir: &Path,
    cfg: &arbiter::referee::RefereeConfig,
) -> Result<(Vec<BotSpec>, Vec<Option<String>>)> {
    prepare_bots_built(origins, workdir, cfg, true)
}

/// [`prepare_bots`], running the bots' build commands only if `build`.
pub fn prepare_bots_built(
    origins: &[String],
    workdir: &Path,
    cfg: &arbiter::referee::RefereeConfig,
    build: bool,
) -> Result<(Vec<BotSpec>, Vec<Option<String>>)> {
    let resolved = arbiter::engine::resolve_in(origins, workdir);
    super::run_common::check_bots(resolved, cfg, build)
}

pub use arbiter::engine::Placement;

/// Games at a time (as asked, else the number of cores; a warning when it exceeds them) and
/// whether each is pinned to a CPU, from the run options and whether idle bots are frozen.
pub fn placement(run: &cli::RunOpts, freeze_idle: bool) -> Placement {
    let p = Placement::decide(
        run.concurrency.map(|c| c as usize),
        run.pin_cpus == cli::Pinning::Auto,
        |concurrency, cpus, busy| run.pin_cpus.pins(concurrency, cpus, freeze_idle, busy),
    );
    if p.oversubscribed() {
        eprintln!(
            "arbiter: warning: --concurrency {} exceeds the {} CPU cores; bots will lose time to each other",
            p.concurrency, p.cores
        );
    }
    p
}

/// Options that may change when a run is continued: where and how fast it runs, not which
/// games it plays.
pub const RESUME_MAY_CHANGE: &[&str] = &[
    "resume",
    "concurrency",
    "pin-cpus",
    "anchor",
    "skip-broken-bots",
    "no-build",
];

/// With `--resume`, options that would change the recorded settings are an error, not ignored.
pub fn check_resume_options(
    given: &cli::Given,
    resume: Option<&PathBuf>,
    file: &str,
) -> Result<()> {
    let Some(dir) = resume else {
        return Ok(());
    };
    let changed = given.outside(RESUME_MAY_CHANGE);
    if !changed.is_empty() {
        bail!(
            "--resume {} continues the run with its recorded settings ({}), so {} would be \
             ignored; leave {} out, or start a new run with another --out",
            dir.display(),
            dir.join(file).display(),
            changed.join(", "),
            if changed.len() == 1 { "it" } else { "them" }
        );
    }
    Ok(())
}

/// `--grow`: the recorded settings with one more stage (more games per table, added bots).
fn grow(settings: Settings, args: &TournamentArgs, given: &cli::Given) -> Result<Settings> {
    let seats = settings.game.choice()?.seats as u32;
    let games = given
        .options
        .iter()
        .any(|(id, _)| id == "games")
        .then_some(args.games);
    Ok(settings.grow(games, &args.add_bot, seats)?)
}

/// The settings of a new run from the command line (checked; a fresh seed unless given).
pub fn fresh_settings(args: &TournamentArgs) -> Result<Settings> {
    args.game
        .check_run(args.run.opening_plies, args.run.openings.as_deref())?;
    let choice = args.game.choice()?;
    let k = choice.seats;
    if args.bots.len() < k {
        bail!(
            "a tournament of {} needs {k} or more bots (got {})",
            choice.describe(),
            args.bots.len()
        );
    }
    if args.games == 0 || !args.games.is_multiple_of(k as u32) {
        bail!(
            "--games must be a positive multiple of {k}: each table of {k} bots plays \
             rounds of {k} games with the same seed and opening, each bot in every seat once \
             (got {})",
            args.games
        );
    }
    if args.tables == Some(0) {
        bail!("--tables must be at least 1");
    }
    if let (Some(shard), None) = (args.shard, args.run.seed) {
        bail!(
            "--shard {shard} needs --seed: every shard must compute the same schedule \
             (choose any number and give it to all {} shards)",
            shard.count()
        );
    }
    Ok(Settings {
        bots: args.bots.clone(),
        workdir: std::env::current_dir()?,
        format: args.format,
        games: args.games,
        tables: args.tables,
        stages: Vec::new(),
        first_bots: None,
        opening_plies: args.run.opening_plies,
        openings: openings_of(&args.run, &args.game)?,
        seed: args.run.seed.unwrap_or_else(cli::fresh_seed),
        replays: args.replays,
        shard: args.shard,
        game: args.game.clone().into(),
    })
}

pub fn run(args: TournamentArgs, given: &cli::Given) -> Result<ExitCode> {
    if args.grow {
        let mut allowed = RESUME_MAY_CHANGE.to_vec();
        allowed.extend(["grow", "games", "add-bot"]);
        let changed = given.outside(&allowed);
        if !changed.is_empty() {
            bail!(
                "--grow adds games or bots to a run and keeps its other settings; {} cannot change",
                changed.join(", ")
            );
        }
    } else {
        check_resume_options(given, args.resume.as_ref(), Settings::FILE)?;
    }
    let anchor = args.anchor.as_deref().map(cli::parse_anchor).transpose()?;
    let (settings, out, resuming) = settings_and_dir(
        args.resume.as_ref(),
        args.out.as_ref(),
        "tournament",
        args.run.seed.is_some(),
        || fresh_settings(&args),
    )?;
    let out = std::path::absolute(&out)?;
    let _lock = claim_folder(&out)?;
    let settings = if args.grow {
        grow(settings, &args, given)?
    } else {
        settings
    };
    let choice = settings.game.choice()?;
    let book = settings.openings.book(&choice, settings.seed)?;
    let seats = choice.seats;
    let mut cfg = settings
        .game
        .referee_config(choice.info.default_max_turns)?;
    // Every game keeps its turns for records.jsonl (the replay pages of report.html).
    cfg.record_turns = true;
    let (bots, mut problems) =
        prepare_bots_built(&settings.bots, &settings.workdir, &cfg, !args.no_build)?;
    let wrong = arbiter::bot::spec::mark_wrong_game(&bots, &mut problems, choice.name());
    wrong.iter().for_each(|e| eprintln!("arbiter: {e}"));
    let active: Vec<bool> = problems.iter().map(Option::is_none).collect();
    let broken: Vec<&str> = bots
        .iter()
        .zip(&problems)
        .filter(|(_, p)| p.is_some())
        .map(|(b, _)| b.name.as_str())
        .collect();
    if !broken.is_empty() && !args.skip_broken_bots {
        bail!(
            "{} cannot play (see above); fix {}, or pass --skip-broken-bots to play without {}",
            broken.join(", "),
            if broken.len() == 1 { "it" } else { "them" },
            if broken.len() == 1 { "it" } else { "them" }
        );
    }
    let playing = active.iter().filter(|&&a| a).count();
    if playing < seats {
        bail!(
            "fewer bots can play ({playing}) than a game of {} seats ({seats}); see the messages above",
            choice.describe()
        );
    }

    arbiter::engine::settings::save(&out, &settings)?;
    let (mut csv, done) = GamesCsv::open(&out.join("games.csv"), seats)
        .with_context(|| format!("opening {}", out.join("games.csv").display()))?;
    let todo = settings.games_to_play(seats, &active, &done);
    if let Some(note) = settings.game.memory_note() {
        eprintln!("arbiter: {note}");
    }
    let placement = placement(&args.run, cfg.freeze_idle);
    if resuming {
        eprintln!(
            "arbiter: resuming {}: {} games recorded, {} to play",
            out.display(),
            done.len(),
            todo.len()
        );
    }
    eprintln!(
        "arbiter: {} games of {} between {playing} bots, {}, seed {}{}, results in {}",
        todo.len(),
        choice.describe(),
        placement.describe(),
        settings.seed,
        settings
            .shard
            .map_or(String::new(), |s| format!(", shard {s}")),
        out.display()
    );
    arbiter::report::starved::eprint_busy(cfg.time.clock);

    arbiter::bot::cleanup::set_stop_hint(format!(
        "continue with: arbiter tournament --resume {}",
        out.display()
    ));
    let runner = Runner {
        bots: &bots,
        game: &choice,
        opening_plies: settings.opening_plies,
        book: book.as_ref(),
        referee: &cfg,
        concurrency: placement.concurrency,
        pin_cpus: placement.pin_cpus,
    };
    let (failure, report_path) = super::run_common::play_and_record(
        &runner,
        &todo,
        &mut csv,
        &out,
        settings.replays,
        &mut |_, _| std::ops::ControlFlow::Continue(()),
        None,
    )?;
    if let Some(e) = failure {
        return Err(e);
    }

    let order: Vec<String> = bots
        .iter()
        .zip(&active)
        .filter(|(_, a)| **a)
        .map(|(b, _)| b.name.clone())
        .collect();
    let (table, _) = standings::from_files(&[csv.path().to_path_buf()], &order, anchor.as_ref())?;
    standings::write_files(&out, &table)?;
    let left_out: Vec<(&str, &str)> = bots
        .iter()
        .zip(&problems)
        .filter_map(|(b, p)| p.as_deref().map(|why| (b.name.as_str(), why)))
        .collect();
    arbiter::report::run_end::tournament(
        &mut std::io::stdout().lock(),
        &table,
        &left_out,
        &out,
        &report_path,
        settings.shard,
    )?;
    Ok(ExitCode::SUCCESS)
}
