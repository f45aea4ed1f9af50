//! What a grading run writes and shows: the marks (marks.csv and the terminal's table,
//! [`marks`]), the class page with a folder per student ([`page`]), and each student's build
//! log under builds/, which the page shows.

pub mod marks;
pub mod page;

use crate::bot::BotSpec;
use crate::grade::marks::Student;
use std::path::Path;

/// Writes `builds/NAME.log` in `out` for every student: the build or start-up problem, else
/// the build's log (or how the bot is run when nothing was built). `bots` and `problems` are
/// the students' and may go on past them (the baselines').
pub fn write_build_logs(
    out: &Path,
    students: &[Student],
    bots: &[BotSpec],
    problems: &[Option<String>],
) -> std::io::Result<()> {
    let builds = out.join("builds");
    std::fs::create_dir_all(&builds)?;
    for ((student, spec), problem) in students.iter().zip(bots).zip(problems) {
        let log = match problem {
            Some(why) => format!("{why}\n"),
            None => std::fs::read_to_string(spec.dir.join("build.log"))
                .unwrap_or_else(|_| format!("ready to run: {}\n", spec.command_line())),
        };
        std::fs::write(builds.join(format!("{}.log", student.name)), log)?;
    }
    Ok(())
}

/// The grading page's summary line.
pub fn summary(
    games: u32,
    game: &str,
    seed: u64,
    baselines: &[String],
    students: usize,
    built: usize,
) -> String {
    format!(
        "{games} games per pairing of {game}, seed {seed}; baselines: {}; {students} students, {built} of them built.",
        baselines.join(", "),
    )
}

/// The end of a grading on `stdout`: the marks table and where marks.csv and the report are.
pub fn print_end(
    stdout: &mut impl std::io::Write,
    baselines: &[String],
    rows: &[crate::grade::marks::Row],
    maximum: f64,
    out: &Path,
) -> std::io::Result<()> {
    marks::print(stdout, baselines, rows, maximum)?;
    writeln!(
        stdout,
        "\nMarks: {}; report: {}",
        out.join("marks.csv").display(),
        out.join("report.html").display()
    )
}
