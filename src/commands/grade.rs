//! `arbiter grade`: a class of student bots, each built (single source files compiled as the
//! arena does) and played against the baselines and the other students in the sandbox, then
//! marked by a rubric into marks.csv. Running it again into the same folder replays only the
//! games of students whose submission changed (by the hash of its files). The grading itself is
//! the library's ([`arbiter::grade`]); its files are `report::grade`'s.

use super::run_common::{check_bots, play_and_record};
use super::tournament::{claim_folder, settings_and_dir};
use crate::cli::GradeArgs;
use anyhow::{bail, Context, Result};
use arbiter::bot::BotSpec;
use arbiter::engine::settings::GradeSettings as Settings;
use arbiter::grade::class::{self, HASHES};
use arbiter::grade::marks;
use arbiter::grade::rubric::Rubric;
use arbiter::grade::{self, Tally};
use arbiter::report::grade as report;
use arbiter::report::standings;
use arbiter::results::games_csv::GamesCsv;
use arbiter::tournament::Runner;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(args: GradeArgs) -> Result<ExitCode> {
    let class = std::path::absolute(&args.submissions)?;
    let listed = class::list_students(&class)?;
    listed.notes.iter().for_each(|n| eprintln!("arbiter: {n}"));
    let entries = listed.entries;
    if entries.is_empty() {
        bail!("{} holds no submission (files or folders)", class.display());
    }
    if args.no_sandbox {
        eprintln!(
            "arbiter: warning: --no-sandbox: the students' bots run with your user's rights, \
             network and files"
        );
    }
    let class_name = class
        .file_name()
        .map_or("class".into(), |n| n.to_string_lossy().into_owned());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(format!("grade-{class_name}")));
    let fresh = {
        let mut game = args.game.clone();
        game.sandbox = !args.no_sandbox;
        game.check_run(args.run.opening_plies, args.run.openings.as_deref())?;
        let k = game.choice()?.seats;
        if args.games == 0 || !args.games.is_multiple_of(k as u32) {
            bail!(
                "--games must be a positive multiple of {k}, the seat count (got {})",
                args.games
            );
        }
        if args.tables == Some(0) {
            bail!("--tables must be at least 1");
        }
        Settings {
            submissions: class.clone(),
            students: entries.iter().map(|e| e.entry.clone()).collect(),
            baselines: args.baselines.clone(),
            workdir: std::env::current_dir()?,
            games: args.games,
            tables: args.tables,
            opening_plies: args.run.opening_plies,
            seed: args.run.seed.unwrap_or_else(crate::cli::fresh_seed),
            game: game.into(),
        }
    };
    fresh.check_same_class(&out, args.run.seed.is_some())?;
    let (settings, out, resuming) =
        settings_and_dir(None, Some(&out), "grade", args.run.seed.is_some(), || {
            Ok(fresh.clone())
        })?;
    let out = std::path::absolute(&out)?;
    let _lock = claim_folder(&out)?;
    let choice = settings.game.choice()?;
    let k = choice.seats;
    let cfg = settings
        .game
        .referee_config(choice.info.default_max_turns)?;
    arbiter::engine::settings::save(&out, &settings)?;

    // Which submissions changed since the last run: their games are played again.
    let mut students = class::students(&class, &entries)?;
    let changed = grade::changed(&students, &class::read_hashes(&out.join(HASHES))?);
    let games_path = out.join("games.csv");
    if resuming && !changed.is_empty() {
        let dropped = grade::forget_games_of(&out, &changed)
            .with_context(|| format!("updating {}", games_path.display()))?;
        eprintln!(
            "arbiter: changed since the last run: {}; {} of their games recorded before are played again",
            changed.join(", "),
            dropped
        );
    }
    class::write_hashes(&out.join(HASHES), &students)?;

    // Build and start-check every bot: a student that fails is marked, a baseline that fails
    // stops the run.
    let mut resolved: Vec<(String, Result<BotSpec, _>)> = entries
        .iter()
        .map(|e| (e.student.clone(), class::resolve_student(&class, e)))
        .collect();
    resolved.extend(settings.baselines.iter().map(|b| {
        (
            b.clone(),
            BotSpec::resolve_named_in(b, Some(&settings.workdir)),
        )
    }));
    let (bots, mut problems) = check_bots(resolved, &cfg, true)?;
    let wrong = arbiter::bot::spec::mark_wrong_game(&bots, &mut problems, choice.name());
    wrong.iter().for_each(|e| eprintln!("arbiter: {e}"));
    let n = students.len();
    if let Some((bot, why)) = bots[n..]
        .iter()
        .zip(&problems[n..])
        .find_map(|(b, p)| p.as_ref().map(|p| (b, p)))
    {
        bail!("the baseline '{}' cannot play: {why}", bot.name);
    }
    let baseline_names: Vec<String> = bots[n..].iter().map(|b| b.name.clone()).collect();
    let rubric = match &args.rubric {
        Some(path) => Rubric::load(path)?,
        None => Rubric::default_for(&baseline_names),
    };
    rubric.check(&baseline_names)?;
    if baseline_names.len() + 1 < k {
        bail!(
            "games of {k} seats need {} or more baselines, to seat each student with baselines only",
            k - 1
        );
    }
    for (student, problem) in students.iter_mut().zip(&problems) {
        student.problem = problem.clone();
    }
    report::write_build_logs(&out, &students, &bots, &problems)?;

    let active: Vec<bool> = problems.iter().map(Option::is_none).collect();
    let (mut csv, done) = GamesCsv::open(&games_path, k)
        .with_context(|| format!("opening {}", games_path.display()))?;
    let plan = grade::schedule(&settings, n, baseline_names.len(), k, &active, &done);
    let placement = super::tournament::placement(&args.run, cfg.freeze_idle);
    eprintln!(
        "arbiter: {n} students ({} build), {} baselines; each student plays {} games ({} against \
         each baseline): a rating interval of about ±{:.0} Elo at 95% for an even score, and a \
         score against a baseline known to about ±{:.0} percentage points",
        plan.built,
        baseline_names.len(),
        plan.per_student,
        plan.vs_baseline,
        grade::elo_half_width((plan.per_student * (k - 1)) as f64),
        98.0 / (plan.vs_baseline.max(1) as f64).sqrt(),
    );
    eprintln!(
        "arbiter: {} games of {} to play, {}, seed {}, results in {}",
        plan.todo.len(),
        choice.describe(),
        placement.describe(),
        settings.seed,
        out.display()
    );
    arbiter::bot::cleanup::set_stop_hint("continue with the same command".to_string());
    let runner = Runner {
        bots: &bots,
        game: &choice,
        opening_plies: settings.opening_plies,
        book: None,
        referee: &cfg,
        concurrency: placement.concurrency,
        pin_cpus: placement.pin_cpus,
    };
    // The standings the marks come from are tallied as games are recorded, on their own thread.
    let order: Vec<String> = bots
        .iter()
        .zip(&active)
        .filter(|(_, a)| **a)
        .map(|(b, _)| b.name.clone())
        .collect();
    let mut tally = Tally::read(&games_path, &order)?.follow();
    // The tournament's report and replay pages are written as games end; the grading page
    // below then takes report.html's place and links to the replay pages.
    let (failure, _) = play_and_record(
        &runner,
        &plan.todo,
        &mut csv,
        &out,
        false,
        &mut |_, _| std::ops::ControlFlow::Continue(()),
        Some(&mut tally),
    )?;
    if let Some(e) = failure {
        return Err(e);
    }

    let table = tally.finish().finish()?;
    standings::write_files(&out, &table)?;
    let rows = marks::rows(&students, &baseline_names, &table, &rubric);
    report::marks::write_csv(&out.join("marks.csv"), &baseline_names, &rows)?;
    let summary = format!(
        "{} games per pairing of {}, seed {}; baselines: {}; {} students, {} of them built.",
        settings.games,
        choice.describe(),
        settings.seed,
        baseline_names.join(", "),
        n,
        plan.built
    );
    report::page::write(
        &report::page::Context {
            title: &format!("Grading of {class_name}"),
            summary: &summary,
            out: &out,
            baselines: &baseline_names,
            maximum: rubric.maximum(),
            class: &class,
            sources: &entries
                .iter()
                .map(|e| report::page::shown(&class, &e.entry))
                .collect::<Vec<_>>(),
        },
        &students,
        &rows,
        &table,
    )?;
    let mut stdout = std::io::stdout().lock();
    report::marks::print(&mut stdout, &baseline_names, &rows, rubric.maximum())?;
    use std::io::Write;
    writeln!(
        stdout,
        "\nMarks: {}; report: {}",
        out.join("marks.csv").display(),
        out.join("report.html").display()
    )?;
    Ok(ExitCode::SUCCESS)
}
