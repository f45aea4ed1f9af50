//! `arbiter tournament`: prepares the bots (build, start-up check), schedules the games that
//! games.csv lacks, plays them with a progress display, and prints the standings.

use crate::cli::{self, GameOpts, TournamentArgs};
use anyhow::{bail, Context, Result};
use arbiter::bot::BotSpec;
use arbiter::report::games_csv::GamesCsv;
use arbiter::report::lock::FolderLock;
use arbiter::report::standings;
use arbiter::tournament::{schedule_grown, Format, Plan, Runner, Shard};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Everything that decides which games a tournament plays and how; saved as tournament.toml so
/// that `--resume` (or the same command again) continues exactly the same tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The BOT arguments as typed.
    pub bots: Vec<String>,
    /// Where they were typed (relative bot paths are resolved from here).
    pub workdir: PathBuf,
    pub format: Format,
    pub games: u32,
    /// Sampled tables instead of every table (large fields).
    #[serde(default)]
    pub tables: Option<usize>,
    /// How the run was grown after it began (`--grow`), in order; `bots` and `games` above
    /// are those of the first stage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<arbiter::tournament::Stage>,
    /// How many of `bots` the run began with, once it has grown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_bots: Option<usize>,
    pub opening_plies: u32,
    /// The opening book (a file or a built-in name), its order, and its content's fingerprint.
    #[serde(default)]
    pub openings: Option<String>,
    #[serde(default)]
    pub openings_order: arbiter::tournament::openings::Order,
    #[serde(default)]
    pub openings_fingerprint: Option<String>,
    pub seed: u64,
    pub replays: bool,
    /// Only this slice of the schedule (`--shard K/N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub game: GameOpts,
}

/// Settings saved in a results folder so that a run can be continued exactly.
pub trait Recorded: Serialize + serde::de::DeserializeOwned + PartialEq {
    /// The file name in the results folder.
    const FILE: &'static str;
    fn seed_mut(&mut self) -> &mut u64;
}

impl Recorded for Settings {
    const FILE: &'static str = "tournament.toml";
    fn seed_mut(&mut self) -> &mut u64 {
        &mut self.seed
    }
}

pub fn load_settings<S: Recorded>(dir: &Path) -> Result<S> {
    let path = dir.join(S::FILE);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "reading {} (is {} a results folder of this command?)",
            path.display(),
            dir.display()
        )
    })?;
    toml::from_str(&text)
        .with_context(|| format!("{} is not a valid settings file", path.display()))
}

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
        return Ok((load_settings(dir)?, dir.clone(), true));
    }
    let mut settings = fresh()?;
    let out = out.cloned().unwrap_or_else(|| cli::default_out_dir(name));
    if out.join(S::FILE).exists() {
        let mut old: S = load_settings(&out)?;
        if !seed_given {
            *settings.seed_mut() = *old.seed_mut();
        }
        if old != settings {
            bail!(
                "{} already holds a different run (other bots or settings); \
                 choose another --out, or continue that one with --resume {}",
                out.display(),
                out.display()
            );
        }
        return Ok((settings, out, true));
    }
    Ok((settings, out, false))
}

/// Writes the settings into the results folder.
pub fn save_settings<S: Recorded>(dir: &Path, settings: &S) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(dir.join(S::FILE), toml::to_string_pretty(settings)?)
        .with_context(|| format!("writing {}", dir.join(S::FILE).display()))
}

/// The run's opening book, checked against the fingerprint recorded when the run began (a book
/// file changed since would give other games the same ids).
pub fn load_book(
    spec: Option<&str>,
    order: arbiter::tournament::openings::Order,
    recorded: Option<&str>,
    choice: &arbiter::game::GameChoice,
    seed: u64,
) -> Result<Option<arbiter::tournament::openings::Book>> {
    let Some(spec) = spec else {
        return Ok(None);
    };
    let book = arbiter::tournament::openings::Book::load(spec, choice, order, seed)?;
    if let Some(fp) = recorded {
        if fp != book.fingerprint() {
            bail!(
                "the openings {spec} changed since this run began; restore the file or start a new run"
            );
        }
    }
    Ok(Some(book))
}

/// The fingerprint of the opening book a new run is given (recorded in its settings, so that a
/// continued run notices a changed book).
pub fn openings_fingerprint(run: &cli::RunOpts, game: &GameOpts) -> Result<Option<String>> {
    let Some(spec) = &run.openings else {
        return Ok(None);
    };
    let book =
        arbiter::tournament::openings::Book::load(spec, &game.choice()?, run.openings_order, 0)?;
    Ok(Some(book.fingerprint()))
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
    // Paths typed where the run began are found from there; the process's own working
    // directory is never changed (it is shared by every thread).
    let elsewhere = (std::env::current_dir().ok().as_deref() != Some(workdir)).then_some(workdir);
    let resolved = origins
        .iter()
        .map(|o| (o.clone(), BotSpec::resolve_named_in(o, elsewhere)))
        .collect();
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
fn grow(mut settings: Settings, args: &TournamentArgs, given: &cli::Given) -> Result<Settings> {
    let k = settings.game.choice()?.seats as u32;
    if settings.tables.is_some() {
        bail!("a run of sampled tables (--tables) cannot grow; start a new run with more tables");
    }
    let (bots_now, games_now) = settings
        .stages
        .last()
        .map_or((settings.bots.len(), settings.games), |s| {
            (s.bots, s.games_per_table)
        });
    let games = if given.options.iter().any(|(id, _)| id == "games") {
        args.games
    } else {
        games_now
    };
    if games < games_now || !games.is_multiple_of(k) {
        bail!(
            "--grow --games {games}: the run plays {games_now} games per table; give a larger \
             multiple of {k}"
        );
    }
    if games == games_now && args.add_bot.is_empty() {
        bail!("--grow needs --games above {games_now} or --add-bot BOT");
    }
    settings.first_bots.get_or_insert(settings.bots.len());
    settings.bots.extend(args.add_bot.iter().cloned());
    settings.stages.push(arbiter::tournament::Stage {
        bots: bots_now + args.add_bot.len(),
        games_per_table: games,
    });
    Ok(settings)
}

/// Every game of the run of `settings` (all shards), for games of `seats` seats: the one place
/// that turns settings into a schedule, for the run, `merge` and `slurm`.
pub fn schedule_of(settings: &Settings, seats: usize) -> Vec<arbiter::tournament::GameSpec> {
    // Bots added by --grow come last in the list; the first plan had the others.
    schedule_grown(
        &Plan {
            bots: settings.first_bots.unwrap_or(settings.bots.len()),
            seats,
            format: settings.format,
            games_per_table: settings.games,
            tables: settings.tables,
            master_seed: settings.seed,
        },
        &settings.stages,
    )
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
        openings: args.run.openings.clone(),
        openings_order: args.run.openings_order,
        openings_fingerprint: openings_fingerprint(&args.run, &args.game)?,
        seed: args.run.seed.unwrap_or_else(cli::fresh_seed),
        replays: args.replays,
        shard: args.shard,
        game: args.game.clone(),
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
    let book = super::tournament::load_book(
        settings.openings.as_deref(),
        settings.openings_order,
        settings.openings_fingerprint.as_deref(),
        &settings.game.choice()?,
        settings.seed,
    )?;
    let choice = settings.game.choice()?;
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

    save_settings(&out, &settings)?;
    let (mut csv, done) = GamesCsv::open(&out.join("games.csv"), seats)
        .with_context(|| format!("opening {}", out.join("games.csv").display()))?;
    let all = schedule_of(&settings, seats);
    let all = match settings.shard {
        Some(shard) => shard.slice(&all),
        None => all,
    };
    let todo: Vec<_> = all
        .iter()
        .filter(|g| g.seats.iter().all(|&s| active[s]) && !done.contains(g.game_id))
        .cloned()
        .collect();
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
        &choice,
        &mut |_, _| std::ops::ControlFlow::Continue(()),
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
    let mut stdout = std::io::stdout().lock();
    standings::print(&mut stdout, &table)?;
    use std::io::Write;
    for (bot, problem) in bots.iter().zip(&problems) {
        if let Some(why) = problem {
            writeln!(stdout, "\nLeft out: {} could not play: {why}", bot.name)?;
        }
    }
    writeln!(stdout, "\nResults: {}", out.display())?;
    match report_path {
        Ok(path) => writeln!(stdout, "Report: {}", path.display())?,
        Err(e) => eprintln!(
            "arbiter: warning: report.html not written: {}",
            arbiter::report::errors::chain_text(e.as_ref())
        ),
    }
    if let Some(shard) = settings.shard {
        writeln!(
            stdout,
            "These are the games of shard {shard} alone; put the shards together with: \
             arbiter merge OUT SHARD_DIR..."
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
