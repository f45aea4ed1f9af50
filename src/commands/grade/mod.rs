//! `arbiter grade`: a class of student bots, each built (single source files compiled as the
//! arena does) and played against the baselines and the other students in the sandbox, then
//! marked by a rubric into marks.csv. Running it again into the same folder replays only the
//! games of students whose submission changed (by the hash of its files).

mod class;
mod marks;
mod page;
mod rubric;

use super::run_common::{check_bots, play_and_record};
use super::tournament::{claim_folder, settings_and_dir};
use crate::cli::{GameOpts, GradeArgs};
use anyhow::{bail, Context, Result};
use arbiter::bot::BotSpec;
use arbiter::engine::settings::Recorded;
use arbiter::report::standings;
use arbiter::results::failures;
use arbiter::results::games_csv::{self, GamesCsv};
use arbiter::tournament::{games_of_tables, tables, Format, Plan, Runner};
use class::{list_students, read_hashes, resolve_student, submission_hash, write_hashes, HASHES};
use marks::Student;
use rubric::Rubric;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What decides a grading run's games; saved as grade.toml. Not the rubric (marks can change
/// without replaying) and not the submissions' contents (those are tracked by hash).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The class folder.
    pub submissions: PathBuf,
    /// Its entries, one per student, by file or folder name.
    pub students: Vec<String>,
    /// The BOT arguments of the baselines, as typed.
    pub baselines: Vec<String>,
    /// Where they were typed (relative baseline paths are resolved from here).
    pub workdir: PathBuf,
    pub games: u32,
    #[serde(default)]
    pub tables: Option<usize>,
    pub opening_plies: u32,
    pub seed: u64,
    pub game: arbiter::engine::GameSettings,
}

impl Recorded for Settings {
    const FILE: &'static str = "grade.toml";
    fn seed_mut(&mut self) -> &mut u64 {
        &mut self.seed
    }
}

/// The tables of a grading run with `students` students (bots `0..students`) and `baselines`
/// baselines (bots after them) in games of `seats`: every student with every set of `seats - 1`
/// baselines, then every table of `seats` students (or `sample` tables drawn as tournaments
/// draw them).
fn grade_tables(
    students: usize,
    baselines: usize,
    seats: usize,
    sample: Option<usize>,
    seed: u64,
) -> Vec<Vec<usize>> {
    let plan = |bots, format, tables| Plan {
        bots,
        seats,
        format,
        games_per_table: seats as u32,
        tables,
        master_seed: seed,
    };
    let with_baselines = tables(&plan(1 + baselines, Format::Gauntlet, None));
    let mut out = Vec::new();
    for s in 0..students {
        for t in &with_baselines {
            out.push(
                t.iter()
                    .map(|&i| if i == 0 { s } else { students + i - 1 })
                    .collect(),
            );
        }
    }
    out.extend(tables(&plan(students, Format::RoundRobin, sample)));
    out
}

/// The 95% half-width, in Elo, of a rating from `games` results at an even score (draws only
/// narrow it): 1.96 x 0.5 / sqrt(n) in score, times the Elo curve's slope at 50%, 1600 / ln 10.
fn elo_half_width(games: f64) -> f64 {
    1.96 * 0.5 / games.sqrt() * 1600.0 / std::f64::consts::LN_10
}

/// A results folder graded for other students than `new` cannot be continued: game ids follow
/// the list of students.
fn check_same_class(out: &Path, new: &Settings, seed_given: bool) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(out.join(Settings::FILE)) else {
        return Ok(());
    };
    let Ok(old) = toml::from_str::<Settings>(&text) else {
        return Ok(()); // the shared check reports a damaged file
    };
    let added: Vec<&str> = new
        .students
        .iter()
        .filter(|s| !old.students.contains(s))
        .map(String::as_str)
        .collect();
    let removed: Vec<&str> = old
        .students
        .iter()
        .filter(|s| !new.students.contains(s))
        .map(String::as_str)
        .collect();
    if !added.is_empty() || !removed.is_empty() {
        bail!(
            "{} holds the grading of other students (added: {}; removed: {}); grade into \
             another --out, or delete that folder to grade the class afresh",
            out.display(),
            if added.is_empty() {
                "none".into()
            } else {
                added.join(", ")
            },
            if removed.is_empty() {
                "none".into()
            } else {
                removed.join(", ")
            },
        );
    }
    let mut compared = new.clone();
    if !seed_given {
        compared.seed = old.seed;
    }
    if compared != old {
        bail!(
            "{} holds a grading of this class with other settings (baselines, game, clocks, \
             --games, --tables, --seed or the sandbox; see its {}); run with the same options to \
             continue it, or grade into another --out",
            out.display(),
            Settings::FILE
        );
    }
    Ok(())
}

pub fn run(args: GradeArgs) -> Result<ExitCode> {
    let class = std::path::absolute(&args.submissions)?;
    let entries = list_students(&class)?;
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
    check_same_class(&out, &fresh, args.run.seed.is_some())?;
    let (settings, out, resuming) =
        settings_and_dir(None, Some(&out), "grade", args.run.seed.is_some(), || {
            Ok(fresh.clone())
        })?;
    let out = std::path::absolute(&out)?;
    let _lock = claim_folder(&out)?;
    let choice = GameOpts::from(&settings.game).choice()?;
    let k = choice.seats;
    let cfg = GameOpts::from(&settings.game).referee_config(choice.info.default_max_turns)?;
    arbiter::engine::settings::save(&out, &settings)?;

    // Which submissions changed since the last run: their games are played again.
    let mut students: Vec<Student> = entries
        .iter()
        .map(|e| {
            Ok(Student {
                name: e.student.clone(),
                hash: match &e.problem {
                    Some(p) => arbiter::bot::source::hash_hex(p.as_bytes()),
                    None => submission_hash(&class.join(&e.entry))?,
                },
                problem: None,
            })
        })
        .collect::<Result<_>>()?;
    let before = read_hashes(&out.join(HASHES))?;
    let changed: Vec<String> = students
        .iter()
        .filter(|s| !before.iter().any(|(n, h)| *n == s.name && *h == s.hash))
        .map(|s| s.name.clone())
        .collect();
    let games_path = out.join("games.csv");
    if resuming && !changed.is_empty() {
        let dropped = games_csv::drop_games_of(&games_path, &changed)
            .with_context(|| format!("updating {}", games_path.display()))?;
        for (id, bots) in &dropped {
            for bot in bots {
                let _ = std::fs::remove_file(failures::path(&out, *id, bot));
            }
        }
        eprintln!(
            "arbiter: changed since the last run: {}; {} of their games recorded before are played again",
            changed.join(", "),
            dropped.len()
        );
    }
    write_hashes(&out.join(HASHES), &students)?;

    // Build and start-check every bot: a student that fails is marked, a baseline that fails
    // stops the run.
    let mut resolved: Vec<(String, Result<BotSpec, _>)> = entries
        .iter()
        .map(|e| (e.student.clone(), resolve_student(&class, e)))
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
    let builds = out.join("builds");
    std::fs::create_dir_all(&builds)?;
    for ((student, spec), problem) in students.iter_mut().zip(&bots).zip(&problems) {
        student.problem = problem.clone();
        let log = match problem {
            Some(why) => format!("{why}\n"),
            None => std::fs::read_to_string(spec.dir.join("build.log"))
                .unwrap_or_else(|_| format!("ready to run: {}\n", spec.command_line())),
        };
        std::fs::write(builds.join(format!("{}.log", student.name)), log)?;
    }

    let active: Vec<bool> = problems.iter().map(Option::is_none).collect();
    let (mut csv, done) = GamesCsv::open(&games_path, k)
        .with_context(|| format!("opening {}", games_path.display()))?;
    let tables = grade_tables(n, baseline_names.len(), k, settings.tables, settings.seed);
    let all = games_of_tables(&tables, k, settings.games, settings.seed);
    let todo: Vec<_> = all
        .iter()
        .filter(|g| g.seats.iter().all(|&s| active[s]) && !done.contains(g.game_id))
        .cloned()
        .collect();
    // Seats taken by students that build over their number, in the games that can be played:
    // the games of an average student.
    let playable = || all.iter().filter(|g| g.seats.iter().all(|&s| active[s]));
    let built = active[..n].iter().filter(|&&a| a).count();
    let per_student = playable()
        .map(|g| g.seats.iter().filter(|&&s| s < n).count())
        .sum::<usize>()
        / built.max(1);
    let vs_baseline = all
        .iter()
        .filter(|g| g.seats.contains(&0) && g.seats.contains(&n))
        .count();
    let placement = super::tournament::placement(&args.run, cfg.freeze_idle);
    eprintln!(
        "arbiter: {n} students ({} build), {} baselines; each student plays {} games ({} against \
         each baseline): a rating interval of about ±{:.0} Elo at 95% for an even score, and a \
         score against a baseline known to about ±{:.0} percentage points",
        built,
        baseline_names.len(),
        per_student,
        vs_baseline,
        elo_half_width((per_student * (k - 1)) as f64),
        98.0 / (vs_baseline.max(1) as f64).sqrt(),
    );
    eprintln!(
        "arbiter: {} games of {} to play, {}, seed {}, results in {}",
        todo.len(),
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
    // The tournament's report and replay pages are written as games end; the grading page
    // below then takes report.html's place and links to the replay pages.
    let (failure, _) = play_and_record(
        &runner,
        &todo,
        &mut csv,
        &out,
        false,
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
    let (table, _) = standings::from_files(&[games_path], &order, None)?;
    standings::write_files(&out, &table)?;
    let rows = marks::rows(&students, &baseline_names, &table, &rubric);
    marks::write_csv(&out.join("marks.csv"), &baseline_names, &rows)?;
    let summary = format!(
        "{} games per pairing of {}, seed {}; baselines: {}; {} students, {} of them built.",
        settings.games,
        choice.describe(),
        settings.seed,
        baseline_names.join(", "),
        n,
        active[..n].iter().filter(|&&a| a).count()
    );
    page::write(
        &page::Context {
            title: &format!("Grading of {class_name}"),
            summary: &summary,
            out: &out,
            baselines: &baseline_names,
            maximum: rubric.maximum(),
            class: &class,
            sources: &entries
                .iter()
                .map(|e| page::shown(&class, &e.entry))
                .collect::<Vec<_>>(),
        },
        &students,
        &rows,
        &table,
    )?;
    let mut stdout = std::io::stdout().lock();
    marks::print(&mut stdout, &baseline_names, &rows, rubric.maximum())?;
    use std::io::Write;
    writeln!(
        stdout,
        "\nMarks: {}; report: {}",
        out.join("marks.csv").display(),
        out.join("report.html").display()
    )?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_student_meets_every_baseline_and_every_other_student() {
        let t = grade_tables(3, 2, 2, None, 1);
        // 3 students x 2 baselines, then the 3 pairs of students.
        assert_eq!(t.len(), 6 + 3);
        for s in 0..3 {
            for b in 3..5 {
                assert!(t.iter().any(|x| x.contains(&s) && x.contains(&b)));
            }
        }
        assert!(t[6..].iter().all(|x| x.iter().all(|&i| i < 3)));
        let sampled = grade_tables(30, 1, 2, Some(45), 1);
        assert_eq!(sampled.len(), 30 + 45);
        // Four seats and three baselines: each student sits with all three.
        let four = grade_tables(5, 3, 4, None, 1);
        assert_eq!(four.len(), 5 + 5);
        assert_eq!(four[0], vec![0, 5, 6, 7]);
    }

    #[test]
    fn the_interval_narrows_with_the_square_root_of_the_games() {
        assert!((elo_half_width(100.0) - 68.1).abs() < 0.1);
        assert!((elo_half_width(400.0) - 34.0).abs() < 0.1);
    }
}
