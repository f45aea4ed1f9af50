//! `arbiter grade`: a class of student bots, each built (single source files compiled as the
//! arena does) and played against the baselines and the other students in the sandbox, then
//! marked by a rubric into marks.csv. Running it again into the same folder replays only the
//! games of students whose submission changed (by the hash of its files). The grading itself is
//! the library's ([`arbiter::grade`]); its files are `report::grade`'s.

use crate::cli::GradeArgs;
use anyhow::Result;
use arbiter::engine::settings::GradeSettings as Settings;
use arbiter::engine::start::{self, Opened};
use arbiter::grade::class;
use arbiter::grade::marks;
use arbiter::grade::rubric::Rubric;
use arbiter::grade::{self, Tally};
use arbiter::report::grade as report;
use arbiter::report::run_display::{check_bots, play_and_record};
use arbiter::report::{run_start, standings};
use arbiter::results::lock::FolderLock;
use arbiter::tournament::Runner;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(args: GradeArgs) -> Result<ExitCode> {
    let class = std::path::absolute(&args.submissions)?;
    let listed = class::list_students(&class)?;
    run_start::lines(&listed.notes);
    listed.check_not_empty(&class)?;
    let entries = listed.entries;
    if args.no_sandbox {
        run_start::no_sandbox();
    }
    let class_name = class
        .file_name()
        .map_or("class".into(), |n| n.to_string_lossy().into_owned());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(format!("grade-{class_name}")));
    let mut game = args.game.settings();
    game.sandbox = !args.no_sandbox;
    let fresh = Settings {
        submissions: class.clone(),
        students: entries.iter().map(|e| e.entry.clone()).collect(),
        baselines: args.baselines.clone(),
        workdir: std::env::current_dir()?,
        games: args.games,
        tables: args.tables,
        opening_plies: args.run.opening_plies,
        seed: args.run.seed.unwrap_or_else(crate::cli::fresh_seed),
        game,
    };
    fresh.check(args.run.openings.as_deref())?;
    fresh.check_same_class(&out, args.run.seed.is_some())?;
    let Opened {
        settings,
        dir: out,
        resuming,
    } = start::open(
        None,
        Some(&out),
        || unreachable!("the folder is given"),
        args.run.seed.is_some(),
        || Ok::<_, start::StartError>(fresh.clone()),
    )?;
    let _lock = FolderLock::acquire(&out)?;
    let choice = settings.game.choice_in(Some(&settings.workdir))?;
    let k = choice.seats();
    let cfg = settings
        .game
        .referee_config_in(choice.default_max_turns(), Some(&settings.workdir))?;
    // A referee that cannot start or speak the protocol stops the run before any game.
    choice.check(&cfg)?;
    arbiter::engine::settings::save(&out, &settings)?;

    // Which submissions changed since the last run: their games are played again.
    let mut students = class::students(&class, &entries)?;
    if let Some((changed, dropped)) = grade::refresh(&out, &students, resuming)? {
        run_start::changed_students(&changed, dropped);
    }

    // Build and start-check every bot: a student that fails is marked, a baseline that fails
    // stops the run.
    let resolved = class::resolve_all(&class, &entries, &settings.baselines, &settings.workdir);
    let mut field = check_bots(resolved, &cfg, true)?;
    run_start::lines(field.mark_wrong_game(choice.name()));
    let n = students.len();
    let baseline_names = field.check_baselines(n)?;
    let rubric = match &args.rubric {
        Some(path) => Rubric::load(path)?,
        None => Rubric::default_for(&baseline_names),
    };
    rubric.check(&baseline_names)?;
    start::check_baseline_count(baseline_names.len(), k)?;
    let (bots, problems) = (&field.specs, &field.problems);
    for (student, problem) in students.iter_mut().zip(problems) {
        student.problem = problem.clone();
    }
    report::write_build_logs(&out, &students, bots, problems)?;

    let active = field.active();
    let (mut csv, done) = start::open_games(&out, k)?;
    let plan = grade::schedule(&settings, n, baseline_names.len(), k, &active, &done);
    let placement = args.run.placement(cfg.freeze_idle);
    run_start::placement(&placement);
    run_start::grade(&run_start::GradeStart {
        dir: &out,
        students: n,
        built: plan.built,
        baselines: baseline_names.len(),
        per_student: plan.per_student,
        vs_baseline: plan.vs_baseline,
        seats: k,
        games: plan.todo.len(),
        game: &choice.describe(),
        placement: &placement,
        seed: settings.seed,
    });
    arbiter::bot::cleanup::set_stop_hint("continue with the same command".to_string());
    let runner = Runner {
        bots,
        game: &choice,
        opening_plies: settings.opening_plies,
        book: None,
        referee: &cfg,
        concurrency: placement.concurrency,
        pin_cpus: placement.pin_cpus,
    };
    // The standings the marks come from are tallied as games are recorded, on their own thread.
    let order = field.playing();
    let mut tally = Tally::read(csv.path(), &order)?.follow();
    // The tournament's report and replay pages are written as games end; the grading page
    // below then takes report.html's place and links to the replay pages.
    let played = play_and_record(
        &runner,
        &plan.todo,
        &mut csv,
        &out,
        false,
        &mut |_, _| std::ops::ControlFlow::Continue(()),
        Some(&mut tally),
    )?;
    if let Some(e) = played.failure {
        return Err(e.into());
    }

    let table = tally.finish().finish()?;
    standings::write_files(&out, &table)?;
    let rows = marks::rows(&students, &baseline_names, &table, &rubric);
    report::marks::write_csv(&out.join("marks.csv"), &baseline_names, &rows)?;
    let summary = report::summary(
        settings.games,
        &choice.describe(),
        settings.seed,
        &baseline_names,
        n,
        plan.built,
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
    report::print_end(
        &mut std::io::stdout().lock(),
        &baseline_names,
        &rows,
        rubric.maximum(),
        &out,
    )?;
    Ok(baseline_check(&table, &baseline_names))
}

/// A baseline that forfeits hands its opponents points they did not earn (one that could not
/// start in the box lost every game, and every student got full marks): the forfeits are
/// named and the exit status is 1, so that no script takes such marks for good ones.
fn baseline_check(table: &arbiter::report::standings::Standings, baselines: &[String]) -> ExitCode {
    let lost: Vec<String> = table
        .forfeits
        .iter()
        .filter(|(bot, _, _)| baselines.contains(&table.names[*bot]))
        .map(|(bot, reason, n)| format!("{} forfeited {n} by {reason}", table.names[*bot]))
        .collect();
    if lost.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "arbiter: warning: baselines lost games by forfeit ({}): the marks against them count \
         wins the students did not earn. The failures/ folder and the report say why; fix the \
         baseline and grade again (exit status 1)",
        lost.join(", ")
    );
    ExitCode::from(1)
}
