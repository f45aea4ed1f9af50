//! `arbiter grade`: a class of student bots, each built (single source files compiled as the
//! arena does) and played against the baselines and the other students in the sandbox, then
//! marked by a rubric into marks.csv. Running it again into the same folder replays only the
//! games of students whose submission changed (by the hash of its files). The grading itself is
//! the library's ([`arbiter::grade`]); its files are `report::grade`'s.

use crate::cli::GradeArgs;
use anyhow::Result;
use arbiter::engine::settings::GradeSettings as Settings;
use arbiter::engine::start;
use arbiter::engine::{self, BotCheck, Context, Event, Kind, RunError};
use arbiter::grade::class::{self, ClassEntry};
use arbiter::grade::marks::{self, Student};

use arbiter::grade::rubric::Rubric;
use arbiter::grade::{self, Tally};
use arbiter::report::grade as report;
use arbiter::report::{run_display, run_start, standings};
use arbiter::results::games_csv::{DoneSet, ResultRow};
use arbiter::tournament::GameSpec;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
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
        opening_plies: args.run.opening.plies(),
        seed: args.run.seed.unwrap_or_else(crate::cli::fresh_seed),
        game,
    };
    fresh.check(args.run.opening.openings.as_deref())?;
    fresh.check_same_class(&out, args.run.seed.is_some())?;
    let opened = start::open(
        None,
        Some(&out),
        || unreachable!("the folder is given"),
        args.run.seed.is_some(),
        || Ok::<_, start::StartError>(fresh.clone()),
    )?;
    let placement = |freeze_idle| args.run.placement(freeze_idle);
    let request = engine::Request {
        opened,
        build: true,
        placement: &placement,
    };
    let mut kind = Grading {
        class: &class,
        entries: &entries,
        rubric_file: args.rubric.as_deref(),
        students: Vec::new(),
        baseline_names: Vec::new(),
        rubric: None,
        plan: None,
        seats: 0,
        tally: None,
    };
    // The tournament's report and replay pages are written as games end; the grading page
    // below then takes report.html's place and links to the replay pages.
    let mut terminal = run_display::Terminal::default();
    let ran = engine::run(request, &mut kind, &mut [&mut terminal])?;
    if let Some(code) = super::ended(ran.outcome) {
        return Ok(code);
    }
    let (settings, out, choice) = (&ran.settings, &ran.dir, &ran.choice);
    let Grading {
        students,
        baseline_names,
        rubric,
        plan,
        tally,
        ..
    } = kind;
    let (Some(rubric), Some(plan)) = (rubric, plan) else {
        unreachable!("a run that played has its rubric and plan")
    };
    let n = students.len();
    let tally = match tally {
        Some(tally) => tally,
        None => unreachable!("a run that played follows its games"),
    };
    let table = tally.finish().finish()?;
    standings::write_files(out, &table)?;
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
        &report::page::PageContext {
            title: &format!("Grading of {class_name}"),
            summary: &summary,
            out,
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
        out,
    )?;
    Ok(baseline_check(&table, &baseline_names))
}

/// A baseline that forfeits hands its opponents points they did not earn (one that could not
/// start in the box lost every game, and every student got full marks): the forfeits are
/// named and the exit status is 1, so that no script takes such marks for good ones.
fn baseline_check(
    table: &arbiter::results::standings::Standings,
    baselines: &[String],
) -> ExitCode {
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

/// A grading as a kind of run: the class's students and the baselines, each student seated
/// with the others; the standings the marks come from are tallied as games are recorded.
struct Grading<'a> {
    class: &'a Path,
    entries: &'a [ClassEntry],
    rubric_file: Option<&'a Path>,
    students: Vec<Student>,
    baseline_names: Vec<String>,
    rubric: Option<Rubric>,
    plan: Option<grade::Schedule>,
    /// Seats of a game.
    seats: usize,
    /// The standings, tallied on their own thread.
    tally: Option<engine::Detached<Tally, ResultRow>>,
}

/// A grading's own refusal (its class folder, rubric or records), for the engine.
fn refused(e: impl std::error::Error + Send + Sync + 'static) -> RunError {
    RunError::Kind(Box::new(e))
}

impl Kind for Grading<'_> {
    type Settings = Settings;
    const SAVE_FIRST: bool = true;

    /// Which submissions changed since the last run: their games are played again.
    fn before_bots(&mut self, run: &Context<'_, Settings>) -> Result<(), RunError> {
        self.students = class::students(self.class, self.entries).map_err(refused)?;
        if let Some((changed, dropped)) =
            grade::refresh(run.dir, &self.students, run.resuming).map_err(refused)?
        {
            run_start::changed_students(&changed, dropped);
        }
        Ok(())
    }

    fn bots(
        &self,
        run: &Context<'_, Settings>,
    ) -> Vec<(
        String,
        Result<arbiter::bot::BotSpec, arbiter::bot::SpecError>,
    )> {
        let s = run.settings;
        class::resolve_all(self.class, self.entries, &s.baselines, &s.workdir)
    }

    /// A student that fails is marked, a baseline that fails stops the run.
    fn check_field(
        &mut self,
        run: &Context<'_, Settings>,
        field: &mut BotCheck,
    ) -> Result<usize, RunError> {
        let n = self.students.len();
        let baseline_names = field.check_baselines(n)?;
        let rubric = match self.rubric_file {
            Some(path) => Rubric::load(path).map_err(refused)?,
            None => Rubric::default_for(&baseline_names),
        };
        rubric.check(&baseline_names).map_err(refused)?;
        start::check_baseline_count(baseline_names.len(), run.choice.seats())?;
        for (student, problem) in self.students.iter_mut().zip(&field.problems) {
            student.problem = problem.clone();
        }
        report::write_build_logs(run.dir, &self.students, &field.specs, &field.problems)?;
        self.baseline_names = baseline_names;
        self.rubric = Some(rubric);
        Ok(field.active().iter().filter(|&&a| a).count())
    }

    fn todo(
        &mut self,
        run: &Context<'_, Settings>,
        field: &BotCheck,
        done: &DoneSet,
        games_csv: &Path,
    ) -> Result<Vec<GameSpec>, RunError> {
        let (n, k) = (self.students.len(), run.choice.seats());
        let baselines = self.baseline_names.len();
        let plan = grade::schedule(run.settings, n, baselines, k, &field.active(), done);
        let todo = plan.todo.clone();
        self.plan = Some(plan);
        self.seats = k;
        let order = field.playing();
        self.tally = Some(Tally::read(games_csv, &order).map_err(refused)?.follow());
        Ok(todo)
    }
}

impl engine::Consumer for Grading<'_> {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        if let (Event::Ready(ready), Some(plan)) = (event, &self.plan) {
            run_start::grade(&run_start::GradeStart {
                dir: ready.dir,
                students: self.students.len(),
                built: plan.built,
                baselines: self.baseline_names.len(),
                per_student: plan.per_student,
                vs_baseline: plan.vs_baseline,
                seats: self.seats,
                games: ready.games,
                game: ready.game,
                placement: ready.placement,
                seed: ready.seed,
            });
            super::set_stop_hint("continue with the same command".to_string());
        }
        match &mut self.tally {
            Some(tally) => tally.event(event),
            None => ControlFlow::Continue(()),
        }
    }
}
